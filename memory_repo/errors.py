"""Exceptions named for what went wrong, each carrying enough to tell a person where."""

from __future__ import annotations


class DoseMemError(Exception):
    """Base of every error dose-mem turns into a clear message at its edges."""


class MalformedCard(DoseMemError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class UnknownItem(DoseMemError):
    def __init__(self, item_id: str) -> None:
        super().__init__(f"no memory with id {item_id}")
        self.item_id = item_id


class EmbedderMismatch(DoseMemError):
    """The index was built by another embedder; mixing vectors would corrupt ranking."""
