"""The four inspector pages in a real headless Chromium against a real uvicorn.

Each test saves a screenshot of what it saw (to a temp dir; also to ``$DOSE_MEM_SCREENS``
when set, which is how docs/inspector.md's screenshots are made). The tests run in file
order: the last one rolls the ingest run back.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path
from urllib.parse import urlencode

import git
import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from profiles.proposals import AgentSummary, Measure, Proposal, TuneRun, save_run
from recall_api.explain import Fate
from recall_api.inspector.views import DEMO_PROMPTS
from recall_api.models import Identity, RecallRequest
from recall_api.relevance import FEATURES

from .conftest import Inspected


def shot(driver: webdriver.Chrome, shots: Path, name: str) -> Path:
    """A screenshot of the whole page (the window grown to the document's height)."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, min(max(1000, int(height) + 40), 6000))
    path = shots / f"{name}.png"
    assert driver.save_screenshot(str(path)), name
    if extra := os.environ.get("DOSE_MEM_SCREENS"):
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)
    driver.set_window_size(1400, 1000)
    return path


def log_in(driver: webdriver.Chrome, server: str, token: str) -> None:
    driver.get(f"{server}/ui/login")
    driver.find_element(By.NAME, "token").send_keys(token)
    click_and_load(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/ui/login'] button"))


def click_and_load(driver: webdriver.Chrome, element: WebElement, seconds: float = 120) -> None:
    """Click, then wait until a new document has loaded (the old one's marker is gone)."""
    driver.execute_script("window.__before_click = true")
    element.click()
    WebDriverWait(driver, seconds).until(
        lambda d: d.execute_script(
            "return window.__before_click === undefined && document.readyState === 'complete'"
        )
    )


def follow(driver: webdriver.Chrome, link_text: str) -> None:
    click_and_load(driver, driver.find_element(By.LINK_TEXT, link_text))


def test_an_agent_token_cannot_open_the_inspector(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    browser.delete_all_cookies()
    log_in(browser, server, inspected.agent)
    assert "agent token cannot open the inspector" in browser.find_element(By.ID, "error").text
    shot(browser, shots, "0-agent-token-refused")
    browser.get(f"{server}/ui/dose")
    assert browser.find_elements(By.NAME, "token")  # still the login form


def test_dose_shows_every_agent_side_by_side_for_the_demo_prompts(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    browser.delete_all_cookies()
    log_in(browser, server, inspected.admin)
    assert browser.current_url.endswith("/ui/dose")
    engine = inspected.services.engine
    for n, (prompt, cwd) in enumerate(DEMO_PROMPTS, 1):
        browser.get(f"{server}/ui/dose?{urlencode({'prompt': prompt, 'cwd': cwd})}")
        sections = browser.find_elements(By.CSS_SELECTOR, "section.agent")
        shown = {s.get_attribute("data-agent"): s for s in sections}
        assert set(shown) == {"demo-hermes", "demo-claude-code", "demo-calendar"}
        for agent, section in shown.items():
            profile = {"demo-hermes": "full", "demo-claude-code": "working"}.get(agent, "personal")
            real = engine.recall(
                Identity(agent=f"check-{agent}", profile=profile, projects=None),
                RecallRequest(prompt=prompt, session_id=f"b{n}", turn=1, cwd=cwd),
            )
            text = section.find_element(By.CSS_SELECTOR, "pre.injected").text
            assert text == (real.text.strip() or "(nothing injected · 未注入)"), (agent, prompt)
            assert section.find_element(By.CSS_SELECTOR, ".outcome").text == real.reason.value
            assert f"{real.bytes} / " in section.find_element(By.CSS_SELECTOR, ".bytes").text
        shot(browser, shots, f"1-dose-{n:02d}")
    # The correction: teal injected, amber shown as superseded, for the coding agent too.
    browser.get(
        f"{server}/ui/dose?"
        + urlencode({"prompt": "Which colour for unverified entries?", "cwd": DEMO_PROMPTS[0][1]})
    )
    coder = browser.find_element(By.CSS_SELECTOR, "section[data-agent='demo-claude-code']")
    fates = {
        row.get_attribute("data-id"): row.get_attribute("data-fate")
        for row in coder.find_elements(By.CSS_SELECTOR, "tr.cand")
    }
    assert fates["unverified-entries-teal"] == Fate.injected.value
    assert fates["unverified-entries-amber"] == Fate.superseded.value
    assert "memory_read(" in coder.find_element(By.CSS_SELECTOR, "pre.injected").text
    # each judged candidate shows its relevance and the features that moved it most
    teal = coder.find_element(By.CSS_SELECTOR, "tr.cand[data-id='unverified-entries-teal']")
    because = teal.find_element(By.CSS_SELECTOR, ".because")
    assert because.text.startswith("relevance"), because.text
    named = [part.split(" ")[0] for part in because.text.split(": ", 1)[1].split(" · ")]
    assert 1 <= len(named) <= 4 and set(named) <= set(FEATURES), because.text
    assert "cos=" in (because.get_attribute("title") or "")


def test_cards_by_project_and_a_card_with_its_chain_evidence_and_history(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    log_in(browser, server, inspected.admin)
    browser.get(f"{server}/ui/cards?project=global")
    rows = browser.find_elements(By.CSS_SELECTOR, "#cards tr.row")
    ids = {r.get_attribute("data-id") for r in rows}
    assert {"unverified-entries-teal", "unverified-entries-amber", "reply-in-chinese"} <= ids
    assert all(r.find_elements(By.TAG_NAME, "td")[0].text == "global" for r in rows)
    shot(browser, shots, "2-cards")
    follow(browser, "unverified-entries-amber")
    assert browser.find_element(By.ID, "state").text == "superseded"
    assert "unverified-entries-teal" in browser.find_element(By.ID, "newer").text
    follow(browser, "unverified-entries-teal")
    assert "unverified-entries-amber" in browser.find_element(By.ID, "older").text
    assert browser.find_element(By.ID, "l0").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history tr")) >= 2  # header + a commit
    assert "“" in browser.find_element(By.ID, "evidence").text  # a quote
    shot(browser, shots, "2-card-teal")


def test_the_log_shows_a_quiet_recall_with_the_search_and_read_that_followed(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    log_in(browser, server, inspected.admin)
    auth = {"Authorization": f"Bearer {inspected.agent}"}
    session = "log-test-session"
    recalled = httpx.post(
        f"{server}/v1/recall",
        json={
            "prompt": "Rename parse_table and update the tests",
            "session_id": session,
            "turn": 1,
            "cwd": DEMO_PROMPTS[0][1],
        },
        headers=auth,
    )
    assert recalled.status_code == 200 and recalled.json()["reason"] == "below_threshold"
    searched = httpx.post(
        f"{server}/v1/search",
        json={"query": "python environment uv", "session_id": session, "turn": 2},
        headers=auth,
    )
    assert searched.status_code == 200
    read = httpx.get(
        f"{server}/v1/memories/uv-for-python-envs",
        params={"session_id": session, "turn": 2},
        headers=auth,
    )
    assert read.status_code == 200
    assert inspected.services.engine.recall_log is not None
    inspected.services.engine.recall_log.flush()
    browser.get(f"{server}/ui/log?{urlencode({'agent': 'demo-claude-code', 'missed': 'true'})}")
    rows = browser.find_elements(By.CSS_SELECTOR, "#log tr.row")
    mine = [
        r for r in rows if "Rename parse_table" in r.find_element(By.CSS_SELECTOR, ".prompt").text
    ]
    assert mine, browser.find_element(By.ID, "log").text
    assert mine[0].get_attribute("data-reason") == "below_threshold"
    signals = mine[0].find_element(By.CSS_SELECTOR, ".signals").text
    assert "python environment uv" in signals and "uv-for-python-envs" in signals
    assert "read" in signals
    browser.get(f"{server}/ui/log?{urlencode({'agent': 'demo-calendar'})}")
    assert "Rename parse_table" not in browser.find_element(By.ID, "log").text
    browser.get(f"{server}/ui/log")
    shot(browser, shots, "3-log")


def test_profiles_shows_the_latest_proposal_with_its_diff(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    log_in(browser, server, inspected.admin)
    browser.get(f"{server}/ui/profiles")
    assert "No tune-profiles run yet" in browser.find_element(By.TAG_NAME, "main").text
    diff = (
        "--- a/profiles/demo-claude-code.yaml\n+++ b/profiles/demo-claude-code.yaml\n"
        "@@ -0,0 +1,2 @@\n+gate:\n+  threshold: 0.3\n"
    )
    measure = {"misses_served": 0, "routine_injection_rate": 0.0, "eval_composite": 0.64}
    save_run(
        inspected.settings.state_path,
        TuneRun(
            run_id="tune-20261206",
            at=dt.datetime.now(dt.UTC),
            since=dt.datetime.now(dt.UTC) - dt.timedelta(days=7),
            agents=[
                AgentSummary(
                    agent="demo-claude-code",
                    profile="working",
                    recalls=7,
                    misses=5,
                    used=0,
                    unused_items=0,
                    routine=2,
                )
            ],
            proposals=[
                Proposal(
                    agent="demo-claude-code",
                    profile="working",
                    change="threshold 0.45 -> 0.3",
                    path="profiles/demo-claude-code.yaml",
                    override={"gate": {"threshold": 0.3}},
                    text="gate:\n  threshold: 0.3\n",
                    diff=diff,
                    base_sha256="",
                    before=Measure(**measure),
                    after=Measure(**{**measure, "misses_served": 5}),
                    misses=5,
                    routine=2,
                    routine_limit=0.1,
                )
            ],
        ),
    )
    browser.get(f"{server}/ui/profiles")
    card = browser.find_element(By.CSS_SELECTOR, "section.proposal[data-agent='demo-claude-code']")
    assert "+  threshold: 0.3" in card.find_element(By.CSS_SELECTOR, "pre.diff").text
    assert card.find_element(By.CSS_SELECTOR, ".status").text == "proposed"
    shot(browser, shots, "5-profiles")


def test_the_write_path_shows_decisions_and_rolls_a_run_back_after_confirming(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    log_in(browser, server, inspected.admin)
    browser.get(f"{server}/ui/runs")
    run = browser.find_element(By.CSS_SELECTOR, f"section.run[data-run='{inspected.run_id}']")
    decisions = run.find_element(By.CSS_SELECTOR, "table.decisions").text
    assert "promote" in decisions
    sessions = run.find_elements(By.CSS_SELECTOR, "table.sessions tr[data-status='read']")
    assert {row.get_attribute("data-agent") for row in sessions} == {"claude_code", "hermes"}
    assert all(row.find_elements(By.TAG_NAME, "td")[-1].text for row in sessions)  # why
    link = run.find_element(By.CSS_SELECTOR, "a.prefect").get_attribute("href")
    assert link.startswith(inspected.settings.prefect_ui_url + "/runs/flow-run/")
    shot(browser, shots, "4-runs")
    memory = git.Repo(inspected.settings.memory_path)
    before = memory.head.commit.hexsha
    click_and_load(browser, run.find_element(By.CSS_SELECTOR, "a.rollback"))
    assert memory.head.commit.hexsha == before  # the link only asks
    shot(browser, shots, "4-rollback-confirm")
    click_and_load(browser, browser.find_element(By.ID, "confirm"))
    done = browser.find_elements(By.ID, "done")
    assert done, browser.find_element(By.TAG_NAME, "main").text
    assert "index refreshed" in done[0].text
    head = memory.head.commit
    assert head.hexsha != before
    assert f"Dose-Mem-Rollback: {inspected.run_id}" in head.message
    browser.get(f"{server}/ui/runs")
    run = browser.find_element(By.CSS_SELECTOR, f"section.run[data-run='{inspected.run_id}']")
    assert run.find_elements(By.CSS_SELECTOR, ".rolled")
    assert not run.find_elements(By.CSS_SELECTOR, "a.rollback")


@pytest.mark.parametrize("page", ["/ui/dose", "/ui/runs"])
def test_a_page_from_another_site_cannot_post_with_the_cookie(
    browser: webdriver.Chrome, server: str, inspected: Inspected, page: str
) -> None:
    """The cookie is SameSite=Strict and HttpOnly: scripts cannot read it."""
    log_in(browser, server, inspected.admin)
    browser.get(f"{server}{page}")
    assert browser.execute_script("return document.cookie") == ""
    cookie = browser.get_cookie("dose_mem_admin")
    assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
