"""A throwaway PostgreSQL server for the team tests and benchmark: Debian's server binaries, a
cluster in a temporary folder on a free loopback port, roles with passwords in a passfile of its
own (libpq's ~/.pgpass format, named by PGPASSFILE), never in a project or a connection string.

PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user (its folder
is handed to it), otherwise to whoever runs this.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BIN_DIRS = tuple(Path(f"/usr/lib/postgresql/{v}/bin") for v in (17, 16, 15))
SERVER_USER = "postgres"
ADMIN = "postgres"


def server_bin() -> Path | None:
    """The folder of Debian's PostgreSQL server binaries, None when none is installed."""
    return next((d for d in BIN_DIRS if (d / "initdb").exists() and (d / "pg_ctl").exists()), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Cluster:
    """A running server: its folder, port and the passwords of the roles made on it."""

    folder: Path
    bin: Path
    port: int
    passwords: dict[str, str] = field(default_factory=dict)
    database: str = "team"

    @property
    def passfile(self) -> Path:
        return self.folder / "passfile"

    def conninfo(self, role: str, database: str | None = None) -> str:
        """A connection string without a password: libpq finds it in the passfile."""
        return f"host=127.0.0.1 port={self.port} dbname={database or self.database} user={role} connect_timeout=3"

    def env(self) -> dict[str, str]:
        """What a client process needs in its environment to find the passwords."""
        return {"PGPASSFILE": str(self.passfile)}

    def _as_server(self, *args: str) -> list[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            return ["runuser", "-u", SERVER_USER, "--", *command]
        return command

    def _write_passfile(self) -> None:
        lines = [f"127.0.0.1:{self.port}:*:{role}:{password}" for role, password in self.passwords.items()]
        self.passfile.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.passfile.chmod(0o600)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
        subprocess.run(
            self._as_server(
                "pg_ctl", "-D", str(self.folder / "data"), "-o", options, "-l", str(self.folder / "log"), "-w", "start"
            ),
            check=True,
            capture_output=True,
        )

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(
            self._as_server("pg_ctl", "-D", str(self.folder / "data"), "-m", mode, "-w", "stop"),
            check=False,
            capture_output=True,
        )

    def admin_sql(self, *statements: str, database: str = "postgres") -> None:
        """Statements run by the superuser, one at a time (CREATE DATABASE refuses a transaction)."""
        import psycopg

        with psycopg.connect(self.conninfo(ADMIN, database), passfile=str(self.passfile), autocommit=True) as con:
            for statement in statements:
                con.execute(statement.encode())

    def add_role(self, role: str, *, create_db: bool = False) -> None:
        password = secrets.token_urlsafe(16)
        self.passwords[role] = password
        self._write_passfile()
        extra = " CREATEDB" if create_db else ""
        self.admin_sql(f"CREATE ROLE {role} LOGIN{extra} PASSWORD '{password}'")

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster(coordinator: str, members: list[str]) -> Cluster:
    """A new server with a superuser, a coordinator owning the database `team`, and the members."""
    found = server_bin()
    if found is None:
        raise RuntimeError("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin")
    folder = Path(tempfile.mkdtemp(prefix="studio-pg-"))
    folder.chmod(0o755)
    cluster = Cluster(folder, found, free_port())
    cluster.passwords[ADMIN] = secrets.token_urlsafe(16)
    pwfile = folder / "admin-password"
    pwfile.write_text(cluster.passwords[ADMIN] + "\n", encoding="utf-8")
    if os.geteuid() == 0:
        user = pwd.getpwnam(SERVER_USER)
        for path in (folder, pwfile):
            os.chown(path, user.pw_uid, user.pw_gid)
    subprocess.run(
        cluster._as_server(
            "initdb", "-D", str(folder / "data"), "-U", ADMIN, f"--pwfile={pwfile}", "-A", "scram-sha-256", "-E", "UTF8"
        ),
        check=True,
        capture_output=True,
    )
    pwfile.unlink()
    cluster._write_passfile()
    cluster.start()
    try:
        for role in (coordinator, *members):
            cluster.add_role(role)
        cluster.admin_sql(f"CREATE DATABASE {cluster.database} OWNER {coordinator}")
        cluster.admin_sql(f"REVOKE ALL ON DATABASE {cluster.database} FROM PUBLIC")
        cluster.admin_sql(f"GRANT CONNECT ON DATABASE {cluster.database} TO {', '.join([coordinator, *members])}")
    except BaseException:
        cluster.remove()  # a server half set up is not left running
        raise
    return cluster
