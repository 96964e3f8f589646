"""A front end that stays open (the TUI) holds the project file only while it uses it: given up as
the last transaction or busy block of any thread ends — at once without a linger, at once when
another process asks for it with one — and never while another thread's use runs."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from studio.store.database import Database
from studio.store.file_lock import announce_wait


def sharing(path: Path, linger: float = 0.0) -> Database:
    db = Database(path)
    db.release()
    db.release_between_uses, db.linger = True, linger
    return db


def test_the_file_is_given_up_as_the_last_use_ends(tmp_path: Path) -> None:
    db = sharing(tmp_path / "p.duckdb")
    with db.busy():
        assert db.change_counter() >= 0 and db.held
        with db.transaction() as tx:
            tx.execute("SELECT 1")
        assert db.held  # the outer use still runs
    assert not db.held
    db.close()


def test_another_threads_use_keeps_the_file(tmp_path: Path) -> None:
    db = sharing(tmp_path / "p.duckdb")
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with db.busy():
            db.cursor().execute("SELECT 1").fetchone()
            inside.set()
            leave.wait()
            db.cursor().execute("SELECT 2").fetchone()  # its cursor was not closed under it

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait()
    with db.transaction() as tx:
        tx.execute("SELECT 1")
    assert db.held  # this thread's use ended, the other's runs on
    leave.set()
    thread.join()
    assert not db.held
    db.close()


def test_with_a_linger_the_file_stays_until_another_process_asks(tmp_path: Path) -> None:
    db = sharing(tmp_path / "p.duckdb", linger=3600.0)
    with db.busy():
        db.cursor().execute("SELECT 1").fetchone()
    assert db.held  # nobody asked: kept for the next use
    announce_wait(db.path)
    with db.busy():
        db.cursor().execute("SELECT 1").fetchone()
    assert not db.held  # asked for: given up as the use ended
    db.close()


def test_while_asked_for_a_new_use_waits_for_the_running_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Overlapping uses would keep the file held for good: asked for, a new use waits for the
    running ones to end, the file is given up, and the new use opens it anew."""
    db = sharing(tmp_path / "p.duckdb", linger=3600.0)
    inside, leave, waiting = threading.Event(), threading.Event(), threading.Event()
    sleep = time.sleep

    def noted_sleep(seconds: float) -> None:  # what the waiting use does between its looks
        waiting.set()
        sleep(seconds)

    monkeypatch.setattr("studio.store.database.time.sleep", noted_sleep)
    seen: list[int] = []

    def running() -> None:
        with db.busy():
            db.cursor().execute("SELECT 1").fetchone()
            inside.set()
            leave.wait()

    def new() -> None:
        with db.busy():
            db.cursor().execute("SELECT 1").fetchone()
            seen.append(db._generation)

    first = threading.Thread(target=running)
    first.start()
    inside.wait()
    opened = db._generation
    announce_wait(db.path)
    second = threading.Thread(target=new)
    second.start()
    assert waiting.wait(timeout=60)  # the new use waits …
    leave.set()
    first.join()
    second.join()
    assert seen == [opened + 1]  # … and opens the file again, after it was given up
    db.close()
