"""The project file: one DuckDB database, opened, migrated and written in transactions, and
held only while it is used, so that several studio processes can work on one project.

A `Database` opens its file on first use (taking the studio's lock on it, waiting for another
holder as `file_lock` says) and keeps it until `release()`, which a long job calls between its
writes; the next use opens it again. A front end that stays open (the TUI) asks for the file to be
given up when its last use ends (`release_between_uses`): it holds the file while a transaction or
a `busy()` block runs, and between them only until another process asks for it (`linger` at most).
Every write transaction also counts one change in the project, which tells a process that holds
state in memory (the TUI) that another one wrote meanwhile.

What a `Database` opens is the studio's (see `opening`): a file that is not a studio project is
refused with nothing written to it, a missing one is created only when asked (`create`), and a
file the process cannot write is opened read-only, its writes refused in a sentence.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from studio.domain.errors import NoProject, NotAProject, ProjectBusy, ProjectError, ProjectReadOnly
from studio.domain.project_file import DEFAULT_WAIT_SECONDS, WaitNotice
from studio.store import opening
from studio.store.file_access import Writable, can_write
from studio.store.file_lock import POLL_SECONDS, ProjectLock, busy, holder_from_duckdb, wanted_since
from studio.store.migrations import LATEST_VERSION, MIGRATIONS, readable_as_it_is
from studio.store.query_rows import Row as Row
from studio.store.query_rows import records as records  # re-exported: where the store has always found it
from studio.store.query_rows import typed_records as typed_records

Connection = duckdb.DuckDBPyConnection
YIELD_SECONDS = 0.5  # a waiter that asked this recently is still waiting: a front end lets it in first
CLOSE_ATTEMPTS = 200  # 2 s for a query still running on another thread to notice its interruption


class Database:
    """A project file with its migrations applied. DuckDB connections are not shared between
    threads: `cursor()` hands each thread its own cursor on the same database, as DuckDB's Python
    documentation prescribes. `release()` closes them all, except during a transaction or a
    `busy()` block; other use from another thread is the caller's to rule out (every use by the
    TUI's workers is inside such a block: `Project.turn()`)."""

    def __init__(
        self,
        path: str | Path,
        *,
        wait: float = DEFAULT_WAIT_SECONDS,
        notice: WaitNotice | None = None,
        create: bool = True,
        read_only: bool = False,
        writable: Writable = can_write,
    ) -> None:
        self.path = str(path)
        self.in_memory = self.path == ":memory:"
        self.create = create  # make the file when it is missing (else NoProject)
        self.created = False  # this Database made the file
        self.asked_read_only = read_only
        self.read_only_reason: str | None = None  # why the file is open read-only (decided on first open)
        self._writable = writable
        self._admitted = self.in_memory  # the file was found to be the studio's (or made by it)
        self.wait = wait
        self.notice = notice
        self._lock = ProjectLock(self.path)
        self._guard = threading.RLock()
        self._connection: Connection | None = None
        self._cursors: list[Connection] = []
        self._local = threading.local()
        self._generation = 0
        self._owner = threading.get_ident()
        self._transactions = 0
        self._closed = False
        self._migrating = False
        self.changes_seen = 0  # the change counter as this process last wrote or read it
        self.outside_writes = False  # another process wrote between this one's transactions
        self.signature_at_release: tuple[int, int] | None = None
        # A front end that stays open (the TUI): the file is given up as the last use of any thread
        # ends, when another process asks for it, else after `linger` seconds without use.
        self.release_between_uses = False
        self.linger = 0.0
        self.released_at = 0.0  # when this process last gave the file up (time.time())
        self.opened_at = 0.0  # when this process last opened the file (time.time())
        self.last_used = time.monotonic()  # when a cursor was last asked for
        self.changes_seen = self.change_counter()  # opens the file now: a bad one is reported at once

    # -- holding the file --------------------------------------------------------------------------

    @property
    def connection(self) -> Connection:
        """The main connection, opening the file (and waiting for it) when it is not held."""
        with self._guard:
            if self._closed:
                raise ProjectError(f"{self.path} was closed")
            if self._connection is None:
                self._connection = self._connect()
                self.opened_at = time.time()
                self._generation += 1
                self._owner = threading.get_ident()
                try:
                    self._migrate()
                except BaseException:  # a file this studio cannot use is let go at once
                    self._close_connections()
                    raise
            return self._connection

    @property
    def held(self) -> bool:
        return self._connection is not None

    def _connect(self) -> Connection:
        if self.in_memory:
            return opening.connect(self.path)
        seen = None if self._admitted else self._admit()  # before the lock: a file refused here gets no lock file
        deadline = time.monotonic() + self.wait  # asked for since given up: the other's turn first, not
        while self.release_between_uses and time.monotonic() < deadline:  # retaken while it still asks
            if not wanted_since(self.path, max(self.released_at, time.time() - YIELD_SECONDS)):
                break
            time.sleep(POLL_SECONDS)
        self._lock.acquire(self.wait, self.notice)
        try:
            if not os.path.exists(self.path):
                if seen is None or not self.create:  # gone since it was opened: never made anew unasked
                    raise NoProject(opening.no_project(Path(self.path)))
                opening.create_project_file(Path(self.path))
                self.created = self._admitted = True
            elif seen is not None and not seen.exists:
                self._admit()  # another process made it meanwhile
            return self._connect_admitted()
        except NotAProject:
            self._lock.release(discard=True)  # nor a lock file left beside another program's database
            raise
        except BaseException:
            self._lock.release()
            raise

    def _admit(self) -> opening.Admission:
        admission = opening.admit(
            Path(self.path), create=self.create, asked_read_only=self.asked_read_only, writable=self._writable
        )
        self.read_only_reason = admission.read_only
        return admission

    def _connect_admitted(self) -> Connection:
        if not self._admitted and self.read_only_reason is None and os.path.exists(self.path + ".wal"):
            # Opened for writing, DuckDB would replay the log into the file: a foreign one is asked first.
            probe = self._connect_locked(read_only=True, probe=True)
            if probe is not None:
                try:
                    opening.refuse_foreign(probe, self.path)
                finally:
                    probe.close()
        connection = self._connect_locked(read_only=self.read_only_reason is not None)
        assert connection is not None
        if not self._admitted:
            try:
                opening.refuse_foreign(connection, self.path)
            except BaseException:
                connection.close()
                raise
            self._admitted = True
        return connection

    def _connect_locked(self, *, read_only: bool, probe: bool = False) -> Connection | None:
        # With the studio's lock taken, only a program outside the studio can hold DuckDB's own.
        deadline, told = time.monotonic() + self.wait, False
        while True:
            try:
                return opening.connect(self.path, read_only=read_only)
            except duckdb.ConnectionException as error:
                if probe:  # this process has the file open already (so it was admitted): no probe
                    return None
                raise ProjectError(f"cannot open project file {self.path}: {error}") from error
            except duckdb.IOException as error:
                if "lock" not in str(error).lower():
                    raise ProjectError(f"cannot open project file {self.path}: {error}") from error
                holder = holder_from_duckdb(str(error))
                if not told and self.notice is not None:
                    self.notice(holder)
                    told = True
                if time.monotonic() >= deadline:
                    raise busy(self.path, holder, self.wait) from None
                time.sleep(POLL_SECONDS)
            except duckdb.Error as error:
                raise ProjectError(f"cannot open project file {self.path}: {error}") from error

    def release(self) -> None:
        """Give the file up until the next use (not inside a transaction; not for ":memory:")."""
        # Not waiting for the guard: a thread holding it is opening the file or writing, which
        # makes releasing pointless now (and the TUI's thread must never wait here).
        if not self._guard.acquire(blocking=False):
            return
        try:
            if self.in_memory or self._connection is None or self._transactions:
                return
            self._close_connections()
            self.signature_at_release = self.signature()
            self.released_at = time.time()
        finally:
            self._guard.release()

    def wanted(self) -> bool:
        """Has another process asked for the file since this one opened it?"""
        return self._connection is not None and not self.in_memory and wanted_since(self.path, self.opened_at)

    def try_hold(self) -> bool:
        """Open the file unless another process holds it right now (False: try again later)."""
        if not self._guard.acquire(blocking=False):
            return False  # another thread is opening or using the file
        try:
            if self._connection is not None:
                return True
            saved = self.wait, self.notice
            self.wait, self.notice = 0.0, None
            try:
                self.cursor()
            except ProjectBusy:
                return False
            finally:
                self.wait, self.notice = saved
            return True
        finally:
            self._guard.release()

    def close(self) -> None:
        with self._guard:
            if self._connection is not None:
                self._close_connections()
            self._closed = True

    def _close_connections(self) -> None:
        assert self._connection is not None
        for cursor in self._cursors:
            _close(cursor)
        self._cursors.clear()
        _close(self._connection)
        self._connection = None
        self._lock.release()

    def signature(self) -> tuple[int, int] | None:
        """(modification time, size) of the file: a cheap sign that some process wrote to it."""
        if self.in_memory:
            return None
        try:
            status = os.stat(self.path)
        except OSError:
            return None
        return status.st_mtime_ns, status.st_size

    # -- using it ------------------------------------------------------------------------------------

    def cursor(self) -> Connection:
        """The calling thread's connection (the main one on the thread that opened the file)."""
        connection = self.connection
        self.last_used = time.monotonic()
        if threading.get_ident() == self._owner:
            return connection
        found = getattr(self._local, "cursor", None)
        if found is None or found[0] != self._generation:
            with self._guard:
                cursor = connection.cursor()
                self._cursors.append(cursor)
            found = self._local.cursor = (self._generation, cursor)
        return found[1]

    @contextmanager
    def transaction(self, *, counted: bool = True) -> Iterator[Connection]:
        """All or nothing: an exception rolls every write of the block back.

        `counted=False` leaves the change counter alone: only for writes whose label events
        already tell other processes (a live edit, where the counter's update would be a third of
        the time the edit takes).
        """
        with self.statement() as con:
            con.begin()  # the connection's own calls: no statement to parse, on every edit
            try:
                yield con
                count = self._count_change(con) if counted else None
            except BaseException:
                con.rollback()
                raise
            con.commit()
            if count is not None:
                self.outside_writes |= count != self.changes_seen + 1
                self.changes_seen = count

    @contextmanager
    def statement(self) -> Iterator[Connection]:
        """A write on this thread's connection, a refusal to write said as such. Alone, one
        statement committed by DuckDB itself (autocommit): all or nothing as a transaction is,
        without the two calls around it (a live edit's fast path); it leaves the change counter
        alone, as `transaction(counted=False)` does."""
        self._begin_use()  # counted before the cursor is taken: release() now waits for the end
        try:
            yield self.cursor()
        except duckdb.Error as error:
            refusal = opening.write_refused(self.path, self.read_only_reason, error)
            if refusal is None:
                raise
            raise refusal from error
        finally:
            self._end_use()

    @contextmanager
    def busy(self, *, polite: bool = True) -> Iterator[None]:
        """Reads outside a transaction that `release()` from another thread must not cut short
        (`polite=False`: for a thread that may hold what the others' uses wait for)."""
        self._begin_use(polite=polite)
        try:
            yield
        finally:
            self._end_use()

    def _begin_use(self, *, polite: bool = True) -> None:
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        # While another process asks for the file, a thread's new use waits for the others' to end
        # (the file is given up then) rather than keep it held by overlapping with them.
        deadline = time.monotonic() + self.wait
        while polite and not depth and self.release_between_uses and self._transactions and self.wanted():
            if time.monotonic() >= deadline:
                break
            time.sleep(POLL_SECONDS)
        with self._guard:
            self._transactions += 1

    def _end_use(self) -> None:  # the end of a transaction or a busy() block
        self._local.depth -= 1
        with self._guard:
            self._transactions -= 1
            last = self._transactions == 0
        if last and self.release_between_uses and (self.linger <= 0 or self.wanted()):
            self.release()  # (a no-op when another thread began a use meanwhile: its end releases)

    def idle(self) -> None:
        """A long job has written what it had: give the file up (not while another thread uses it)."""
        self.release()

    def _count_change(self, con: Connection) -> int | None:
        if self._migrating or self.read_only_reason is not None:  # read-only: nothing written, nothing to count
            return None
        row = con.execute("UPDATE project_changes SET counter = counter + 1 RETURNING counter").fetchone()
        return int(row[0]) if row else None

    def change_counter(self) -> int:
        """How many write transactions the project has seen (from every process)."""
        row = self.cursor().execute("SELECT counter FROM project_changes").fetchone()
        return int(row[0]) if row else 0

    def schema_version(self) -> int:
        row = self.connection.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def _migrate(self) -> None:
        con = self._connection
        assert con is not None
        if self.in_memory:
            con.execute(opening.SCHEMA_VERSION_TABLE)
        current = self.schema_version()
        if current > LATEST_VERSION:
            raise ProjectError(f"{self.path} was written by a newer studio (schema {current} > {LATEST_VERSION})")
        if current == LATEST_VERSION or (self.read_only_reason is not None and readable_as_it_is(current)):
            return
        if self.read_only_reason is not None:
            raise ProjectReadOnly(
                f"{self.path} is read-only ({self.read_only_reason}) and needs an upgrade from schema {current} to "
                f"{LATEST_VERSION} before this studio can read it; a writable copy is upgraded when opened"
            )
        self._migrating = True
        try:
            for version, statements in MIGRATIONS:
                if version <= current:
                    continue
                with self.transaction() as tx:
                    tx.execute(statements)
                    tx.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
        finally:
            self._migrating = False


def _close(connection: Connection) -> None:
    """Close a connection or cursor; a query still running on it (a worker thread at exit) is
    interrupted first, and the close tried again until it has stopped."""
    for attempt in range(CLOSE_ATTEMPTS):
        try:
            connection.close()
            return
        except duckdb.Error:
            if attempt == CLOSE_ATTEMPTS - 1:
                raise
            connection.interrupt()
            time.sleep(POLL_SECONDS / 5)
