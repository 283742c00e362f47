"""The default pair embedder computes only the parts a query's legs read.

Real models over a real index of the fixture memory; the models are wrapped only to
count their calls.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder
from memory_repo.index.pair_embedder import PairEmbedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.use_embedder import UseEmbedder


class Counted:
    """A real model that counts the texts it embeds."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.name, self.dim, self.languages = model.name, model.dim, model.languages
        self.texts = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.model.embed(texts)


@pytest.fixture(scope="module")
def use() -> UseEmbedder:
    return UseEmbedder()


@pytest.fixture
def pair(embedder: Embedder, use: UseEmbedder) -> tuple[PairEmbedder, Counted, Counted]:
    english, multilingual = Counted(embedder), Counted(use)
    return PairEmbedder(english, multilingual), english, multilingual


def scope(*projects: str) -> Prefilter:
    return Prefilter(clauses=[ScopeClause(projects=list(projects))])


def test_each_query_runs_only_the_models_its_legs_read(
    memory: Path, tmp_path: Path, embedder: Embedder, pair: tuple[PairEmbedder, Counted, Counted]
) -> None:
    both, english, multilingual = pair
    rebuild(memory, tmp_path / "pair", both)
    index = Index.open(tmp_path / "pair", both)
    english.texts = multilingual.texts = 0

    # An English query over a scope with no Chinese row: the English model alone.
    alone = index.search("which separator do the files use", scope("beta", "oldproj"), k=5)
    assert (english.texts, multilingual.texts) == (1, 0)
    # ... and it ranks as an index built by that model alone does.
    rebuild(memory, tmp_path / "english", embedder)
    specialist = Index.open(tmp_path / "english", embedder)
    expected = specialist.search("which separator do the files use", scope("beta", "oldproj"), k=5)
    assert [h.item_id for h in alone] == [h.item_id for h in expected]
    assert alone[0].cosine > 0

    # Where the scope holds a Chinese card, both run and the card can be found.
    hits = index.search("which tool manages the Python environment", scope("global"), k=3)
    assert (english.texts, multilingual.texts) == (2, 1)
    assert hits[0].item_id == "uv-python-env"

    # A Chinese prompt is read by the multilingual model only.
    hits = index.search("用什么管理 Python 环境", scope("alpha", "global"), k=3)
    assert (english.texts, multilingual.texts) == (2, 2)
    assert hits[0].item_id == "uv-python-env"


def test_skipped_parts_are_zero_and_computed_parts_match_the_whole_vector(
    pair: tuple[PairEmbedder, Counted, Counted],
) -> None:
    both, _, _ = pair
    text = ["把 parse_table 改个名"]
    whole = both.embed(text)[0]
    first, second = both.parts
    only_second = both.embed_parts(text, (False, True))[0]
    assert not only_second[first.start : first.stop].any()
    assert np.allclose(only_second[second.start : second.stop], whole[second.start : second.stop])
