"""Reading and writing card files: YAML front matter (python-frontmatter) plus a Markdown body.

Writing is deterministic (sorted keys are not used: field order follows the model, then
unknown keys), so a card written twice is byte-identical and git diffs stay small.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from pathlib import Path

import frontmatter
import yaml
from frontmatter.default_handlers import BaseHandler
from pydantic import ValidationError

from memory_repo.errors import MalformedCard
from memory_repo.models import Card


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


# A card is one fact; a file this large is a mistake (a pasted log, a data dump), and
# parsing, segmenting and embedding it would stall every reindex.
MAX_FILE_BYTES = 1 << 20


def read_text(path: Path, rel: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise MalformedCard(rel, f"too large ({size:,} bytes; the limit is {MAX_FILE_BYTES:,})")
        raw = path.read_bytes()
    except OSError as exc:
        raise MalformedCard(rel, f"unreadable: {exc.strerror or exc}") from exc
    if b"\x00" in raw:
        raise MalformedCard(rel, "binary file (NUL byte)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedCard(rel, f"not UTF-8 at byte {exc.start}") from exc


def parse_card_text(text: str, rel: str, stem: str, handler: BaseHandler | None = None) -> Card:
    """Parse one card; every failure names the file and the reason."""
    try:
        post = frontmatter.loads(text, handler=handler) if handler else frontmatter.loads(text)
    except yaml.YAMLError as exc:
        raise MalformedCard(rel, f"bad YAML front matter: {_first_line(exc)}") from exc
    meta = dict(post.metadata)
    if not meta:
        starts = text.lstrip("\ufeff").startswith("---")
        raise MalformedCard(rel, "front matter is not a mapping" if starts else "no front matter")
    if "id" not in meta or meta["id"] in (None, ""):
        raise MalformedCard(rel, "missing id")
    if str(meta["id"]) != stem:
        raise MalformedCard(rel, f"id {meta['id']!r} does not match file name {stem!r}")
    try:
        card = Card.model_validate({**meta, "id": str(meta["id"])})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "front matter"
        raise MalformedCard(rel, f"invalid {where}: {err['msg']}") from exc
    card.body = post.content
    return card


def render_card(card: Card) -> str:
    """The exact bytes a card is stored as."""
    meta = card.model_dump(mode="python", exclude_none=True, exclude={"body"})
    if not meta.get("supersedes"):
        meta.pop("supersedes", None)
    if not meta.get("evidence"):
        meta.pop("evidence", None)
    head = yaml.dump(meta, Dumper=_CardDumper, allow_unicode=True, sort_keys=False, width=1000)
    body = card.body.strip("\n")
    return f"---\n{head}---\n\n{body}\n" if body else f"---\n{head}---\n"


class _CardDumper(yaml.SafeDumper):
    """Dates stay YAML dates (not quoted strings), so an unknown date key survives a round trip."""


_CardDumper.add_multi_representer(StrEnum, lambda dumper, value: dumper.represent_str(str(value)))


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
