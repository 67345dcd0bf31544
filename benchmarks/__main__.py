"""One entry point for every suite: ``python -m benchmarks <suite> [suite options]``
(also ``kgmem bench <suite> ...``).

Suites: locomo, zyphra, longmemeval, timeqa, scenarios, scale, neo4j-scale, extraction,
ingest-locomo, ingest-same-output (is a change's store the same as main's?), api-load,
neo4j-outage (kill -9 of Neo4j and of the API under writers: lost writes, duplicates, recovery),
request-bound (search latency while an embedding backlog waits), retrieve (quick retrieval checks: locomo, zyphra, synthetic, chat),
context (evidence-in-context: what a token-budgeted block holds, kgmem beside baselines),
context-docs (the same over documents, notes, email and chat: is the evidence sentence in the block),
query-speed (kgmem's query and context cost beside MiniLM and BM25 retrievers, A B A B).
Reports from finished runs: compare (kgmem beside the peers' published
numbers), misses (the miss browser), final (every headline suite once, with the held-out look
logged). ``python -m benchmarks <suite> --help`` shows a suite's options.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

SUITES: dict[str, tuple[str, list[str]]] = {
    # suite -> (module with main(argv), default arguments prepended)
    "locomo": ("benchmarks.locomo_baselines",
               ["--systems", "kgmem-extract,kgmem,random,bm25-sessions,bm25-turns,minilm-sessions,"
                "minilm-turns"]),
    "zyphra": ("benchmarks.zyphra_baselines", []),
    "longmemeval": ("benchmarks.longmemeval_baselines", []),
    "timeqa": ("benchmarks.timeqa_suite", []),
    "scenarios": ("benchmarks.scenarios.run", []),
    "scale": ("benchmarks.scale", []),
    "neo4j-scale": ("benchmarks.neo4j_scale", []),
    "extraction": ("benchmarks.extraction.evaluate", []),
    "ingest-locomo": ("benchmarks.ingest_locomo", []),
    "ingest-same-output": ("benchmarks.ingest_same_output", []),
    "api-load": ("benchmarks.api_load", []),
    "neo4j-outage": ("benchmarks.neo4j_outage", []),
    "request-bound": ("benchmarks.request_bound", []),
    "retrieve": ("benchmarks.retrieve_bench", []),
    "context": ("benchmarks.context_bench", []),
    "context-docs": ("benchmarks.context_docs", []),
    "query-speed": ("benchmarks.query_speed", []),
    "compare": ("benchmarks.compare", []),
    "misses": ("benchmarks.misses", []),
    "final": ("benchmarks.final", []),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or args[0] not in SUITES:
        print(__doc__)
        if args and args[0] not in ("-h", "--help"):
            print(f"unknown suite {args[0]!r}")
            return 2
        return 0
    module, defaults = SUITES[args[0]]
    rest = args[1:]
    if any(a.startswith("--systems") for a in rest):
        defaults = []
    mod = importlib.import_module(module)
    result = mod.main(defaults + rest)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
