"""Every system, instrumented down to the index, never receives a probe's follow-ups."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluation.harness.environment import load_environment
from evaluation.harness.probes import SystemInput
from evaluation.harness.run import answer_all
from evaluation.harness.snapshots import MemoIndex, Snapshot, SnapshotStore
from evaluation.harness.systems import Injection, System, baseline_systems, dose_mem_systems
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import get_settings
from profiles.model import load_profiles
from tests.evaluation.tiny_env import FOLLOW_UP


class Recording:
    """Wraps a system; keeps every input it was handed."""

    def __init__(self, inner: System, seen: list[str]) -> None:
        self.inner, self.seen = inner, seen
        self.name, self.grid = inner.name, inner.grid

    def group(self, inp: SystemInput) -> str:
        return self.inner.group(inp)

    def start_pass(self) -> None:
        self.inner.start_pass()

    def answer(self, inp: SystemInput, snapshot: Snapshot, threshold: float) -> Injection:
        self.seen.append(inp.model_dump_json())
        return self.inner.answer(inp, snapshot, threshold)


def test_no_follow_up_in_any_system_input_or_index_query(tiny_env: Path, tmp_path: Path) -> None:
    env = load_environment(tiny_env, tmp_path / "work")
    settings = get_settings(home=tmp_path / "home")
    store = SnapshotStore(env, tmp_path / "work", make_embedder(settings), load_profiles())
    queries: list[str] = []
    for commit in env.commits:
        index = store.get(commit).index
        assert isinstance(index, MemoIndex)
        real = index._inner.search

        def spy(query: str, *args: Any, real: Any = real, **kwargs: Any) -> Any:
            queries.append(query)
            return real(query, *args, **kwargs)

        index._inner.search = spy
    seen: list[str] = []
    systems = [*dose_mem_systems(load_profiles(), env.spec), *baseline_systems(env.spec)]
    injected = 0
    for system in systems:
        answers = answer_all(Recording(system, seen), env.probes, env, store, lambda _g: 0.0)
        injected += sum(bool(a.items) for a in answers.values())
    assert len(seen) == len(systems) * len(env.probes)
    assert queries and injected  # the systems really searched and answered
    for text in [*seen, *queries]:
        assert FOLLOW_UP not in text and "FOLLOWUP" not in text
