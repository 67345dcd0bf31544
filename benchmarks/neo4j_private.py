"""A private Neo4j server for outage runs: ``scripts/neo4j.sh`` with its own home, data and
ports, that a run may ``kill -9`` and restart. The shared server of the test suite is never
touched.

The private home borrows the jars of an already fetched home (``lib/`` is a symlink to it:
``KGMEM_NEO4J_HOME`` when set, else the checkout's ``.neo4j/<version>``), so starting one
costs a JVM start, not a download; with no fetched home the script fetches as usual. APOC is
off and the memory small (512 MB heap, 64 MB page cache): the runs write a few thousand
records.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "neo4j.sh"
MARKER = ".kgmem-fetch-complete"
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def fetched_lib() -> tuple[Path, str] | None:
    """A complete ``lib/`` of an existing home and the Neo4j version it holds."""
    homes = []
    if os.environ.get("KGMEM_NEO4J_HOME"):
        homes.append(Path(os.environ["KGMEM_NEO4J_HOME"]))
    homes += sorted((REPO / ".neo4j").glob("*"), reverse=True)
    for home in homes:
        marker = home / "lib" / MARKER
        if marker.is_file():
            fields = dict(f.split("=", 1) for f in marker.read_text().split() if "=" in f)
            if "neo4j" in fields:
                return (home / "lib").resolve(), fields["neo4j"]
    return None


class PrivateNeo4j:
    """One private server under ``home`` (created; removed by :meth:`destroy`)."""

    def __init__(self, home: Path, start_timeout: float = 240.0) -> None:
        self.home = home
        self.bolt_port = free_port()
        self.http_port = free_port()
        self.start_timeout = start_timeout
        self.env = {**os.environ, "KGMEM_NEO4J_HOME": str(home),
                    "KGMEM_NEO4J_BOLT_PORT": str(self.bolt_port),
                    "KGMEM_NEO4J_HTTP_PORT": str(self.http_port),
                    "KGMEM_NEO4J_APOC_VERSION": "off", "KGMEM_NEO4J_HEAP": "512m",
                    "KGMEM_NEO4J_PAGECACHE": "64m",
                    "KGMEM_NEO4J_START_TIMEOUT": str(int(start_timeout))}
        self.env.pop("KGMEM_NEO4J_PASSWORD", None)  # auth off: a throwaway local server
        home.mkdir(parents=True, exist_ok=True)
        lib = fetched_lib()
        if lib is not None and not (home / "lib").exists():
            (home / "lib").symlink_to(lib[0], target_is_directory=True)
            self.env["KGMEM_NEO4J_VERSION"] = lib[1]

    @property
    def uri(self) -> str:
        return f"bolt://{HOST}:{self.bolt_port}"

    def _script(self, command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(SCRIPT), command], env=self.env, text=True,
                              capture_output=True, timeout=self.start_timeout + 120)

    def start(self) -> float:
        """Start (or restart after a kill) and wait until Bolt and HTTP answer; seconds."""
        t0 = time.monotonic()
        done = self._script("start")
        if done.returncode != 0:
            raise RuntimeError(f"private Neo4j did not start (exit {done.returncode}):\n"
                               f"{done.stderr[-3000:]}")
        return time.monotonic() - t0

    def pid(self) -> int | None:
        try:
            return int((self.home / "run" / "neo4j.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def kill9(self) -> None:
        """SIGKILL the server process (no shutdown, no checkpoint) and wait until it is gone."""
        pid = self.pid()
        if pid is None:
            raise RuntimeError("private Neo4j has no pid file: not started")
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        raise RuntimeError(f"private Neo4j pid {pid} survived SIGKILL")

    def stop(self) -> None:
        self._script("stop")

    def destroy(self) -> None:
        """Stop the server and delete its home (the borrowed jars stay where they are)."""
        try:
            self.stop()
        finally:
            lib = self.home / "lib"
            if lib.is_symlink():
                lib.unlink()
            shutil.rmtree(self.home, ignore_errors=True)
