"""From episodes to memory operations: runs an extractor and applies what it found.

``assert`` facts become assertions (valid time from the text, else the episode's reference
time); ``end`` facts invalidate the matching believed fact at the stated time (or record a
fact that ended then, if none is known); ``retract`` facts retract the matching believed
facts ("Actually I never lived in Boston").

Extraction is split in two so that an episode and its facts are one write
(:mod:`kgmem.ingest.episodes`): :meth:`ExtractionPipeline.extract` runs the extractor
outside any transaction (it is pure: text in, facts out) and returns one :class:`Outcome`
per episode; :meth:`ExtractionPipeline.apply_in` writes one episode's facts inside the
transaction that stores the episode and its :class:`kgmem.model.ExtractionState`.

An extractor is any :class:`kgmem.ingest.extractor.Extractor`: ``extract_many(items) ->
list[list[ExtractedFact]]`` (items are ``(text, reference_time, speaker)`` tuples). It may also offer
``extract_outcomes(items) -> list[Outcome]`` to report per-episode failures itself (an LLM
endpoint that went away: the episodes it did not try are ``Outcome(attempted=False)`` and
stay ``pending``), and ``name`` / ``version`` attributes, recorded in the extraction state.
Without ``extract_outcomes``, an ``extract_many`` that raises is retried one episode at a time
so that only the episodes that fail are recorded as failed.

Work is bounded by size, not by episode count: an episode longer than ``chunk_chars`` reaches
the extractor in pieces cut at paragraph, line or sentence ends (its facts are those of its
pieces), and one ``extract_many`` call gets at most ``batch_chars`` characters, so the parser
never holds more than that much text at a time.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..core import lineage_edits as edits
from ..core.resolve import first_visible
from ..entity_types import ENTITY_TYPES
from ..errors import InvalidInputError, KgmemError
from ..model import Episode, FactVersion
from ..names import clean_name, normalize_name
from ..timeline import ends_inside, in_interval, is_interval
from ..vocabulary import normalize_predicate
from .extractor import Extractor, Item

if TYPE_CHECKING:
    from ..core.writes import Writes
    from ..settings import Settings
    from ..store.base import WriteTx

log = logging.getLogger(__name__)

MAX_DROPPED_REASONS = 20  # kept per episode in its extraction state
CHUNK_CHARS = 10_000  # longest text handed to the extractor at once
BATCH_CHARS = 20_000  # most text in one extract_many call (the parser holds it all)
_CUTS = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")


def split_text(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters that join back to it, each cut
    after the last paragraph break in its window, else line break, sentence end, clause
    break or space (in the second half of the window), else at ``size``."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > size:
        window = text[start:start + size]
        cut = size
        for sep in _CUTS:
            k = window.rfind(sep)
            if k >= size // 2:
                cut = k + len(sep)
                break
        pieces.append(window[:cut])
        start += cut
    pieces.append(text[start:])
    return pieces


@dataclass(frozen=True)
class Outcome:
    """What the extractor made of one episode: its facts, or the error that stopped it, or
    ``attempted=False`` when it did not try (the episode stays ``pending``)."""

    facts: Sequence[Any] = ()
    error: BaseException | None = None
    attempted: bool = True


@dataclass
class Applied:
    """What applying one episode's facts did: the fact ids touched, and the facts dropped
    because the rules could not place them (with why)."""

    touched: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def error_kind(exc: BaseException) -> str:
    """The stable name of an error for an extraction state: a kgmem error's ``type``, else
    the exception class name."""
    return exc.type if isinstance(exc, KgmemError) else type(exc).__name__


def _matching_in(writes: Writes, w: WriteTx, group: str, subject: str, predicate: str,
                 obj: str | None) -> list[FactVersion]:
    """The believed (current) versions of (subject, predicate[, obj]) as this transaction
    sees them, in the order of :meth:`Memory.facts`."""
    try:
        name = clean_name(subject, "subject")
        pred = normalize_predicate(predicate)
    except InvalidInputError:
        return []
    norm = normalize_name(name)
    ent = first_visible(w.find_entities(group, norm), norm)
    if ent is None:
        return []
    lins = {lin.fact_id for lin in w.lineages_for(group, ent.id, pred)}
    symmetric = writes.predicates.spec(w, group, pred).symmetric
    if symmetric:  # a mirrored version names the subject as its object
        lins |= {lin.fact_id for lin in w.lineages_touching(group, ent.id, pred)}
    found = sorted(w.current_versions(sorted(lins)).values(),
                   key=lambda v: (v.subject_id, v.valid_at is not None,
                                  v.valid_at or _MIN, v.created_at, v.id))
    if obj is None:
        return found
    key = normalize_name(obj)
    if symmetric:
        return [f for f in found if key in (normalize_name(f.object), normalize_name(f.subject))]
    return [f for f in found if normalize_name(f.object) == key]


_MIN = datetime(1, 1, 1, tzinfo=timezone.utc)


def _merge(parts: Sequence[Outcome]) -> Outcome:
    """The outcome of an episode extracted in pieces: its pieces' facts, or the first error
    (then none of its facts), or not attempted if a piece was not."""
    for o in parts:
        if not o.attempted:
            return o
    for o in parts:
        if o.error is not None:
            return o
    return Outcome(facts=[f for o in parts for f in o.facts])



def _types(f: Any) -> dict[str, str | None]:
    """The entity types an extracted fact gives (an unknown one is ignored, not an error)."""
    return {k: v if (v := getattr(f, k, None)) in ENTITY_TYPES else None
            for k in ("subject_type", "object_type")}


class ExtractionPipeline:
    """Wraps an :class:`~kgmem.ingest.extractor.Extractor`."""

    def __init__(self, extractor: Extractor, min_confidence: float = 0.0,
                 chunk_chars: int | None = CHUNK_CHARS, batch_chars: int = BATCH_CHARS,
                 workers: int = 1) -> None:
        self.extractor = extractor
        self.min_confidence = min_confidence
        self.chunk_chars = chunk_chars  # None: every episode whole (the measured baseline)
        self.batch_chars = batch_chars
        # workers > 1: runs are extracted in that many worker processes (kgmem.ingest.parallel;
        # the extractor must pickle and must not offer extract_outcomes); same facts, in order
        self.workers = workers
        self._pool: Any = None

    def close(self) -> None:
        """Stop the worker processes, if any were started."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def worker_pids(self) -> list[int]:
        """The extraction worker processes' ids (empty when extraction runs in-process)."""
        return self._pool.worker_pids() if self._pool is not None else []

    @property
    def name(self) -> str:
        """The extractor's name (its ``name`` attribute, else its class name)."""
        return str(getattr(self.extractor, "name", None) or type(self.extractor).__name__)

    @property
    def version(self) -> str:
        """The extractor's ``version`` attribute, else the kgmem version."""
        from ..version import __version__

        return str(getattr(self.extractor, "version", None) or __version__)

    # ------------------------------------------------------------------ extraction (pure)
    def extract(self, items: Sequence[Item], groups: Sequence[str] | None = None
                ) -> list[Outcome]:
        """One :class:`Outcome` per ``(text, reference_time, speaker)`` item, in order (long
        texts in pieces, at most ``batch_chars`` characters per extractor call). ``groups``
        (one per item): an extractor call never mixes groups, so an extractor that reads a
        conversation's turns together (a sitting) never reads another group's."""
        pieces: list[Any] = []
        owner: list[int] = []
        # an extractor that reads a long text's pieces as one (a document's title and topic
        # carry over) is told which pieces continue the one before
        joined = bool(getattr(self.extractor, "reads_pieces", False))
        for i, (text, ref, speaker) in enumerate(items):
            parts = [text] if self.chunk_chars is None else split_text(text, self.chunk_chars)
            pieces += [{"text": p, "reference_time": ref, "speaker": speaker, "continues": True}
                       if joined and k else (p, ref, speaker) for k, p in enumerate(parts)]
            owner += [i] * len(parts)
        runs: list[list[Item]] = [[]]
        size = 0
        for k, piece in enumerate(pieces):
            other_group = groups is not None and k > 0 and (
                groups[owner[k]] != groups[owner[k - 1]])
            n = len(piece["text"] if isinstance(piece, dict) else piece[0])
            if runs[-1] and (other_group or size + n > self.batch_chars):
                runs.append([])
                size = 0
            runs[-1].append(piece)
            size += n
        outcomes = self._extract_runs(runs)
        if len(pieces) == len(items):
            return outcomes
        merged: list[list[Outcome]] = [[] for _ in items]
        for i, o in zip(owner, outcomes, strict=True):
            merged[i].append(o)
        return [_merge(os) for os in merged]

    def _extract_runs(self, runs: list[list[Item]]) -> list[Outcome]:
        """The runs' outcomes in order: in worker processes when ``workers > 1`` (a run whose
        worker failed is extracted again in-process, episode by episode if need be)."""
        if (self.workers <= 1 or len(runs) < 2
                or getattr(self.extractor, "extract_outcomes", None) is not None):
            return [o for run in runs for o in self._extract_run(run)]
        if self._pool is None:
            from .parallel import ExtractorPool

            self._pool = ExtractorPool(self.extractor, self.workers)
        futures = [self._pool.submit(run) for run in runs]
        out: list[Outcome] = []
        for run, fut in zip(runs, futures, strict=True):
            try:
                results = fut.result()
            except Exception:  # noqa: BLE001 - redone in-process, failures recorded there
                log.warning("an extraction worker failed; extracting its run in-process",
                            exc_info=True)
                out += self._extract_run(run)
                continue
            if len(results) != len(run):
                raise RuntimeError(f"{self.name}.extract_many returned {len(results)} "
                                   f"results for {len(run)} episodes")
            out += [Outcome(facts=list(r)) for r in results]
        return out

    def _extract_run(self, items: Sequence[Item]) -> list[Outcome]:
        if not items:
            return []
        hook: Callable[[Sequence[Item]], Sequence[Outcome]] | None = getattr(
            self.extractor, "extract_outcomes", None)
        if hook is not None:
            outcomes = list(hook(items))
            if len(outcomes) != len(items):
                raise RuntimeError(f"{self.name}.extract_outcomes returned {len(outcomes)} "
                                   f"outcomes for {len(items)} episodes")
            return outcomes
        try:
            results = self.extractor.extract_many(list(items))
        except Exception as exc:  # noqa: BLE001 - recorded on the episodes, never lost
            if len(items) == 1:
                return [Outcome(error=exc)]
            return [self._extract_run([it])[0] for it in items]  # find the ones that fail
        return [Outcome(facts=list(r)) for r in results]

    # ------------------------------------------------------------------ applying (in a write)
    def apply_in(self, writes: Writes, w: WriteTx, ep: Episode, facts: Sequence[Any],
                 now: datetime) -> Applied:
        """Apply one episode's extracted facts inside the open write ``w`` (at ``now``).

        A fact the rules cannot place (an invalid name, an interval that ends before it
        starts...) is dropped and reported, before anything of it is written; any other error
        propagates and the caller rolls the whole write back."""
        out = Applied()
        for f in facts:
            if f.confidence < self.min_confidence:
                continue
            try:
                write = self._plan(writes, w, ep, f)
            except InvalidInputError as exc:
                out.dropped.append(f"{f.kind} {f.subject} {f.predicate} {f.object}: "
                                   f"{exc.message}")
                log.info("episode %s: dropped extracted fact (%s): %s", ep.id, f.rule,
                         exc.message)
                continue
            out.touched += write(now)
        return out

    def _plan(self, writes: Writes, w: WriteTx, ep: Episode, f: Any
              ) -> Callable[[datetime], list[str]]:
        """Validate one extracted fact and return the writes that apply it (reads only until
        then: an InvalidInputError here leaves nothing written)."""
        g = ep.group
        f = owned_generic(f)

        def change(kind: Any, fact_ids: list[str], edit: Callable[..., Any], why: str,
                   needs_tx: bool = False) -> Callable[[datetime], list[str]]:
            def run(now: datetime) -> list[str]:
                for fid in fact_ids:
                    writes.change_lineage(g, fid, kind, edit, why, needs_tx=needs_tx, tx=(w, now))
                return fact_ids
            return run

        if f.kind == "assert":
            start = f.valid_at or ep.reference_time
            # (only an open-ended assertion can complete an ended fact: skip the read otherwise)
            known = [] if f.invalid_at is not None else _matching_in(
                writes, w, g, f.subject, f.predicate, f.object)
            held = _still_held(known, start, f)
            if held is not None:  # said again: one lineage, one more source
                return _strengthen(w, ep, held)
            for cur in known:
                # "I left X in May 2020" told before "I joined X in 2015": the ended fact had
                # no start yet; give it this one instead of opening a second interval.
                if (cur.valid_at is None and cur.stated_invalid_at is not None
                        and is_interval(start, cur.stated_invalid_at) and f.invalid_at is None):
                    return change("correct", [cur.fact_id], edits.correction(writes.resolve_entity, None, start, None),
                                  f"start learnt from episode {ep.id}", needs_tx=True)
            parsed = writes.parse_assertion(
                f.subject, f.predicate, f.object, start, f.invalid_at, g, ep, None,
                f"extracted ({f.rule})", f.valid_precision if f.valid_at else None,
                f.invalid_precision if f.invalid_at else None, from_text=True,
                **_types(f))
            [checked] = writes.check_predicates(w, [parsed])  # a near-miss is dropped here
            return lambda now: [writes.assert_in_tx(w, now, checked)]
        any_object = f.object == "*"  # "we broke up": end whatever the current value is
        if f.kind == "end":
            at = f.invalid_at or f.valid_at or ep.reference_time
            ends = []
            for cur in _matching_in(writes, w, g, f.subject, f.predicate,
                                    None if any_object else f.object):
                if not in_interval(at, None, cur.invalid_at):  # ended already by then
                    continue
                lin = w.get_lineage(cur.fact_id)
                start = lin.valid_at if lin is not None else cur.valid_at
                if not ends_inside(at, start, cur.invalid_at):
                    continue
                ends.append(cur.fact_id)
            if ends:
                return change("invalidate", ends, edits.invalidation(at),
                              f"ended per episode {ep.id}")
            if not f.object or any_object:
                return lambda now: []
            parsed = writes.parse_assertion(f.subject, f.predicate, f.object, None, at, g, None,
                                        None, f"ended per episode {ep.id}", None,
                                        f.invalid_precision, from_text=True, **_types(f))
            [checked] = writes.check_predicates(w, [parsed])
            return lambda now: [writes.assert_in_tx(w, now, checked)]
        if f.kind == "retract" and not any_object:  # never retract every value on a vague one
            gone = [c.fact_id for c in _matching_in(writes, w, g, f.subject, f.predicate, f.object)]
            return change("retract", gone, edits.retraction, f"corrected by episode {ep.id}")
        return lambda now: []


# predicates whose unnamed object is the subject's own thing ("my dog", "my boat", "my bakery")
OWNED_OBJECTS = frozenset({"HAS_PET", "OWNS", "RUNS"})


def owned_generic(f: Any) -> Any:
    """An unnamed thing one has is that person's ("Caroline's dog"), never a node shared by
    everyone who has a dog: ``paths`` must not link two friends through "dog". A name (a
    capital) is kept as it is."""
    obj = str(getattr(f, "object", "") or "")
    subject = str(getattr(f, "subject", "") or "")
    if (getattr(f, "predicate", None) not in OWNED_OBJECTS or not obj or obj == "*"
            or not obj[:1].islower() or not subject or obj.lower().startswith(
                subject.lower() + "'s ")):
        return f
    f = copy.copy(f)
    f.object = f"{subject}'s {obj}"
    return f


def _still_held(known: Sequence[FactVersion], start: datetime, f: Any
                ) -> FactVersion | None:
    """The current version an open-ended state restates ("my dog" told again next week): it
    started no later and is still open. An event told again is another event."""
    if getattr(f, "event", False) or (getattr(f, "attributes", None) or {}).get("event"):
        return None
    return next((cur for cur in known if cur.valid_at is not None
                 and in_interval(start, cur.valid_at, None)
                 and cur.invalid_at is None and cur.stated_invalid_at is None), None)


def _strengthen(w: WriteTx, ep: Episode, cur: FactVersion) -> Callable[[datetime], list[str]]:
    """Record ``ep`` as one more source of the fact ``cur`` (no new lineage)."""
    def run(now: datetime) -> list[str]:
        w.add_provenance(cur.fact_id, ep.id, now)
        w.add_mentions(ep.id, [cur.subject_id, cur.object_id])
        return [cur.fact_id]
    return run


def make_extractor(settings: Settings | None = None) -> ExtractionPipeline | None:
    """The configured extraction pipeline (offline spaCy by default)."""
    kind = getattr(settings, "extractor", "offline") if settings is not None else "offline"
    if kind == "none":
        return None
    if kind == "llm":
        from .llm import LLMExtractor

        return ExtractionPipeline(LLMExtractor.from_settings(settings))
    from .offline import OfflineExtractor

    workers = getattr(settings, "extract_workers", 1) if settings is not None else 1
    return ExtractionPipeline(OfflineExtractor(), workers=workers)
