"""Marks for the items of a context block that come from untrusted or instruction-like
episodes (:mod:`kgmem.trust`), or their omission (``context(untrusted="omit")``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import Episode, FactVersion
from ..trust import is_suspect
from .models import FlaggedItem


def trust_note(trust: str, flags: list[str]) -> str:
    """`` [untrusted source; instruction-like: order, override]`` (outside the quote)."""
    parts = []
    if trust == "untrusted":
        parts.append("untrusted source")
    if flags:
        parts.append("instruction-like: " + ", ".join(flags))
    return f" [{'; '.join(parts)}]" if parts else ""


def mark_facts(facts: list[FactVersion], supports: Mapping[str, list[str]],
               sources: Mapping[str, Episode], mode: str
               ) -> tuple[list[FactVersion], dict[str, str], list[FlaggedItem]]:
    """(facts kept, fact_id -> note, flagged items). A fact one suspect episode supports is
    marked; with ``mode="omit"`` a fact only suspect episodes support is left out."""
    kept: list[FactVersion] = []
    notes: dict[str, str] = {}
    flagged: list[FlaggedItem] = []
    for v in facts:
        known = [sources[e] for e in supports.get(v.fact_id, ()) if e in sources]
        bad = [ep for ep in known if is_suspect(ep.trust, ep.flags)]
        if not bad:
            kept.append(v)
            continue
        trust = "untrusted" if any(ep.trust == "untrusted" for ep in bad) else bad[0].trust
        flags = sorted({f for ep in bad for f in ep.flags})
        omit = mode == "omit" and len(bad) == len(known)
        flagged.append(FlaggedItem(kind="fact", id=v.fact_id, trust=trust, flags=flags,
                                   omitted=omit))
        if not omit:
            notes[v.fact_id] = " [from an episode marked: " + trust_note(trust, flags)[2:]
            kept.append(v)
    return kept, notes, flagged


def mark_episodes(items: list[tuple[Episode, Any]], mode: str, flagged: list[FlaggedItem]
                  ) -> list[tuple[Episode, Any]]:
    """The (episode, chunk) items to render; suspect ones are recorded in ``flagged`` and,
    with ``mode="omit"``, left out."""
    kept = []
    for ep, chunk in items:
        if is_suspect(ep.trust, ep.flags):
            omit = mode == "omit"
            flagged.append(FlaggedItem(kind="episode", id=ep.id, trust=ep.trust,
                                       flags=list(ep.flags), omitted=omit))
            if omit:
                continue
        kept.append((ep, chunk))
    return kept
