"""Erase: physical deletion of an episode, an entity or a whole group (privacy).

Everything derived only from what is erased goes, at every ``known_at``, and an audit record
without content remains (:class:`kgmem.model.Erasure`). In one store transaction:

* the facts: an episode's facts that no other episode supports, or every fact that ever
  touched the entity (all versions, the change records that only concerned them, the
  resolver's tracking keys); neighbours those facts closed are recomputed from now on and keep
  their past versions with the cause scrubbed;
* the episode (text, keyword tokens, chunk vectors, time mentions) or the entity (names,
  aliases, resolution records, vectors);
* **entities by reference count**: an entity the erased items referred to (a fact's subject
  or object in any version, a mention by the erased episode) goes too when no fact version,
  lineage or episode mention refers to it any more. Aliases, resolution records and summaries
  belong to their entity and go with it; a surviving entity loses its summary and every
  stored version of it (a summary may quote the erased text; it is rebuilt from what is left,
  kgmem/memory/consolidate.py), as does every entity whose summaries quote the erased episode;
* the store's own remnants (:meth:`~kgmem.store.base.WriteTx.purge_erased`: the FTS5 segments).

After the commit, copies outside the live data: the store's WAL (``after_erase``), persisted
ANN index files (rewritten without the erased vectors, also when no search backend is loaded),
and the caches shared by every store and group of this machine -- the embedding cache and the
LLM response cache forget the erased texts. See docs/erase.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..core.resolve import merged_into_entity
from ..core.supersede import listing
from ..core.writes import Writes
from ..errors import InvalidInputError
from ..model import INTERNAL_ALIAS, Change, Erasure
from ..names import check_group
from ..store.base import ErasedContent, LineageState, Store, WriteTx
from ..vocabulary import normalize_predicate

if TYPE_CHECKING:
    from ..embed.base import Embedder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Holders:
    """What holds copies of a memory's texts outside its store: the embedder it was given
    (None: the default) and its extraction pipeline (built on first use, so asked for only
    when an episode's text must be forgotten by its LLM cache)."""

    embedder: object
    extractor: Callable[[], object]


def _new_id() -> str:
    import uuid

    return str(uuid.uuid4())


def erase(
    writes: Writes,
    holders: Holders,
    *,
    episode: str | None,
    entity: str | None,
    group: str,
    whole_group: bool,
) -> Erasure:
    """:meth:`kgmem.Memory.erase`."""
    group = check_group(group)
    if sum(x is not None and x is not False for x in (episode, entity, whole_group or None)) != 1:
        raise InvalidInputError("erase takes exactly one of episode=, entity=, whole_group=True")
    if episode is not None:
        writes.episode(episode, group)
    ent = writes.lookup_entity(group, entity) if entity is not None else None
    if whole_group:
        with writes.store.write() as w:
            now = writes.tick(w, group)
            content = w.group_content(group)
            counts = w.delete_group(group)
            w.purge_erased()
            er = Erasure(id=_new_id(), group=group, kind="group", created_at=now, counts=counts)
            w.insert_erasure(er)
        after_commit(writes, holders, content, group)
        return er
    with writes.store.write() as w:
        now = writes.tick(w, group)
        if episode is not None:
            fact_ids = w.fact_ids_only_from_episode(group, episode)
            kind: Literal["episode", "entity"] = "episode"
        else:
            assert ent is not None
            fact_ids = w.fact_ids_touching_entity(group, ent.id)
            kind = "entity"
        gone = _delete_items(w, group, fact_ids, episode, ent.id if ent is not None else None)
        if ent is not None:  # entities merged into it: the same entity under other names
            gone.counts["entities"] += _delete_merged(w, group, ent.id, gone.content)
        change = Change(
            id=_new_id(), group=group, kind="erase", created_at=now, reason=f"erase {kind}"
        )
        change = listing(change, _recompute_neighbours(
            writes, w, group, gone.lineages, change, ent.id if ent is not None else None))
        w.insert_change(change, [])
        orphans = _delete_orphans(w, group, gone.candidates, gone.content)
        gone.counts["entities"] = gone.counts.get("entities", 0) + orphans
        w.purge_erased()
        er = Erasure(id=_new_id(), group=group, kind=kind, created_at=now, counts=gone.counts)
        w.insert_erasure(er)
    after_commit(writes, holders, gone.content, group)
    return er


@dataclass
class _Deleted:
    content: ErasedContent  # what was embedded for the deleted items
    counts: dict[str, int]
    lineages: list[LineageState]  # the erased facts' (for their neighbours' recomputation)
    candidates: set[str]  # entities they referred to, to reference-count


def _delete_items(
    w: WriteTx, group: str, fact_ids: list[str], episode: str | None, entity_id: str | None
) -> _Deleted:
    """Delete the facts and the episode or the entity."""
    lineages = [lin for f in fact_ids if (lin := w.get_lineage(f)) is not None]
    parties = w.entities_of_facts(fact_ids)
    candidates = parties | set(w.episode_mentions(episode) if episode is not None else ())
    if episode is not None:  # summaries quoting the episode lose it too (kgmem.memory.consolidate)
        candidates |= set(w.summary_entities_citing(group, [episode]))
    candidates.discard(entity_id or "")
    content = w.erased_content(group, fact_ids, [entity_id] if entity_id else [],
                               [episode] if episode else [])
    w.erase_changes(group, fact_ids, parties)
    counts = {"facts": len(fact_ids), "versions": w.delete_lineages(fact_ids)}
    w.scrub_caused_by(fact_ids)
    # the resolver's note of a fact asserted through an alias (kgmem.core.resolve, note_fact)
    w.delete_alias_keys(group, [f"{INTERNAL_ALIAS}t:{f}:{r}" for f in fact_ids for r in "so"])
    if episode is not None:
        counts["episodes"] = w.delete_episode(group, episode)
    else:
        assert entity_id is not None
        counts["entities"] = w.delete_entity(group, entity_id)
    return _Deleted(content, counts, lineages, candidates)


def _recompute_neighbours(
    writes: Writes, w: WriteTx, group: str, lineages: list[LineageState], change: Change,
    entity_id: str | None,
) -> list[str]:
    """Recompute the timelines the erased lineages were part of; the lineages touched."""
    why = "neighbour of erased fact"
    touched: list[str] = []
    for subject_id, pred in sorted({(x.subject_id, x.predicate) for x in lineages}):
        if subject_id == entity_id:
            continue
        others = {x.object_id for x in lineages if x.subject_id == subject_id
                  and x.predicate == pred and x.object_id != entity_id}
        touched += writes.recompute(w, group, subject_id, pred, change, why, parties=others)
    if entity_id is not None:  # the other side of the erased entity's symmetric relations
        for party, pred in sorted({
            (x.object_id, x.predicate) for x in lineages
            if x.subject_id == entity_id and x.object_id != entity_id
            and (spec := writes.predicates.spec(writes.store, group,
                                                normalize_predicate(x.predicate))).symmetric and spec.functional
        }):
            touched += writes.recompute(w, group, party, pred, change, why)
    return touched


def _delete_merged(w: WriteTx, group: str, entity_id: str, content: ErasedContent) -> int:
    """Delete the entities merged into ``entity_id`` (``Memory.merge_entities``): their facts
    moved to it and went with it; their names are added to ``content``."""
    merged = merged_into_entity(w, group, entity_id)
    if merged:
        content.texts.extend(w.erased_content(group, [], merged, []).texts)
    return sum(w.delete_entity(group, eid) for eid in merged)


def _delete_orphans(w: WriteTx, group: str, candidates: set[str],
                    content: ErasedContent) -> int:
    """Reference counting: delete the candidates nothing refers to any more (their names are
    added to ``content``); the survivors lose their summaries. Returns how many went."""
    orphans = w.unreferenced_entities(group, candidates)
    if orphans:
        content.texts.extend(w.erased_content(group, [], orphans, []).texts)
    for eid in orphans:
        w.delete_entity(group, eid)
    w.clear_summaries(group, sorted(candidates - set(orphans)))
    return len(orphans)


# ---------------------------------------------------------------------------- after commit
def after_commit(writes: Writes, holders: Holders, content: ErasedContent, group: str) -> None:
    """Remove the copies outside the store's live data. Failures are logged, not raised: the
    erase itself has committed (and a retry would find nothing to erase)."""
    steps = (
        ("store", lambda: writes.store.after_erase()),
        ("search indexes", lambda: _scrub_search_indexes(writes.store, group)),
        ("embedding cache", lambda: _forget_embeddings(writes.store, holders, content)),
        ("LLM cache", lambda: _forget_llm_responses(holders, content)),
    )
    for what, step in steps:
        try:
            step()
        except Exception:  # noqa: BLE001 - see the docstring
            log.exception("erase: could not clean the %s", what)


def _scrub_search_indexes(store: Store, group: str) -> None:
    """Loaded search backends drop what they keep of the erased items (rewrite their ANN
    files), embedding nothing (the backlog of any group is the indexer's, not the erase's);
    ANN files of models no backend has loaded in this process are rewritten too."""
    for backend in list(store.search_backends().values()):
        backend.forget_erased(group)
    store.scrub_search_files()


def _embedders(store: Store, holders: Holders) -> list[Any]:
    """Every embedder this Memory may have written texts through."""
    from .. import embed

    found = [holders.embedder, getattr(store, "embedder", None),
             getattr(embed, "_default", None)]
    found += [getattr(b, "embedder", None) for b in list(store.search_backends().values())]
    out: list[Any] = []
    for e in found:
        if e is not None and all(e is not x for x in out):
            out.append(e)
    return out


def embedded_texts(content: ErasedContent, embedders: Iterable[Embedder]) -> list[str]:
    """The strings that were (or may have been) embedded for ``content``: each text, and each
    episode whole and in the windows of every embedder's model (kgmem.store.indexing)."""
    from ..embed.resources import MAX_SEQ_LENGTH
    from ..store.base import episode_keyword_text
    from ..store.indexing import episode_chunks, model_window

    windows = {MAX_SEQ_LENGTH, *(model_window(e) for e in embedders)}
    out = set(content.texts)
    for text, speaker in content.episodes:
        out.update((text, episode_keyword_text(text, speaker)))
        for window in windows:
            out.update(t for t, _a, _b in episode_chunks(text, speaker, window))
    return sorted(out)


def _forget_embeddings(store: Store, holders: Holders, content: ErasedContent) -> None:
    if not content.texts and not content.episodes:
        return
    from ..embed.cache import CachedEmbedder, forget_in_file
    from ..embed.resources import cache_dir

    embedders = _embedders(store, holders)
    texts = embedded_texts(content, embedders)
    done: set[Path] = set()
    for e in embedders:
        if isinstance(e, CachedEmbedder):
            if e.path is not None:
                done.add(e.path.resolve())
            e.forget(texts)
    default = (cache_dir() / "embeddings.sqlite3").resolve()
    if default not in done:  # filled by another process (a server, an earlier CLI run)
        forget_in_file(default, texts)


def _forget_llm_responses(holders: Holders, content: ErasedContent) -> None:
    if not content.episodes:
        return
    from ..llm.cache import ResponseCache, forget_texts_in_dir

    caches: list[ResponseCache] = []
    extractor = holders.extractor()
    for ext in (extractor, getattr(extractor, "extractor", None)):
        cache = getattr(ext, "cache", None)
        if isinstance(cache, ResponseCache):
            caches.append(cache)
    # what the extractor was given: each episode text whole, or in pieces (ingest.pipeline)
    from ..ingest.pipeline import CHUNK_CHARS, split_text

    sizes = {CHUNK_CHARS, getattr(extractor, "chunk_chars", None) or CHUNK_CHARS}
    texts = sorted({piece for text, _speaker in content.episodes
                    for size in sizes for piece in [text, *split_text(text, size)]})
    for cache in caches:
        cache.forget_texts(texts)
    from ..ingest.llm import default_cache_dir
    from ..settings import Settings

    done = {c.directory.resolve() for c in caches}
    for d in (default_cache_dir(), Settings().llm_cache_dir):
        if d is not None and Path(d).expanduser().resolve() not in done:
            done.add(Path(d).expanduser().resolve())
            forget_texts_in_dir(d, texts)
