"""L0/L1/L2 layers: rule-based and deterministic, so every rebuild yields the same bytes.

L0 is the one line an agent sees first, L1 a short overview capped in bytes, L2 the body
split by heading (the unit of retrieval).
"""

from __future__ import annotations

import re

from memory_repo.models import Chunk, Item
from memory_repo.text import FENCED, first_sentence, plain, sentences, take_sentences

L1_MAX_BYTES = 400
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)


def l0(item: Item) -> str:
    """The conclusion if the author wrote one, else the body's first sentence."""
    if item.conclusion and item.conclusion.strip():
        return " ".join(item.conclusion.split())
    return first_sentence(item.body) or item.title


def l1(item: Item, max_bytes: int = L1_MAX_BYTES) -> str:
    """The body's opening beyond the L0 sentence, whole sentences within ``max_bytes``."""
    text = plain(item.body)
    head = l0(item)
    parts = sentences(text)
    if parts and parts[0] == head:
        parts = parts[1:]
    rest = " ".join(parts) if parts else ""
    return take_sentences(rest, max_bytes) if rest else ""


def l2(item: Item) -> list[Chunk]:
    """The body split at each heading; text before the first heading is chunk 0.

    An item with an empty body still yields one chunk (its L0), so every item is findable.
    """
    body = item.body
    # A "# comment" inside a fenced code block is shell, not a heading.
    fences = [m.span() for m in FENCED.finditer(body)]
    marks = [m for m in _HEADING.finditer(body) if not any(a <= m.start() < b for a, b in fences)]
    pieces: list[tuple[str, str]] = []
    start_text = body[: marks[0].start()] if marks else body
    if start_text.strip():
        pieces.append((item.title, start_text.strip()))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        text = body[mark.end() : end].strip()
        if text:
            pieces.append((mark.group(2).strip(), text))
    if not pieces:
        pieces.append((item.title, l0(item)))
    return [
        Chunk(item_id=item.id, chunk_no=n, heading=heading, text=text)
        for n, (heading, text) in enumerate(pieces)
    ]
