"""Embedders behind one small interface, so the index never cares where vectors come from.

Kinds, by ``settings.embedder``: ``local`` (default; offline, shipped in wheels: the
English MiniLM and the multilingual USE side by side, ``pair_embedder``), ``use`` (the
multilingual model alone), ``minilm-en`` (the English model alone, the default before)
and ``openai`` (any OpenAI-compatible ``/v1/embeddings`` endpoint). The contract they
keep is ``vectors.Embedder``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from threadpoolctl import threadpool_limits

from memory_repo.errors import DoseMemError
from memory_repo.index.vectors import CHINESE_ENGLISH, Embedder, l2_normalise, parts_of
from memory_repo.settings import Settings

__all__ = ["CachedEmbedder", "Embedder", "OpenAIEmbedder", "make_embedder"]


class OpenAIEmbedder:
    """Any OpenAI-compatible embeddings endpoint (OpenAI itself, or a local server)."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = 256,
        languages: frozenset[str] = CHINESE_ENGLISH,
    ) -> None:
        from openai import OpenAI

        self._client = OpenAI(base_url=base_url, api_key=api_key or "unused", max_retries=3)
        self.model = model
        self.name = f"openai:{model}@{base_url or 'api.openai.com'}"
        self.batch_size = batch_size
        self.languages = frozenset(languages)
        self.dim = dim if dim is not None else int(self.embed(["dim probe"]).shape[1])

    def embed(self, texts: list[str]) -> np.ndarray:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [t or " " for t in texts[start : start + self.batch_size]]
            response = self._client.embeddings.create(model=self.model, input=batch)
            ordered = sorted(response.data, key=lambda d: d.index)
            out.extend(d.embedding for d in ordered)
        if not out:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        return l2_normalise(np.array(out, dtype=np.float32))


class CachedEmbedder:
    """An LRU over single query strings: agents re-send the same prompt turn after turn.

    Only ``embed_query`` is cached; bulk indexing goes straight through, so the cache holds
    prompts and never a whole corpus. The service calls it from many threads: the lock
    guards the OrderedDict (whose reordering is not thread-safe), never the model call.
    """

    def __init__(self, inner: Embedder, size: int = 1024) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.languages = inner.languages
        self.parts = parts_of(inner)
        self._size = size
        self._cache: OrderedDict[tuple[str, tuple[bool, ...] | None], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str, parts: tuple[bool, ...] | None = None) -> np.ndarray:
        """The query's vector; with ``parts`` (one flag per part), only the parts flagged
        are computed where the embedder can do that (a pair), the rest are zero."""
        key = (text, parts)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        embed_parts = getattr(self.inner, "embed_parts", None)
        if parts is not None and embed_parts is not None:
            vector = embed_parts([text], parts)[0]
        else:
            vector = self.inner.embed([text])[0]
        with self._lock:
            self._cache[key] = vector
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return vector


def one_blas_thread() -> None:
    """Run numpy's BLAS on one thread in this process from now on: the recall service's
    parallelism comes from concurrent requests, one per core. With OpenBLAS's default
    (a thread per core) each small matrix product in a request wakes a second thread
    that spins on another core (docs/index.md, "Measurements behind the code"). The
    models' own calls keep their ``threads`` setting."""
    threadpool_limits(limits=1, user_api="blas")


def make_embedder(settings: Settings, *, for_queries: bool = False) -> Embedder:
    """The embedder ``settings.embedder`` names: ``local``, ``use``, ``minilm-en``, ``openai``.

    ``for_queries``: the recall service embeds one short prompt per request, many
    requests at once; there a local model runs each call on one thread and parallelism
    comes from concurrent requests. Bulk indexing gives each batch two threads.
    """
    kind = settings.embedder.lower()
    threads = 1 if for_queries else 2
    if kind in ("local", "use", "minilm-en"):
        from memory_repo.index.minilm_embedder import MiniLMEmbedder
        from memory_repo.index.pair_embedder import PairEmbedder
        from memory_repo.index.use_embedder import UseEmbedder

        if kind == "use":
            return UseEmbedder(threads=threads)
        if kind == "minilm-en":
            return MiniLMEmbedder(threads=threads)
        return PairEmbedder(MiniLMEmbedder(threads=threads), UseEmbedder(threads=threads))
    if kind == "openai":
        return OpenAIEmbedder(
            model=settings.embedding_model,
            base_url=settings.embedding_base_url,
            api_key=settings.embedding_api_key,
            languages=frozenset(settings.embedding_languages),
        )
    raise DoseMemError(
        f"unknown embedder {settings.embedder!r} (use 'local', 'use', 'minilm-en' or 'openai')"
    )
