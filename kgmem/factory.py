"""Build a :class:`kgmem.Memory` from :class:`kgmem.settings.Settings`: the store, the
extraction pipeline and the facade, wired together.

Settings stay plain configuration (nothing of the engine is imported there); this module is
the one place above the facade that knows every part, so the layers stay one-way:
factory -> memory -> ingest -> settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .memory.facade import Memory
from .settings import Settings

if TYPE_CHECKING:
    from .ingest.pipeline import ExtractionPipeline
    from .store.base import Store


def open_store(settings: Settings) -> Store:
    """The store the settings name: the embedded directory ``home``, or a Neo4j server."""
    if settings.store == "neo4j":
        from .store.neo4j import Neo4jStore

        return Neo4jStore(uri=settings.neo4j_uri, user=settings.neo4j_user,
                          password=settings.neo4j_password, database=settings.neo4j_database,
                          busy_timeout=settings.busy_timeout)
    from .store.sqlite import EmbeddedStore

    return EmbeddedStore(settings.home, busy_timeout=settings.busy_timeout)


def open_memory(settings: Settings | None = None, *,
                extractor: ExtractionPipeline | None = None, **kw: Any) -> Memory:
    """A :class:`Memory` on the configured store with ``extractor``, else the configured
    one (none when settings say ``extractor="none"``). Other keywords go to :class:`Memory`
    (``clock=``, ``embedder=``, ...)."""
    s = settings or Settings()
    if extractor is None and s.extractor != "none":
        from .ingest.pipeline import make_extractor  # lazy: the LLM client only when asked

        extractor = make_extractor(s)
    if "trust" not in kw:
        from .trust import TrustPolicy

        kw["trust"] = TrustPolicy.from_spec(s.trust_sources, s.trust_speakers, s.trust_default)
    if "ranking" not in kw:
        from .retrieve.recency import RankingDefaults

        kw["ranking"] = RankingDefaults(s.ranking, s.recency_half_life_days)
    kw.setdefault("user_name", s.user_name)
    return Memory(store=open_store(s), extractor=extractor, **kw)
