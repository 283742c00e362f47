"""The Dose view's dry run agrees with real recall and names why each candidate was dropped."""

from __future__ import annotations

import pytest

from recall_api.deps import Services
from recall_api.explain import Fate, Lifecycle, explain
from recall_api.inspector.views import DEMO_PROMPTS
from recall_api.models import Identity, RecallRequest

WORKING = Identity(agent="claude-code", profile="working", projects=None)
FULL = Identity(agent="hermes", profile="full", projects=None)
PERSONAL = Identity(agent="calendar", profile="personal", projects=None)
TABLEKIT = "/home/demo/code/tablekit"


def ask(prompt: str, cwd: str | None = None, turn: int = 1) -> RecallRequest:
    return RecallRequest(prompt=prompt, session_id="dry", turn=turn, cwd=cwd)


@pytest.fixture(scope="module")
def lifecycle(services: Services) -> Lifecycle:
    return Lifecycle.load(services.engine.memory_root)


@pytest.mark.parametrize(("prompt", "cwd"), DEMO_PROMPTS)
@pytest.mark.parametrize("who", [WORKING, FULL, PERSONAL], ids=lambda w: w.profile)
def test_the_dry_run_injects_what_recall_injects(
    services: Services, lifecycle: Lifecycle, who: Identity, prompt: str, cwd: str
) -> None:
    engine = services.engine
    tracked = len(engine.sessions)
    ask = RecallRequest(prompt=prompt, session_id="dry", turn=1, cwd=cwd)
    shown = explain(engine, who, ask, lifecycle)
    assert len(engine.sessions) == tracked  # looking changes no session
    real = engine.recall(who, ask.model_copy(update={"session_id": f"real-{who.profile}-{prompt}"}))
    assert shown.result.text == real.text
    assert shown.result.reason == real.reason
    injected = [c.id for c in shown.candidates if c.fate == Fate.injected]
    assert injected == [i.id for i in real.items]
    assert shown.result.bytes <= shown.budget_bytes


def test_the_superseded_amber_card_is_shown_as_superseded(
    services: Services, lifecycle: Lifecycle
) -> None:
    shown = explain(services.engine, FULL, ask("Which colour for unverified entries?"), lifecycle)
    fates = {c.id: c.fate for c in shown.candidates}
    assert fates["unverified-entries-teal"] == Fate.injected
    assert fates["unverified-entries-amber"] == Fate.superseded


def test_another_projects_cards_are_out_of_scope_for_a_coding_agent(
    services: Services, lifecycle: Lifecycle
) -> None:
    request = ask("What does parse_table return?", "/home/demo/research/tabsense")
    shown = explain(services.engine, WORKING, request, lifecycle)
    assert shown.project == "tabsense" and shown.result.bytes == 0
    out = {c.id for c in shown.candidates if c.fate == Fate.out_of_scope}
    assert "parse-table-returns-table-objects" in out
    gated = [c for c in shown.candidates if c.score is not None]
    assert all(c.project in ("tabsense", "global") for c in gated)


def test_a_later_turn_is_not_triggered_for_a_coding_agent_but_still_scored(
    services: Services, lifecycle: Lifecycle
) -> None:
    request = ask("Set up the Python environment for this project", TABLEKIT, turn=3)
    shown = explain(services.engine, WORKING, request, lifecycle)
    assert shown.result.reason.value == "not_triggered" and shown.result.bytes == 0
    uv = next(c for c in shown.candidates if c.id == "uv-for-python-envs")
    assert uv.fate == Fate.not_triggered and uv.score is not None and uv.score >= uv.bar
    # whatever the gate's mode, the relevance and the features that moved it most
    assert uv.relevance is not None and 0.0 <= uv.relevance <= 1.0
    assert set(uv.features) >= {"cos", "lex", "same_project", "cue"}
    assert 1 <= len(uv.because) <= 4 and set(uv.because) <= set(uv.features)


def test_archived_and_below_threshold_candidates_are_named(
    services: Services, lifecycle: Lifecycle
) -> None:
    shown = explain(services.engine, FULL, ask("deskew the scans before OCR"), lifecycle)
    fates = {c.id: c.fate for c in shown.candidates}
    assert fates.get("deskew-before-ocr") == Fate.archived
    request = ask("Rename parse_table and update the tests", TABLEKIT)
    rename = explain(services.engine, WORKING, request, lifecycle)
    assert rename.result.reason.value == "below_threshold"
    gated_out = (Fate.below_threshold, Fate.headline_off_topic)
    below = [c for c in rename.candidates if c.fate in gated_out]
    assert below and all(c.score is not None and c.bar is not None for c in below)
