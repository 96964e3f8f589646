"""`--format` and `--measure` are declared once, in studio/cli/options.py: no other module of the
command line writes its own `typer.Option(...)` for them (read statically, so a command not yet
registered counts too), and every command's option carries the one help text of its kind."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

from studio.cli.options import FormatOption, MeasureOption, MeasureRowsOption, MeasuresOption
from studio.cli.reference import command_tree, commands

CLI = Path(__file__).resolve().parents[2] / "studio" / "cli"
SHARED = {"--format", "--measure"}


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


def test_no_command_declares_format_or_measure_of_its_own() -> None:
    found = {
        path.name: lines
        for path in sorted(CLI.glob("*.py"))
        if path.name != "options.py" and (lines := own_shared_options(path.read_text("utf-8")))
    }
    assert found == {}, "use FormatOption / MeasureOption (or a named variant) from studio/cli/options.py"
    assert own_shared_options((CLI / "options.py").read_text("utf-8"))  # the check finds them where they are


def test_the_check_finds_an_option_however_it_is_written() -> None:
    written = """
Mine = Annotated[str, typer.Option("--measure", "-m", help="Mine.")]

def named(fmt: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table) -> None: ...

def by_its_name(measure: Annotated[str, typer.Option(help="Mine.")] = "AP") -> None: ...

def as_default(measure: str = typer.Option("AP", help="Mine.")) -> None: ...

def shared(fmt: FormatOption = OutputFormat.table, metric: Annotated[str, typer.Option()] = "AP") -> None: ...
"""
    assert own_shared_options(written) == [2, 4, 6, 8]


def shared_help(option: object) -> str:
    info = typing.get_args(option)[1]
    assert isinstance(info.help, str)
    return info.help


def test_every_command_gives_the_shared_options_their_one_help_text() -> None:
    expected = {
        "--format": {shared_help(FormatOption)},
        "--measure": {shared_help(o) for o in (MeasureOption, MeasuresOption, MeasureRowsOption)},
    }
    seen: dict[str, set[str]] = {flag: set() for flag in expected}
    for _, command in commands(command_tree()):
        for param in command.params:
            for flag in SHARED.intersection(param.opts):
                seen[flag].add(getattr(param, "help", None) or "")
    assert seen == expected
