"""The offline extractor: parses utterances with spaCy (batched), runs the rules over each
parse, and keeps one fact per (subject, predicate, object, kind)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kgmem.entity_types import signature_types
from kgmem.timeline import is_interval
from kgmem.timeutil import to_utc

from ..discourse.speakers import is_assistant_role, is_role, self_name
from ..discourse.voice import quoted_spans, signed_by
from ..facts import ANY_OBJECT, ExtractedFact, normalize_item, resolve_speaker
from .context import Context
from .rules import run
from .sitting import Sitting, Sittings

if TYPE_CHECKING:
    from spacy.tokens import Doc


def _dedupe(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """Keep one fact per (subject, predicate, object, kind): the dated / most confident one.

    An ``assert`` and a ``retract`` of the same triple from one utterance keep the retract
    ("I never said I had a dog" must not also assert the dog)."""
    best: dict[tuple, ExtractedFact] = {}
    order: list[tuple] = []
    for f in facts:
        k = f.key()
        cur = best.get(k)
        if cur is None:
            best[k] = f
            order.append(k)
            continue
        score_new = (f.valid_at is not None or f.invalid_at is not None, f.confidence)
        score_old = (cur.valid_at is not None or cur.invalid_at is not None, cur.confidence)
        if f.kind == "assert" and f.valid_at is not None and cur.valid_at is not None:
            # told twice in one text ("joined Lemay in 2004 ... a partner at Lemay in 2011"):
            # it holds from the first time
            if is_interval(f.valid_at, cur.valid_at):  # the earlier one
                best[k] = f
        elif score_new > score_old:
            best[k] = f
    out = [best[k] for k in order]
    undone: dict[tuple[str, str, str], list[ExtractedFact]] = {}
    for f in out:
        if f.kind in ("retract", "end"):
            undone.setdefault((f.subject.lower(), f.predicate, f.object.lower()), []).append(f)
    return [f for f in out if not (f.kind == "assert" and any(
        not _ends_later(f, u) for u in undone.get(
            (f.subject.lower(), f.predicate, f.object.lower()), ())))]


def _ends_later(f: ExtractedFact, end: ExtractedFact) -> bool:
    """Whether ``end`` closes ``f`` after it began ("started at Equinor in 2019 ... left
    Equinor in 2022": both kept, the end applies to the start), rather than undoing it."""
    return (end.kind == "end" and f.valid_at is not None and end.invalid_at is not None
            and is_interval(f.valid_at, end.invalid_at))


# a fact said both ways by two rules: keep the more specific one
_SAME_FACT = {"WORKS_AT": "MEMBER_OF_TEAM", "ATTENDED": "STUDIES_AT"}


def _one_reading(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """"joined Sevilla FC" read as a job and as a team, "studied at the University of Oslo"
    as attended and as studies at: one fact, the specific predicate's."""
    have = {(f.subject.lower(), f.predicate, f.object.lower(), f.kind) for f in facts}
    return [f for f in facts if not (
        f.predicate in _SAME_FACT
        and (f.subject.lower(), _SAME_FACT[f.predicate], f.object.lower(), f.kind) in have)]


def _settle_types(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """One type per name in an utterance, and a predicate's signature wins over the tagger:
    in "My dog Max loves the beach" Max is HAS_PET's pet, not the PERSON spaCy saw (the store
    keeps an entity's first type, so the guess must not go first)."""
    sure: dict[str, str] = {}
    for f in facts:
        s_sig, o_sig = signature_types(f.predicate)
        for name, t in ((f.subject, "person" if f.subject_is_speaker else s_sig),
                        (f.object, o_sig)):
            if t is not None and name != ANY_OBJECT:
                sure.setdefault(name.lower(), t)
    for f in facts:
        f.subject_type = sure.get(f.subject.lower(), f.subject_type)
        if f.object != ANY_OBJECT:
            f.object_type = sure.get(f.object.lower(), f.object_type)
    return facts


class OfflineExtractor:
    """Rule-based fact extractor over spaCy parses (no network, no LLM).

    The spaCy pipeline is loaded once, lazily, on first use (``kgmem.ingest.nlp.get_nlp``)
    unless ``nlp`` is given. ``extract`` handles one utterance; ``extract_many`` batches
    utterances through ``nlp.pipe`` (much faster). Both are pure: nothing is stored.
    """

    # a long text's pieces come marked as continuing the one before (ExtractionPipeline)
    reads_pieces = True

    def __init__(self, nlp: Any = None, model: str | None = None, batch_size: int = 256) -> None:
        self._nlp = nlp
        self._model = model
        self._shared = nlp is None  # the process-wide pipeline (get_nlp), loaded lazily
        self.batch_size = batch_size

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from ..nlp import get_nlp

            self._nlp = get_nlp(self._model)
        return self._nlp

    def __getstate__(self) -> dict[str, Any]:
        # a copy sent to a worker process (kgmem.ingest.parallel) loads the shared pipeline
        # there itself instead of pickling it; a pipeline given by the caller goes along
        state = dict(self.__dict__)
        if self._shared:
            state["_nlp"] = None
        return state

    def extract(
        self,
        text: str,
        reference_time: datetime,
        speaker: str | None = None,
        user: str | None = None,
    ) -> list[ExtractedFact]:
        """Extract facts from one utterance said at ``reference_time`` (naive = UTC).

        First-person pronouns resolve to ``speaker`` (or ``user`` if the speaker is missing or a
        generic label like "user"; else ``"user"``). ``valid_at``/``invalid_at`` are ``None``
        when the text has no date for the fact: the caller should default them to the
        episode's ``reference_time``.
        """
        if not text or not text.strip():
            return []
        doc = self.nlp(_prepare(text))
        return self.extract_doc(doc, reference_time, speaker, user)

    def extract_doc(
        self,
        doc: Doc,
        reference_time: datetime,
        speaker: str | None = None,
        user: str | None = None,
        sitting: Sitting | None = None,
    ) -> list[ExtractedFact]:
        """Like :meth:`extract` on an already parsed spaCy ``Doc``; ``sitting`` carries what
        earlier turns of the same conversation said (and learns this one)."""
        ref = to_utc(reference_time)
        # a letter or email nobody is said to speak is told by whoever signed it
        signer = signed_by(doc.text) if speaker is None else None
        who = resolve_speaker(signer or speaker, user)
        is_assistant = is_assistant_role(speaker)
        if is_role(speaker) and not is_assistant:  # "my name is Priya" names the role
            role = (speaker or "").strip().lower()
            given = self_name(doc)
            if given is not None and sitting is not None:
                sitting.names[role] = given
            who = given or (sitting.names.get(role, who) if sitting is not None else who)
        # a text nobody is said to speak (a document, a note) is read as narrative prose
        ctx = Context(doc, ref, who, is_assistant, user, sitting, narrative=speaker is None)
        try:
            run(ctx)
        except (IndexError, AttributeError, KeyError, ValueError):  # pragma: no cover
            # A rule tripping over an odd parse must not lose the whole batch.
            pass
        if sitting is not None:
            sitting.learn(who, [name for _i, name in ctx.persons], ctx.relatives, ref)
        facts = ctx.facts
        if is_assistant:  # the assistant's "I" has no life to remember
            facts = [f for f in facts if not f.subject_is_speaker]
        elif speaker is None and (quoted := quoted_spans(doc.text)):
            # a quoted earlier message's "I" and "we" are its writer's, not this sender's
            facts = [f for f in facts if not (f.subject_is_speaker and any(
                a <= f.evidence[0] < b for a, b in quoted))]
        if sitting is not None:
            _learn_pets(sitting, who, facts)
        return _settle_types(_one_reading(_dedupe(facts)))

    def extract_many(
        self,
        items: Iterable[str | Mapping[str, Any] | tuple],
        reference_time: datetime | None = None,
        speaker: str | None = None,
        user: str | None = None,
        batch_size: int | None = None,
        n_process: int = 1,
    ) -> list[list[ExtractedFact]]:
        """Extract from many utterances with ``nlp.pipe``.

        Each item is a string (using the ``reference_time``/``speaker``/``user`` arguments), a
        mapping with ``text`` and optional ``reference_time``, ``speaker``, ``user``, ``group``
        (the conversation) and ``last_sitting`` (when the previous sitting of that conversation
        ended, if the caller knows it), or a tuple ``(text, reference_time[, speaker[, user]])``.
        Returns one list per item, in order.

        Items are read as conversations in the order given: turns of one ``group`` at most a
        sitting apart (``kgmem.timeline.SITTING_GAP``) share a sitting, so a later turn's "she",
        "my partner" or "since we last talked" can lean on an earlier one.
        ``n_process > 1`` parses in worker processes (worth it only for large batches on an
        otherwise idle multi-core machine).
        """
        items = list(items)
        norm = [normalize_item(it, reference_time, speaker, user) for it in items]
        out: list[list[ExtractedFact]] = []
        texts = (_prepare(t) for t, _r, _s, _u in norm)
        docs = self.nlp.pipe(texts, batch_size=batch_size or self.batch_size,
                             n_process=max(1, int(n_process)))
        sittings = Sittings()
        roles: list[tuple[Sitting, str, str]] = []  # per item: its sitting, role, placeholder
        for it, (t, r, s, u), doc in zip(items, norm, docs):
            extra = it if isinstance(it, Mapping) else {}
            sitting = sittings.sitting_for(extra.get("group"), to_utc(r),
                                           _instant(extra.get("last_sitting")),
                                           continues=bool(extra.get("continues")))
            out.append(self.extract_doc(doc, r, s, u, sitting) if t.strip() else [])
            roles.append((sitting, (s or "").strip().lower(), resolve_speaker(s, u)))
        for i, (sitting, role, placeholder) in enumerate(roles):
            given = sitting.names.get(role)
            if given is not None:  # said before the speaker gave their name
                _rename(out[i], placeholder, given)
            if sitting.named_pets:  # "my puppy" named later in the sitting: one pet
                out[i] = [f for f in out[i] if not (
                    f.predicate == "HAS_PET" and f.kind == "assert" and f.subject_is_speaker
                    and (f.subject, f.object.lower()) in sitting.named_pets)]
        return out


def _learn_pets(sitting: Sitting, who: str, facts: list[ExtractedFact]) -> None:
    """The unnamed pet a speaker told of last (a name told in a later turn is its name)."""
    for f in facts:
        if f.predicate == "HAS_PET" and f.kind == "assert" and f.subject_is_speaker:
            if f.object[:1].islower():
                sitting.pets[who] = f.object.lower()
            else:
                sitting.pets.pop(who, None)


def _rename(facts: list[ExtractedFact], old: str, new: str) -> None:
    for f in facts:
        if f.subject == old and f.subject_is_speaker:
            f.subject = new
        if f.object == old:
            f.object = new


def _instant(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return to_utc(value) if value is not None else None
    from kgmem.timeutil import parse_instant

    return parse_instant(value, "last_sitting")


_PREP_FIXES = [
    # a dash glued to a word and used as a pause ("to California- a gorgeous sunset")
    (re.compile(r"(?<=[A-Za-z])-(?= )"), " "),
    (re.compile(r"\bi'm\b"), "I'm"),
    (re.compile(r"\bim\b"), "I'm"),
    (re.compile(r"\bi've\b"), "I've"),
    (re.compile(r"\bi'd\b"), "I'd"),
    (re.compile(r"\bi'll\b"), "I'll"),
    (re.compile(r"\bi\b"), "I"),
    # "Guess what - I got a puppy!": the opener as a sentence of its own, or the parser makes
    # "what" the object of the news
    (re.compile(r"(?<=\b[Gg]uess what) -"), "! "),
    (re.compile(r"(?<=\b[Gg]uess what),"), "!"),
    (re.compile(r"\bdont\b"), "don't"),
    (re.compile(r"\bcant\b"), "can't"),
]


# an image caption appended to a turn ("[shares a photo: a dog on a beach]", as kgmem's LoCoMo
# import writes it): what a captioning model saw, not what the speaker said
_CAPTION = re.compile(r"\[(?:shares a photo|image|photo):[^\]]*\]", re.I)


def _prepare(text: str) -> str:
    """Light chat normalisation that keeps character offsets stable (same-length rewrites
    only, apart from 'im' -> "I'm" which is avoided when it would shift offsets); image
    captions are blanked out."""
    out = _CAPTION.sub(lambda m: " " * len(m.group(0)), text).replace("’", "'")
    for pat, rep in _PREP_FIXES:
        out = pat.sub(functools.partial(_same_length_fix, rep), out)
    return out


def _same_length_fix(rep: str, m: re.Match[str]) -> str:
    return rep if len(rep) == len(m.group(0)) else m.group(0)
