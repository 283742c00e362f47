"""The four inspector pages in a real headless Chromium against a real uvicorn.

Each test saves a screenshot of what it saw (to a temp dir; also to ``$DOSE_MEM_SCREENS``
when set, which is how docs/inspector.md's screenshots are made). The tests run in file
order: the last one rolls the ingest run back.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import urlencode

import git
import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from recall_api.explain import Fate
from recall_api.inspector.views import DEMO_PROMPTS
from recall_api.models import Identity, RecallRequest

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
    driver.find_element(By.CSS_SELECTOR, "form[action='/ui/login'] button").click()


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


def test_cards_by_project_and_a_card_with_its_chain_evidence_and_history(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    browser.get(f"{server}/ui/cards?project=global")
    rows = browser.find_elements(By.CSS_SELECTOR, "#cards tr.row")
    ids = {r.get_attribute("data-id") for r in rows}
    assert {"unverified-entries-teal", "unverified-entries-amber", "reply-in-chinese"} <= ids
    assert all(r.find_elements(By.TAG_NAME, "td")[0].text == "global" for r in rows)
    shot(browser, shots, "2-cards")
    browser.find_element(By.LINK_TEXT, "unverified-entries-amber").click()
    assert browser.find_element(By.ID, "state").text == "superseded"
    assert "unverified-entries-teal" in browser.find_element(By.ID, "newer").text
    browser.find_element(By.LINK_TEXT, "unverified-entries-teal").click()
    assert "unverified-entries-amber" in browser.find_element(By.ID, "older").text
    assert browser.find_element(By.ID, "l0").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history tr")) >= 2  # header + a commit
    assert "“" in browser.find_element(By.ID, "evidence").text  # a quote
    shot(browser, shots, "2-card-teal")


def test_the_log_lists_an_agents_searches_and_filters_by_agent(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    r = httpx.post(
        f"{server}/v1/search",
        json={"query": "python environment uv"},
        headers={"Authorization": f"Bearer {inspected.agent}"},
    )
    assert r.status_code == 200
    browser.get(f"{server}/ui/log?agent=demo-claude-code")
    table = browser.find_element(By.ID, "log").text
    assert "python environment uv" in table and "demo-claude-code" in table
    browser.get(f"{server}/ui/log?agent=demo-calendar")
    assert "python environment uv" not in browser.find_element(By.ID, "log").text
    browser.get(f"{server}/ui/log")
    shot(browser, shots, "3-log")


def test_the_write_path_shows_decisions_and_rolls_a_run_back_after_confirming(
    browser: webdriver.Chrome, server: str, inspected: Inspected, shots: Path
) -> None:
    browser.get(f"{server}/ui/runs")
    run = browser.find_element(By.CSS_SELECTOR, f"section.run[data-run='{inspected.run_id}']")
    decisions = run.find_element(By.CSS_SELECTOR, "table.decisions").text
    assert "promote" in decisions
    link = run.find_element(By.CSS_SELECTOR, "a.prefect").get_attribute("href")
    assert link.startswith(inspected.settings.prefect_ui_url + "/runs/flow-run/")
    shot(browser, shots, "4-runs")
    memory = git.Repo(inspected.settings.memory_path)
    before = memory.head.commit.hexsha
    run.find_element(By.CSS_SELECTOR, "a.rollback").click()
    assert memory.head.commit.hexsha == before  # the link only asks
    shot(browser, shots, "4-rollback-confirm")
    browser.find_element(By.ID, "confirm").click()
    assert "index refreshed" in browser.find_element(By.ID, "done").text
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
    browser.get(f"{server}{page}")
    assert browser.execute_script("return document.cookie") == ""
    cookie = browser.get_cookie("dose_mem_admin")
    assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
