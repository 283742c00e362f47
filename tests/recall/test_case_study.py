"""The paper's case study through the real app: one memory, a different dose per agent."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from memory_repo.demo import DEMO_IDS
from tests.conftest import IssueToken

TABLEKIT = "/home/demo/code/tablekit"
TABSENSE = "/home/demo/research/tabsense"


def recall(client: TestClient, token: str, prompt: str, session: str, **extra: Any) -> dict:
    body = {"prompt": prompt, "session_id": session, "turn": 1, **extra}
    response = client.post("/v1/recall", json=body, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return response.json()


def ids(result: dict) -> list[str]:
    return [item["id"] for item in result["items"]]


def test_routine_rename_is_quiet_for_working_but_not_for_full(
    client: TestClient, issue_token: IssueToken
):
    prompt = "Rename parse_table and update the tests"
    working = recall(client, issue_token("working"), prompt, "cs-1", cwd=TABLEKIT)
    # the main assistant coordinates projects from outside any one checkout: no cwd
    full = recall(client, issue_token("full"), prompt, "cs-2")
    assert working["injected"] is False
    assert working["bytes"] == 0
    assert working["reason"] == "below_threshold"
    assert full["injected"] is True and full["bytes"] > 0


def test_environment_setup_gets_the_uv_card_under_both_and_full_gets_more(
    client: TestClient, issue_token: IssueToken
):
    prompt = "Set up the Python environment for this project"
    working = recall(client, issue_token("working"), prompt, "cs-3", cwd=TABLEKIT)
    full = recall(client, issue_token("full"), prompt, "cs-4", cwd=TABLEKIT)
    assert DEMO_IDS["uv"] in ids(working)
    assert DEMO_IDS["uv"] in ids(full)
    assert full["bytes"] > working["bytes"]
    assert working["bytes"] <= 400 and full["bytes"] <= 1200
    assert working["text"].encode() and len(working["text"].encode()) == working["bytes"]


def test_asking_in_project_b_about_project_a_gives_nothing_under_working(
    client: TestClient, issue_token: IssueToken
):
    result = recall(
        client, issue_token("working"), "What does parse_table return?", "cs-5", cwd=TABSENSE
    )
    assert result["bytes"] == 0
    assert result["project"] == "tabsense"
    assert not any(item["project"] == "tablekit" for item in result["items"])


def test_superseded_preference_is_never_injected_its_successor_is(
    client: TestClient, issue_token: IssueToken
):
    for n, profile in enumerate(("full", "working")):
        result = recall(
            client,
            issue_token(profile),
            "Which colour do we mark unverified entries in?",
            f"cs-6-{n}",
            cwd=TABLEKIT,
        )
        assert DEMO_IDS["teal"] in ids(result)
        assert DEMO_IDS["amber"] not in ids(result)
        assert f'memory_read("{DEMO_IDS["amber"]}")' not in result["text"]


def test_superseded_card_is_still_readable_by_id(client: TestClient, issue_token: IssueToken):
    response = client.get(
        f"/v1/memories/{DEMO_IDS['amber']}",
        headers={"Authorization": f"Bearer {issue_token('full')}"},
    )
    assert response.status_code == 200
    assert "amber" in response.json()["l0"].lower()


def test_archived_project_is_never_auto_recalled_but_readable_by_id(
    client: TestClient, issue_token: IssueToken
):
    token = issue_token("full")
    result = recall(
        client, token, "Which Tesseract config did we use for scanned invoices?", "cs-7"
    )
    assert all(item["project"] != "ocr-legacy" for item in result["items"])
    card = DEMO_IDS["archived_card"]
    response = client.get(f"/v1/memories/{card}", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.json()["project"] == "ocr-legacy"


def test_personal_never_sees_research_projects(client: TestClient, issue_token: IssueToken):
    token = issue_token("personal")
    prompts = [
        "When is my weekly review?",
        "What does parse_table return?",
        "Which licence does the tabsense dataset use?",
        "数据放在哪里？",
        "Set up the Python environment for this project",
    ]
    seen = []
    for n, prompt in enumerate(prompts):
        result = recall(client, token, prompt, f"cs-8-{n}", cwd=TABLEKIT)
        seen += [item["project"] for item in result["items"]]
    assert seen, "the weekly-review habit should come back"
    assert set(seen) <= {"life", "global"}


def test_token_limited_to_one_project_never_gets_another(
    client: TestClient, issue_token: IssueToken
):
    token = issue_token("full", ["tabsense"])
    result = recall(client, token, "What does parse_table return?", "cs-9", cwd=TABLEKIT)
    assert all(item["project"] in {"tabsense", "global"} for item in result["items"])
    response = client.get(
        f"/v1/memories/{DEMO_IDS['table_objects_decision']}",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 404
