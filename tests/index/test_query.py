"""Hybrid search over a real LanceDB index: lifecycle, scope, Chinese, identifiers, reload."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from memory_repo.index.build import rebuild, refresh
from memory_repo.index.embedders import Embedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause

ALL = ["alpha", "beta", "oldproj", "global"]
RETIRED = {"batch-size-v1", "batch-size-v2", "old-benchmark", "retired-deploy", "legacy-cron"}


@pytest.fixture
def index(memory: Path, tmp_path: Path, embedder: Embedder) -> Index:
    rebuild(memory, tmp_path / "idx", embedder)
    return Index.open(tmp_path / "idx", embedder)


def scope(*projects: str, automatic: bool = True) -> Prefilter:
    return Prefilter(clauses=[ScopeClause(projects=list(projects))], automatic=automatic)


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_retired_items_only_come_back_explicitly(index: Index, mode: str) -> None:
    query = "batch size tokenizer benchmark deploy rsync legacy cron"
    automatic = {h.item_id for h in index.search(query, scope(*ALL), k=50, mode=mode)}
    explicit = {
        h.item_id for h in index.search(query, scope(*ALL, automatic=False), k=50, mode=mode)
    }
    assert not automatic & RETIRED
    assert explicit >= RETIRED
    assert "batch-size-v3" in automatic


def test_chinese_query_finds_the_chinese_card(index: Index) -> None:
    hits = index.search("用什么管理 Python 环境", scope(*ALL), k=3)
    assert hits[0].item_id == "uv-python-env"
    assert hits[0].bm25 > 0 and hits[0].cosine > 0
    assert hits[0].l0 == "用 uv 管理 Python 环境，不用 conda。"


def test_identifier_query_finds_the_card_naming_it(index: Index) -> None:
    for mode in ("hybrid", "bm25"):
        hits = index.search("parse_table", scope("alpha", "global"), k=3, mode=mode)
        assert hits[0].item_id == "parse-table-header"
    numbers = index.search("1200 columns", scope("alpha"), k=1, mode="bm25")
    assert numbers[0].item_id == "parse-table-header"


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_prefilter_excludes_other_projects_in_each_leg(index: Index, mode: str) -> None:
    inside = {h.project for h in index.search("parse_table tabs", scope("alpha"), 50, mode)}
    assert inside == {"alpha"}
    everywhere = {h.item_id for h in index.search("parse_table tabs", scope(*ALL), 50, mode)}
    assert "beta-separator" in everywhere


def test_types_in_a_clause_restrict_the_query(index: Index) -> None:
    prefilter = Prefilter(
        clauses=[
            ScopeClause(projects=["alpha"]),
            ScopeClause(projects=["global"], types=["pitfall"]),
        ]
    )
    ids = {h.item_id for h in index.search("用 uv 管理 Python 环境", prefilter, k=50)}
    assert "uv-python-env" not in ids
    assert "parse-table-header" in ids


def test_empty_prefilter_returns_nothing(index: Index) -> None:
    assert index.search("parse_table", Prefilter(), k=5) == []
    assert index.search("parse_table", Prefilter(clauses=[ScopeClause(projects=[])])) == []


def test_hits_carry_fusion_evidence(index: Index) -> None:
    hits = index.search("parse_table header columns", scope(*ALL), k=5)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.rrf >= b.rrf for a, b in pairwise(hits))
    top = hits[0]
    assert top.dense_rank is not None and top.bm25_rank is not None
    assert -1.0 <= top.cosine <= 1.0
    no_lexical = index.search("zzqx", scope(*ALL), k=5)
    assert all(h.bm25 == 0 and h.bm25_rank is None for h in no_lexical)
    assert index.item_path("parse-table-header") == "projects/alpha/cards/parse-table-header.md"
    assert index.item_path("nope") is None


def test_reload_picks_up_a_finished_reindex(
    index: Index, memory: Path, tmp_path: Path, embedder: Embedder
) -> None:
    assert index.reload_if_changed() is False
    (memory / "global/cards/ruff-format.md").write_text(
        "---\nid: ruff-format\ntype: convention\nproject: global\ncreated: 2026-05-01\n---\n\n"
        "Format Python with ruff_format_all before every commit.\n",
        encoding="utf-8",
    )
    refresh(memory, tmp_path / "idx", embedder)
    assert index.search("ruff_format_all", scope("global"), k=1, mode="bm25") == []
    assert index.reload_if_changed() is True
    assert index.search("ruff_format_all", scope("global"), k=1)[0].item_id == "ruff-format"
    rebuild(memory, tmp_path / "idx", embedder)
    assert index.reload_if_changed() is True
    assert index.search("ruff_format_all", scope("global"), k=1)[0].item_id == "ruff-format"
