"""Two models side by side in one vector: an English specialist and a multilingual one.

The default (``embedder=local``) pairs paraphrase-MiniLM-L3 (English) with USE
Multilingual v3 (Chinese and English in one space). Each part is L2-normalised and
scaled to ``1/sqrt(2)``, so the whole vector is a unit vector and the index stores and
refreshes it like any other; ``parts`` tells the query which columns each model wrote.
The dense leg ranks each part on its own (``Index.search``) and the gate reads the
cosine of the most specialised part that covers both texts' languages
(``vectors.cosine_part``): English against English is judged by the English model, as
it was before this embedder, anything with Chinese in it by the multilingual one.
"""

from __future__ import annotations

import math

import numpy as np

from memory_repo.index.vectors import Embedder, Part, parts_of


class PairEmbedder:
    def __init__(self, *models: Embedder) -> None:
        self.models = models
        norm = 1.0 / math.sqrt(len(models))
        parts, start = [], 0
        for model in models:
            (only,) = parts_of(model)
            if model.dim % 64:
                raise ValueError(f"{model.name}: {model.dim} columns, not a multiple of 64")
            parts.append(Part(start, start + model.dim, only.languages, norm))
            start += model.dim
        self.parts = tuple(parts)
        self.dim = start
        self.languages = frozenset().union(*(m.languages for m in models))
        self.name = " + ".join(m.name for m in models)
        self._norm = norm

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.hstack([m.embed(texts) * self._norm for m in self.models]).astype(np.float32)
