"""Cost of one long episode through add_episode with the offline extractor: the text parsed
whole (the baseline) vs in pieces (``ExtractionPipeline(chunk_chars=, batch_chars=)``, the
default), each in a fresh process so that its peak RSS is its own.

    python -m benchmarks.long_episode [--sizes 10000,100000,1000000] [--out DIR]

The text is LoCoMo conversation 0 (``"speaker: text"`` turns as paragraphs) repeated up to
each size (the demo conversation when the LoCoMo file is absent). Prints a table and writes
``long_episode.json``: wall seconds, peak RSS (MB), facts, and the ratios whole / pieces.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CHILD = r"""
import json, resource, sys, time
from kgmem.ingest.offline import OfflineExtractor
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.memory.facade import Memory

path, text_file, mode = sys.argv[1:4]
text = open(text_file, encoding="utf-8").read()
kw = {"chunk_chars": None, "batch_chars": 10**12} if mode == "whole" else {}
pipe = ExtractionPipeline(OfflineExtractor(), **kw)
pipe.extract([("warm up the parser", __import__("datetime").datetime(2024, 1, 1), None)])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
with Memory(path, extractor=pipe) as m:
    ep = m.add_episode(text, "2023-05-08T13:56:00Z", source="text")
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_rss_mb": peak / 1024, "rss_before_mb": base / 1024,
                  "facts": ep.extraction.facts, "status": ep.extraction.status}))
"""


def conversation_text() -> str:
    from benchmarks.datasets._common import default_data_dir
    from kgmem.ingest.formats import read_episodes

    locomo = default_data_dir() / "locomo" / "locomo10.json"
    if locomo.is_file():
        data = json.loads(locomo.read_text())
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(data[:1], fh)
        items = list(read_episodes(fh.name, "locomo"))
        os.unlink(fh.name)
    else:
        demo = Path(__file__).resolve().parents[1] / "kgmem" / "data" / "demo_conversation.jsonl"
        items = list(read_episodes(demo, "jsonl"))
    return "\n\n".join(f"{it.get('speaker') or 'someone'}: {it['content']}" for it in items)


def run_one(text: str, mode: str, workdir: Path) -> dict[str, Any]:
    text_file = workdir / f"text-{len(text)}.txt"
    text_file.write_text(text, encoding="utf-8")
    store = Path(tempfile.mkdtemp(prefix=f"kgmem-long-{mode}-", dir=workdir))
    out = subprocess.run([sys.executable, "-c", CHILD, str(store), str(text_file), mode],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--modes", default="whole,pieces")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out/long_episode"))
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = args.modes.split(",")
    base = conversation_text()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kgmem-long-") as tmp:
        for size in sizes:
            text = (base * (size // len(base) + 1))[:size]
            for mode in modes:
                r = {"chars": size, "mode": mode, **run_one(text, mode, Path(tmp))}
                rows.append(r)
                print(f"{size:>10,} chars  {mode:<7} {r['seconds']:8.1f} s  "
                      f"{r['peak_rss_mb']:8.0f} MB peak  {r['facts']:>5} facts", flush=True)
    ratios = {}
    for size in sizes:
        by = {r["mode"]: r for r in rows if r["chars"] == size}
        if {"whole", "pieces"} <= set(by):
            ratios[str(size)] = {
                "seconds_whole_over_pieces": by["whole"]["seconds"] / by["pieces"]["seconds"],
                "rss_whole_over_pieces": by["whole"]["peak_rss_mb"] / by["pieces"]["peak_rss_mb"],
            }
    args.out.mkdir(parents=True, exist_ok=True)
    result = {"rows": rows, "ratios": ratios, "load": os.getloadavg()}
    (args.out / "long_episode.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(ratios, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
