"""What the readers share for agents' raw records: JSON lines, timestamps, content blocks.

Lenient by contract: a corrupt line, an unparseable time or an unknown block kind is
skipped (the line logged with its place), never raised, so one bad record costs only
itself.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger("dose_mem.capture")


def parse_time(value: Any) -> dt.datetime | None:
    """ISO strings, epoch seconds or epoch milliseconds; always timezone-aware (UTC if naive)."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 1e11 else value
            return dt.datetime.fromtimestamp(seconds, tz=dt.UTC)
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Objects of a JSON-lines file; a corrupt line is logged with its place and skipped."""
    with path.open("rb") as fh:
        yield from parse_jsonl(fh, path)


def parse_jsonl(raw_lines: Iterable[bytes], where: Path | str) -> Iterator[dict[str, Any]]:
    """Objects of JSON lines given as bytes (a file or a decompressed stream); a corrupt
    line is logged as ``<where>:<line number>`` and skipped."""
    for n, raw in enumerate(raw_lines, 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            log.warning("skipping corrupt line %s:%d: %s", where, n, exc)
            continue
        if not isinstance(obj, dict):
            log.warning("skipping line %s:%d: not a JSON object", where, n)
            continue
        yield obj


def text_of(content: Any, kinds: tuple[str, ...] = ("text", "input_text", "output_text")) -> str:
    """Plain text of a message content that is a string or a list of typed blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") in kinds
        ]
        return "\n".join(p for p in parts if p)
    return ""
