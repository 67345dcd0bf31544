"""Reading episode files: JSONL / JSON / plain text, LoCoMo- and LongMemEval-style files.

Each reader yields dicts accepted by :meth:`kgmem.Memory.add_episodes`:
``{content, reference_time, speaker?, source?, source_description?, group?}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidInputError
from ..timeutil import add, instant, parse_instant

Format = Literal["auto", "jsonl", "json", "text", "locomo", "longmemeval"]
_CONTENT_KEYS = ("content", "text", "message", "body")
_TIME_KEYS = ("reference_time", "time", "timestamp", "date", "created_at")


_LOCOMO_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I
)
_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"])}
_LME_DATE = re.compile(
    r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?\s*$"
)


def parse_locomo_datetime(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08T13:56Z (LoCoMo's session_<n>_date_time)."""
    m = _LOCOMO_DATE.match(str(text))
    mon = _MONTHS.get(m.group(5).lower()) if m else None
    if not m or mon is None:
        raise InvalidInputError(f"unrecognised LoCoMo date {text!r}")
    hour, minute, ampm, day, _month, year = m.groups()
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    return instant(int(year), mon, int(day), h, int(minute), field="session date_time")


def parse_longmemeval_date(text: str) -> datetime:
    """'2023/05/20 (Sat) 02:21' -> 2023-05-20T02:21Z (a missing time means midnight)."""
    m = _LME_DATE.match(str(text))
    if not m:
        raise InvalidInputError(f"unrecognised LongMemEval date {text!r}")
    y, mo, d, h, mi = m.groups()
    return instant(int(y), int(mo), int(d), int(h or 0), int(mi or 0), field="haystack date")


def _record(obj: dict[str, Any], i: int, default_time: str | None) -> dict[str, Any]:
    content = next((obj[k] for k in _CONTENT_KEYS if isinstance(obj.get(k), str)), None)
    if content is None:
        raise InvalidInputError(f"record {i}: no content/text field", index=i)
    when = next((obj[k] for k in _TIME_KEYS if obj.get(k)), default_time)
    if when is None:
        raise InvalidInputError(f"record {i}: no reference_time/time (or pass --time)", index=i)
    out: dict[str, Any] = {"content": content, "reference_time": when}
    for k in ("speaker", "source", "source_description", "group"):
        if obj.get(k) is not None:
            out[k] = obj[k]
    if "speaker" not in out and obj.get("role"):
        out["speaker"] = obj["role"]
    return out


def _detect(path: Path, data: Any | None) -> Format:
    if path.suffix == ".jsonl":
        return "jsonl"
    if path.suffix in (".txt", ".md"):
        return "text"
    if isinstance(data, list) and data and isinstance(data[0], dict):
        if "conversation" in data[0] and "qa" in data[0]:
            return "locomo"
        if "haystack_sessions" in data[0]:
            return "longmemeval"
    return "json"


def read_episodes(path: str | Path, fmt: Format = "auto", default_time: str | None = None,
                  speaker: str | None = None) -> Iterator[dict[str, Any]]:
    """Yield episode dicts from a file (format detected from extension/content by default)."""
    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"no such file: {path}")
    data: Any = None
    if fmt in ("auto", "json", "locomo", "longmemeval") and path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
    if fmt == "auto":
        fmt = _detect(path, data)
    if fmt == "jsonl":
        with path.open(encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if line.strip():
                    rec = _record(json.loads(line), i, default_time)
                    if speaker and "speaker" not in rec:
                        rec["speaker"] = speaker
                    yield rec
    elif fmt == "text":
        if default_time is None:
            raise InvalidInputError("plain text needs --time (the reference time)")
        base = parse_instant(default_time, "--time")
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]
        for i, para in enumerate(p for p in paragraphs if p):
            rec = {"content": para, "reference_time": add(base, timedelta(seconds=i), "--time"),
                   "source": "text", "source_description": f"{path.name} paragraph {i + 1}"}
            if speaker:
                rec["speaker"] = speaker
            yield rec
    elif fmt == "json":
        data = data if data is not None else json.loads(path.read_text(encoding="utf-8"))
        rows = data if isinstance(data, list) else data.get("episodes", [])
        for i, obj in enumerate(rows):
            yield _record(obj, i, default_time)
    elif fmt == "locomo":
        yield from _locomo(data if data is not None else json.loads(path.read_text()))
    elif fmt == "longmemeval":
        yield from _longmemeval(data if data is not None else json.loads(path.read_text()))
    else:
        raise InvalidInputError(f"unknown format {fmt!r}")


def _locomo(data: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One episode per turn; group = the conversation's sample_id; turns ordered by seconds."""
    for sample in data:
        conv = sample["conversation"]
        group = re.sub(r"[^A-Za-z0-9_\-.:]", "_", str(sample.get("sample_id", "locomo")))
        n = 1
        while f"session_{n}" in conv:
            when = parse_locomo_datetime(conv[f"session_{n}_date_time"])
            for j, turn in enumerate(conv[f"session_{n}"]):
                text = turn.get("text", "")
                if turn.get("blip_caption"):
                    text = f"{text} [shares a photo: {turn['blip_caption']}]".strip()
                if not text.strip():
                    continue
                yield {"content": text, "reference_time": add(when, timedelta(seconds=j)),
                       "speaker": turn.get("speaker"), "source": "message", "group": group,
                       "source_description": f"locomo {group} {turn.get('dia_id', '')}".strip()}
            n += 1


def _longmemeval(data: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One episode per turn; group = question_id (each question has its own haystack)."""
    for q in data:
        group = re.sub(r"[^A-Za-z0-9_\-.:]", "_", str(q["question_id"]))
        for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"],
                                      q["haystack_sessions"], strict=False):
            when = parse_longmemeval_date(date)
            for j, turn in enumerate(session):
                if not str(turn.get("content", "")).strip():
                    continue
                yield {"content": turn["content"],
                       "reference_time": add(when, timedelta(seconds=j)),
                       "speaker": turn.get("role"), "source": "message", "group": group,
                       "source_description": f"longmemeval {sid} turn {j}"}
