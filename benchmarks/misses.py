"""Miss browser: one self-contained HTML page (inline CSS and plots, no network) per run.

    python -m benchmarks misses RUN_DIR [--system kgmem-extract] [--evidence original]
        [--data locomo10.json] [--held-out-detail] [--out FILE]

Reads a LoCoMo run's per-question JSONL (``<evidence>/<system>.jsonl`` or a committed
``<evidence>-<system>.jsonl.gz``) and shows, per category: where the first gold session and
the gold turns ranked (a plot), and for every question that missed (no gold session in the
top 5, or no gold turn in the top 10): the question, the gold answer, each gold turn and gold
session with the rank kgmem returned it at (or "not in the top N" kept), and kgmem's top 5
sessions and top 10 turns with the gold ones marked.

Held-out protocol: conversations 5-9 are held out (benchmarks/RESULTS.md). By default they
appear as counts and in the plot only, so the page can be read while tuning on 0-4; their
questions are listed only with ``--held-out-detail`` (after a final look: reading them makes
them dev questions). Turn texts are not in the per-question outputs; ``--data`` (the LoCoMo
file) adds the text of every listed turn. Reports committed to the repository are built
without it (LoCoMo's text is CC BY-NC 4.0 and stays out of the repository).
"""

from __future__ import annotations

import argparse
import base64
import html
import io
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.split_table import find, read_records

DEV = {str(i) for i in range(5)}
SESSION_BINS = ("1", "2-5", "6-10", "11+", "not ranked")
CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;
vertical-align:top}th{background:#f3f3f3}code{font-size:12px}.gold{background:#dff5df}
.miss{color:#a00}details{margin:.3em 0}summary{cursor:pointer;font-weight:600}
.q{border-top:1px solid #ddd;padding:.4em 0}.small{color:#666;font-size:12px}
"""


def first_rank(ranked: Sequence[str] | None, gold: Sequence[str]) -> int | None:
    """1-based rank of the first gold id in ``ranked`` (None: not among the ids kept)."""
    g = set(gold)
    for i, x in enumerate(ranked or []):
        if x in g:
            return i + 1
    return None


def rank_bin(rank: int | None) -> str:
    if rank is None:
        return SESSION_BINS[4]
    return "1" if rank == 1 else "2-5" if rank <= 5 else "6-10" if rank <= 10 else "11+"


def is_miss(r: Mapping[str, Any]) -> bool:
    m = r["metrics"]
    return m.get("session.recall_any@5") == 0.0 or m.get("turn.recall_any@10") == 0.0


def plot(records: Sequence[Mapping[str, Any]]) -> str:
    """Base64 PNG: per category, where the first gold session / turn ranked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cats = list(dict.fromkeys(r["category"] for r in records))
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.5 * len(cats) + 2.2), sharey=True)
    colours = ("#2e7d32", "#81c784", "#fdd835", "#fb8c00", "#c62828")
    for ax, level in zip(axes, ("session", "turn"), strict=True):
        left = [0.0] * len(cats)
        for b, colour in zip(SESSION_BINS, colours, strict=True):
            share = []
            for c in cats:
                rs = [r for r in records if r["category"] == c]
                n = sum(1 for r in rs if rank_bin(first_rank(
                    r[f"ranked_{level}_ids"], r[f"gold_{level}_ids"])) == b)
                share.append(100 * n / len(rs))
            ax.barh(cats, share, left=left, color=colour, label=b)
            left = [x + y for x, y in zip(left, share, strict=True)]
        ax.set_title(f"rank of the first gold {level}")
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of questions")
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles, labels, title="rank", fontsize=8, loc="lower center", ncol=5)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def turn_texts(data: Path | None) -> dict[tuple[str, str], str]:
    """(conversation index, turn id) -> text, from the LoCoMo file when given."""
    if data is None:
        return {}
    from benchmarks.datasets.locomo import load_locomo

    task = load_locomo(data).to_retrieval_task()
    return {(hid, t.turn_id): t.render() for hid, hay in task.haystacks.items()
            for t in hay.turns()}


def _ids(ranked: Sequence[str] | None, gold: set[str], texts: Mapping[str, str], k: int) -> str:
    cells = []
    for i, x in enumerate((ranked or [])[:k]):
        text = html.escape(texts.get(x, ""))
        cls = ' class="gold"' if x in gold else ""
        cells.append(f"<tr{cls}><td>{i + 1}</td><td><code>{html.escape(x)}</code></td>"
                     f"<td>{text}</td></tr>")
    return "<table>" + "".join(cells) + "</table>"


def question_html(r: Mapping[str, Any], texts: Mapping[tuple[str, str], str]) -> str:
    hid = r["haystack_id"]
    t = {tid: v for (h, tid), v in texts.items() if h == hid}
    gold_rows = []
    for level in ("turn", "session"):
        ranked = r[f"ranked_{level}_ids"] or []
        for g in r[f"gold_{level}_ids"]:
            rank = ranked.index(g) + 1 if g in ranked else None
            where = f"rank {rank}" if rank else f'<span class="miss">not in the top {len(ranked)}'\
                                                 "</span>"
            gold_rows.append(f"<tr><td>{level}</td><td><code>{html.escape(g)}</code></td>"
                             f"<td>{where}</td><td>{html.escape(t.get(g, ''))}</td></tr>")
    m = r["metrics"]
    flags = ", ".join(f"{name} {'hit' if m.get(key) else 'miss'}" for name, key in (
        ("session any@5", "session.recall_any@5"), ("turn any@10", "turn.recall_any@10")))
    return (f'<div class="q"><b>{html.escape(r["question_id"])}</b> '
            f'<span class="small">({html.escape(r["category"])}; {flags})</span><br>'
            f'Q: {html.escape(r["question"])}<br>gold answer: '
            f'{html.escape(str(r.get("answer")))}'
            f"<details><summary>gold evidence and where it ranked</summary><table><tr>"
            f"<th>level</th><th>gold id</th><th>returned at</th><th>text</th></tr>"
            + "".join(gold_rows) + "</table></details>"
            "<details><summary>top 5 sessions, top 10 turns (gold shaded)</summary>"
            + _ids(r["ranked_session_ids"], set(r["gold_session_ids"]), {}, 5)
            + _ids(r["ranked_turn_ids"], set(r["gold_turn_ids"]), t, 10)
            + "</details></div>")


def counts_table(records: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for split, keep in (("dev (0-4)", True), ("held-out (5-9)", False)):
        chosen = [r for r in records if (r["haystack_id"] in DEV) == keep]
        for cat, n in Counter(r["category"] for r in chosen).items():
            rs = [r for r in chosen if r["category"] == cat]
            s = sum(1 for r in rs if r["metrics"].get("session.recall_any@5") == 0.0)
            t = sum(1 for r in rs if r["metrics"].get("turn.recall_any@10") == 0.0)
            rows.append(f"<tr><td>{split}</td><td>{html.escape(cat)}</td><td>{n}</td>"
                        f"<td>{s}</td><td>{t}</td></tr>")
    return ("<table><tr><th>split</th><th>category</th><th>questions</th><th>no gold session "
            "in top 5</th><th>no gold turn in top 10</th></tr>" + "".join(rows) + "</table>")


def render(records: Sequence[Mapping[str, Any]], *, title: str, source: str,
           held_out_detail: bool, texts: Mapping[tuple[str, str], str]) -> str:
    shown = [r for r in records if (held_out_detail or r["haystack_id"] in DEV) and is_miss(r)]
    by_cat: dict[str, list[Mapping[str, Any]]] = {}
    for r in shown:
        by_cat.setdefault(r["category"], []).append(r)
    scope = ("all conversations" if held_out_detail else
             "dev conversations 0-4 only (held-out 5-9: counts and plot only)")
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
             f"</title><style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p class='small'>Source: <code>{html.escape(source)}</code>. A miss: no gold "
             "session in the top 5 (session recall_any@5 = 0) or no gold turn in the top 10 "
             "(turn recall_any@10 = 0). Ranks are 1-based over the ids the run kept (top 50). "
             f"Questions listed: {scope}."
             + ("" if texts else " Turn texts: not included (run with --data).") + "</p>",
             "<h2>Misses per category</h2>", counts_table(records),
             "<h2>Where the first gold item ranked (all questions)</h2>",
             f"<img alt='rank of the first gold session and turn per category' "
             f"src='data:image/png;base64,{plot(records)}'>",
             f"<h2>Missed questions ({len(shown)})</h2>"]
    for cat, rs in by_cat.items():
        parts.append(f"<details><summary>{html.escape(cat)} ({len(rs)})</summary>"
                     + "".join(question_html(r, texts) for r in rs) + "</details>")
    parts.append("</body></html>")
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks misses",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="a LoCoMo run or results folder")
    ap.add_argument("--system", default="kgmem-extract")
    ap.add_argument("--evidence", default="original")
    ap.add_argument("--data", type=Path, default=None, help="locomo10.json: show turn texts")
    ap.add_argument("--held-out-detail", action="store_true",
                    help="also list held-out (5-9) questions: only after a final look")
    ap.add_argument("--out", type=Path, default=None,
                    help="default: <root>/misses-<evidence>-<system>.html")
    args = ap.parse_args(argv)
    path = find(args.root, args.evidence, args.system)
    if path is None:
        raise SystemExit(f"no {args.evidence} outputs of {args.system!r} under {args.root}")
    records = read_records(path)
    out = args.out or args.root / f"misses-{args.evidence}-{args.system}.html"
    out.write_text(render(records, title=f"LoCoMo misses: {args.system} ({args.evidence} "
                          "evidence)", source=str(path), held_out_detail=args.held_out_detail,
                          texts=turn_texts(args.data)), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
