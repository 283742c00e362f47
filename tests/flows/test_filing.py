"""Filing (flows/filing.py): every fact under its own project, never another's, and a
project fact with no project held instead of global."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from ingest_home import Home
from typer.testing import CliRunner

from evaluation.harness.scripted_llm import Reply, llm_server, tool_answer, tool_name
from evaluation.sets.write_quality import WriteSet, seed_home
from flows.digest import Digest
from flows.facts import Candidate, Fact
from flows.filing import file_fact, named_projects
from flows.ingest import ingest
from memory_repo import held
from memory_repo.models import GLOBAL, CardType, Project, Registry
from memory_repo.store import load_memory

PROJECTS = [
    Project(id="harbor", name="Harbor", aliases=["港口"], paths=["/home/mei/src/harbor"]),
    Project(id="kiln", name="Kiln", nicknames=["the oven"], paths=["/home/mei/src/kiln"]),
]
REGISTRY = Registry(projects=PROJECTS)
WORDS = ["Kiln", "the oven", "港口", "Harbor", "any of my repos", "reply briefly", "the build", ""]


def _candidate(kind: CardType, project: str, text: str) -> Candidate:
    fact = Fact(statement=text, type=kind, project=project, confidence=0.9, quote=text)
    return Candidate(fact=fact, agent="claude_code", session="s")


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(list(CardType)),
    filed=st.sampled_from(["harbor", "kiln", GLOBAL]),
    words=st.lists(st.sampled_from(WORDS), max_size=3),
    how=st.sampled_from(["cwd", "symlink", "worktree", "repo_root"]),
)
def test_a_session_placed_by_its_path_never_files_into_another_project(
    kind: CardType, filed: str, words: list[str], how: str
) -> None:
    digest = Digest(key="k", agent="claude_code", session="s", project="harbor", how=how)
    text = "Use the plan " + " ".join(words)
    project, why = file_fact(_candidate(kind, filed, text), digest, REGISTRY)
    assert project in ("harbor", GLOBAL, None), why  # None: held, never kiln


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(list(CardType)),
    words=st.lists(st.sampled_from(WORDS[4:]), max_size=3),
)
def test_without_a_project_only_a_fact_the_words_make_global_is_global(
    kind: CardType, words: list[str]
) -> None:
    digest = Digest(key="k", agent="hermes", session="s", how="none", why="no cwd")
    text = "Keep the defaults " + " ".join(words)
    project, why = file_fact(_candidate(kind, GLOBAL, text), digest, REGISTRY)
    if kind not in (CardType.preference, CardType.pitfall, CardType.convention, CardType.habit):
        assert project is None and "no project in sight" in why


def _claude_session(sources: Path, cwd: str, lines: list[str]) -> None:
    slug = "".join(c if c.isalnum() else "-" for c in cwd)
    folder = sources / "claude_code" / slug
    folder.mkdir(parents=True, exist_ok=True)
    sid = "5e55aaaa-0000-4000-8000-000000000001"
    rows = [
        {
            "type": "user",
            "sessionId": sid,
            "cwd": cwd,
            "timestamp": f"2026-11-20T10:0{n}:00.000Z",
            "message": {"role": "user", "content": text},
        }
        for n, text in enumerate(lines)
    ]
    (folder / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


DECISION = "We moved the harbor queue to NATS because Kiln's broker kept dropping acks."
TO_ME = "Reply briefly, two sentences at most."
PITFALL = "Never run kiln's migrations without the lock."


def test_an_llm_filing_facts_under_another_project_is_overruled(
    harness, home: Home, tmp_path: Path, monkeypatch
) -> None:
    """A model that files everything under kiln, for a session whose cwd is in harbor:
    every card lands in harbor or global, none in kiln; the fact about kiln alone is
    held, not written into kiln."""
    seed_home(WriteSet(root=tmp_path, projects=PROJECTS), home.root)
    _claude_session(home.sources, "/home/mei/src/harbor/api", [DECISION, TO_ME, PITFALL])
    kinds = ((DECISION, "decision"), (TO_ME, "preference"), (PITFALL, "pitfall"))
    facts = [
        {"statement": t, "type": k, "project": "kiln", "confidence": 0.9, "quote": t}
        for t, k in kinds
    ]

    def respond(request: dict) -> Reply:
        if tool_name(request) == "FactList":
            return Reply(tool_answer(request, {"facts": facts}))
        decisions = [{"index": i, "action": "promote", "reason": "new"} for i in range(3)]
        return Reply(tool_answer(request, {"decisions": decisions}))

    with llm_server() as server:
        server.responder = respond
        monkeypatch.setenv("DOSE_MEM_LLM_BASE_URL", server.url)
        ingest(home=str(home.root))
    cards = {
        i.conclusion: i.project
        for i in load_memory(home.memory).items.values()
        if i.path and "/cards/" in i.path
    }
    assert cards, "nothing was written"
    assert "kiln" not in cards.values()
    assert cards[DECISION] == "harbor"
    assert cards[TO_ME] == GLOBAL  # a preference about how agents answer
    assert PITFALL not in cards
    assert [h.quote for h in held.read(home.state)] == [PITFALL]


def _telegram(session: str, said: list[str]) -> dict:
    """A Hermes Telegram chat (no cwd) in the writer's spec: the person's lines, each
    answered."""
    day = f"2026-11-{session[6:8]}T08:00:00Z"
    messages = []
    for line in said:
        messages += [{"role": "user", "content": line}, {"role": "assistant", "content": "OK."}]
    return {
        "id": session,
        "source": "telegram",
        "started": day,
        "end_reason": "user_exit",
        "messages": messages,
    }


def test_a_gateway_chat_naming_no_project_holds_its_project_fact(
    harness, home: Home, tmp_path: Path
) -> None:
    """A Hermes chat from Telegram (no cwd) written by Hermes' own session store: one chat
    naming 港口 files there; one naming no project holds its decision and files its
    preference about replies as global; ``dose-mem sessions held`` lists the held one."""
    from evaluation.agents.hermes_writer import write_hermes_sessions

    seed_home(WriteSet(root=tmp_path, projects=PROJECTS), home.root)
    named = "记住：港口的队列以后只用 NATS，因为旧 broker 老丢 ack。"
    loose = "From now on the retry budget is 7 instead of 3, because the uplink drops packets."
    brief = "Remember to reply briefly on Telegram, two sentences at most."
    spec = [
        _telegram("20261120_080000_aaaaaa", [named, "还有别的吗？没有了。", "谢谢。"]),
        _telegram("20261121_080000_bbbbbb", [loose, brief, "Thanks, that's all."]),
    ]
    write_hermes_sessions(spec, home.sources / "hermes")
    summary = ingest(home=str(home.root))

    items = [i for i in load_memory(home.memory).items.values() if i.path and "/cards/" in i.path]
    by_quote = {i.evidence[0].quote: i.project for i in items}
    assert by_quote[named] == "harbor"
    assert by_quote.get(brief) == GLOBAL
    assert loose not in by_quote
    kept = held.read(home.state)
    assert [h.quote for h in kept] == [loose]
    assert "no project in sight" in kept[0].reason and kept[0].agent == "hermes"
    assert summary.held == 1
    records = {r.session: r for r in summary.sessions}
    assert records["20261120_080000_aaaaaa"].project == "harbor"
    assert records["20261120_080000_aaaaaa"].how == "named"

    from dose_mem.cli.main import app

    out = CliRunner().invoke(app, ["--home", str(home.root), "sessions", "held"])
    assert out.exit_code == 0, out.output
    assert "retry budget" in out.output and "no project in sight" in out.output
    listed = CliRunner().invoke(
        app, ["--home", str(home.root), "sessions", "list", "--all", "--json"]
    )
    assert listed.exit_code == 0, listed.output
    rows = {r["session"]: r for r in map(json.loads, listed.output.splitlines())}
    assert rows["20261120_080000_aaaaaa"]["project"] == "harbor"
    assert rows["20261120_080000_aaaaaa"]["status"] == "unchanged"  # read by the run above
    assert rows["20261121_080000_bbbbbb"]["why"] == "no cwd; the words name no project"


def test_a_project_named_only_to_be_set_aside_does_not_count() -> None:
    said = "Unrelated to the oven, while I think of it: for harbor, the queue moves to NATS."
    assert named_projects(REGISTRY, said) == ["harbor"]
    assert named_projects(REGISTRY, "跟 Kiln 无关：港口的队列改用 NATS") == ["harbor"]
    assert sorted(named_projects(REGISTRY, "harbor and kiln both pin uv")) == ["harbor", "kiln"]
    digest = Digest(key="k", agent="codex", session="s", project="kiln", how="cwd")
    project, why = file_fact(_candidate(CardType.decision, "kiln", said), digest, REGISTRY)
    assert project is None and "about harbor" in why  # held: never written into harbor
