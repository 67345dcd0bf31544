"""Writing episodes together with their facts: an episode and what was extracted from it are
one atomic write.

For each batch: the stored episodes among it are read; the extractor runs (outside any
transaction) on the new ones and on stored ones whose extraction is ``failed``, ``pending``
or ``skipped``; then one write stores the new episodes, their facts and every episode's
:class:`kgmem.model.ExtractionState`. A crash before that write commits loses the batch
whole (a re-run redoes it); after it, the episodes and their facts are both there. So a
re-run after any crash yields exactly the facts of a clean run, and an acknowledged episode
never lacks the facts derived from it.

An extraction error is recorded on its episode (``failed``, with the error) and retried by
the next add of the same episode, :meth:`kgmem.Memory.extract_failed` or
``kgmem extract --failed``. An error while *applying* an episode's facts rolls the write
back; the batch is then written again with that episode stored as ``failed`` and without any
of its facts (the others keep theirs). A store error (unreachable, clock went backwards)
propagates: nothing of the batch was written.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from ..errors import ClockError, InvalidInputError, StoreUnavailableError
from ..model import Episode, ExtractionState
from ..names import MAX_CONTENT, check_group, clean_name
from .facts import ASSISTANT_SPEAKERS, GENERIC_SPEAKERS
from ..timeutil import parse_instant
from .pipeline import MAX_DROPPED_REASONS, ExtractionPipeline, Outcome, error_kind

if TYPE_CHECKING:
    from ..core.writes import Writes
    from ..store.base import WriteTx
    from ..trust import TrustPolicy

log = logging.getLogger(__name__)


class IngestFacade(Protocol):
    """What ingestion uses of the facade (:class:`kgmem.memory.facade.Memory` passes itself):
    its public write steps, trust policy, extraction pipeline and indexing. Ingestion never
    imports the facade, so the layers stay one-way: memory -> ingest -> core -> store."""

    writes: Writes  # the clock, entity resolution, assertions and lineage changes
    trust: TrustPolicy  # the trust level and flags of each new episode (kgmem.trust)

    @property
    def extractor(self) -> object: ...  # an ExtractionPipeline, or None (no extraction)

    def index(self, group: str | None = None) -> int: ...

MAX_ERROR_MESSAGE = 2000
MAX_LISTED_ERRORS = 100  # bad items listed in one InvalidInputError


def parse_episodes(items: Iterable[Any], group: str, user_name: str | None = None
                   ) -> list[dict[str, Any]]:
    """Validate every item before anything is written. One bad item raises its own error;
    several raise one error naming them all (``details.errors``: index, field, message).
    ``user_name``: the owner's name for items that give none (:func:`owner_speaker`)."""
    parsed: list[dict[str, Any]] = []
    bad: list[tuple[int, InvalidInputError]] = []
    for i, item in enumerate(items):
        try:
            parsed.append(parse_episode(i, item, group, user_name))
        except InvalidInputError as exc:
            bad.append((i, exc))
    if not bad:
        return parsed
    if len(bad) == 1 and not parsed:  # a single episode: its own error, as it was
        raise bad[0][1]
    i, first = bad[0]
    listed = [{"index": j, "field": e.details.get("field"), "message": e.message}
              for j, e in bad[:MAX_LISTED_ERRORS]]
    raise type(first)(
        f"{len(bad)} of {len(parsed) + len(bad)} episodes are invalid, nothing was written; "
        f"episode {i}: {first.message}", index=i, field=first.details.get("field"),
        errors=listed)


def owner_speaker(speaker: str | None, user_name: str | None) -> str | None:
    """Who an episode's speaker is once the caller has named the user: a chat role that stands
    for the user ("user", "human", "me", ...) becomes ``user_name``; a named speaker, the
    assistant and a missing speaker stay as they are. The name the caller gives wins over a
    name the text gives ("my name is ...")."""
    if user_name is None or speaker is None:
        return speaker
    return user_name if speaker.strip().lower() in GENERIC_SPEAKERS else speaker


def _user_name(value: object, i: int) -> str | None:
    if value is None:
        return None
    name = clean_name(value, "user_name")
    if name.lower() in GENERIC_SPEAKERS or name.lower() in ASSISTANT_SPEAKERS:
        raise InvalidInputError(f"user_name {name!r} is a chat role, not a name",
                                field="user_name", index=i)
    return name


def parse_episode(i: int, item: Any, group: str, user_name: str | None = None
                  ) -> dict[str, Any]:
    """One :meth:`kgmem.Memory.add_episode` argument dict, validated; ``digest`` is its
    idempotency key (content, reference time, source, speaker). A speaker that is the user's
    chat role is stored as the item's (else the call's) ``user_name`` when one is given;
    ``speaker_role`` keeps the role, which trust rules are written for."""
    if not isinstance(item, dict):
        raise InvalidInputError("an episode must be an object", index=i)
    g = check_group(item.get("group") or group)
    content = item.get("content")
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError("episode content must not be empty", field="content", index=i)
    if len(content) > MAX_CONTENT:
        raise InvalidInputError(f"episode content exceeds {MAX_CONTENT} characters",
                                field="content", index=i)
    if item.get("reference_time") is None:
        raise InvalidInputError("reference_time is required", field="reference_time", index=i)
    ref = parse_instant(item["reference_time"], "reference_time")
    speaker = item.get("speaker")
    if speaker is not None:
        speaker = clean_name(speaker, "speaker")
    role = speaker
    owner = _user_name(item.get("user_name"), i)
    speaker = owner_speaker(speaker, owner or _user_name(user_name, i))
    source = str(item.get("source") or "message")
    digest = hashlib.sha256(
        "\x1f".join([content, ref.isoformat(), source, speaker or ""]).encode()
    ).hexdigest()
    return {"group": g, "content": content, "ref": ref, "speaker": speaker,
            "speaker_role": role, "source": source, "source_description": str(item.get("source_description") or ""),
            "digest": digest, "extract": item.get("extract", True) is not False}


class GroupReport(BaseModel):
    """What one ingest did in one group."""

    new: int = 0  # episodes stored by this call
    already_stored: int = 0  # identical episodes found stored (not added again)
    extracted: int = 0  # episodes whose extraction ran and was written (done)
    failed: int = 0  # episodes whose extraction failed in this call (recorded, retryable)
    pending: int = 0  # episodes left for a later extraction
    retried: int = 0  # stored episodes whose failed/pending extraction ran again
    facts: int = 0  # facts touched by the extractions
    dropped: int = 0  # extracted facts the rules could not place


class IngestReport(BaseModel):
    """The result of :meth:`kgmem.Memory.ingest`: the episodes (in input order) and per-group
    counts. ``errors`` holds the first failed extractions (episode id, kind, message)."""

    episodes: list[Episode] = Field(default_factory=list)
    groups: dict[str, GroupReport] = Field(default_factory=dict)
    errors: list[dict[str, str]] = Field(default_factory=list)

    def group(self, g: str) -> GroupReport:
        return self.groups.setdefault(g, GroupReport())

    def summary(self) -> dict[str, Any]:
        """Counts per group, plus the first errors (what the CLI prints)."""
        out: dict[str, Any] = {"episodes": len(self.episodes),
                               "groups": {g: r.model_dump() for g, r in sorted(self.groups.items())}}
        if self.errors:
            out["errors"] = self.errors
        return out


@dataclass
class _Written:
    episode: Episode
    new: bool
    retried: bool = False
    touched: list[str] = field(default_factory=list)


class _ApplyFailed(Exception):
    def __init__(self, index: int, error: BaseException) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


@dataclass
class _Job:
    """One item of a batch: the parsed episode (parse_episode), or a stored one."""

    parsed: dict[str, Any] | None
    stored: Episode | None = None
    outcome: Outcome | None = None

    def item(self) -> tuple[str, datetime, str | None]:
        if self.parsed is not None:
            return (self.parsed["content"], self.parsed["ref"], self.parsed["speaker"])
        assert self.stored is not None
        return (self.stored.content, self.stored.reference_time, self.stored.speaker)

    def group(self) -> str:
        if self.parsed is not None:
            return str(self.parsed["group"])
        assert self.stored is not None
        return self.stored.group


def wants_extraction(ep: Episode | None) -> bool:
    """New episodes, and stored ones whose extraction is failed, pending or skipped (an
    episode stored before extraction states existed has none and is left alone)."""
    return ep is None or (ep.extraction is not None and ep.extraction.status != "done")


def write_batch(m: IngestFacade, parsed: Sequence[dict[str, Any]], extract: bool,
                report: IngestReport) -> list[_Written]:
    """Store one batch of parsed episodes with their facts (in input order)."""
    pipeline = pipeline_of(m) if extract else None
    stored: dict[tuple[str, str], Episode] = {}
    for g in sorted({p["group"] for p in parsed}):
        hashes = [p["digest"] for p in parsed if p["group"] == g]
        stored.update(((g, h), ep) for h, ep in m.writes.store.episodes_by_hash(g, hashes).items())
    jobs = [_Job(p, stored.get((p["group"], p["digest"]))) for p in parsed]
    if pipeline is not None:
        seen: set[tuple[str, str]] = set()
        todo = []
        for j in jobs:
            assert j.parsed is not None
            key = (j.parsed["group"], j.parsed["digest"])
            if key not in seen and j.parsed["extract"] and wants_extraction(j.stored):
                todo.append(j)
            seen.add(key)
        for j, o in zip(todo, pipeline.extract([j.item() for j in todo],
                                               [j.group() for j in todo]), strict=True):
            j.outcome = o
    written = _commit(m, jobs, pipeline)
    _count(report, written, pipeline)
    return written


def extract_stored(m: IngestFacade, pipeline: ExtractionPipeline, episodes: list[Episode],
                   force: bool = False, report: IngestReport | None = None) -> list[_Written]:
    """Run extraction on stored episodes and write their facts and states (one write).
    ``force`` extracts even episodes whose extraction is done (their facts are asserted
    again: identical ones only gain provenance)."""
    jobs = [_Job(None, ep) for ep in episodes]
    todo = [j for j in jobs if force or wants_extraction(j.stored)]
    for j, o in zip(todo, pipeline.extract([j.item() for j in todo],
                                           [j.group() for j in todo]), strict=True):
        j.outcome = o
    written = _commit(m, jobs, pipeline, force)
    if report is not None:
        _count(report, written, pipeline)
    return written


def pipeline_of(m: IngestFacade) -> ExtractionPipeline | None:
    ex = m.extractor
    if ex is None or isinstance(ex, ExtractionPipeline):
        return ex
    raise TypeError(f"Memory.extractor must be an ExtractionPipeline, got {type(ex).__name__}")


def _count(report: IngestReport, written: list[_Written], pipeline: Any) -> None:
    for x in written:
        ep = x.episode
        r = report.group(ep.group)
        report.episodes.append(ep)
        if x.new:
            r.new += 1
        else:
            r.already_stored += 1
        r.retried += x.retried
        st = ep.extraction
        if st is None or not (x.new or x.retried):
            continue
        if st.status == "done":
            r.extracted += 1
            r.facts += st.facts
            r.dropped += st.dropped
        elif st.status == "failed":
            r.failed += 1
            if len(report.errors) < 20:
                report.errors.append({"episode": ep.id, "group": ep.group,
                                      "kind": st.error_kind or "",
                                      "message": st.error_message or ""})
        elif st.status == "pending" and pipeline is not None:
            r.pending += 1


def _commit(m: IngestFacade, jobs: list[_Job], pipeline: ExtractionPipeline | None,
            force: bool = False) -> list[_Written]:
    """Write the jobs in one transaction; if applying one episode's facts fails, write them
    again with that episode recorded as failed (and none of its facts)."""
    out: list[_Written | None] = [None] * len(jobs)
    start = 0
    while start < len(jobs):
        try:
            with m.writes.store.write() as w:
                for i in range(start, len(jobs)):
                    out[i] = _write_one(m, w, i, jobs[i], pipeline, force)
            break
        except _ApplyFailed as failed:
            log.warning("applying the facts extracted from episode %d of the batch failed, "
                        "recorded as failed: %s: %s", failed.index,
                        type(failed.error).__name__, failed.error)
            jobs[failed.index].outcome = Outcome(error=failed.error)
            with m.writes.store.write() as w:
                for i in range(start, failed.index + 1):
                    out[i] = _write_one(m, w, i, jobs[i], pipeline, force)
            start = failed.index + 1
    return [x for x in out if x is not None]


def _write_one(m: IngestFacade, w: WriteTx, i: int, job: _Job, pipeline: ExtractionPipeline | None,
               force: bool) -> _Written:
    p = job.parsed
    ep = w.find_episode_by_hash(p["group"], p["digest"]) if p is not None else (
        w.get_episode(job.stored.group, job.stored.id) if job.stored is not None else None)
    if ep is None and p is None:  # a stored episode erased meanwhile: nothing to extract
        assert job.stored is not None
        return _Written(job.stored, new=False)
    prev = ep.extraction if ep is not None else None
    o = job.outcome
    rerun = ep is not None and o is not None and (force or wants_extraction(ep))
    if ep is not None and not rerun:
        return _Written(ep, new=False)
    now = m.writes.tick(w, p["group"] if p is not None else ep.group,  # type: ignore[union-attr]
                  replaying=p.get("replaying") if p is not None else None)
    new = ep is None
    if ep is None:
        assert p is not None
        trust, flags = m.trust.assess(p["content"], p["source"], p.get("speaker_role"))
        ep = Episode(id=str(uuid.uuid4()), group=p["group"], content=p["content"],
                     source=p["source"], source_description=p["source_description"],
                     speaker=p["speaker"], reference_time=p["ref"], created_at=now,
                     trust=trust, flags=flags)
        w.insert_episode(ep, p["digest"])
        if ep.speaker:
            spk = m.writes.resolve_entity(w, ep.group, ep.speaker, now, "speaker")
            w.add_mentions(ep.id, [spk.id])
    touched: list[str] = []
    wanted = pipeline is not None and (p is None or p["extract"])
    state = _state(pipeline if wanted else None, o, prev, now)
    if o is not None and o.attempted and o.error is None:
        assert pipeline is not None
        try:
            applied = pipeline.apply_in(m.writes, w, ep, o.facts, now)
        except (StoreUnavailableError, ClockError):
            raise
        except Exception as exc:  # noqa: BLE001 - recorded on the episode by _commit
            raise _ApplyFailed(i, exc) from exc
        touched = applied.touched
        state = state.model_copy(update={
            "facts": len(set(touched)), "dropped": len(applied.dropped),
            "dropped_reasons": applied.dropped[:MAX_DROPPED_REASONS]})
    if state.status == "failed":
        log.warning("extraction failed for episode %s (group %s): %s: %s", ep.id, ep.group,
                    state.error_kind, state.error_message)
    w.set_extraction(ep.id, state)
    return _Written(ep.model_copy(update={"extraction": state}), new=new, retried=not new,
                    touched=touched)


def _state(pipeline: ExtractionPipeline | None, o: Outcome | None,
           prev: ExtractionState | None, now: datetime) -> ExtractionState:
    if pipeline is None:
        return ExtractionState(status="skipped", updated_at=now)
    base = ExtractionState(status="pending", extractor=pipeline.name,
                           extractor_version=pipeline.version,
                           attempts=prev.attempts if prev is not None else 0, updated_at=now)
    err = o.error if o is not None else None
    if o is None or not o.attempted:  # not tried: pending (with the reason, if one was given)
        return base.model_copy(update={
            "error_kind": error_kind(err) if err is not None else None,
            "error_message": _message(err) if err is not None else None})
    if err is not None:
        return base.model_copy(update={"status": "failed", "attempts": base.attempts + 1,
                                       "error_kind": error_kind(err),
                                       "error_message": _message(err)})
    return base.model_copy(update={"status": "done", "attempts": base.attempts + 1})


def _message(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return str(text)[:MAX_ERROR_MESSAGE]


def index_groups(m: IngestFacade, groups: list[str]) -> int:
    """Index the ingested groups' backlogs, and only theirs: on a shared Neo4j server an
    unscoped pass embeds every tenant's backlog, writing vectors onto relationships other
    writers hold (a contract test lost a write to the resulting deadlock)."""
    return sum(m.index(g) for g in groups)


def run_batches(m: IngestFacade, parsed: list[dict[str, Any]], extract: bool, batch_size: int,
                on_batch: Callable[[int], None] | None, pool: Any) -> IngestReport:
    """:meth:`kgmem.Memory.ingest`: the batches in order, each one write; with ``pool`` the
    episodes are embedded and indexed in the background while the next batch is extracted."""
    report = IngestReport()
    pending: Any = None  # the background index pass in flight (at most one)
    groups = sorted({p["group"] for p in parsed})
    for i in range(0, len(parsed), batch_size):
        chunk = parsed[i:i + batch_size]
        write_batch(m, chunk, extract, report)
        if pool is not None and (pending is None or pending.done()):
            if pending is not None:
                pending.result()  # re-raise a failed background pass here
            # embeds this batch while the next is extracted
            pending = pool.submit(index_groups, m, groups)
        if on_batch is not None:
            on_batch(len(chunk))
    if pending is not None:
        pending.result()
    return report
