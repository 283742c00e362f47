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
        return self.embed_parts(texts, (True,) * len(self.models))

    def embed_parts(self, texts: list[str], which: tuple[bool, ...]) -> np.ndarray:
        """Like ``embed``, but only the models ``which`` selects run; the other parts'
        columns stay zero. For a query whose legs do not all run (``Index.search``): a
        part that no leg reads is never computed."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        for model, part, run in zip(self.models, self.parts, which, strict=True):
            if run:
                out[:, part.start : part.stop] = model.embed(texts) * self._norm
        return out
