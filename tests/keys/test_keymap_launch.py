"""`studio tui` and `studio demo` read the keymap file before the screen opens: a bad one ends them with
exit status 2 and one line naming the file, the line and the reason; a good one reaches the app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import cli

from studio.cli import launch
from studio.domain.keymap import Keymap
from studio.tui import app as tui_app

Opened = list[dict[str, Any]]


@pytest.fixture()
def opened(monkeypatch: pytest.MonkeyPatch) -> Opened:
    """The studio's openings, recorded instead of drawn; the test runner is taken for a terminal."""
    calls: Opened = []

    def run_studio(project: object, **options: Any) -> int:
        calls.append(options)
        return 0

    monkeypatch.setattr(launch, "check_terminal", lambda keys, screen: None)
    monkeypatch.setattr(tui_app, "run_studio", run_studio)
    return calls


def keymap_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "keymap.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ('review.accept = "y"\nreview.skip = "z\n', 2, "not TOML: "),
        (
            '\nreview.acept = "y"\n',
            2,
            "review.acept: the studio has no binding of that id (did you mean review.accept?)",
        ),
        ('review.accept = "F1"\n', 1, "review.accept: 'F1' is not a key Textual knows (f1, in lower case)"),
        (
            'review.accept = "s"\n',
            1,
            "review.accept: s is also review.skip's key on Review; give one of them another key",
        ),
    ],
)
def test_a_bad_keymap_ends_studio_tui_with_2_before_the_screen_opens(
    sample: Path, tmp_path: Path, opened: Opened, text: str, line: int, reason: str
) -> None:
    path = keymap_file(tmp_path, text)
    result = cli(sample, "tui", env={"STUDIO_KEYMAP": str(path)})
    assert result.exit_code == 2
    [message] = result.stderr.strip().splitlines()
    assert f"{path}:{line}: {reason}" in message
    assert opened == [] and result.stdout == ""


def test_a_bad_keymap_ends_studio_demo_with_2(tmp_path: Path, opened: Opened) -> None:
    path = keymap_file(tmp_path, 'app.quit = "ctrl+q"\n')
    result = cli(None, "demo", "--db", tmp_path / "demo.duckdb", env={"STUDIO_KEYMAP": str(path)})
    assert result.exit_code == 2
    assert f"{path}:1: app.quit: ctrl+q is Textual's own (ctrl+q quits)" in result.stderr
    assert opened == []


def test_the_keymap_of_the_config_folder_reaches_the_app(sample: Path, tmp_path: Path, opened: Opened) -> None:
    (tmp_path / "studio").mkdir()
    path = keymap_file(tmp_path / "studio", '"review.grade2" = "x"\n')
    result = cli(sample, "tui", env={"XDG_CONFIG_HOME": str(tmp_path), "STUDIO_KEYMAP": None})
    assert result.exit_code == 0, result.stderr
    [options] = opened
    keymap = options["keymap"]
    assert isinstance(keymap, Keymap) and keymap.file == path and dict(keymap.keys) == {"review.grade2": ("x",)}
