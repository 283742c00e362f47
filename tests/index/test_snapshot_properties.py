"""Properties of the in-RAM snapshot the service queries.

Scope is a mask computed before ranking: whatever the rows and the prefilter, neither
leg returns a row the prefilter's rule rejects (checked against the rule's reference,
``Prefilter.admits``), and with enough depth each leg returns every admitted row it can score.
BM25 scores equal a direct Okapi BM25 over the same terms, and the dense leg's
sign-bit preselection agrees with an exact scan when it rescores every row.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.surveys.leg_compare import vector_table
from memory_repo.index import snapshot as snapshot_module
from memory_repo.index.legs import DenseLeg, LexicalLeg
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.snapshot import BM25Params, Snapshot
from memory_repo.models import CardType
from tests.index.helpers import admits_row

DIM = 8
PROJECTS = ["global", "alpha", "beta", "gamma"]
TYPES = [CardType.fact, CardType.preference, CardType.pitfall]
TERMS = ["uv", "conda", "parse_table", "数据", "环境", "1200", "table", "env"]
TODAY = dt.date(2026, 6, 1)

rows_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "project": st.sampled_from(PROJECTS),
            "type": st.sampled_from(TYPES),
            "superseded": st.booleans(),
            "archived": st.booleans(),
            "expires": st.one_of(st.none(), st.dates(dt.date(2026, 1, 1), dt.date(2027, 1, 1))),
            "terms": st.lists(st.sampled_from(TERMS), max_size=6),
            "vector": st.lists(st.floats(-1, 1, allow_nan=False), min_size=DIM, max_size=DIM),
        }
    ),
    min_size=1,
    max_size=40,
)
prefilter_strategy = st.builds(
    Prefilter,
    clauses=st.lists(
        st.builds(
            ScopeClause,
            projects=st.lists(st.sampled_from(PROJECTS), max_size=3),
            types=st.one_of(st.none(), st.lists(st.sampled_from(TYPES), max_size=2)),
        ),
        max_size=3,
    ),
    automatic=st.booleans(),
    today=st.just(TODAY),
)


def _id(n: int) -> str:
    """Item ids out of row order (the snapshot numbers items in id order)."""
    return f"i{n * 37 % 1000:03d}"


def _table(rows: list[dict]) -> pa.Table:
    records = [
        {
            "item_id": _id(n),
            "project": r["project"],
            "type": r["type"].value,
            "path": f"p/{n}.md",
            "l0": "",
            "l1": "",
            "heading": "",
            "text": "",
            "superseded": r["superseded"],
            "archived": r["archived"],
            "expires": r["expires"],
            "tokens": " ".join(r["terms"]),
            "vector": [float(x) for x in r["vector"]],
        }
        for n, r in enumerate(rows)
    ]
    table = pa.Table.from_pylist(records)
    return table.set_column(
        table.schema.get_field_index("vector"),
        "vector",
        table["vector"].cast(pa.list_(pa.float32(), DIM)),
    ).set_column(
        table.schema.get_field_index("expires"),
        "expires",
        table["expires"].cast(pa.date32()),
    )


def _item_rows(rows: list[dict]) -> dict[str, dict]:
    return {_id(n): r for n, r in enumerate(rows)}


@settings(max_examples=150, deadline=None)
@given(
    rows=rows_strategy,
    prefilters=st.lists(prefilter_strategy, min_size=1, max_size=3),
    query=st.lists(st.sampled_from(TERMS), min_size=1, max_size=3),
)
def test_legs_return_exactly_the_admitted_rows(rows, prefilters, query) -> None:
    snapshot = Snapshot.from_batches(_table(rows).to_reader(max_chunksize=7), DIM)  # batches
    assert isinstance(snapshot, DenseLeg) and isinstance(snapshot, LexicalLeg)
    by_item = _item_rows(rows)
    ids = snapshot.ids_of(list(range(snapshot.rows)))
    vector = np.ones(DIM, dtype=np.float32) / math.sqrt(DIM)
    for prefilter in prefilters * 2:  # the second round answers from cached masks
        mask = snapshot.mask(prefilter)
        admitted = {item for item, row in by_item.items() if admits_row(row, prefilter)}
        assert {ids[n] for n in np.flatnonzero(mask)} == admitted

        dense = {ids[n] for n, _ in snapshot.dense(vector, mask, 100)}
        assert dense == admitted

        lexical = snapshot.bm25(query, mask, 100)
        matching = {item for item in admitted if set(query) & set(by_item[item]["terms"])}
        assert {ids[n] for n, _ in lexical} == matching
        # Reading only the scope's row ranges changes nothing (share=1: always ranges).
        runs = snapshot.runs(prefilter, share=1.0)
        if runs is not None:
            assert all(any(a <= n < b for a, b in runs) for n in np.flatnonzero(mask))
            assert snapshot.bm25(query, mask, 100, runs) == lexical


@settings(max_examples=100, deadline=None)
@given(
    rows=rows_strategy,
    query=st.lists(st.sampled_from(TERMS), min_size=1, max_size=4),
    k1=st.floats(0.5, 2.0),
    b=st.floats(0.0, 1.0),
)
def test_bm25_scores_equal_okapi_bm25(rows, query, k1, b) -> None:
    snapshot = Snapshot.from_batches(_table(rows).to_reader(), DIM, BM25Params(k1=k1, b=b))
    everything = Prefilter(clauses=[ScopeClause(projects=PROJECTS)], automatic=False)
    mask = snapshot.mask(everything)
    ids = snapshot.ids_of(list(range(snapshot.rows)))
    got = {ids[n]: s for n, s in snapshot.bm25(query, mask, len(rows))}

    docs = {_id(n): r["terms"] for n, r in enumerate(rows)}
    avgdl = sum(map(len, docs.values())) / len(docs)
    df = Counter(t for terms in docs.values() for t in set(terms))
    want = {}
    for item, terms in docs.items():
        tf = Counter(terms)
        score = sum(
            math.log1p((len(docs) - df[t] + 0.5) / (df[t] + 0.5))
            * tf[t]
            * (k1 + 1)
            / (tf[t] + k1 * (1 - b + b * len(terms) / avgdl))
            for t in query
            if tf[t]
        )
        if score > 0:
            want[item] = score
    assert got.keys() == want.keys()
    for item, score in want.items():
        assert got[item] == pytest.approx(score, rel=1e-4)


def test_sign_bit_preselection_agrees_with_an_exact_scan(monkeypatch) -> None:
    rng = np.random.default_rng(7)
    count, dim = 3000, 64
    vectors = rng.standard_normal((count, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    table = vector_table(vectors, [PROJECTS[n % 4] for n in range(count)])
    snapshot = Snapshot.from_batches(table.to_reader(), dim)
    mask = snapshot.mask(Prefilter(clauses=[ScopeClause(projects=PROJECTS[:3])]))
    agree = []
    for query in vectors[rng.choice(count, 20, replace=False)] + 0.3 * rng.standard_normal(
        (20, dim)
    ).astype(np.float32):
        query /= np.linalg.norm(query)
        monkeypatch.setattr(snapshot_module, "RESCORE", 500)
        fast = [n for n, _ in snapshot.dense(query, mask, 10)]
        monkeypatch.setattr(snapshot_module, "RESCORE", count)
        exact = [n for n, _ in snapshot.dense(query, mask, 10)]
        original = np.array([int(i[1:]) for i in snapshot.ids_of(list(range(count)))])
        admitted = original[mask]
        tenth = np.sort(vectors[admitted] @ query)[-10]
        # int8 rescoring may swap near-ties at the cut, never admit a clearly worse row.
        assert min(vectors[original[exact]] @ query) >= tenth - 0.01
        agree.append(len(set(fast) & set(exact)) / 10)
        assert all(mask[n] for n in fast)
    assert np.mean(agree) >= 0.9
