"""Items to index rows: one row per L2 chunk, the item's fields denormalised onto it.

Denormalising the lifecycle flags (superseded, archived, expires) is what lets the scope
prefilter run inside the LanceDB query instead of after it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pyarrow as pa

from memory_repo.index.embedders import Embedder
from memory_repo.index.terms import bm25_terms
from memory_repo.layers import l0, l1, l2
from memory_repo.lifecycle import expiry, is_archived
from memory_repo.models import Item, Registry

Progress = Callable[[int, int], None]
EMBED_BATCH = 64


def schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            ("item_id", pa.string()),
            ("chunk_no", pa.int32()),
            ("project", pa.string()),
            ("type", pa.string()),
            ("status", pa.string()),
            ("created", pa.date32()),
            ("expires", pa.date32()),
            ("superseded", pa.bool_()),
            ("archived", pa.bool_()),
            ("l0", pa.string()),
            ("l1", pa.string()),
            ("heading", pa.string()),
            ("text", pa.string()),
            ("tokens", pa.string()),
            ("path", pa.string()),
            ("content_hash", pa.string()),
            ("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def chunk_document(first_line: str, heading: str, text: str) -> str:
    """L0 + heading + text with repeats dropped (a card's L0 is often its body's first
    sentence, and a heading-less chunk's heading is the card title), so no term is counted
    twice merely because the layers overlap."""
    parts = list(dict.fromkeys(p.strip() for p in (first_line, heading, text) if p.strip()))
    kept = [p for p in parts if not any(p != q and p in q for q in parts)]
    return "\n".join(kept)


def item_rows(
    items: Iterable[Item], registry: Registry, superseded: set[str]
) -> list[dict[str, Any]]:
    """Rows without vectors, in a stable order (item id, chunk number)."""
    rows: list[dict[str, Any]] = []
    for item in sorted(items, key=lambda i: i.id):
        first, overview = l0(item), l1(item)
        for chunk in l2(item):
            document = chunk_document(first, chunk.heading, chunk.text)
            rows.append(
                {
                    "item_id": item.id,
                    "chunk_no": chunk.chunk_no,
                    "project": item.project,
                    "type": item.type.value,
                    "status": item.status.value,
                    "created": item.created,
                    "expires": expiry(item),
                    "superseded": item.id in superseded,
                    "archived": is_archived(item, registry),
                    "l0": first,
                    "l1": overview,
                    "heading": chunk.heading,
                    "text": chunk.text,
                    "tokens": bm25_terms(document),
                    "path": item.path,
                    "content_hash": item.content_hash,
                    "_document": document,
                }
            )
    return rows


def embed_rows(
    rows: list[dict[str, Any]], embedder: Embedder, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """Attach vectors in batches, reporting chunks done so a progress bar can move."""
    total = len(rows)
    for start in range(0, total, EMBED_BATCH):
        batch = rows[start : start + EMBED_BATCH]
        vectors = embedder.embed([r.pop("_document") for r in batch])
        for row, vector in zip(batch, np.asarray(vectors, dtype=np.float32), strict=True):
            row["vector"] = vector
        if progress:
            progress(min(start + EMBED_BATCH, total), total)
    return rows


def sql_str(value: str) -> str:
    """A SQL string literal for a LanceDB filter (ids and paths come from files on disk)."""
    return "'" + value.replace("'", "''") + "'"
