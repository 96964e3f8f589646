"""docs/cli.md is the command reference `studio.cli.reference` writes from the command tree now,
and every command in it has an example that runs that very command.

After adding or changing a command (its help, an argument, an option), regenerate the file:
    make docs        (python -m studio.cli.reference > docs/cli.md)
"""

from __future__ import annotations

import difflib
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import pytest
import typer
from cli.command_lines import expand, parse
from typer.core import TyperGroup

from studio.cli import reference
from studio.cli.reference import command_tree, commands
from studio.cli.reference_examples import EXAMPLES

CLI_REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_docs_cli_md_is_what_the_generator_writes_now() -> None:
    written = CLI_REFERENCE.read_text(encoding="utf-8")
    expected = reference.reference()
    diff = list(difflib.unified_diff(written.splitlines(), expected.splitlines(), "docs/cli.md", "generated", n=1))
    assert not diff, "docs/cli.md is out of date: run `make docs`\n" + "\n".join(diff[:40])


def test_every_command_has_an_example() -> None:
    missing = [path for path, command in commands(command_tree()) if not isinstance(command, TyperGroup)]
    missing = [path for path in missing if not EXAMPLES.get(path)]
    assert not missing, f"add examples to studio/cli/reference.py EXAMPLES for: {missing}"


def test_every_example_is_of_a_command_that_exists() -> None:
    paths = {path for path, _ in commands(command_tree())}
    assert not set(EXAMPLES) - paths, "examples of commands that are gone"


@pytest.mark.parametrize(("path", "line"), [(path, line) for path, lines in EXAMPLES.items() for line in lines])
def test_an_example_runs_the_command_it_is_listed_under(path: str, line: str) -> None:
    for args in expand(line.split("#", 1)[0]):
        context = parse(args)
        if path == "studio":  # the global options, shown with any command
            assert context.command_path.startswith("studio ")
        else:
            assert context.command_path == path, f"{line!r} runs {context.command_path}"


# -- the generator on a command tree of its own ---------------------------------------------------


class Colour(StrEnum):
    red = "red"
    blue = "blue"


toy = typer.Typer(name="studio", add_completion=False)
paint = typer.Typer(name="paint", help="Paint things.")
toy.add_typer(paint)


@paint.command()
def wall(
    walls: Annotated[list[Path], typer.Argument(help="Walls to paint.")],
    colour: Annotated[Colour, typer.Option(help="Which colour, e.g. red|blue.")] = Colour.red,
    coats: Annotated[int, typer.Option(min=1, max=3, help="Coats of paint.")] = 2,
    room: Annotated[list[str] | None, typer.Option("--room", help="Only these rooms <ROOM>.")] = None,
    dry: Annotated[bool, typer.Option("--dry", help="Wait for it to dry.")] = False,
    who: Annotated[str, typer.Option(envvar="PAINTER", help="Who paints.")] = "me",
    legacy: Annotated[bool, typer.Option("--legacy", hidden=True)] = False,
) -> None:
    """Paint walls.

    Several at once,
    all the same colour."""


@paint.command()
def door(name: Annotated[str, typer.Argument(help="The door.")]) -> None:
    """Paint a door."""


def toy_reference(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(reference, "EXAMPLES", {"studio paint wall": ["studio paint wall north --coats 3"]})
    root = typer.main.get_command(toy)
    assert isinstance(root, TyperGroup)
    return reference.reference(root)


def test_the_generator_writes_every_command_with_its_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    text = toy_reference(monkeypatch)
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## studio",
        "## studio paint",
        "## studio paint wall",
        "## studio paint door",
    ]
    assert "| [studio paint wall](#studio-paint-wall) | Paint walls. |" in text
    assert "Several at once, all the same colour." in text  # a paragraph of the help, on one line
    assert "Commands: [wall](#studio-paint-wall), [door](#studio-paint-door)." in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows == [
        "| `WALLS…` | path, one or more | required | Walls to paint. |",
        r"| `--colour` | `red` \| `blue` | `red` | Which colour, e.g. red\|blue. |",
        "| `--coats` | integer 1–3 | `2` | Coats of paint. |",
        "| `--room` | text, repeatable | — | Only these rooms &lt;ROOM&gt;. |",
        "| `--dry` | flag | off | Wait for it to dry. |",
        "| `--who` | text | `me` | Who paints. Env: `PAINTER`. |",
        "| `--legacy` | flag | off | *(hidden from `--help`)* |",
        "| `NAME` | text | required | The door. |",
    ]


def test_examples_follow_their_command_and_a_command_without_one_still_appears(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = toy_reference(monkeypatch)
    wall_section = text.split("## studio paint wall\n", 1)[1].split("\n## ", 1)[0]
    assert "```sh\nstudio paint wall north --coats 3\n```" in wall_section
    door_section = text.split("## studio paint door\n", 1)[1]
    assert "Paint a door." in door_section and "```" not in door_section
