"""End to end with real Prefect flow runs, a real git memory and a real LanceDB index."""

from __future__ import annotations

import git

from dose_mem.settings import get_settings
from flows.ingest import ingest
from memory_repo.index.embedders import make_embedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.store import load_memory


def _by_word(memory, word: str):
    return [i for i in memory.items.values() if word in (i.conclusion or "")]


def test_preference_is_learned_then_corrected_and_recall_follows(harness, home) -> None:
    for agent in ("claude_code", "pi", "hermes"):
        home.add(agent)
    first = ingest(home=str(home.root))
    assert first.sessions_read == 3
    assert first.decisions.get("promote") == 3
    memory = load_memory(home.memory)
    [amber] = _by_word(memory, "amber")
    assert amber.evidence[0].quote == "Always mark unverified entries in amber."
    assert amber.evidence[0].agent == "claude_code"
    assert _by_word(memory, "周报") and _by_word(memory, "commit messages")
    assert not any("ghp_" in (i.body + str(i.evidence)) for i in memory.items.values())
    assert first.prescreen_rejected == 1  # the deploy token

    home.add("codex")
    second = ingest(home=str(home.root))
    assert second.sessions_read == 1 and second.decisions == {"supersede": 1}
    memory = load_memory(home.memory)
    [teal] = _by_word(memory, "teal")
    assert teal.supersedes == [amber.id]
    assert (home.memory / amber.path).is_file()

    settings = get_settings()
    index = Index.open(settings.index_path, make_embedder(settings))
    prefilter = Prefilter(clauses=[ScopeClause(projects=["global"])], automatic=True)
    hits = index.search("what colour for unverified entries", prefilter, k=10, mode="hybrid")
    assert hits[0].item_id == teal.id
    assert amber.id not in {h.item_id for h in hits}

    repo = git.Repo(home.memory)
    head = repo.head.commit.hexsha
    assert f"Dose-Mem-Run: {second.run_id}" in repo.head.commit.message
    third = ingest(home=str(home.root))
    assert third.sessions_read == 0 and third.commit is None
    assert repo.head.commit.hexsha == head
    assert not repo.is_dirty(untracked_files=True)
