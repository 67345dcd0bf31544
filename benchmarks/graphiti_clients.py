"""Offline model clients for graphiti-core (0.31.x), so its ``search`` runs with no network.

graphiti's :class:`~graphiti_core.Graphiti` wants an embedder, a cross-encoder and an LLM
client. Search needs only the embedder (query vectors for cosine similarity); the
cross-encoder is only called by ``*_CROSS_ENCODER`` search recipes and the LLM only by
ingestion. So:

* :class:`kgmem.interop.graphiti_pipeline.KgmemEmbedder` (the library's one copy, re-exported
  here): graphiti's ``EmbedderClient`` on a kgmem :class:`kgmem.embed.Embedder` (default: the
  offline MiniLM ONNX model kgmem itself searches with), so graphiti's cosine search compares
  like with like on a kgmem-written graph;
* :class:`PassThroughCrossEncoder`: keeps the order it is given (scores decreasing by rank);
* :class:`NoLLM`: refuses every call (nothing here may reach a model server).

:func:`offline_graphiti` builds a ``Graphiti`` on a ``Neo4jDriver`` from these. Imports of
graphiti-core happen here only, so ``benchmarks`` works without it.
"""

from __future__ import annotations

import logging
from typing import Any

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.llm_client.client import LLMClient

from kgmem.interop.graphiti_pipeline import KgmemEmbedder

__all__ = ["KgmemEmbedder", "NoLLM", "PassThroughCrossEncoder", "offline_graphiti"]


class PassThroughCrossEncoder(CrossEncoderClient):
    """A stand-in reranker: the given order, scores 1, 1 - 1/n, ... (never calls a model)."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        n = max(len(passages), 1)
        return [(p, 1.0 - i / n) for i, p in enumerate(passages)]


class NoLLM(LLMClient):
    """graphiti LLM client that refuses: search must never need one."""

    def __init__(self) -> None:
        super().__init__(config=None)

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("graphiti tried to call an LLM; the offline search must not")


async def offline_graphiti(
    uri: str, user: str | None, password: str | None, database: str = "neo4j",
    embedder: Any = None,
) -> Any:
    """A ``Graphiti`` over a Neo4j database with the offline clients above.

    Call inside the event loop that will run the searches: graphiti's driver starts building
    its indexes at construction; this waits for that (they are no-ops on kgmem's schema).
    """
    from graphiti_core import Graphiti
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    # graphiti's queries name properties kgmem's graph lacks (reference_time...): the server's
    # "property key does not exist" notices would be logged once per query
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    driver = Neo4jDriver(uri, user or "neo4j", password or "", database)
    init = getattr(driver, "_init_task", None)
    if init is not None:
        await init
    return Graphiti(
        graph_driver=driver,
        llm_client=NoLLM(),
        embedder=KgmemEmbedder(embedder),
        cross_encoder=PassThroughCrossEncoder(),
    )
