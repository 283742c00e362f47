"""End to end with real Prefect flow runs, a real git memory and a real LanceDB index."""

from __future__ import annotations

import json

import git
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

from flows.ingest import ingest
from memory_repo.inbox import add_session
from memory_repo.index.embedders import make_embedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.settings import get_settings
from memory_repo.store import evidence_sidecar, load_memory
from memory_repo.transcripts.transcript import Transcript, Turn


def _artifact(key: str, run_id: str):
    """The run's summary as the Prefect UI shows it (read back through the API)."""
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key]))
        )
    [artifact] = [
        a
        for a in found
        if a.description == f"ingest run {run_id}"
        or a.description == f"decisions of ingest run {run_id}"
    ]
    return artifact


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
    summary = _artifact("ingest-summary", first.run_id)
    assert "| sessions read | 3 |" in summary.data and "| cards written | 3 |" in summary.data
    assert "promote 3" in summary.data and "reject 1" in summary.data
    assert "looks like a secret" in str(_artifact("ingest-decisions", first.run_id).data)

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

    pushed = Transcript(
        session_id="m-1",
        agent="mail-agent",
        turns=[
            Turn(role="user", text="Quick note on the review table."),
            Turn(role="user", text="Always mark unverified entries in teal."),
            Turn(role="user", text="That is all."),
        ],
    )
    add_session(settings, pushed.model_dump_json().encode(), "mail-agent")
    third = ingest(home=str(home.root))
    assert third.decisions == {"merge": 1} and third.cards_written == 0
    [line] = evidence_sidecar(home.memory / teal.path).read_text().splitlines()
    assert '"agent":"mail-agent"' in line and third.run_id in line

    repo = git.Repo(home.memory)
    head = repo.head.commit.hexsha
    assert f"Dose-Mem-Run: {third.run_id}" in repo.head.commit.message
    again = ingest(home=str(home.root))
    assert again.sessions_read == 0 and again.commit is None
    assert len(list((home.state / "runs").glob("*.json"))) == 3  # journals of runs that wrote
    assert repo.head.commit.hexsha == head
    assert not repo.is_dirty(untracked_files=True)


def test_a_grown_session_is_ingested_only_for_its_new_part(harness, home) -> None:
    home.add("pi")
    first = ingest(home=str(home.root))
    assert first.decisions == {"promote": 1, "reject": 1}
    [path] = (home.sources / "pi").glob("*/*.jsonl")
    more = [
        {
            "type": "message",
            "timestamp": f"2026-11-12T09:0{i}:00.000Z",
            "message": {"role": "user", "content": text},
        }
        for i, text in enumerate(["Back again.", "Never squash merge a shared branch.", "Thanks."])
    ]
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(m) + "\n" for m in more)
    second = ingest(home=str(home.root))
    assert second.sessions_read == 1 and second.facts_distilled == 1
    assert second.decisions == {"promote": 1}
    conclusions = {i.conclusion for i in load_memory(home.memory).items.values()}
    assert "Never squash merge a shared branch." in conclusions and len(conclusions) == 2
