"""docs/cli.md, the command reference, written from the command tree itself.

    python -m studio.cli.reference > docs/cli.md        (what `make docs` runs)

Every command and group of `studio`, in the order of `studio --help`, with its help, its
arguments and options (type or choices, default, help) and example command lines. Only the
examples are written by hand: `reference_examples.EXAMPLES`, keyed by the command's path. tests/cli/test_reference.py
fails when docs/cli.md is not what this module writes now and when a command has no example, so a
command added or changed without `make docs` shows up at once.
"""

from __future__ import annotations

import re
import sys
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from studio.cli.app import app
from studio.cli.reference_examples import EXAMPLES

Command = TyperCommand | TyperGroup


PREAMBLE = """\
`studio [--db PATH] [--wait SECONDS] COMMAND …`. The project file is `--db`, else `$STUDIO_DB`,
else `studio.duckdb` in the current folder, created when missing (only `studio demo` builds its
own, in the user data folder). Results go to stdout, messages and progress to stderr. Commands
that print results take `--format table|json|csv|tsv` ([formats.md](formats.md) has the JSON);
a table never drops a column or cuts a value: piped it prints at full width, on a terminal long
values wrap within their column. Exit codes: 0 ok, 1 runtime error, 2 bad usage or bad input
(the message names the file, the line and what is wrong; the project file is left as it was).
Output is written as Unix tools write it: `--out -` and `--out /dev/stdout` are stdout; a FIFO or
a device (`/dev/null`) is written in place, a regular file (a symlink's target too) replaced
whole through a temporary file beside it; a full disk or an I/O error is one line on stderr and
exit 1, with no file half-written; a reader that closed stdout's pipe (`studio list | head -1`)
ends the command quietly with exit 141, as SIGPIPE ends `cat`. Several studio processes can work
on one project at once ([project.md](project.md))."""

TYPE_NAMES = {str: "text", int: "integer", float: "number", bool: "flag", Path: "path"}
CODE_SPAN = re.compile(r"(`[^`]*`)")


def commands(command: Command, path: str = "studio") -> list[tuple[str, Command]]:
    """Every command and group under `command` (itself first), as `studio --help` orders them."""
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        if not isinstance(sub, TyperCommand | TyperGroup):
            raise TypeError(f"{path} {name} is not a typer command: {type(sub).__name__}")
        found += commands(sub, f"{path} {name}")
    return found


def command_tree() -> TyperGroup:
    """The click tree of the `studio` app."""
    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    return root


def prose(text: str) -> str:
    """Help text as Markdown: `<` and `*` outside code spans escaped so they show as written."""
    parts = CODE_SPAN.split(text)
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;").replace("*", r"\*")
    return "".join(parts)


def paragraphs(text: str | None) -> list[str]:
    """A docstring's paragraphs, each on one line (docstrings are wrapped at the source's width)."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text or "") if p.strip()]


def cell(text: str) -> str:
    """A table cell: one line, `|` escaped (also inside code spans, as tables require)."""
    return " ".join(text.split()).replace("|", r"\|")


def number(value: float) -> str:
    return f"{value:g}"


def value_text(value: Any) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, float):
        return number(value)
    return str(value)


def parameter_name(param: TyperArgument | TyperOption) -> str:
    if isinstance(param, TyperOption):
        return ", ".join(f"`{name}`" for name in [*param.opts, *param.secondary_opts])
    return f"`{param.metavar or (param.name or '').upper()}{'…' if param.nargs == -1 else ''}`"


def parameter_type(param: TyperArgument | TyperOption) -> str:
    """Choices, or the value's type with its range; whether it repeats."""
    descriptor = param.type_descriptor
    annotation: Any = descriptor.annotation
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) is tuple:  # an option taking several values at once, e.g. --pair A B
        text = " ".join(TYPE_NAMES.get(item, item.__name__) for item in get_args(annotation))
    elif descriptor.choices:
        text = " | ".join(f"`{value_text(c)}`" for c in descriptor.choices)
    elif isinstance(param, TyperOption) and param.is_flag:
        text = "flag"
    else:
        text = TYPE_NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))
    low: float | None = getattr(param, "min", None)
    high: float | None = getattr(param, "max", None)
    if low is not None and high is not None:
        text += f" {number(low)}–{number(high)}"
    elif low is not None:
        text += f" ≥ {number(low)}"
    elif high is not None:
        text += f" ≤ {number(high)}"
    if isinstance(param, TyperOption) and param.multiple:
        text += ", repeatable"
    elif param.nargs == -1:
        text += ", one or more" if param.required else ", any number"
    return text


def parameter_default(param: TyperArgument | TyperOption) -> str:
    if param.required:
        return "required"
    default = param.default
    if isinstance(param, TyperOption) and param.is_flag:
        if param.secondary_opts:
            return f"`{(param.opts if default else param.secondary_opts)[0]}`"
        return "on" if default else "off"
    if callable(default):
        return "computed"
    if default is None or (isinstance(default, list | tuple) and not default):
        return "—"
    values = default if isinstance(default, list | tuple) else [default]
    return ", ".join(f"`{value_text(v)}`" for v in values)


def parameter_help(param: TyperArgument | TyperOption) -> str:
    text = prose(" ".join(paragraphs(param.help)))
    if isinstance(param.envvar, str):
        text += f" Env: `{param.envvar}`."
    if param.hidden:
        text += " *(hidden from `--help`)*"
    return text.strip()


def parameter_table(command: Command) -> list[str]:
    rows = ["| argument or option | type | default | what it sets |", "|---|---|---|---|"]
    for param in command.params:
        if not isinstance(param, TyperArgument | TyperOption):
            raise TypeError(f"{param!r} is not a typer parameter")
        fields = (parameter_name(param), parameter_type(param), parameter_default(param), parameter_help(param))
        rows.append("| " + " | ".join(cell(f) for f in fields) + " |")
    return rows if len(rows) > 2 else []


def anchor(path: str) -> str:
    """The heading's anchor as GitHub and most renderers make it: `studio judges export-batch`."""
    return path.replace(" ", "-")


def section(path: str, command: Command) -> list[str]:
    lines = [f"## {path}", ""]
    lines += [p for para in paragraphs(command.help) for p in (prose(para), "")]
    if command.hidden:
        lines += ["*Hidden from `studio --help`.*", ""]
    if isinstance(command, TyperGroup) and command.commands:
        subs = ", ".join(f"[{name}](#{anchor(f'{path} {name}')})" for name in command.commands)
        lines += [f"Commands: {subs}.", ""]
    table = parameter_table(command)
    lines += [*table, ""] if table else []
    examples = EXAMPLES.get(path, [])
    if examples:
        lines += ["```sh", *examples, "```", ""]
    return lines


def reference(root: Command | None = None) -> str:
    """docs/cli.md: the preamble, an index of every command and a section per command."""
    found = commands(root or command_tree())
    lines = ["# Command reference", ""]
    lines += [
        "<!-- Written by `make docs` (python -m studio.cli.reference > docs/cli.md) from the command tree:",
        "     change the commands' help, or the examples in studio/cli/reference_examples.py, then run it. -->",
        "",
        PREAMBLE,
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    lines += [
        f"| [{path}](#{anchor(path)}) | {cell(prose((paragraphs(command.help) or [''])[0]))} |"
        for path, command in found
    ]
    lines.append("")
    for path, command in found:
        lines += section(path, command)
    return "\n".join(lines).rstrip("\n") + "\n"


def main() -> None:
    # UTF-8 whatever the locale: the help texts hold τ, κ and ≥.
    sys.stdout.buffer.write(reference().encode("utf-8"))


if __name__ == "__main__":
    main()
