"""The contract every embedder keeps, and the languages it is trusted across.

An embedder turns texts into float32, L2-normalised rows (cosine is a dot product, and
scores of different queries are comparable). ``languages`` names the languages whose
texts it places in one space: the gate trusts a cosine only between texts written in
those languages, so an English-only model never vouches for a Chinese prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

ENGLISH = frozenset({"en"})
CHINESE_ENGLISH = frozenset({"en", "zh"})


@runtime_checkable
class Embedder(Protocol):
    """``name`` identifies the model (and its dim) in the index meta; a change means rebuild."""

    name: str
    dim: int
    languages: frozenset[str]

    def embed(self, texts: list[str]) -> np.ndarray: ...


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.clip(norms, 1e-12, None)


@dataclass(frozen=True)
class Part:
    """A slice of each vector that one model wrote: columns ``start:stop``, L2 norm
    ``norm`` within the vector, aligned across ``languages``. A single-model embedder has
    one part, the whole vector. Slices start and stop on 64-column boundaries (the
    index keeps sign bits in 64-bit words)."""

    start: int
    stop: int
    languages: frozenset[str]
    norm: float = 1.0


def parts_of(embedder: Embedder) -> tuple[Part, ...]:
    """The embedder's parts; the whole vector when it declares none."""
    declared = getattr(embedder, "parts", None)
    return tuple(declared) if declared else (Part(0, embedder.dim, embedder.languages),)


def cosine_part(parts: tuple[Part, ...], text_languages: frozenset[str]) -> int:
    """The part whose cosine the gate reads for two texts in ``text_languages``: the most
    specialised part that covers them all, else the widest part."""
    covering = [i for i, p in enumerate(parts) if text_languages <= p.languages]
    if covering:
        return min(covering, key=lambda i: len(parts[i].languages))
    return max(range(len(parts)), key=lambda i: len(parts[i].languages))


_LATIN = re.compile(r"[A-Za-z]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def languages_of(text: str) -> frozenset[str]:
    """The languages ``text`` is written in, as far as script tells: Latin letters count
    as English, CJK characters as Chinese; text with neither counts as English."""
    found = {"en"} if _LATIN.search(text) else set()
    if _CJK.search(text):
        found.add("zh")
    return frozenset(found or ENGLISH)
