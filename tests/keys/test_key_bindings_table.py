"""The table of bindings the keymap is checked against (studio.domain.key_bindings) is the TUI's: the
same ids, default keys and labels, every binding of every screen, dialog and widget; its screens
keep their keys apart; and docs/tui.md lists it."""

from __future__ import annotations

import re
from pathlib import Path

from textual.binding import Binding

from studio.domain.key_bindings import BINDINGS, LIVE_TOGETHER, RESERVED_KEYS, SCOPES, scope_of
from studio.domain.keymap import first_clash
from studio.tui.app import StudioApp
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

BINDING_ID = re.compile(r'\bid="([\w-]+\.\w+)"')
TUI_DOCS = Path(__file__).resolve().parents[2] / "docs" / "tui.md"
# Every class of the TUI that declares bindings, by the scope its ids start with.
DECLARED = {
    "app": StudioApp,
    "overview": OverviewScreen,
    "leaderboard": LeaderboardScreen,
    "significance": SignificanceScreen,
    "review": ReviewScreen,
    "history": HistoryList,
    "bank": BankScreen,
    "judges": JudgesScreen,
    "audit": AuditScreen,
    "audit-picker": AuditPicker,
    "dialog": MessageDialog,
    "confirm": ConfirmDialog,
    "calibration": CalibrationScreen,
    "prompt": TextPrompt,
    "help": HelpScreen,
}


def declared(scope: str) -> list[Binding]:
    bindings = vars(DECLARED[scope])["BINDINGS"]
    assert all(isinstance(b, Binding) for b in bindings)
    return list(bindings)


def test_every_scope_is_a_class_of_the_tui() -> None:
    assert [scope.name for scope in SCOPES] == list(DECLARED)


def test_the_table_has_the_tuis_ids_default_keys_and_labels_in_order() -> None:
    for scope in SCOPES:
        tui = [(b.id, tuple(b.key.split(",")), b.description) for b in declared(scope.name)]
        table = [(b.id, b.keys, b.label) for b in scope.bindings]
        assert table == tui, scope.name


def test_every_id_names_its_scope() -> None:
    assert all(scope_of(b.id) == scope.name for scope in SCOPES for b in scope.bindings)


def test_no_module_of_the_tui_declares_a_binding_the_table_lacks() -> None:
    tui = Path(__file__).resolve().parents[2] / "studio" / "tui"
    written = {found for path in tui.rglob("*.py") for found in BINDING_ID.findall(path.read_text("utf-8"))}
    assert written - set(BINDINGS) == set()
    assert len(written) > 40  # the pattern finds them


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
