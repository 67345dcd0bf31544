"""The round log: every fresh round's first look (and its later looks), across genres.

    python -m benchmarks.extraction.rounds            # the table, all rounds, with the trend

A fresh round is text labelled and committed before any extractor ran on it. Its *first look*
is the score of the code of that moment, recorded before anything is changed for it; later
looks (``after``) are recorded under the same round. The scorers append to ``rounds.jsonl``
with ``--record ROUND`` (``python -m benchmarks.extraction.realchat --labels ... --record
round11``, ``python -m benchmarks.extraction.notes --split round2 --record notes-round2``);
a second first look of a round is refused, so the first one cannot be overwritten by a better
one. Rounds 1-10 and the first notes and documents looks were measured before this log existed
and are copied from benchmarks/RESULTS.md (``"source": "RESULTS.md"``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

LOG = Path(__file__).resolve().parent / "rounds.jsonl"
LOOKS = ("first", "after")


class RoundLogError(ValueError):
    """A record the log refuses (a second first look, an unknown look)."""


@dataclass(frozen=True)
class Look:
    round: str
    genre: str  # chat | notes | negative | documents
    look: str  # first | after
    required: int
    found: int
    facts: int
    right: int
    commit: str
    when: str
    note: str = ""
    source: str = "scorer"

    @property
    def recall(self) -> float | None:
        return self.found / self.required if self.required else None

    @property
    def precision(self) -> float | None:
        return self.right / self.facts if self.facts else None


def load(path: Path = LOG) -> list[Look]:
    if not path.exists():
        return []
    return [Look(**json.loads(line)) for line in path.read_text("utf-8").splitlines() if line]


def head_commit() -> str:
    """The code's commit, marked ``+dirty`` when the work tree differs from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent).stdout.strip()
    sha = git("rev-parse", "--short", "HEAD") or "unknown"
    return sha + ("+dirty" if git("status", "--porcelain", "--", "kgmem") else "")


def record(round_name: str, genre: str, look: str, *, required: int, found: int, facts: int,
           right: int, note: str = "", path: Path = LOG) -> Look:
    """Append one look; a round has at most one first look per genre."""
    if look not in LOOKS:
        raise RoundLogError(f"look must be one of {LOOKS}, not {look!r}")
    if look == "first" and any(r.round == round_name and r.genre == genre and r.look == "first"
                               for r in load(path)):
        raise RoundLogError(f"{round_name} ({genre}) already has its first look; record this "
                            f"one with --look after")
    entry = Look(round_name, genre, look, required, found, facts, right, head_commit(),
                 datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), note)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(asdict(entry), ensure_ascii=False) + "\n")
    return entry


def _pct(num: int, den: int) -> str:
    return f"{num}/{den} ({100 * num / den:.0f}%)" if den else "-"


def table(rows: list[Look]) -> str:
    lines = ["| round | genre | look | code | required found | precision | note |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        prec = f"{r.right}/{r.facts} ({r.right / r.facts:.2f})" if r.facts else "-"
        lines.append(f"| {r.round} | {r.genre} | {r.look} | {r.commit} | "
                     f"{_pct(r.found, r.required)} | {prec} | {r.note} |")
    firsts = [r for r in rows if r.look == "first"]
    for genre in sorted({r.genre for r in firsts}):
        g = [r for r in firsts if r.genre == genre]
        req, found = sum(r.required for r in g), sum(r.found for r in g)
        facts, right = sum(r.facts for r in g), sum(r.right for r in g)
        trend = " -> ".join(f"{100 * r.found / r.required:.0f}%" for r in g if r.required)
        lines.append(f"| all first looks | {genre} | first | | {_pct(found, req)} | "
                     f"{right}/{facts} | trend {trend} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", type=Path, default=LOG)
    ap.add_argument("--genre", help="only this genre")
    args = ap.parse_args(argv)
    rows = [r for r in load(args.log) if not args.genre or r.genre == args.genre]
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
