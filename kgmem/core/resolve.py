"""Entity resolution: which stored entity a name in a group refers to.

Resolvers only use the store's entity/alias operations (``get_entity``, ``find_entities``,
``insert_entity``, ``add_alias``), so they work on every store unchanged.

:class:`ExactResolver` matches normalised names and aliases only. :class:`EntityResolver` (the
default) adds, in this order, when the exact lookup finds nothing (docs/entity-resolution.md):

1. **person names** -- a short name ("Alice") resolves to the unique known *person* whose full
   name starts with it ("Alice Chen"); a full name arriving when only the short one is known
   attaches to it as an alias. Only in a person context (speaker, subject of LIVES_IN, object of
   MARRIED_TO, ...) and for entities with person evidence; never while the short name is shared
   by two full-name persons; never between two full names.
2. **variants** -- accents ("José" / "Jose") and abbreviated organisation words
   ("Acme Corp" / "Acme Corporation"); never dropping a word ("Acme" stays apart).
3. **typos** -- MinHash/LSH over character bigrams (datasketch) finds candidates, rapidfuzz
   verifies exactly one plausible typo (:func:`typo_score`) in names of 7+ characters
   without digits.

Speaker labels are identities: exact or new, never merged by rules 1-3. Every non-exact
resolution adds the name as an alias and leaves a record; facts asserted through an alias are
tracked so that :func:`split_alias` can undo a merge and move them.

The resolver's bookkeeping lives in aliases whose keys start with
:data:`~kgmem.model.INTERNAL_ALIAS` (``"~\\x1f"``): neither ``clean_name`` nor
``normalize_name`` can produce it, and :class:`~kgmem.model.Entity` hides such aliases (and
aliases split off by a ``~\\x1fx:`` key) unless the resolver reads raw aliases. Keys, as
norm -> display:

* ``p`` -> ``*`` person evidence (short names); ``f:<first>`` -> ``^`` a full-name person with
  that first name (also its person evidence); ``n`` -> ``-`` non-person evidence (object of
  LIVES_IN, WORKS_AT...). Only for names that could be a person's (letters only).
* ``b2:<band>:<hash>`` -> ``#`` LSH keys (names of 7+ characters without digits);
  ``v:<form>`` -> ``=`` variant form (names with accents or abbreviated organisation words).
* ``r`` -> ``!`` has records; ``r:<id>`` -> ``r:<json>`` a resolution record;
  ``t:<fact>:<s|o>`` -> ``t:<json>`` a fact asserted through an alias; ``x:<norm>`` ->
  ``x:<alias>`` an alias split off.

A person, place or organisation with a name of 7+ letters typically carries 7 keys (evidence
+ 6 bands); identifiers such as "person12" none. Records and tracking keys only exist where a
merge happened or an alias was used.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidInputError, NotFoundError
from ..model import INTERNAL_ALIAS as P
from ..model import (
    MERGED,
    MERGED_INTO,
    SHOW_INTERNAL_ALIASES,
    UNMERGED,
    Entity,
    public_aliases,
)
from ..names import clean_name, normalize_name
from ..store.base import WriteTx

Role = Literal["subject", "object", "speaker", "other"]
Method = Literal["person_short", "person_full", "variant", "fuzzy", "split"]


class Resolver(Protocol):
    def resolve(self, w: WriteTx, group: str, name: str, now: datetime,
                role: Role = "other", predicate: str | None = None, *,
                mention: bool = False) -> Entity:
        """The entity ``name`` refers to in ``group`` (created if none). ``mention``: the name
        was found in text by an extractor, so fuzzy rules may match it; a name a caller gave
        (``mention=False``) resolves by id, exact normalised name or alias only."""
        ...


class ExactResolver:
    """An id, else an exact normalised name or alias, else a new entity."""

    def resolve(self, w: WriteTx, group: str, name: str, now: datetime,
                role: Role = "other", predicate: str | None = None, *,
                mention: bool = False) -> Entity:
        name = clean_name(name, "entity name")
        norm = normalize_name(name)
        found = w.get_entity(group, name) or first_visible(w.find_entities(group, norm), norm)
        if found is not None:
            return follow_merges(w.get_entity, group, found)
        ent = Entity(id=str(uuid.uuid4()), group=group, name=name, created_at=now)
        w.insert_entity(ent, norm)
        return ent


# ---------------------------------------------------------------------------- name helpers
_norm = lru_cache(maxsize=1 << 16)(normalize_name)


@lru_cache(maxsize=1 << 16)
def fold(norm: str) -> str:
    """A normalised name without accents ("josé garcía" -> "jose garcia")."""
    if norm.isascii():
        return norm
    text = unicodedata.normalize("NFKD", norm)
    return unicodedata.normalize("NFC", "".join(c for c in text if not unicodedata.combining(c)))


def first_visible(found: Sequence[Entity], norm: str) -> Entity | None:
    """The first entity whose name or (not split-off) alias normalises to ``norm``.

    ``find_entities`` still returns an entity through an alias that was split off (aliases are
    never deleted); its :attr:`Entity.aliases` no longer shows it, which is what this checks.
    """
    for e in found:
        if _norm(e.name) == norm or any(_norm(a) == norm for a in public_aliases(e.aliases)):
            return e
    return None


def follow_merges(get_entity: Callable[[str, str], Entity | None], group: str, ent: Entity
                  ) -> Entity:
    """The entity ``ent`` was merged into (``Memory.merge_entities``, not undone), else
    ``ent``: a merged entity's names and id mean the entity it went into."""
    seen = {ent.id}
    while ent.merged_into is not None:
        into = get_entity(group, ent.merged_into)
        if into is None or into.id in seen:
            break
        seen.add(into.id)
        ent = into
    return ent


@contextmanager
def raw_aliases() -> Iterator[None]:
    """Entities built inside this block keep the resolver's internal alias keys."""
    token = SHOW_INTERNAL_ALIASES.set(True)
    try:
        yield
    finally:
        SHOW_INTERNAL_ALIASES.reset(token)


TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "madam"})
NOT_NAMES = frozenset({
    "i", "me", "my", "you", "he", "him", "she", "her", "we", "us", "they", "them", "it",
    "user", "assistant", "speaker", "someone", "somebody", "everyone", "everybody",
})
ORG_WORDS = {
    "corp": "corporation", "inc": "incorporated", "co": "company", "ltd": "limited",
    "intl": "international", "mfg": "manufacturing", "bros": "brothers",
    "assn": "association", "univ": "university",
}
_DIGITS = re.compile(r"\d+")


@lru_cache(maxsize=1 << 16)
def person_parts(norm: str) -> tuple[str, tuple[str, ...]] | None:
    """``(first, rest)`` of a name that could be a person's ("dr alice chen" ->
    ("alice", ("chen",))); ``None`` for anything with digits or symbols, pronouns, and a title
    followed by a single word ("dr chen")."""
    toks = fold(norm).split()
    titled = bool(toks) and toks[0] in TITLES and len(toks) > 1
    if titled:
        toks = toks[1:]
    if not toks or any(not t.replace("-", "").isalpha() for t in toks):
        return None
    if len(toks) == 1 and (titled or len(toks[0]) < 2 or toks[0] in NOT_NAMES):
        return None
    return toks[0], tuple(toks[1:])


def variant_form(norm: str) -> str:
    """Accents removed and abbreviated organisation words spelt out ("acme corp" ->
    "acme corporation"); the first word is never expanded ("co" alone stays "co")."""
    toks = fold(norm).split()
    return " ".join(toks[:1] + [ORG_WORDS.get(t, t) for t in toks[1:]])


def fuzzy_eligible(norm: str) -> bool:
    """Typo matching is for names of 7+ characters without digits (numbers identify:
    "Room 101", "person12" are never typo candidates)."""
    compact = fold(norm).replace(" ", "")
    return len(compact) >= 7 and not _DIGITS.search(compact)


def _edit_kind(a: str, b: str) -> str | None:
    """The single typo turning word ``a`` into ``b`` ("indel", "swap", "sub"), else None."""
    from rapidfuzz.distance import OSA, Levenshtein

    if OSA.distance(a, b, score_cutoff=1) != 1:
        return None
    if len(a) != len(b):
        return "indel"
    return "sub" if Levenshtein.distance(a, b, score_cutoff=2) == 1 else "swap"


_CASE_BOUNDARY = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])|(?<=[a-z])(?=[A-Z])"
                            r"|(?<=[A-Z])(?=[A-Z][a-z])")
_ROMAN = re.compile(r"^m{0,4}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")


@lru_cache(maxsize=1 << 16)
def typo_form(name: str) -> str:
    """The words a typo is looked for in: a display name split where the case or a digit
    run starts a new word ("TeamRex" -> "team rex", "ProjectA" -> "project a"), normalised
    and accent-folded."""
    return fold(normalize_name(_CASE_BOUNDARY.sub(" ", name)))


def typo_score(a: str, b: str, min_score: float = 0.85) -> float | None:
    """Score in [0, 1] when typo forms ``a`` and ``b`` (:func:`typo_form`) differ by exactly
    one plausible typo, else None.

    Conservative, because a wrong merge mixes two entities' facts: same digits, same word
    count, exactly one word differs; by one transposition, or by one letter inserted or
    dropped inside it (never its first or last letter: Project/Projects, William/Williams);
    never by a substituted letter ("TeamRex"/"TeamRed", "ProjectA"/"ProjectB",
    "Gonzales"/"Gonzalez"); that word has 5+ letters and is not a Roman numeral (a version:
    "Louis XVII"/"Louis XVIII"); a one-word name needs 7+ letters; in a person's full name
    the given name may only differ by a transposition (one letter more or less is another
    name of the same family: Carl/Carol, Sara/Sarah)."""
    from rapidfuzz import fuzz

    if a == b or _DIGITS.findall(a) != _DIGITS.findall(b):
        return None
    ta, tb = a.split(), b.split()
    if len(ta) != len(tb):
        return None
    diff = [(i, x, y) for i, (x, y) in enumerate(zip(ta, tb, strict=True)) if x != y]
    if len(diff) != 1:
        return None
    i, x, y = diff[0]
    if any(c.isdigit() for c in x + y) or _ROMAN.match(x) or _ROMAN.match(y):
        return None
    kind = _edit_kind(x, y)
    if kind is None or kind == "sub":
        return None
    if i == 0 and len(ta) > 1 and kind != "swap" and person_parts(a) is not None:
        return None  # Carl/Carol, Sara/Sarah Hayes: given names of one family, not typos
    longest = max(len(x), len(y))
    if longest < 5 or (len(ta) == 1 and longest < 7):
        return None
    if kind == "indel":
        short, long_ = sorted((x, y), key=len)
        if long_[1:] == short or long_[:-1] == short:
            return None  # a first or last letter more or less: another word, not a typo
    score = fuzz.ratio(a, b) / 100.0
    return score if score >= min_score else None


# ---------------------------------------------------------------------------- contexts
PERSON_SUBJECT = frozenset({
    "LIVES_IN", "WORKS_AT", "HAS_ROLE", "LEADS", "REPORTS_TO", "MARRIED_TO", "DATING",
    "STUDIES_AT", "MEMBER_OF_TEAM", "KNOWS", "FRIEND_OF", "SIBLING_OF", "PARENT_OF", "CHILD_OF",
    "HAS_PET", "SPEAKS", "HAS_HOBBY", "FROM",
})
PERSON_OBJECT = frozenset({
    "MARRIED_TO", "DATING", "KNOWS", "FRIEND_OF", "SIBLING_OF", "PARENT_OF", "CHILD_OF",
    "REPORTS_TO",
})
NONPERSON_OBJECT = frozenset({
    "LIVES_IN", "WORKS_AT", "STUDIES_AT", "HAS_ROLE", "LEADS", "MEMBER_OF_TEAM", "MEMBER_OF",
    "HAS_PET", "SPEAKS", "USES", "OWNS", "AGE", "FAVORITE", "HAS_STATUS", "HAS_HOBBY",
    "WORKS_ON", "ATTENDED", "FROM",
})

Context = Literal["person", "nonperson", "neutral"]


# ---------------------------------------------------------------------------- raw entity view
@dataclass
class _View:
    """An entity read with raw aliases, split into what the resolver needs."""

    entity: Entity
    visible: list[str] = field(default_factory=list)
    person: bool = False
    nonperson: bool = False
    has_records: bool = False
    split: set[str] = field(default_factory=set)  # display forms of split-off aliases
    records: list[str] = field(default_factory=list)
    tracks: list[str] = field(default_factory=list)
    band_keys: bool = False

    @classmethod
    def of(cls, e: Entity) -> _View:
        v = cls(e)
        for a in e.aliases:
            if a[:2] != P:
                v.visible.append(a)
                continue
            k = a[2:]
            if k == "*" or k == "^":
                v.person = True
            elif k == "-":
                v.nonperson = True
            elif k == "#":
                v.band_keys = True
            elif k == "!":
                v.has_records = True
            elif k[:2] == "x:":
                v.split.add(k[2:])
            elif k[:2] == "r:":
                v.records.append(k[2:])
            elif k[:2] == "t:":
                v.tracks.append(k[2:])
        if v.split:
            v.visible = [a for a in v.visible if a not in v.split]
        return v

    @property
    def a_person(self) -> bool:
        """Person evidence and nothing against it (a place that was also "known" is not)."""
        return self.person and not self.nonperson

    @property
    def public(self) -> Entity:
        if len(self.visible) == len(self.entity.aliases):
            return self.entity
        return self.entity.model_copy(update={"aliases": list(self.visible)})

    def display_names(self) -> list[str]:
        """Name and visible aliases as they were given."""
        return [self.entity.name, *self.visible]

    def names(self) -> list[str]:
        """Normalised name and visible aliases."""
        return [_norm(self.entity.name)] + [_norm(a) for a in self.visible]

    def names_match(self, norm: str) -> bool:
        return _norm(self.entity.name) == norm or any(_norm(a) == norm for a in self.visible)

    def split_off(self, norm: str) -> bool:
        return any(_norm(d) == norm for d in self.split)

    def full_names(self, first: str) -> set[tuple[str, ...]]:
        """Full person names (first, *rest) of this entity with the given first name."""
        out = set()
        for n in self.names():
            pp = person_parts(n)
            if pp is not None and pp[1] and pp[0] == first:
                out.add((pp[0], *pp[1]))
        return out


# ---------------------------------------------------------------------------- records
class Resolution(BaseModel):
    """A non-exact resolution (a merge) or the split that undid one."""

    model_config = ConfigDict(frozen=True)

    id: str
    group: str
    entity_id: str
    entity: str
    name: str  # the name as it arrived
    method: Method
    score: float
    at: datetime
    role: str | None = None
    predicate: str | None = None
    split: bool = False  # this merge was undone by split_alias
    new_entity_id: str | None = None  # split: the entity the alias resolves to now
    facts: list[dict[str, str]] = Field(default_factory=list)  # {fact_id, role[, action...]}


def _dumps(d: dict[str, Any]) -> str:
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------------------- the resolver
class EntityResolver:
    """Exact names and aliases, then person names, variants and typos (module docstring).

    Blocking keys (see :meth:`_compute_band_keys`): a one-word name stores ``bands`` keys of
    ``rows`` MinHash values each, a longer name 2 x ``anchor_bands`` anchored keys.
    ``min_score`` is the rapidfuzz ratio (0-1) a typo match must also reach.
    """

    SEED = 20240611

    def __init__(self, *, bands: int = 6, rows: int = 3, anchor_bands: int = 3,
                 min_score: float = 0.85,
                 person_subject: Iterable[str] = PERSON_SUBJECT,
                 person_object: Iterable[str] = PERSON_OBJECT,
                 nonperson_object: Iterable[str] = NONPERSON_OBJECT,
                 fuzzy: bool = True) -> None:
        self.bands, self.rows, self.min_score, self.fuzzy = bands, rows, min_score, fuzzy
        self.anchor_bands = anchor_bands
        self.person_subject = frozenset(person_subject)
        self.person_object = frozenset(person_object)
        self.nonperson_object = frozenset(nonperson_object)
        self._perms: Any = None
        self._band_keys = lru_cache(maxsize=4096)(self._compute_band_keys)
        # (entity id, context) whose evidence key was read back from the store: no need to
        # look again (evidence is never removed; ids are never reused)
        self._known: set[tuple[str, str]] = set()
        # per open transaction: (group, name) -> entity. Within one write transaction a name
        # keeps resolving to the same entity (nothing but this transaction writes to it), so a
        # bulk load reads each name once per batch.
        self._tx_names: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], Entity]] = (
            weakref.WeakKeyDictionary())

    # -------------------------------------------------------------- entry point
    def resolve(self, w: WriteTx, group: str, name: str, now: datetime,
                role: Role = "other", predicate: str | None = None, *,
                mention: bool = False) -> Entity:
        name = clean_name(name, "entity name")
        ctx = self.context(role, predicate)
        names = self._names_of(w)
        ent = names.get((group, name))
        if ent is None:
            ent = w.get_entity(group, name)
        if ent is None:
            norm = _norm(name)
            ent = first_visible(w.find_entities(group, norm), norm)
            if ent is None:
                with raw_aliases():
                    view = self._match_or_create(w, group, name, norm, now, role, predicate,
                                                 ctx, mention)
                ent = view.public
                names[(group, name)] = ent
                return ent
        ent = follow_merges(w.get_entity, group, ent)
        names[(group, name)] = ent
        if (ctx != "neutral" and (ent.id, ctx) not in self._known
                and person_parts(_norm(ent.name)) is not None):
            with raw_aliases():
                raw = w.get_entity(group, ent.id)
                if raw is not None:
                    self._evidence(w, group, _View.of(raw), ctx)
        return ent

    def _names_of(self, w: WriteTx) -> dict[tuple[str, str], Entity]:
        try:
            names = self._tx_names.get(w)
            if names is None or len(names) > 100_000:
                names = self._tx_names[w] = {}
            return names
        except TypeError:  # a transaction object without weak references: no memo
            return {}

    def context(self, role: str, predicate: str | None) -> Context:
        if role == "speaker":
            return "person"
        if role == "subject" and predicate in self.person_subject:
            return "person"
        if role == "object" and predicate in self.person_object:
            return "person"
        if role == "object" and predicate in self.nonperson_object:
            return "nonperson"
        return "neutral"

    def note_fact(self, w: WriteTx, group: str, fact_id: str,
                  subject: tuple[Entity, str], obj: tuple[Entity, str]) -> None:
        """Called by Memory for every new fact lineage: remember the facts asserted through an
        alias (a name other than the entity's own), so that a split can move them."""
        for role, (ent, surface) in (("subject", subject), ("object", obj)):
            if surface == ent.id:
                continue
            n = _norm(surface)
            if n == _norm(ent.name):
                continue
            w.add_alias(group, ent.id, f"{P}t:{_dumps({'f': fact_id, 'r': role, 'n': n})}",
                        f"{P}t:{fact_id}:{role[0]}")

    # -------------------------------------------------------------- lookups
    def _find(self, w: WriteTx, group: str, norm: str) -> list[_View]:
        return [_View.of(e) for e in w.find_entities(group, norm)]

    def _exact(self, w: WriteTx, group: str, norm: str) -> _View | None:
        for v in self._find(w, group, norm):
            if v.names_match(norm):
                return v
        return None

    # -------------------------------------------------------------- matching
    def _match_or_create(self, w: WriteTx, group: str, name: str, norm: str, now: datetime,
                         role: str, predicate: str | None, ctx: Context,
                         mention: bool) -> _View:
        # Only a mention found in text may be merged; a caller's name, like a speaker label,
        # is an identity: exact or new.
        if mention and role != "speaker":
            hit: tuple[_View, Method, float] | None = None
            if ctx == "person":
                hit = self._person(w, group, norm)
            if hit is None:
                hit = self._variant(w, group, norm, ctx)
            if hit is None and self.fuzzy:
                hit = self._typo(w, group, name, norm, ctx)
            if hit is not None:
                view, method, score = hit
                if view.entity.merged_into is not None:  # the entity it was merged into
                    view = _View.of(follow_merges(w.get_entity, group, view.entity))
                self._merge(w, group, view, name, norm, now, method, score, role, predicate, ctx)
                return view
        return self._create(w, group, name, norm, now, ctx)

    def _person(self, w: WriteTx, group: str, norm: str) -> tuple[_View, Method, float] | None:
        pp = person_parts(norm)
        if pp is None:
            return None
        first, rest = pp
        if not rest:  # "Alice": the unique known full-name person called Alice
            full = self._full_name_persons(w, group, first, norm)
            return (full[0], "person_short", 1.0) if len(full) == 1 else None
        # "Alice Chen": the unique person known only as "Alice", if no other Alice is known
        me = (first, *rest)
        short = [v for v in self._find(w, group, first)
                 if v.a_person and v.names_match(first) and not v.split_off(norm)
                 and not (v.full_names(first) - {me})]
        if len(short) != 1:
            return None
        others = [v for v in self._full_name_persons(w, group, first, norm)
                  if v.entity.id != short[0].entity.id]
        return None if others else (short[0], "person_full", 1.0)

    def _full_name_persons(self, w: WriteTx, group: str, first: str, norm: str
                           ) -> list[_View]:
        return [v for v in self._find(w, group, f"{P}f:{first}")
                if v.a_person and v.full_names(first) and not v.split_off(norm)]

    def _variant(self, w: WriteTx, group: str, norm: str, ctx: Context
                 ) -> tuple[_View, Method, float] | None:
        form = variant_form(norm)
        found: dict[str, _View] = {}
        if form != norm:
            for v in self._find(w, group, form):
                if any(variant_form(n) == form for n in v.names()):
                    found[v.entity.id] = v
        for v in self._find(w, group, f"{P}v:{form}"):
            found.setdefault(v.entity.id, v)
        ok = [v for v in found.values() if not v.split_off(norm) and self._fits(v, ctx)]
        return (ok[0], "variant", 1.0) if len(ok) == 1 else None

    def _typo(self, w: WriteTx, group: str, name: str, norm: str, ctx: Context
              ) -> tuple[_View, Method, float] | None:
        if not fuzzy_eligible(norm):
            return None
        me = typo_form(name)
        seen: set[str] = set()
        best: list[tuple[float, _View]] = []
        for key in self._band_keys(norm):
            for v in self._find(w, group, key):
                if v.entity.id in seen:
                    continue
                seen.add(v.entity.id)
                if v.split_off(norm) or not self._fits(v, ctx):
                    continue
                scores = [s for n in v.display_names() if fuzzy_eligible(_norm(n))
                          and (s := typo_score(me, typo_form(n), self.min_score)) is not None]
                if scores:
                    best.append((max(scores), v))
        if len(best) != 1:  # none, or ambiguous
            return None
        score, view = best[0]
        return view, "fuzzy", round(score, 4)

    @staticmethod
    def _fits(v: _View, ctx: Context) -> bool:
        """A mention in this context may name this entity (no evidence against it)."""
        return not ((ctx == "nonperson" and v.person) or (ctx == "person" and v.nonperson))

    # -------------------------------------------------------------- writes
    def _create(self, w: WriteTx, group: str, name: str, norm: str, now: datetime,
                ctx: Context) -> _View:
        ent = Entity(id=str(uuid.uuid4()), group=group, name=name, created_at=now)
        w.insert_entity(ent, norm)
        view = _View(ent)
        if self.fuzzy and fuzzy_eligible(norm):
            self._add_band_keys(w, group, ent.id, norm)
        form = variant_form(norm)
        if form != norm:
            w.add_alias(group, ent.id, f"{P}=", f"{P}v:{form}")
        self._evidence(w, group, view, ctx, new=True)
        return view

    def _merge(self, w: WriteTx, group: str, view: _View, name: str, norm: str, now: datetime,
               method: Method, score: float, role: str, predicate: str | None,
               ctx: Context) -> None:
        eid = view.entity.id
        w.add_alias(group, eid, name, norm)
        rid = uuid.uuid4().hex
        rec = {"id": rid, "name": name, "norm": norm, "method": method, "score": score,
               "at": now.isoformat(), "role": role, "predicate": predicate}
        w.add_alias(group, eid, f"{P}r:{_dumps(rec)}", f"{P}r:{rid}")
        if not view.has_records:
            w.add_alias(group, eid, f"{P}!", f"{P}r")
        view.visible.append(name)
        if method == "person_full":
            pp = person_parts(norm)
            assert pp is not None
            w.add_alias(group, eid, f"{P}^", f"{P}f:{pp[0]}")
            if self.fuzzy and fuzzy_eligible(norm):
                self._add_band_keys(w, group, eid, norm)
        self._evidence(w, group, view, ctx)

    def _evidence(self, w: WriteTx, group: str, view: _View, ctx: Context,
                  new: bool = False) -> None:
        """Remember that the entity was named in a person (or a non-person) context.

        Only for names that could be a person's (letters only): the rules never look at the
        evidence of "person12" or "Room 101", so storing it would only cost. A full-name
        person's first-name key doubles as its person evidence.
        """
        eid = view.entity.id
        if len(self._known) > 1 << 18:
            self._known.clear()
        if view.person:
            self._known.add((eid, "person"))
        if view.nonperson:
            self._known.add((eid, "nonperson"))
        if ctx == "neutral" or (ctx == "person" and view.person) or (
                ctx == "nonperson" and view.nonperson):
            return
        if person_parts(_norm(view.entity.name)) is None:
            return
        if new:  # written in the transaction that creates the entity: no need to re-read
            self._known.add((eid, ctx))
        if ctx == "person":
            firsts = {pp[0] for n in view.names()
                      if (pp := person_parts(n)) is not None and pp[1]}
            for first in sorted(firsts):
                w.add_alias(group, eid, f"{P}^", f"{P}f:{first}")
            if not firsts:
                w.add_alias(group, eid, f"{P}*", f"{P}p")
            view.person = True
        else:
            w.add_alias(group, eid, f"{P}-", f"{P}n")
            view.nonperson = True

    # -------------------------------------------------------------- LSH blocking keys
    def _minhash(self) -> tuple[Any, str]:
        """A MinHash factory ``make(num_perm)`` and the tag of its scheme (keys are persisted:
        a store keyed under one scheme finds no typo candidates under another -- it never
        merges wrongly)."""
        if self._perms is None:
            from datasketch import MinHash  # type: ignore[import-untyped]  # lazy: pulls in scipy

            n = max(self.bands * self.rows, self.anchor_bands)
            try:
                perms = MinHash(num_perm=n, seed=self.SEED, scheme="affine32").permutations

                def make(k: int) -> Any:
                    return MinHash(num_perm=k, permutations=perms[:, :k], scheme="affine32")
                self._perms = (make, "b2")
            except TypeError:  # datasketch < 2: one (legacy) scheme
                legacy = MinHash(num_perm=n, seed=self.SEED).permutations

                def make(k: int) -> Any:
                    return MinHash(num_perm=k, permutations=legacy[:, :k])
                self._perms = (make, "b0")
        return self._perms

    def _compute_band_keys(self, norm: str) -> tuple[str, ...]:
        """LSH blocking keys of a name (MinHash over character n-grams of its folded form).

        One word: ``bands`` bands of ``rows`` MinHash values over its character bigrams.
        Several words: a typo changes one word, so the keys are *anchored* on the first and on
        the last word (kept exactly) with ``anchor_bands`` single MinHash values over the
        characters and bigrams of the other words. Candidates then share a whole word, which
        keeps buckets small where many people share a first name (plain bands over the whole
        name would put every "James ..." together).
        """
        make, tag = self._minhash()
        toks = fold(norm).split()
        out = []
        if len(toks) == 1:
            text = f" {toks[0]} "
            m = make(self.bands * self.rows)
            m.update_batch(sorted({text[i:i + 2].encode() for i in range(len(text) - 1)}))
            hv = m.hashvalues
            for b in range(self.bands):
                chunk = hv[b * self.rows:(b + 1) * self.rows].astype("<u8").tobytes()
                out.append(f"{P}{tag}:{b}:{hashlib.blake2b(chunk, digest_size=6).hexdigest()}")
            return tuple(out)
        for side, anchor, rest in (("a", toks[0], toks[1:]), ("z", toks[-1], toks[:-1])):
            text = f" {' '.join(rest)} "
            grams = {text[i:i + 2] for i in range(len(text) - 1)} | set(text.replace(" ", ""))
            m = make(self.anchor_bands)
            m.update_batch(sorted(g.encode() for g in grams))
            for b, v in enumerate(m.hashvalues):
                h = hashlib.blake2b(f"{anchor}\x00{int(v)}".encode(), digest_size=6).hexdigest()
                out.append(f"{P}{tag}:{side}{b}:{h}")
        return tuple(out)

    def _add_band_keys(self, w: WriteTx, group: str, eid: str, norm: str) -> None:
        for key in self._band_keys(norm):
            w.add_alias(group, eid, f"{P}#", key)


# ---------------------------------------------------------------------------- reading records
def _records(view: _View, group: str) -> list[Resolution]:
    tracks: list[dict[str, str]] = []
    for t in view.tracks:
        try:
            d = json.loads(t)
            tracks.append({"fact_id": d["f"], "role": d["r"], "norm": d["n"]})
        except (ValueError, KeyError):
            continue
    out = []
    for r in view.records:
        try:
            d = json.loads(r)
        except ValueError:
            continue
        method = d.get("method")
        norm = d.get("norm") or _norm(d.get("name", "") or "?")
        if method == "split":
            facts = d.get("facts") or []
        else:
            facts = [{"fact_id": t["fact_id"], "role": t["role"]}
                     for t in tracks if t["norm"] == norm]
        out.append(Resolution(
            id=d["id"], group=group, entity_id=view.entity.id, entity=view.entity.name,
            name=d.get("name", ""), method=method, score=float(d.get("score", 1.0)),
            at=datetime.fromisoformat(d["at"]), role=d.get("role"),
            predicate=d.get("predicate"), split=method != "split" and view.split_off(norm),
            new_entity_id=d.get("new"), facts=facts,
        ))
    return out


class _Reader(Protocol):
    """What reading records needs: a store or an open write transaction."""

    def get_entity(self, group: str, entity_id: str) -> Entity | None: ...
    def find_entities(self, group: str, norm_name: str) -> list[Entity]: ...


def resolutions(reader: _Reader, group: str, entity_id: str | None = None
                ) -> list[Resolution]:
    """Merges (and splits) recorded in ``group``, oldest first; one entity's if given."""
    with raw_aliases():
        if entity_id is not None:
            raw = reader.get_entity(group, entity_id)
            views = [_View.of(raw)] if raw is not None else []
        else:
            views = [_View.of(e) for e in reader.find_entities(group, f"{P}r")]
    out = [r for v in views for r in _records(v, group)]
    out.sort(key=lambda r: (r.at, r.id))
    return out


# ---------------------------------------------------------------------------- undoing a merge
@dataclass(frozen=True)
class SplitStart:
    """The first step of a split, done in one write: the alias hidden and its own entity."""

    alias: str  # as given (cleaned)
    norm: str
    resumed: bool  # the alias was split off before: resuming an interrupted split
    new_id: str
    new_name: str
    tracked: dict[str, set[str]]  # facts asserted through the alias: fact id -> roles


def start_split(w: WriteTx, group: str, entity_id: str, alias: str, now: datetime,
                resolver: Resolver) -> SplitStart:
    """Stop ``alias`` resolving to the entity and give it an entity of its own (an existing
    one with exactly that name, else a new one: a person if the entity was one). Raises when
    ``alias`` is the entity's own name or not one of its aliases."""
    alias = clean_name(alias, "alias")
    norm = _norm(alias)
    rules = resolver if isinstance(resolver, EntityResolver) else EntityResolver()
    with raw_aliases():
        raw = w.get_entity(group, entity_id)
        if raw is None:
            raise NotFoundError(f"no entity {entity_id!r} in group {group!r}", entity=entity_id)
        view = _View.of(raw)
        if _norm(view.entity.name) == norm:
            raise InvalidInputError(
                f"{alias!r} is the name of entity {entity_id}, not an alias; only aliases can "
                "be split off", field="alias")
        resumed = view.split_off(norm)
        display = next((a for a in view.visible if _norm(a) == norm), None)
        if display is None and not resumed:
            raise NotFoundError(f"{alias!r} is not an alias of entity {view.entity.name!r}",
                                entity=entity_id, alias=alias)
        if display is not None and not resumed:
            w.add_alias(group, entity_id, f"{P}x:{display}", f"{P}x:{norm}")
            view.split.add(display)
            view.visible.remove(display)
        new = rules._exact(w, group, norm)
        if new is None:
            new = rules._create(w, group, display or alias, norm, now,
                                "person" if view.a_person else "neutral")
    tracked: dict[str, set[str]] = {}
    for t in view.tracks:
        try:
            d = json.loads(t)
        except ValueError:
            continue
        if d.get("n") == norm:
            tracked.setdefault(d["f"], set()).add(d["r"])
    return SplitStart(alias=alias, norm=norm, resumed=resumed,
                      new_id=new.entity.id, new_name=new.entity.name, tracked=tracked)


def tracked_through(w: WriteTx, group: str, entity_id: str, other_id: str
                    ) -> dict[str, set[str]]:
    """Facts asserted on ``entity_id`` through a name of ``other_id`` (its own or an alias):
    after ``other_id`` was merged into it, its names meant ``entity_id``. Fact id -> roles."""
    with raw_aliases():
        raw, other = w.get_entity(group, entity_id), w.get_entity(group, other_id)
    if raw is None or other is None:
        return {}
    theirs = _View.of(other)
    norms = {_norm(theirs.entity.name)} | {_norm(a) for a in theirs.visible}
    tracked: dict[str, set[str]] = {}
    for t in _View.of(raw).tracks:
        try:
            d = json.loads(t)
        except ValueError:
            continue
        if d.get("n") in norms:
            tracked.setdefault(d["f"], set()).add(d["r"])
    return tracked


def record_split(w: WriteTx, group: str, entity_id: str, start: SplitStart, now: datetime,
                 moved: list[dict[str, str]], why: str) -> None:
    """The last step of a split: its record (with the facts that moved) on the entity."""
    rid = uuid.uuid4().hex
    rec = {"id": rid, "name": start.alias, "norm": start.norm, "method": "split",
           "score": 1.0, "at": now.isoformat(), "new": start.new_id, "facts": moved,
           "reason": why}
    w.add_alias(group, entity_id, f"{P}r:{_dumps(rec)}", f"{P}r:{rid}")
    w.add_alias(group, entity_id, f"{P}!", f"{P}r")


# ---------------------------------------------------------------------------- explicit merges
def mark_merged(w: WriteTx, group: str, entity_id: str, into_id: str, change_id: str) -> None:
    """Record that change ``change_id`` merged the entity into ``into_id`` (kgmem.model)."""
    w.add_alias(group, entity_id, f"{MERGED}{change_id}:{into_id}", f"{MERGED}{change_id}")
    w.add_alias(group, entity_id, f"{MERGED_INTO}{into_id}", f"{MERGED_INTO}{into_id}")


def mark_unmerged(w: WriteTx, group: str, entity_id: str, change_id: str) -> None:
    w.add_alias(group, entity_id, f"{UNMERGED}{change_id}", f"{UNMERGED}{change_id}")


def merged_by(w: WriteTx, group: str, change_id: str) -> tuple[str, str] | None:
    """(merged entity id, id of the entity it went into) of the merge ``change_id`` made."""
    with raw_aliases():
        for e in w.find_entities(group, f"{MERGED}{change_id}"):
            for a in e.aliases:
                if a.startswith(f"{MERGED}{change_id}:"):
                    return e.id, a[len(MERGED) + len(change_id) + 1:]
    return None


def merged_into_entity(w: WriteTx, group: str, entity_id: str) -> list[str]:
    """Ids of the entities currently merged into ``entity_id``."""
    return [e.id for e in w.find_entities(group, f"{MERGED_INTO}{entity_id}")
            if e.merged_into == entity_id]
