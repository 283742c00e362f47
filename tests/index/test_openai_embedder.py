"""The OpenAI-compatible embeddings client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import numpy as np
import pytest

from memory_repo.errors import DoseMemError
from memory_repo.index.embedders import CachedEmbedder, OpenAIEmbedder, make_embedder
from memory_repo.settings import get_settings
from tests.index.helpers import EmbeddingsServer


def test_vectors_are_normalised_and_in_input_order(embeddings_server: EmbeddingsServer) -> None:
    embedder = make_embedder(
        get_settings(
            embedder="openai",
            embedding_base_url=embeddings_server.url,
            embedding_model="tiny",
            embedding_api_key="secret",
        )
    )
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.dim == 32
    assert embedder.name == f"openai:tiny@{embeddings_server.url}"
    texts = ["parse_table header", "用 uv 管理环境", "parse_table header"]
    vectors = embedder.embed(texts)
    assert vectors.dtype == np.float32 and vectors.shape == (3, 32)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vectors[0], vectors[2])
    assert not np.allclose(vectors[0], vectors[1])
    last = embeddings_server.requests[-1]
    assert last["path"] == "/v1/embeddings" and last["model"] == "tiny"
    assert last["auth"] == "Bearer secret"


def test_batches_split_large_inputs(embeddings_server: EmbeddingsServer) -> None:
    embedder = OpenAIEmbedder(model="tiny", base_url=embeddings_server.url, dim=32, batch_size=4)
    vectors = embedder.embed([f"word{i}" for i in range(10)])
    assert vectors.shape == (10, 32)
    assert [len(r["input"]) for r in embeddings_server.requests] == [4, 4, 2]


def test_query_cache_calls_the_server_once_per_prompt(embeddings_server: EmbeddingsServer) -> None:
    cached = CachedEmbedder(OpenAIEmbedder(model="tiny", base_url=embeddings_server.url, dim=32), 2)
    first = cached.embed_query("as usual")
    cached.embed_query("as usual")
    assert len(embeddings_server.requests) == 1
    cached.embed_query("b")
    cached.embed_query("c")
    assert np.allclose(cached.embed_query("as usual"), first)
    assert len(embeddings_server.requests) == 4  # evicted after two newer prompts


def test_unknown_embedder_is_a_clear_error() -> None:
    with pytest.raises(DoseMemError, match="unknown embedder"):
        make_embedder(get_settings(embedder="word2vec"))
