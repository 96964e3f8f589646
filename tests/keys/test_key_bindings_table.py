"""The table of bindings (studio.domain.key_bindings) is the TUI's: every screen, dialog and widget
takes its `BINDINGS` from it and has a method for each action it names; its screens keep their keys
apart; and docs/tui.md lists it."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from textual.actions import parse

from studio.domain.key_bindings import BINDINGS, LIVE_TOGETHER, RESERVED_KEYS, SCOPES, KeyBinding, scope_of
from studio.domain.keymap import first_clash
from studio.tui.app import StudioApp
from studio.tui.bindings import bindings_of
from studio.tui.screens.answers import AnswersScreen
from studio.tui.screens.assess import AssessScreen
from studio.tui.screens.audit import AuditScreen
from studio.tui.screens.audit_picker import AuditPicker
from studio.tui.screens.bank import BankScreen
from studio.tui.screens.judges import JudgesScreen
from studio.tui.screens.leaderboard import LeaderboardScreen
from studio.tui.screens.overview import OverviewScreen
from studio.tui.screens.review import ReviewScreen
from studio.tui.screens.significance import SignificanceScreen
from studio.tui.widgets.calibration import CalibrationScreen
from studio.tui.widgets.dialog import ConfirmDialog, MessageDialog
from studio.tui.widgets.help import HelpScreen
from studio.tui.widgets.review_history import HistoryList
from studio.tui.widgets.text_prompt import TextPrompt

TUI = Path(__file__).resolve().parents[2] / "studio" / "tui"
TUI_DOCS = Path(__file__).resolve().parents[2] / "docs" / "tui.md"
# Every class of the TUI that declares bindings, by the scope its ids start with.
DECLARED: dict[str, type] = {
    "app": StudioApp,
    "overview": OverviewScreen,
    "leaderboard": LeaderboardScreen,
    "significance": SignificanceScreen,
    "review": ReviewScreen,
    "history": HistoryList,
    "bank": BankScreen,
    "judges": JudgesScreen,
    "audit": AuditScreen,
    "assess": AssessScreen,
    "answers": AnswersScreen,
    "audit-picker": AuditPicker,
    "dialog": MessageDialog,
    "confirm": ConfirmDialog,
    "calibration": CalibrationScreen,
    "prompt": TextPrompt,
    "help": HelpScreen,
}


def test_every_scope_is_a_class_of_the_tui() -> None:
    assert [scope.name for scope in SCOPES] == list(DECLARED)


def test_every_class_takes_its_bindings_from_the_table() -> None:
    for scope in SCOPES:
        declared = vars(DECLARED[scope.name])["BINDINGS"]
        assert declared == bindings_of(scope.name), scope.name
        assert [b.id for b in declared] == [b.id for b in scope.bindings]


def unrunnable(owner: type, bindings: tuple[KeyBinding, ...]) -> list[str]:
    """The bindings whose action `owner` has no `action_…` method for, or one that its arguments do
    not fit (`go(-1)` needs a method taking one)."""
    found = []
    for binding in bindings:
        namespace, name, arguments = parse(binding.action)
        method = getattr(owner, f"action_{name}", None)
        try:
            assert not namespace and callable(method)
            inspect.signature(method).bind(None, *arguments)  # None stands for self
        except (AssertionError, TypeError):
            found.append(binding.id)
    return found


def test_every_action_of_the_table_is_a_method_of_its_class() -> None:
    for scope in SCOPES:
        assert unrunnable(DECLARED[scope.name], scope.bindings) == [], scope.name


def test_an_action_without_its_method_is_found() -> None:
    accept = BINDINGS["review.accept"]
    assert unrunnable(ReviewScreen, (accept,)) == []
    assert unrunnable(ReviewScreen, (KeyBinding("review.x", ("x",), "X", "no_such_action"),)) == ["review.x"]
    assert unrunnable(ReviewScreen, (KeyBinding("review.x", ("x",), "X", "accept(1, 2)"),)) == ["review.x"]
    assert unrunnable(BankScreen, (BINDINGS["review.reference"],)) == ["review.reference"]


def called(node: ast.expr) -> str | None:
    """The name a call calls (`Binding` of `Binding(…)` and of `textual.binding.Binding(…)`)."""
    if not isinstance(node, ast.Call):
        return None
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)


def written_bindings(source: str) -> set[str]:
    """What a module writes of bindings by hand: a `Binding(…)` call, or a `BINDINGS` that is not
    `bindings_of(…)`."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and called(node) == "Binding":
            found.add(f"Binding(…) at line {node.lineno}")
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == "BINDINGS" for target in node.targets)
            and called(node.value) != "bindings_of"
        ):
            found.add(f"BINDINGS at line {node.lineno}")
    return found


def test_no_module_of_the_tui_writes_bindings_of_its_own() -> None:
    written = {
        str(path.relative_to(TUI)): found
        for path in TUI.rglob("*.py")
        if path.name != "bindings.py" and (found := written_bindings(path.read_text("utf-8")))
    }
    assert written == {}
    assert written_bindings('BINDINGS = [Binding("x", "go", "Go")]') == {"Binding(…) at line 1", "BINDINGS at line 1"}
    assert written_bindings('BINDINGS = bindings_of("review")') == set()


def test_every_id_names_its_scope() -> None:
    assert all(scope_of(b.id) == scope.name for scope in SCOPES for b in scope.bindings)


def test_the_default_keys_are_apart_on_every_screen_and_none_is_textuals() -> None:
    assert first_clash({}) is None
    for scopes in LIVE_TOGETHER.values():
        keys = [key for b in BINDINGS.values() if scope_of(b.id) in scopes for key in b.keys]
        assert len(keys) == len(set(keys)), scopes
    assert not {key for b in BINDINGS.values() for key in b.keys} & set(RESERVED_KEYS)
    assert {scope for scopes in LIVE_TOGETHER.values() for scope in scopes} == {s.name for s in SCOPES}


def keys_table() -> str:
    """The list of ids docs/tui.md shows, written from the table."""
    rows = ["| id | default keys | does | where |", "|---|---|---|---|"]
    for scope in SCOPES:
        for b in scope.bindings:
            keys = ", ".join(f"`{key}`" for key in b.keys)
            rows.append(f"| `{b.id}` | {keys} | {b.label} | {scope.where} |")
    return "\n".join(rows)


def test_docs_tui_md_lists_every_id_as_the_table_has_it() -> None:
    expected = keys_table()
    assert expected in TUI_DOCS.read_text(encoding="utf-8"), (
        "docs/tui.md's list of binding ids, as it should read:\n" + expected
    )
