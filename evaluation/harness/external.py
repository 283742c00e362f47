"""Adapters for other memory systems, through their own native write and read paths.

``external_systems`` builds one only when its package is installed and an LLM endpoint is
configured (both write with an LLM), and otherwise reports it as skipped with the reason;
neither package is installed in this repository's environment, so the adapters
themselves are not exercised by its tests. Each system is fed the snapshot's cards week
by week (only cards it has not seen), as its users would, and keeps its own store.
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from evaluation.harness.probes import SystemInput
from evaluation.harness.snapshots import Snapshot
from evaluation.harness.systems import InjectedCard, Injection, System
from memory_repo.layers import l0, l1
from memory_repo.models import Item
from memory_repo.text import utf8_len

USER = "eval-user"
LIMIT = 5
BUDGET = 1200


def _card_text(item: Item) -> str:
    return f"{l0(item)} {l1(item)}".strip()


class _Weekly:
    """Feeds each snapshot's unseen cards once; answers within the shared budget."""

    name = ""
    grid: ClassVar[list[float]] = [0.0, 0.2, 0.4, 0.6]

    def __init__(self) -> None:
        self._fed: set[str] = set()

    def group(self, inp: SystemInput) -> str:
        return "all"

    def start_pass(self) -> None:
        """The store persists across passes; the cards were written once."""

    def _feed(self, snapshot: Snapshot) -> None:
        for item in sorted(snapshot.memory.items.values(), key=lambda i: i.id):
            if item.id not in self._fed:
                self._write(item)
                self._fed.add(item.id)

    def _write(self, item: Item) -> None:
        raise NotImplementedError

    def _pack(self, found: list[tuple[str, str, float]], threshold: float) -> Injection:
        items: list[InjectedCard] = []
        used = 0
        for card_id, text, score in found:
            if score < threshold or len(items) >= LIMIT:
                continue
            size = utf8_len(text) + 1
            if used + size > BUDGET:
                continue
            items.append(InjectedCard(id=card_id, text=text, bytes=size))
            used += size
        return Injection(items=items, bytes=used)


class Mem0System(_Weekly):
    """mem0 with ``infer=True``: its LLM extracts memories from each card as it arrives."""

    name = "mem0"

    def __init__(self, llm_base_url: str) -> None:
        super().__init__()
        from mem0 import Memory

        self.store: Any = Memory.from_config(
            {
                "llm": {"provider": "openai", "config": {"openai_base_url": llm_base_url}},
                "vector_store": {
                    "provider": "qdrant",
                    "config": {"path": tempfile.mkdtemp(prefix="mem0-eval-"), "on_disk": True},
                },
            }
        )

    def _write(self, item: Item) -> None:
        self.store.add(_card_text(item), user_id=USER, infer=True, metadata={"card_id": item.id})

    def answer(self, inp: SystemInput, snapshot: Snapshot, threshold: float) -> Injection:
        self._feed(snapshot)
        found = self.store.search(inp.prompt, user_id=USER, limit=LIMIT * 2)
        rows = found.get("results", []) if isinstance(found, dict) else found
        return self._pack(
            [
                (
                    (r.get("metadata") or {}).get("card_id", r["id"]),
                    r["memory"],
                    float(r.get("score") or 0.0),
                )
                for r in rows
            ],
            threshold,
        )


class OpenVikingSystem(_Weekly):
    """OpenViking's context database: each card added as a resource file, read with find()."""

    name = "openviking"

    def __init__(self, llm_base_url: str) -> None:
        super().__init__()
        import openviking as ov

        self.dir = Path(tempfile.mkdtemp(prefix="openviking-eval-"))
        self.client: Any = ov.OpenViking(path=str(self.dir / "data"))
        self.client.initialize()

    def _write(self, item: Item) -> None:
        path = self.dir / "cards" / f"{item.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_card_text(item), encoding="utf-8")
        self.client.add_resource(path=str(path), wait=True)

    def answer(self, inp: SystemInput, snapshot: Snapshot, threshold: float) -> Injection:
        self._feed(snapshot)
        found = self.client.find(inp.prompt)
        rows = []
        for r in found.resources:
            card_id = Path(str(r.uri)).stem
            item = snapshot.memory.items.get(card_id)
            rows.append((card_id, _card_text(item) if item else str(r.uri), float(r.score)))
        return self._pack(rows, threshold)


def make(name: str, llm_base_url: str) -> Mem0System | OpenVikingSystem:
    return Mem0System(llm_base_url) if name == "mem0" else OpenVikingSystem(llm_base_url)


class Skipped(BaseModel):
    name: str
    reason: str


def external_systems(llm_base_url: str | None) -> tuple[list[System], list[Skipped]]:
    """mem0 and OpenViking need their package and an LLM endpoint (both write with an LLM)."""
    found: list[System] = []
    skipped: list[Skipped] = []
    for name, module in (("mem0", "mem0"), ("openviking", "openviking")):
        if importlib.util.find_spec(module) is None:
            skipped.append(Skipped(name=name, reason=f"python package '{module}' not installed"))
        elif not llm_base_url:
            skipped.append(Skipped(name=name, reason="no LLM endpoint (DOSE_MEM_LLM_BASE_URL)"))
        else:
            found.append(make(name, llm_base_url))
    return found, skipped
