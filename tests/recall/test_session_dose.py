"""Session-aware dose through the real app and the demo index: an agent that keeps what
was injected is not given it again in the same session, until its context is reset or
the item changes (docs/read-path.md, "Session-aware dose")."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from memory_repo.index.build import refresh
from memory_repo.index.embedders import make_embedder
from memory_repo.recall_log import read_entries
from memory_repo.settings import Settings
from recall_api.deps import Services
from recall_api.models import Identity, RecallRequest
from recall_api.services import build_engine
from recall_api.tokens import TokenStore, tokens_path
from tests.conftest import IssueToken, make_demo_home

LICENCE = "tabsense-dataset-licence"
# Under the shipped full profile this question injects the licence card alone (229 bytes).
QUESTION = "Can other labs reuse the TabSense dataset? Under what license?"
# This one passes four tabsense cards, the licence card first.
WIDE = "What is the licence of the tabsense dataset?"


def ask(client: TestClient, token: str, session: str, turn: int, **extra: object) -> dict:
    body = {"prompt": extra.pop("prompt", QUESTION), "session_id": session, "turn": turn}
    answer = client.post(
        "/v1/recall", json=body | extra, headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def ids(answer: dict) -> list[str]:
    return [i["id"] for i in answer["items"]]


def test_three_turns_inject_once_and_again_after_a_compaction(
    client: TestClient, issue_token: IssueToken
) -> None:
    """The issue's example: a Hermes-like full token asks the same question on turns 1, 2
    and 3; then its context is compacted and the next turn gets the card again."""
    token = issue_token("full", None, agent="hermes")
    first = ask(client, token, "three-turns", 1)
    assert ids(first) == [LICENCE] and first["bytes"] == 229 and first["held"] == []
    for turn in (2, 3):
        again = ask(client, token, "three-turns", turn)
        assert again["injected"] is False and again["reason"] == "held"
        assert again["bytes"] == 0 and again["text"] == ""
        assert again["held"] == [{"id": LICENCE, "turn": 1}]
    after_reset = ask(client, token, "three-turns", 4, context_reset=True)
    assert ids(after_reset) == [LICENCE] and after_reset["held"] == []
    assert ask(client, token, "three-turns", 5)["held"] == [{"id": LICENCE, "turn": 4}]


def test_an_agent_that_does_not_keep_injections_is_given_the_card_every_turn(
    client: TestClient, issue_token: IssueToken
) -> None:
    token = issue_token("full", None, agent="calendar")  # not in the profile's kept_by
    for turn in (1, 2, 3):
        answer = ask(client, token, "resent", turn)
        assert ids(answer) == [LICENCE] and answer["held"] == []


def test_sessions_and_agents_do_not_share_what_was_given(
    client: TestClient, issue_token: IssueToken
) -> None:
    hermes = issue_token("full", None, agent="hermes")
    pi = issue_token("full", None, agent="pi")
    assert ids(ask(client, hermes, "shared-a", 1)) == [LICENCE]
    assert ids(ask(client, hermes, "shared-b", 1)) == [LICENCE]  # another session
    assert ids(ask(client, pi, "shared-a", 1)) == [LICENCE]  # another agent
    assert ask(client, hermes, "shared-a", 2)["reason"] == "held"


def test_a_held_item_gives_its_place_to_the_next_one_that_passes(
    services: Services,
) -> None:
    """Held items take no place under the item cap: with a cap of one, each turn of the
    same question gives the next passing card, until none is left."""
    engine = services.engine
    full = engine.profiles["full"]
    one = full.model_copy(update={"max_items": 1})
    roomy = full.model_copy(update={"max_items": 10, "budget_bytes": 65536})
    every = engine.recall(
        Identity(agent="calendar", profile="full", projects=None),
        RecallRequest(prompt=WIDE, session_id="cap-all", turn=1),
        roomy,
    )
    passing = [i.id for i in every.items]  # every card the gate passes, in its order
    assert len(passing) >= 3 and passing[0] == LICENCE
    who = Identity(agent="hermes", profile="full", projects=None)
    given: list[str] = []
    for turn in range(1, len(passing) + 1):
        answer = engine.recall(who, RecallRequest(prompt=WIDE, session_id="cap", turn=turn), one)
        assert [h.id for h in answer.held] == given  # all given so far, none skipped
        given += [i.id for i in answer.items]
    assert given == passing  # each card once, in the gate's order
    last = engine.recall(who, RecallRequest(prompt=WIDE, session_id="cap", turn=99), one)
    assert last.reason == "held" and not last.items  # then silence
    assert [h.id for h in last.held] == passing


def test_the_recall_log_says_held_and_the_turn_it_was_given_on(
    client: TestClient, issue_token: IssueToken, services: Services
) -> None:
    token = issue_token("full", None, agent="hermes")
    ask(client, token, "logged-held", 1)
    ask(client, token, "logged-held", 2)
    log = services.engine.recall_log
    assert log is not None
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        entries = read_entries(services.settings.recall_log_path, session="logged-held")
        if len(entries) == 2:
            break
        time.sleep(0.1)
    second = entries[-1]
    assert second.turn == 2 and second.reason == "held" and second.injected == []
    row = next(c for c in second.candidates if c.id == LICENCE)
    assert (row.dropped, row.given_turn) == ("held", 1)


def test_context_reset_is_refused_when_it_is_not_a_boolean(
    client: TestClient, issue_token: IssueToken
) -> None:
    token = issue_token("full", None, agent="hermes")
    answer = client.post(
        "/v1/recall",
        json={"prompt": QUESTION, "session_id": "bad", "turn": 1, "context_reset": "soon"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 422 and "context_reset" in answer.text


@pytest.fixture(scope="module")
def own_home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A demo home of this module's own: its licence card is edited here."""
    return make_demo_home(tmp_path_factory, "edited-home")


def test_an_edited_card_is_given_again(own_home: Settings) -> None:
    """A card whose line changes (an edit, then a reindex) is a new version: the session
    that holds the old one gets the new one on its next turn."""
    engine = build_engine(own_home)
    who = Identity(agent="hermes", profile="full", projects=None)

    def turn(n: int) -> list[str]:
        answer = engine.recall(who, RecallRequest(prompt=QUESTION, session_id="ed", turn=n))
        return [i.id for i in answer.items]

    assert turn(1) == [LICENCE] and turn(2) == []
    card = next(Path(own_home.memory_path).rglob(f"{LICENCE}.md"))
    text = card.read_text(encoding="utf-8")
    edited = re.sub(r"(?m)^(conclusion: .*)\.$", r"\1, attribution required.", text, count=1)
    assert edited != text
    card.write_text(edited, encoding="utf-8")
    refresh(own_home.memory_path, own_home.index_path, make_embedder(own_home))
    assert engine.refresh()
    assert turn(3) == [LICENCE]
    assert turn(4) == []


def test_an_agent_override_can_say_it_does_not_keep(own_home: Settings) -> None:
    """Per agent, in the memory repository: ``profiles/hermes.yaml`` with ``kept_by: []``
    (say a Hermes under MoA, which does not replay its injections) is given the card on
    every turn."""
    engine = build_engine(own_home)
    who = Identity(agent="hermes", profile="full", projects=None)
    override = own_home.memory_path / "profiles" / "hermes.yaml"
    override.parent.mkdir(exist_ok=True)
    override.write_text("profile: full\nkept_by: []\n", encoding="utf-8")
    try:
        for n in (1, 2, 3):
            answer = engine.recall(who, RecallRequest(prompt=QUESTION, session_id="moa", turn=n))
            assert [i.id for i in answer.items] == [LICENCE] and answer.held == []
    finally:
        override.unlink()
    # The file gone, hermes keeps again: nothing was remembered while it did not, so the
    # card is given once more, then held.
    turns = [
        engine.recall(who, RecallRequest(prompt=QUESTION, session_id="moa", turn=n)) for n in (4, 5)
    ]
    assert [t.reason for t in turns] == ["injected", "held"]


def test_the_inspectors_dose_page_shows_what_a_session_holds_back(
    client: TestClient, issue_token: IssueToken, demo_settings: Settings
) -> None:
    """Given the session id, the Dose page marks the card the session already holds, with
    the turn it was given on; without it, nothing is marked."""
    token = issue_token("full", None, agent="hermes")
    session = f"inspected-{time.time_ns()}"
    assert ids(ask(client, token, session, 1)) == [LICENCE]
    admin = TokenStore(tokens_path(demo_settings)).issue("person", "admin", None, admin=True)[0]
    headers = {"Authorization": f"Bearer {admin}"}
    page = client.get("/ui/dose", params={"prompt": QUESTION, "session": session}, headers=headers)
    assert page.status_code == 200
    hermes = page.text.split('data-agent="hermes"', 1)[1].split("</section>", 1)[0]
    assert f'<a href="/ui/cards/{LICENCE}">{LICENCE}</a> (turn 1)' in hermes
    assert "held: given on turn 1" in hermes
    plain = client.get("/ui/dose", params={"prompt": QUESTION}, headers=headers).text
    assert "held: given on turn" not in plain
