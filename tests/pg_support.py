"""A throwaway PostgreSQL cluster for the tests: `initdb` and `pg_ctl` in a temporary directory.

Debian's `postgresql` package (15 or later) provides the programs. `initdb` refuses to run as
root, so as root the cluster is made and run by the `postgres` user. The server listens on a free
TCP port of 127.0.0.1 and on a unix socket in the cluster's directory; it trusts local
connections (nothing here is reachable from another machine) and is stopped at the end of the
session. `start_cluster` returns None with the reason when no server can be started, and the
PostgreSQL cases then skip with that reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path


def _pg_bin() -> Path | None:
    """The directory of initdb and pg_ctl: $PG_BIN, the newest Debian install, or PATH."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if debian:
        return Path(debian[-1]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    root: Path
    port: int
    bin: Path
    as_user: list[str]
    options: str = ""

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def database_url(self, name: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def halt(self) -> None:
        """Take the server away from its clients, keeping its data (a database that goes away). A
        fast shutdown, not an immediate one: this cluster runs without fsync and synchronous commit,
        so only a clean shutdown keeps what was committed."""
        subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "stop", "-D", str(self.root / "data"),
                        "-m", "fast", "-w"], capture_output=True, timeout=60, check=True)

    def restart(self) -> None:
        """Start a halted server again on the same port and data."""
        subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "start", "-w", "-D", str(self.root / "data"),
                        "-l", str(self.root / "server.log"), "-o", self.options],
                       capture_output=True, timeout=120, check=True)

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "stop", "-D", str(self.root / "data"),
                        "-m", "immediate", "-w"], capture_output=True, timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster() -> tuple[Cluster | None, str]:
    """A running throwaway cluster, or None and why not."""
    pg_bin = _pg_bin()
    if pg_bin is None or not (pg_bin / "pg_ctl").exists():
        return None, "no PostgreSQL found (install Debian's postgresql package, or set PG_BIN)"
    as_user: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="debate-pg-"))
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return None, "running as root and runuser is missing: initdb refuses to run as root"
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(root, "postgres", "postgres")
    data = root / "data"
    try:
        init = subprocess.run([*as_user, str(pg_bin / "initdb"), "-D", str(data), "-U", "postgres",
                               "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
                              capture_output=True, text=True, timeout=120)
        if init.returncode != 0:
            shutil.rmtree(root, ignore_errors=True)
            return None, f"initdb failed: {init.stderr.strip().splitlines()[-1:]}"
        port = _free_port()
        options = (f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        start = subprocess.run([*as_user, str(pg_bin / "pg_ctl"), "start", "-w", "-D", str(data),
                                "-l", str(root / "server.log"), "-o", options],
                               capture_output=True, text=True, timeout=120)
        if start.returncode != 0:
            log = (root / "server.log").read_text(errors="replace") if (root / "server.log").exists() else ""
            shutil.rmtree(root, ignore_errors=True)
            return None, f"pg_ctl start failed: {start.stderr.strip()} {log.strip()[-300:]}"
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(root, ignore_errors=True)
        return None, f"cannot start PostgreSQL: {exc}"
    return Cluster(root, port, pg_bin, as_user, options), ""


def fresh_database(cluster: Cluster) -> str:
    """A new, empty database in the cluster; returns its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return cluster.database_url(name)
