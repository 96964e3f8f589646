"""`studio …` command lines as the docs write them, and parsing them against the command tree.

How the docs' notation becomes command lines:
* `$ ` before a line is a prompt, `VAR=value` before `studio` sets the environment, `> FILE`
  after it redirects, `# …` after it is a comment: left out. A line ending in `\\` goes on.
* `[--option value]` is an optional part: kept, so its option is checked too.
* `name[-suffix]` inside a word stands for both words; `a|b|c` for each alternative: every
  combination is checked.
* Placeholders in capitals (ITEM, Q, M, FOLDER) are ordinary values and parse as written.
* A command line still holding `…` abbreviates what it omits and cannot be parsed as written:
  `expand` refuses it.
"""

from __future__ import annotations

import itertools
import re
import shlex
from typing import Any

import typer

from studio.cli.app import app

ENVIRONMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
INNER_OPTIONAL = re.compile(r"^(.*?)\[([^\[\]]+)\](.*)$")
COMMAND_LINE = re.compile(r"^([A-Z_][A-Z0-9_]*=\S*\s+)*studio(\s|$)")


def code_blocks(text: str) -> list[str]:
    """The lines of every fenced code block, continuation lines (`\\` at the end) joined."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    lines: list[str] = []
    for block in blocks:
        lines += block.replace("\\\n", " ").splitlines()
    return lines


def written_commands(text: str) -> list[str]:
    """Every `studio …` command line of a Markdown text: the lines of its code blocks. (Prose and
    tables name commands in passing, `studio check`, without the arguments they need.)"""
    lines = [line.strip().removeprefix("$ ").split("#", 1)[0].strip() for line in code_blocks(text)]
    return [c for c in lines if COMMAND_LINE.match(c)]


def word_variants(word: str) -> list[str]:
    """`a|b` -> a, b; `nugget-all[-strict]` -> nugget-all, nugget-all-strict."""
    variants: list[str] = []
    for alternative in word.split("|"):
        found = INNER_OPTIONAL.match(alternative)
        variants += [found[1] + found[3], found[1] + found[2] + found[3]] if found else [alternative]
    return variants


def expand(command: str) -> list[list[str]]:
    """The argument lists (after `studio`) one written command line stands for."""
    words = [w for w in shlex.split(command) if not ENVIRONMENT.match(w)]
    if ">" in words:  # a shell redirection of the output is the shell's, not the command's
        words = words[: words.index(">")]
    assert words[0] == "studio", command
    assert not any("…" in w for w in words), f"abbreviated: expand it or list it in ABBREVIATED: {command}"
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
        if not rest and context.command.invoke_without_command:  # a group that is a command too
            break
        name, command, rest = context.command.resolve_command(context, rest)
        context = command.make_context(name, rest, parent=context, resilient_parsing=False)
    return context
