"""Project briefs and decision logs: one recallable item per ``##`` section.

Ids are derived from the heading (``<project>.brief.<slug>``), so an item keeps its id
while its text is edited; a Chinese heading gets a short hash slug.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import frontmatter

from memory_repo.cards import content_hash
from memory_repo.errors import MalformedCard
from memory_repo.models import CardType, Item

_SECTION = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})[\s:：\-–—]*(.*)$")
_EPOCH = dt.date(1970, 1, 1)


def slug(text: str) -> str:
    ascii_part = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].strip("-")
    if ascii_part and ascii_part.isascii() and len(ascii_part) * 2 >= len(text.strip()):
        return ascii_part
    digest = hashlib.sha1(text.strip().encode("utf-8")).hexdigest()[:8]
    return f"{ascii_part}-{digest}" if ascii_part else f"s-{digest}"


def parse_sections(text: str, rel: str, project: str, kind: str) -> list[Item]:
    """Split a brief (``kind="brief"``) or decision log (``kind="decision"``) into items."""
    try:
        post = frontmatter.loads(text)
    except Exception as exc:
        raise MalformedCard(rel, f"bad YAML front matter: {exc}") from exc
    created_default = _as_date(post.metadata.get("created")) or _EPOCH
    body = post.content
    marks = list(_SECTION.finditer(body))
    items: list[Item] = []
    seen: set[str] = set()
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        section = body[mark.end() : end].strip()
        heading = mark.group(1).strip()
        created = created_default
        title = heading
        if kind == "decision" and (m := _DATE_PREFIX.match(heading)):
            created = _as_date(m.group(1)) or created_default
            title = m.group(2).strip() or heading
        item_id = f"{project}.{kind}.{slug(title)}"
        if item_id in seen:
            raise MalformedCard(rel, f"two sections share the heading {heading!r}")
        seen.add(item_id)
        items.append(
            Item(
                id=item_id,
                type=CardType.decision if kind == "decision" else CardType.fact,
                project=project,
                created=created,
                path=rel,
                title=title,
                body=f"{section}\n" if section else "",
                content_hash=content_hash(f"{heading}\n{section}".encode()),
            )
        )
    return items


def _as_date(value: object) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None
