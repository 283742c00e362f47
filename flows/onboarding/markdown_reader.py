"""Statements of a Markdown memory file: one per bullet or sentence-level line.

A statement keeps its 1-based line number and its quote, which is the line itself with
only the list marker (``-``, ``*``, ``+``, ``1.``, ``- [ ]``) or blockquote ``>`` taken
off, so the quote is a verbatim span of the file. Skipped: YAML front matter, fenced
code, headings, tables, HTML comments, rules (``---``), Claude Code's ``@path`` imports,
and lines shorter than ``MIN_CHARS``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

MIN_CHARS = 8
_MARKER = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?)?")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


class Statement(BaseModel):
    line: int
    quote: str


def statements(text: str, skip: frozenset[str] = frozenset()) -> list[Statement]:
    """Every statement of ``text``; a line whose stripped form is in ``skip`` is a separator."""
    out: list[Statement] = []
    lines = text.splitlines()
    in_fence = in_comment = False
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        start = end + 1 if end is not None else 0
    for n, raw in enumerate(lines[start:], start + 1):
        line = raw.strip()
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if in_comment or line.startswith("<!--"):
            in_comment = "-->" not in line
            continue
        if not line or line in skip or line.startswith(("#", "|", "@")) or _RULE.match(line):
            continue
        quote = raw[_MARKER.match(raw).end() :].strip()  # type: ignore[union-attr]
        if len(quote) >= MIN_CHARS:
            out.append(Statement(line=n, quote=quote))
    return out
