"""Sentence and byte handling that treats Chinese and English alike.

L0 and L1 are cut on sentence boundaries and capped in UTF-8 bytes, so a Chinese
sentence (3 bytes a character) is never cut in the middle of a character.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=\.)(?=\s|$)")
_FULL_WIDTH_ENDS = frozenset("。！？；：」』）")
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.MULTILINE)
_MARKUP = re.compile(r"^\s{0,3}([-*+]\s+|\d+\.\s+|>\s?)", re.MULTILINE)
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "Dr.", "Mr.", "Ms.", "No.")
_INLINE = re.compile(r"(\*\*|__|`)")
# A fenced code block, from its opening to its closing fence line.
FENCED = re.compile(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)


def plain(markdown: str) -> str:
    """Markdown to one line of prose: fenced code blocks, heading lines, list marks and
    emphasis dropped. Code is never flattened into prose (a shell block read as one
    sentence says nothing); it stays in the body, which an agent reads in full."""
    text = _HEADING_LINE.sub("", FENCED.sub("", markdown))
    text = _MARKUP.sub("", text)
    text = _INLINE.sub("", text)
    return " ".join(text.split())


def sentences(text: str) -> list[str]:
    """Split prose into sentences on ASCII and full-width terminators; keeps the terminator."""
    merged: list[str] = []
    for part in (p.strip() for p in _SENTENCE_END.split(text)):
        if not part:
            continue
        if merged and merged[-1].rsplit(maxsplit=1)[-1] in _ABBREVIATIONS:
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    return merged


def unfinished_sentence(text: str) -> str:
    """The sentence ``text`` ends in the middle of: what follows its last terminator (the
    same ones ``sentences`` splits on) or line break; "" when it ends on one."""
    return _SENTENCE_END.split(text.rsplit("\n", 1)[-1])[-1]


def first_sentence(markdown: str) -> str:
    found = sentences(plain(markdown))
    return found[0] if found else ""


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def cut_bytes(text: str, limit: int, ellipsis: str = "…") -> str:
    """Cut to at most ``limit`` UTF-8 bytes on a character boundary, marking the cut."""
    if utf8_len(text) <= limit:
        return text
    room = max(0, limit - utf8_len(ellipsis))
    cut = text.encode("utf-8")[:room].decode("utf-8", errors="ignore").rstrip()
    # A lone ellipsis says nothing: when no character fits, the overview is empty.
    return cut + ellipsis if cut and limit >= utf8_len(ellipsis) else ""


def take_sentences(text: str, limit: int) -> str:
    """Whole sentences from the start while they fit in ``limit`` bytes.

    If even the first sentence does not fit, it is cut on a character boundary, so an
    overview is never empty merely because its first sentence is long.
    """
    out = ""
    for sentence in sentences(text):
        candidate = join_sentences(out, sentence)
        if utf8_len(candidate) > limit:
            break
        out = candidate
    return out or cut_bytes(text, limit)


def join_sentences(left: str, right: str) -> str:
    """Chinese sentences join without a space, English ones with one."""
    if not left:
        return right
    return left + ("" if left[-1] in _FULL_WIDTH_ENDS else " ") + right
