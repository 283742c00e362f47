"""One lifecycle rule, three forms: the reference in ``memory_repo/lifecycle.py``
(``is_recallable`` on items, ``is_alive`` on a row's flags, ``Prefilter.admits`` with the
scope), the SQL of ``Prefilter.where`` run by LanceDB, and the numpy of ``Snapshot.mask``.
Whatever the items, the registry, the day and the prefilter, the fast forms admit
exactly what the reference admits."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_repo.index.rows import item_rows, schema
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.snapshot import Snapshot
from memory_repo.lifecycle import is_recallable, retirement, superseded_ids
from memory_repo.models import (
    GLOBAL,
    CardStatus,
    CardType,
    Item,
    Project,
    ProjectStatus,
    Registry,
)
from tests.index.helpers import admits_row

DIM = 4
PROJECTS = ["alpha", "beta"]
IDS = [f"c{n}" for n in range(8)]
# Narrow windows, so that an item often expires on the very day asked about: today and
# ``expires`` share a week, and ``created`` falls about a result's (180 days) or a
# decision's (365 days) default lifetime before it.
DAYS = st.dates(dt.date(2026, 6, 28), dt.date(2026, 7, 4))
CREATED = st.one_of(
    st.dates(dt.date(2025, 12, 28), dt.date(2026, 1, 6)),
    st.dates(dt.date(2025, 6, 27), dt.date(2025, 7, 6)),
)

item_strategy = st.builds(
    Item,
    id=st.sampled_from(IDS),
    type=st.sampled_from(list(CardType)),
    project=st.sampled_from([GLOBAL, *PROJECTS]),
    created=CREATED,
    expires=st.one_of(st.none(), DAYS),
    supersedes=st.lists(st.sampled_from(IDS), max_size=2),
    status=st.sampled_from(list(CardStatus)),
    path=st.just("x.md"),
    title=st.just("a card"),
)
items_strategy = st.lists(item_strategy, max_size=12, unique_by=lambda i: i.id)
registry_strategy = st.builds(
    Registry,
    projects=st.tuples(*(st.sampled_from(list(ProjectStatus)) for _ in PROJECTS)).map(
        lambda statuses: [
            Project(id=p, name=p, status=s) for p, s in zip(PROJECTS, statuses, strict=True)
        ]
    ),
)
prefilter_strategy = st.builds(
    Prefilter,
    clauses=st.lists(
        st.builds(
            ScopeClause,
            projects=st.lists(st.sampled_from([GLOBAL, *PROJECTS]), max_size=3),
            types=st.one_of(st.none(), st.lists(st.sampled_from(list(CardType)), max_size=3)),
        ),
        max_size=3,
    ),
    automatic=st.booleans(),
    today=DAYS,
)


def _table(items: list[Item], registry: Registry) -> pa.Table:
    """The index rows ``rows.item_rows`` makes of ``items``, with a constant vector."""
    rows = item_rows(items, registry, superseded_ids(items))
    for row in rows:
        row.pop("_document")
        row["vector"] = [1.0] * DIM
    return pa.Table.from_pylist(rows, schema=schema(DIM))


def _admitted_ids(table: pa.Table, prefilter: Prefilter) -> set[str]:
    return {row["item_id"] for row in table.to_pylist() if admits_row(row, prefilter)}


@settings(max_examples=150, deadline=None)
@given(items=items_strategy, registry=registry_strategy, today=DAYS)
def test_the_index_rows_admit_exactly_the_recallable_items(
    items: list[Item], registry: Registry, today: dt.date
) -> None:
    table = _table(items, registry)
    everything = Prefilter(clauses=[ScopeClause(projects=[GLOBAL, *PROJECTS])], today=today)
    superseded = superseded_ids(items)
    want = {i.id for i in items if is_recallable(i, today, superseded, registry)}
    assert _admitted_ids(table, everything) == want
    if table.num_rows:
        snapshot = Snapshot.from_batches(table.to_reader(), DIM)
        ids = snapshot.ids_of(list(range(snapshot.rows)))
        assert {ids[n] for n in np.flatnonzero(snapshot.mask(everything))} == want


@settings(max_examples=40, deadline=None)
@given(
    items=items_strategy.filter(bool),
    registry=registry_strategy,
    prefilters=st.lists(prefilter_strategy, min_size=1, max_size=4),
)
def test_where_and_mask_admit_what_the_reference_admits(
    items: list[Item], registry: Registry, prefilters: list[Prefilter]
) -> None:
    table = _table(items, registry)
    snapshot = Snapshot.from_batches(table.to_reader(), DIM)
    ids = snapshot.ids_of(list(range(snapshot.rows)))
    with tempfile.TemporaryDirectory() as tmp:
        lance = lancedb.connect(Path(tmp)).create_table("rows", table)
        for prefilter in prefilters:
            want = _admitted_ids(table, prefilter)
            found = lance.search().where(prefilter.where()).limit(None).to_arrow()
            assert set(found["item_id"].to_pylist()) == want
            assert {ids[n] for n in np.flatnonzero(snapshot.mask(prefilter))} == want


@settings(max_examples=100, deadline=None)
@given(items=items_strategy, registry=registry_strategy, today=DAYS)
def test_retirement_names_a_reason_exactly_when_an_item_is_not_recallable(
    items: list[Item], registry: Registry, today: dt.date
) -> None:
    """The inspector's reasons (``retirement``) never disagree with the rule recall uses."""
    superseded = superseded_ids(items)
    for item in items:
        why = retirement(item, today, superseded, registry)
        assert (why is None) == is_recallable(item, today, superseded, registry)
        assert why in {None, "superseded", "archived", "expired"}
        assert (why == "superseded") == (item.id in superseded)
