"""A bilingual lexicon taken from the embedder itself, for the gate's lexical support.

A multilingual embedder places a Chinese word and its English translation close
together (测试 ~ tests 0.87, 环境 ~ environment 0.93, 条目 ~ entries 0.81 with the
default model), so the gate can tell that a Chinese prompt word is present in an
English card without a dictionary. ``Bridge.translated`` answers, for prompt words the
item lacks literally, which of them have a word of the *other* script in the item
within ``bar`` cosine. Words of the same script are never bridged: within one language
the gate stays as literal as it always was. Only words (Chinese ones, or Latin letters
alone) are bridged: a number, a version or an identifier reads the same in both
languages, so it is matched as written or not at all (and each new one would cost a
model call; docs/read-path.md).

Word vectors are cached (least recently used, float16); the same card words come back
request after request. Safe to share between request threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

from memory_repo.index.tokenize import is_cjk
from memory_repo.index.vectors import CHINESE_ENGLISH, Embedder, Part, l2_normalise, parts_of

WORD_BAR = 0.65
CACHE_WORDS = 16384


class Bridge:
    def __init__(
        self,
        embedder: Embedder,
        part: Part | None = None,
        bar: float = WORD_BAR,
        size: int = CACHE_WORDS,
    ) -> None:
        self.embedder = embedder
        self.part = part or Part(0, embedder.dim, embedder.languages)
        self.bar = bar
        self._size = size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def for_embedder(cls, embedder: Embedder) -> Bridge | None:
        """A bridge over the embedder (or the model of a pair) that aligns Chinese and
        English, else ``None``. Words are embedded by that model alone."""
        inner = getattr(embedder, "inner", embedder)
        for model in (*getattr(inner, "models", ()), inner):
            if model.languages >= CHINESE_ENGLISH and len(parts_of(model)) == 1:
                return cls(model)
        return None

    def vectors(self, words: list[str]) -> np.ndarray:
        """Rows in ``words`` order; missing words are embedded in one batch."""
        with self._lock:
            found = {w: self._cache[w] for w in words if w in self._cache}
            for w in found:
                self._cache.move_to_end(w)
        missing = [w for w in dict.fromkeys(words) if w not in found]
        if missing:
            fresh = l2_normalise(
                self.embedder.embed(missing)[:, self.part.start : self.part.stop]
            ).astype(np.float16)
            with self._lock:
                for w, v in zip(missing, fresh, strict=True):
                    found[w] = v
                    self._cache[w] = v
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return np.stack([found[w] for w in words]).astype(np.float32)

    def translated(self, words: Iterable[str], item_words: frozenset[str]) -> frozenset[str]:
        """The ``words`` (not literally in the item) with an other-script item word
        within ``bar``."""
        asked = [w for w in words if w not in item_words and _bridgeable(w)]
        if not asked:
            return frozenset()
        cjk = [w for w in item_words if is_cjk(w)]
        latin = [w for w in item_words if not is_cjk(w) and _bridgeable(w)]
        out: set[str] = set()
        for group, targets in (
            ([w for w in asked if is_cjk(w)], latin),
            ([w for w in asked if not is_cjk(w)], cjk),
        ):
            if not group or not targets:
                continue
            best = (self.vectors(group) @ self.vectors(targets).T).max(axis=1)
            out.update(w for w, s in zip(group, best, strict=True) if s >= self.bar)
        return frozenset(out)


def _bridgeable(word: str) -> bool:
    """A Chinese word, or one of Latin letters only (no digits, ``_``, ``.`` or ``-``)."""
    return is_cjk(word) or (word.isascii() and word.isalpha())
