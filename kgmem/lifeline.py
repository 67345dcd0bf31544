"""Worker processes that die with their parent, on every platform.

A worker started with ``spawn`` blocks on its task queue; when the parent is killed (kill -9,
an OOM kill) nothing tells it, and it keeps its memory forever, re-parented to init (a
``kgmem ingest --workers 2`` killed with -9 left three such processes, ~450 MB). The parent
keeps the write end of a pipe no one writes to, :func:`lifeline`; each worker gets the read
end and :func:`watch_parent` waits on it in a daemon thread: the kernel closes the write end
when the parent dies however it dies, the read ends at EOF, and the worker exits at once.
(Linux's ``PR_SET_PDEATHSIG`` is not used: it fires when the *thread* that started the
worker ends, and pools start workers from whatever thread first submits.)
"""

from __future__ import annotations

import os
import threading
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext


def lifeline(ctx: BaseContext) -> tuple[Connection, Connection]:
    """``(reader, writer)``: hand ``reader`` to the workers (their start arguments), keep
    ``writer`` open in the parent for as long as the workers may live."""
    reader, writer = ctx.Pipe(duplex=False)
    return reader, writer


def _wait(reader: Connection) -> None:
    try:
        while True:
            reader.recv()  # nothing is ever sent: returns only at EOF (the parent is gone)
    except (EOFError, OSError):
        pass
    os._exit(1)


def watch_parent(reader: Connection | None) -> None:
    """In a worker: exit the process as soon as the parent holding the writer is gone."""
    if reader is None:
        return
    threading.Thread(target=_wait, args=(reader,), name="kgmem-lifeline", daemon=True).start()
