"""Exceptions raised by kgmem. Every public error derives from :class:`KgmemError`.

Each carries a stable ``type`` string (used as the JSON error ``type`` over HTTP) and
optional structured ``details``.
"""

from __future__ import annotations


class KgmemError(Exception):
    """Base class of every kgmem error."""

    type = "kgmem_error"
    http_status = 500

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, "message": self.message, "details": self.details}


class InvalidInputError(KgmemError, ValueError):
    """The caller passed something malformed (empty name, bad date, bad interval...)."""

    type = "invalid_input"
    http_status = 422


class InvalidTimeError(InvalidInputError):
    """A time value could not be parsed or is not allowed here."""

    type = "invalid_time"


class InvalidNameError(InvalidInputError):
    """A name made only of invisible characters, or holding a bidirectional control."""

    type = "invalid_name"


class UnknownPredicateError(InvalidInputError):
    """An undeclared predicate that is a near miss of a known one (``LIVE_IN`` for
    ``LIVES_IN``); ``details["suggestion"]`` names the known one. Declare it to use it."""

    type = "unknown_predicate"


class InvalidIntervalError(InvalidInputError):
    """An interval whose end is not after its start."""

    type = "invalid_interval"


class NotFoundError(KgmemError, LookupError):
    """An id or name that does not exist (in this group)."""

    type = "not_found"
    http_status = 404


class ForbiddenError(KgmemError):
    """The caller's API key may not use this group (MCP over HTTP; REST answers the same
    403 from its guard before routing)."""

    type = "forbidden"
    http_status = 403


class ClockError(KgmemError):
    """The transaction clock went backwards: transaction time is never back-dated."""

    type = "clock_went_backwards"
    http_status = 409


class ConflictError(KgmemError):
    """The operation conflicts with the current state (e.g. undo of a change that later
    changes depend on, or retracting an already retracted fact)."""

    type = "conflict"
    http_status = 409


class ExtractionTooLargeError(KgmemError):
    """More text than one request may send to synchronous extraction (the API's
    ``max_extract_chars``): split it, or store it without extraction and extract it later."""

    type = "extraction_too_large"
    http_status = 413


class ContentTooLargeError(KgmemError):
    """More episode text than one request may send, extracted or not (the API's and MCP's
    ``max_episode_chars``): split it, or ingest it with ``kgmem ingest``."""

    type = "content_too_large"
    http_status = 413


class UnchangedError(ConflictError):
    """An edit that would change nothing (the fact already says that, or it has no version an
    edit could change): nothing was written, and no change is returned that claims otherwise."""

    type = "unchanged"


class OrphanedFactError(ConflictError):
    """The fact's versions (or an entity it links) were deleted outside kgmem, e.g. by
    graphiti-core's ``remove_episode`` on a shared Neo4j graph: it cannot be changed
    (``Memory.orphans`` lists such facts)."""

    type = "orphaned_fact"


class StoreUnavailableError(KgmemError):
    """The backing store cannot be reached. Nothing was written; retrying later may work
    (``retry_after`` seconds, sent over HTTP as ``Retry-After``)."""

    type = "store_unavailable"
    http_status = 503
    retry_after = 5
    # what a client is told (REST, MCP): no store path, server address or driver text; the
    # message itself, with those, goes to the server's log
    public_message = "the store is unavailable: nothing was written; retry later"

    def __init__(self, message: str, **details: object) -> None:
        details.setdefault("retry_after_s", self.retry_after)
        super().__init__(message, **details)


class StoreBusyError(StoreUnavailableError):
    """The store stayed busy (another writer held its lock, a transient conflict) for longer
    than the bounded wait. Nothing was written: retry the same request."""

    type = "store_busy"
    retry_after = 1
    public_message = ("the store is busy (another write held it longer than "
                      "KGMEM_BUSY_TIMEOUT): nothing was written; retry later")


class MissingExtraError(KgmemError, ImportError):
    """An optional part of kgmem was used without its extra installed (graphiti-core's
    pipeline, a framework adapter): the message names the ``pip install 'kgmem[...]'``."""

    type = "missing_extra"
    http_status = 501


def missing_extra(what: str, extra: str, package: str) -> MissingExtraError:
    """The error for ``what`` needing ``package``, which ``pip install 'kgmem[extra]'``
    installs."""
    return MissingExtraError(
        f"{what} needs {package}, which is not installed: pip install 'kgmem[{extra}]'",
        extra=extra, package=package)
