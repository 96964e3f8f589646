"""Every `studio …` command line README.md shows — in the command table and in code blocks — still
parses as written: each is resolved against the command line's click command and its arguments
parsed (choices, required options, types), without running it. An unknown command or option, a
bad choice or a missing argument fails here.

How README's notation becomes command lines:
* `VAR=value` before `studio` sets the environment, `> FILE` after it redirects: left out.
* `[--option value]` is an optional part: kept, so its option is checked too.
* `name[-suffix]` inside a word stands for both words; `a|b|c` (written `a\\|b\\|c` in the table)
  for each alternative: every combination is checked.
* Placeholders in capitals (ITEM, Q, M, FOLDER) are ordinary values and parse as written.
* A command line still holding `…` abbreviates what it omits and cannot be parsed as written; the
  test fails on one until it is expanded in README or listed in ABBREVIATED with the reason.
"""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer

from studio.cli.app import app

README = Path(__file__).resolve().parents[2] / "README.md"
CODE_SPAN = re.compile(r"`([^`]+)`")
ENVIRONMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
INNER_OPTIONAL = re.compile(r"^(.*?)\[([^\[\]]+)\](.*)$")

# README command lines that abbreviate (`…`) and why they are not parsed; none today.
ABBREVIATED: dict[str, str] = {}


def command_table(text: str) -> list[str]:
    """The rows of the table under "## Command line" (the one headed `| command | example |`)."""
    section = text.split("\n## Command line\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    start = lines.index("| command | example |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def code_blocks(text: str) -> list[str]:
    """The lines of every fenced code block."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    return [line for block in blocks for line in block.splitlines()]


def written_commands(text: str) -> list[str]:
    """Every `studio …` command line: code spans of the command table, lines of code blocks."""
    spans = [span.replace("\\|", "|") for row in command_table(text) for span in CODE_SPAN.findall(row)]
    lines = [line.split("#", 1)[0].strip() for line in code_blocks(text)]
    return [c for c in spans + lines if re.match(r"^([A-Z_][A-Z0-9_]*=\S*\s+)*studio(\s|$)", c)]


def word_variants(word: str) -> list[str]:
    """`a|b` -> a, b; `nugget-all[-strict]` -> nugget-all, nugget-all-strict."""
    variants: list[str] = []
    for alternative in word.split("|"):
        found = INNER_OPTIONAL.match(alternative)
        variants += [found[1] + found[3], found[1] + found[2] + found[3]] if found else [alternative]
    return variants


def expand(command: str) -> list[list[str]]:
    """The argument lists (after `studio`) one README command line stands for."""
    words = [w for w in shlex.split(command) if not ENVIRONMENT.match(w)]
    if ">" in words:  # a shell redirection of the output is the shell's, not the command's
        words = words[: words.index(">")]
    assert words[0] == "studio", command
    assert not any("…" in w for w in words), f"abbreviated: expand it in README or list it in ABBREVIATED: {command}"
    kept = []
    for word in words[1:]:
        # A whole optional group `[--topic Q]` arrives as the words "[--topic" and "Q]".
        if word.startswith("["):
            word = word[1:]
        if word.endswith("]") and "[" not in word:
            word = word[:-1]
        kept.append(word_variants(word))
    return [list(choice) for choice in itertools.product(*kept)]


def parse(args: list[str]) -> Any:
    """Resolve `studio ARGS` down to its command and parse its arguments, invoking nothing."""
    command: Any = typer.main.get_command(app)
    context = command.make_context("studio", list(args), resilient_parsing=False)
    while hasattr(context.command, "resolve_command"):
        # A group keeps the subcommand and its arguments back from its own parse (click's
        # protected arguments, `_protected_args` in typer's vendored click).
        rest = [*context._protected_args, *context.args]
        name, command, rest = context.command.resolve_command(context, rest)
        context = command.make_context(name, rest, parent=context, resilient_parsing=False)
    return context


README_TEXT = README.read_text(encoding="utf-8")
COMMANDS = written_commands(README_TEXT)


def test_readme_shows_command_lines() -> None:
    """The extraction finds them (an edit of the table's layout must not empty this test)."""
    assert len(COMMANDS) > 50
    assert any(c.startswith("studio judges export-batch") for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_readme_command_line_parses(command: str) -> None:
    if command in ABBREVIATED:
        pytest.skip(ABBREVIATED[command])
    for args in expand(command):
        try:
            context = parse(args)
        except typer.TyperException as error:  # click's usage errors: no such option, bad choice, …
            pytest.fail(f"{command!r} as {shlex.join(args)!r}: {error}")
        assert not hasattr(context.command, "resolve_command"), f"{command!r} names a group, not a command"


# -- the test's own machinery ---------------------------------------------------------------------


def test_notation_expands_to_every_combination() -> None:
    assert expand("OPENAI_API_KEY=… studio list topics|docs -f json") == [
        ["list", "topics", "-f", "json"],
        ["list", "docs", "-f", "json"],
    ]
    assert expand("studio derive --score exam-max|nugget-all[-strict] [--topic Q]") == [
        ["derive", "--score", "exam-max", "--topic", "Q"],
        ["derive", "--score", "nugget-all", "--topic", "Q"],
        ["derive", "--score", "nugget-all-strict", "--topic", "Q"],
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["list", "topicz"],  # a bad choice
        ["judges", "failures"],  # a missing argument
        ["eval", "--qrels", "human", "--measures", "AP"],  # an unknown option
        ["judge", "--method", "umbrella"],  # a bad choice of an option
        ["evaluate", "--qrels", "human"],  # an unknown command
        ["fd"],  # a missing required option
    ],
)
def test_the_parser_refuses_what_the_command_line_refuses(args: list[str]) -> None:
    with pytest.raises(typer.TyperException):
        parse(args)


def test_an_abbreviated_command_line_is_not_guessed() -> None:
    with pytest.raises(AssertionError, match="abbreviated"):
        expand("studio judge … --export-batch pending.jsonl")
