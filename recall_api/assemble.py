"""Turn gated hits into the exact text an agent receives, within the profile's dose.

Items are whole or absent (never cut mid-sentence), taken in rank order; an item that
does not fit the remaining budget is skipped so a shorter, lower-ranked one may still
fit. The byte count covers every byte of the injected text, header included.
"""

from __future__ import annotations

from collections.abc import Iterable

from memory_repo.index.hits import Hit
from memory_repo.text import utf8_len
from profiles.model import Level, Profile
from recall_api.models import InjectedItem

HEADER = "Memory from dose-mem (read more as shown):\n"


def link(item_id: str) -> str:
    """The item's HTTP route (``InjectedItem.link``, for API clients)."""
    return f"/v1/memories/{item_id}"


def render(hit: Hit, level: Level, read_with: str) -> str:
    """One item's line; it ends with how the agent reads the item in full
    (``Profile.read_with``), never a URL the agent has no base or token for."""
    line = f"- {hit.l0}"
    if level == Level.l0_l1 and hit.l1 and hit.l1 != hit.l0:
        line += f" {hit.l1}"
    read = read_with.replace("{id}", hit.item_id)
    return f"{line} [{hit.project}/{hit.type.value}] ({read})\n"


def assemble(
    scored: Iterable[tuple[Hit, float]], profile: Profile
) -> tuple[list[InjectedItem], str]:
    """Takes ``scored`` lazily and stops at ``max_items``: a generator's rest is never run."""
    items: list[InjectedItem] = []
    text = HEADER
    for hit, value in scored:
        piece = render(hit, profile.level, profile.read_with)
        if utf8_len(text) + utf8_len(piece) > profile.budget_bytes:
            continue
        text += piece
        items.append(
            InjectedItem(
                id=hit.item_id,
                project=hit.project,
                type=hit.type.value,
                text=piece.rstrip("\n"),
                bytes=utf8_len(piece),
                link=link(hit.item_id),
                score=round(value, 4),
                cosine=round(hit.cosine, 4),
                bm25=round(hit.bm25, 4),
                rank=hit.rank,
            )
        )
        if len(items) == profile.max_items:  # checked before the next hit is pulled
            break
    return items, (text if items else "")


TASK_HEADER = "Task state from dose-mem (as your agents last reported it):\n"
# The type of an injected task-state item: not a card type (cards of type "task" are
# standing instructions, not work in flight).
TASK_ITEM = "task_state"


def assemble_tasks(
    lines: list[tuple[str, str | None, str]], profile: Profile
) -> tuple[list[InjectedItem], str]:
    """(task id, project, line) in order, whole or absent like cards, within the
    profile's budget and item cap."""
    items: list[InjectedItem] = []
    text = TASK_HEADER
    for rank, (task_id, project, line) in enumerate(lines, 1):
        piece = f"- {line}\n"
        if utf8_len(text) + utf8_len(piece) > profile.budget_bytes:
            continue
        text += piece
        items.append(
            InjectedItem(
                id=task_id,
                project=project or "",
                type=TASK_ITEM,
                text=piece.rstrip("\n"),
                bytes=utf8_len(piece),
                link=f"/v1/tasks/{task_id}",
                score=1.0,
                cosine=0.0,
                bm25=0.0,
                rank=rank,
            )
        )
        if len(items) == profile.max_items:
            break
    return items, (text if items else "")
