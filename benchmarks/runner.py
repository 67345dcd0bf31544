"""Run a retrieval system over a :class:`~benchmarks.task.RetrievalTask` and score it.

Plugging a system in (the kgmem engine, a baseline, graphiti-core's search): implement
:class:`benchmarks.baselines.RetrievalSystem`::

    class KgmemSystem:
        name = "kgmem"
        def index(self, haystack):            # once per conversation / haystack
            self.mem = Memory(tmpdir)          # fresh store per haystack
            for session in haystack.sessions:
                for turn in session.turns:     # turn.timestamp is UTC (session date)
                    self.mem.add_episode(turn.render(), valid_at=turn.timestamp,
                                         source_id=turn.turn_id)
        def rank(self, question, k):
            hits = self.mem.search(question.question, limit=k, as_of=question.question_date)
            return Ranking(turn_ids=[h.source_id for h in hits],   # provenance -> turn ids
                           info={"context_tokens": ..., "llm_calls": ...})

    result = run_retrieval(KgmemSystem(), load_locomo().to_retrieval_task())

Scoring (per question, ``None`` when a level is not applicable):

* ``turn.<metric>@k`` against ``gold_turn_ids`` when the system returns turn ids;
* ``session.<metric>@k`` against ``gold_session_ids``, on the system's session ranking or,
  if it returned turns only, on the sessions in order of their best turn;
* metrics: recall_any, recall_all, recall_frac (mean fraction of gold found: MemPalace's
  metric at session@10), ndcg (binary, standard discount), optionally zyphra_recall.

Timing: ``index_s`` per haystack and ``latency_s`` per question (wall clock around
``index``/``rank``), and the CPU-seconds of this process over the same spans
(``time.process_time``: every thread of the process, e.g. ONNX's, none of another process such
as a Neo4j server): ``index_cpu_s`` and per question ``cpu_s``. ``ingest`` in the summary gives
turns indexed per wall second and per CPU-second (a replay reused from kgmem's cache indexes
nothing: read ingest rates of runs with ``--no-cache``). Compare systems only within one run on
one machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.baselines import RetrievalSystem
from benchmarks.metrics import aggregate, latency_summary, retrieval_metrics, sessions_from_turns
from benchmarks.outputs import write_json, write_jsonl
from benchmarks.task import Question, Ranking, RetrievalTask

# (system, question, ranking) -> (extra per-question metrics, info for the record)
QuestionHook = Callable[
    [RetrievalSystem, Question, Ranking], tuple[dict[str, float | None], dict[str, Any]]
]

DEFAULT_KS = (1, 3, 5, 10, 20, 50)
DEFAULT_METRICS = ("recall_any", "recall_all", "recall_frac", "ndcg")


@dataclass
class RunResult:
    system: str
    task: str
    records: list[dict[str, Any]]
    summary: dict[str, Any] = field(default_factory=dict)

    def write(self, out_dir: Path, stem: str | None = None) -> tuple[Path, Path]:
        """``<stem>.jsonl`` (one record per question) and ``<stem>.summary.json``."""
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = stem or f"{self.task}__{self.system}"
        return (write_jsonl(out_dir / f"{stem}.jsonl", self.records),
                write_json(out_dir / f"{stem}.summary.json", self.summary, indent=1))


def ingest_rates(turns: Sequence[int], wall_s: Sequence[float], cpu_s: Sequence[float]
                 ) -> dict[str, float | int | None]:
    """Turns indexed per wall second and per CPU-second over all haystacks of a run."""
    n, wall, cpu = sum(turns), float(sum(wall_s)), float(sum(cpu_s))
    return {"turns": n, "wall_s": wall, "cpu_s": cpu,
            "turns_per_s": n / wall if wall > 0 else None,
            "turns_per_cpu_s": n / cpu if cpu > 0 else None}


def score_ranking(
    question: Question,
    ranking: Ranking,
    turn_to_session: dict[str, str],
    *,
    ks: Sequence[int] = DEFAULT_KS,
    metrics: Sequence[str] = DEFAULT_METRICS,
) -> tuple[dict[str, float | None], list[str] | None, list[str] | None]:
    """Metrics for one question; also returns the turn and session rankings used."""
    turn_ids = list(ranking.turn_ids) if ranking.turn_ids is not None else None
    if ranking.session_ids is not None:
        session_ids: list[str] | None = list(ranking.session_ids)
    elif turn_ids is not None:
        session_ids = sessions_from_turns(turn_ids, turn_to_session)
    else:
        session_ids = None
    out: dict[str, float | None] = {}
    for level, ranked, gold in (
        ("session", session_ids, question.gold_session_ids),
        ("turn", turn_ids, question.gold_turn_ids),
    ):
        names = [f"{level}.{m}@{k}" for m in metrics for k in ks]
        if ranked is None or not gold:
            out.update(dict.fromkeys(names))
        else:
            vals = retrieval_metrics(ranked, gold, ks, metrics)
            out.update({f"{level}.{n}": v for n, v in vals.items()})
    return out, turn_ids, session_ids


def run_retrieval(
    system: RetrievalSystem,
    task: RetrievalTask,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    metrics: Sequence[str] = DEFAULT_METRICS,
    keep_top: int = 50,
    progress: bool = True,
    category_order: Iterable[str] | None = None,
    on_question: QuestionHook | None = None,
) -> RunResult:
    """Index each haystack once, rank every question asked against it, score, aggregate."""
    return run_retrievals([system], task, ks=ks, metrics=metrics, keep_top=keep_top,
                          progress=progress, category_order=category_order,
                          on_question=on_question)[0]


def run_retrievals(
    systems: Sequence[RetrievalSystem],
    task: RetrievalTask,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    metrics: Sequence[str] = DEFAULT_METRICS,
    keep_top: int = 50,
    progress: bool = True,
    category_order: Iterable[str] | None = None,
    on_question: QuestionHook | None = None,
) -> list[RunResult]:
    """Several systems, haystack by haystack: each haystack is indexed by every system (in
    list order) before its questions are ranked, so systems may share per-haystack state
    (graphiti's search reads the graph kgmem replayed). Timings stay per system.

    ``on_question(system, question, ranking)`` (optional, e.g. LLM QA) runs after each
    ranking while the haystack is still indexed; it returns ``(metrics, info)``: metrics are
    scored and aggregated like the retrieval ones, ``info`` goes to the record's ``qa``.
    """
    groups = task.by_haystack()
    records: list[list[dict[str, Any]]] = [[] for _ in systems]
    index_times: list[list[float]] = [[] for _ in systems]
    latencies: list[list[float]] = [[] for _ in systems]
    index_cpu: list[list[float]] = [[] for _ in systems]
    index_turns: list[list[int]] = [[] for _ in systems]
    prog = None
    if progress:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        label = ", ".join(s.name for s in systems)
        prog = Progress(
            TextColumn(f"[bold]{label}[/] on {task.name}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            transient=False,
        )
        prog.start()
        bar = prog.add_task("questions", total=len(task.questions) * len(systems))
    try:
        kmax = max(ks)
        for hid, questions in groups.items():
            hay = task.haystacks[hid]
            n_turns = sum(1 for _ in hay.turns())
            for i, system in enumerate(systems):
                c0, t0 = time.process_time(), time.perf_counter()
                system.index(hay)
                index_times[i].append(time.perf_counter() - t0)
                index_cpu[i].append(time.process_time() - c0)
                index_turns[i].append(n_turns)
            t2s = hay.turn_to_session
            for i, system in enumerate(systems):
                for q in questions:
                    c0, t0 = time.process_time(), time.perf_counter()
                    ranking = system.rank(q, kmax)
                    dt = time.perf_counter() - t0
                    cpu = time.process_time() - c0
                    latencies[i].append(dt)
                    vals, turn_ids, session_ids = score_ranking(
                        q, ranking, t2s, ks=ks, metrics=metrics
                    )
                    rec: dict[str, Any] = {
                        "question_id": q.question_id,
                        "haystack_id": q.haystack_id,
                        "category": q.category,
                        "question": q.question,
                        "answer": q.answer,
                        "gold_turn_ids": list(q.gold_turn_ids),
                        "gold_session_ids": list(q.gold_session_ids),
                        "ranked_turn_ids": turn_ids[:keep_top] if turn_ids is not None else None,
                        "ranked_session_ids": (
                            session_ids[:keep_top] if session_ids is not None else None
                        ),
                        "latency_s": dt,
                        "cpu_s": cpu,
                        "metrics": vals,
                        "info": ranking.info,
                        **({"extra": q.extra} if q.extra else {}),
                    }
                    if on_question is not None:
                        qa_metrics, qa_info = on_question(system, q, ranking)
                        vals.update(qa_metrics)
                        rec["qa"] = qa_info
                    records[i].append(rec)
                    if prog is not None:
                        prog.advance(bar)
    finally:
        if prog is not None:
            prog.stop()
    out = []
    for i, system in enumerate(systems):
        summary = aggregate(records[i], category_order=list(category_order or []))
        summary.update(
            {
                "system": system.name,
                "task": task.name,
                "ks": list(ks),
                "latency_s": latency_summary(latencies[i]),
                "index_s": latency_summary(index_times[i]),
                "index_cpu_s": latency_summary(index_cpu[i]),
                "query_cpu_s": latency_summary([r["cpu_s"] for r in records[i]]),
                "ingest": ingest_rates(index_turns[i], index_times[i], index_cpu[i]),
                "haystacks": len(groups),
            }
        )
        out.append(RunResult(system=system.name, task=task.name, records=records[i],
                             summary=summary))
    return out
