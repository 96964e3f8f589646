"""The shared options (`--format`, `--measure`, `--qrels`, `--ref`, `--seed`, `--llm-relevant`,
`--relevant`, `--topic`, `--topics-file`, `--topics`) are declared once, in studio/cli/options.py: no
other module of the command line writes its own `typer.Option(...)` for them (read statically, so a
command not yet registered counts too), every command's option carries the one help text of its
kind, and a grade option reads its value with the one grade parser in every command."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest
from typer.core import TyperOption
from typer.testing import CliRunner

from studio.cli.app import app
from studio.cli.grades import grade
from studio.cli.options import (
    LLM_RELEVANT_HELP,
    FormatOption,
    MeasureOption,
    MeasureRowsOption,
    MeasuresOption,
    OneTopicOption,
    QrelsOption,
    RefOption,
    RelevantOption,
    ScopeOption,
    SeedOption,
    TopicOption,
    TopicsFileOption,
)
from studio.cli.reference import command_tree, commands

CLI = Path(__file__).resolve().parents[2] / "studio" / "cli"
SHARED = {
    "--format",
    "--measure",
    "--qrels",
    "--ref",
    "--seed",
    "--llm-relevant",
    "--relevant",
    "--topic",
    "--topics-file",
    "--topics",
}


def declared_names(call: ast.Call, parameter: str | None) -> set[str]:
    """The flags a `typer.Option(...)` call declares: the ones it names, else the parameter's own."""
    named = {arg.value for arg in call.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}
    flags = {name for name in named if name.startswith("-")}
    if not flags and parameter is not None:
        flags = {"--" + parameter.replace("_", "-")}
    return flags


def option_calls(node: ast.AST) -> list[ast.Call]:
    found = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "Option":
                found.append(inner)
    return found


def own_shared_options(source: str) -> list[int]:
    """Lines where a module declares `--format` or `--measure` with an option of its own: on a
    command's parameter (named or taking the parameter's name) or in an alias of its own."""
    tree = ast.parse(source)
    lines = []
    parameters: set[int] = set()  # option calls already judged as a parameter's
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            arguments = [*node.args.args, *node.args.kwonlyargs]
            defaults = [*node.args.defaults, *node.args.kw_defaults]
            for argument, default in zip(arguments[len(arguments) - len(defaults) :], defaults, strict=True):
                for call in option_calls(default) if default is not None else []:
                    parameters.add(id(call))
                    lines += [call.lineno] if declared_names(call, argument.arg) & SHARED else []
            for argument in arguments:
                for call in option_calls(argument.annotation) if argument.annotation is not None else []:
                    parameters.add(id(call))
                    lines += [call.lineno] if declared_names(call, argument.arg) & SHARED else []
    for call in option_calls(tree):
        if id(call) not in parameters and declared_names(call, None) & SHARED:
            lines.append(call.lineno)
    return sorted(lines)


def test_no_command_declares_a_shared_option_of_its_own() -> None:
    found = {
        path.name: lines
        for path in sorted(CLI.glob("*.py"))
        if path.name != "options.py" and (lines := own_shared_options(path.read_text("utf-8")))
    }
    assert found == {}, "use the option's alias (or a named variant) from studio/cli/options.py"
    declared = own_shared_options((CLI / "options.py").read_text("utf-8"))
    assert len(declared) == 13  # the check finds them where they are: one each, two --topic, three --measure


def test_the_check_finds_an_option_however_it_is_written() -> None:
    written = """
Mine = Annotated[str, typer.Option("--measure", "-m", help="Mine.")]

def named(fmt: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table) -> None: ...

def by_its_name(measure: Annotated[str, typer.Option(help="Mine.")] = "AP") -> None: ...

def as_default(measure: str = typer.Option("AP", help="Mine.")) -> None: ...

def shared(fmt: FormatOption = OutputFormat.table, metric: Annotated[str, typer.Option()] = "AP") -> None: ...

def by_name(qrels: Annotated[str, typer.Option(help="Mine.")], seed: int = typer.Option(0)) -> None: ...

Ref = Annotated[str, typer.Option("--ref", help="Mine.")]
"""
    assert own_shared_options(written) == [2, 4, 6, 8, 12, 12, 14]


def shared_help(option: object) -> str:
    info = typing.get_args(option)[1]
    assert isinstance(info.help, str)
    return info.help


def test_every_command_gives_the_shared_options_their_one_help_text() -> None:
    expected = {
        "--format": {shared_help(FormatOption)},
        "--measure": {shared_help(o) for o in (MeasureOption, MeasuresOption, MeasureRowsOption)},
        "--qrels": {shared_help(QrelsOption)},
        "--ref": {shared_help(RefOption)},
        "--seed": {shared_help(SeedOption)},
        "--llm-relevant": {LLM_RELEVANT_HELP},
        "--relevant": {shared_help(RelevantOption)},
        # One flag, two readings: a filter of several topics, and `bank list`'s one topic.
        "--topic": {shared_help(TopicOption), shared_help(OneTopicOption)},
        "--topics-file": {shared_help(TopicsFileOption)},
        "--topics": {shared_help(ScopeOption)},
    }
    seen: dict[str, set[str]] = {flag: set() for flag in expected}
    for _, command in commands(command_tree()):
        for param in command.params:
            for flag in SHARED.intersection(param.opts):
                seen[flag].add(getattr(param, "help", None) or "")
    assert seen == expected


def grade_options() -> list[tuple[str, str]]:
    """(command, flag) of every use of the grade options in the command tree."""
    found = []
    for path, command in commands(command_tree()):
        for param in command.params:
            for flag in {"--llm-relevant", "--relevant"}.intersection(param.opts):
                assert isinstance(param, TyperOption), (path, flag)
                parser = param.type_descriptor.parameter_info.parser  # typer's own parameter, as declared
                assert parser is grade, (path, flag)
                found.append((path, flag))
    return found


def test_every_grade_option_is_read_by_the_grade_parser() -> None:
    found = grade_options()
    assert {flag for _, flag in found} == {"--llm-relevant", "--relevant"}
    assert len(found) >= 10


@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "--qrels", "llm", "--gold", "gold", "--llm-relevant", "1_0"],
        ["audit", "simulate", "--ref", "human", "--qrels", "llm", "--budget", "10", "--llm-relevant", "nan"],
        ["correlate", "--ref", "human", "--qrels", "llm", "--llm-relevant", "٣"],
    ],
)
def test_llm_relevant_refuses_what_is_no_grade_in_every_command(args: list[str], tmp_path: Path) -> None:
    # Before any project is opened: the value is refused as a bad parameter, exit 2, no traceback.
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "none.duckdb"), *args])
    assert result.exit_code == 2, result.output
    assert ("--llm-relevant" in result.output and result.exception is None) or isinstance(result.exception, SystemExit)
