"""The rubric judge against a scripted OpenAI-compatible server on 127.0.0.1: what the
request shows (blind, shuffled, with follow-ups and corrections) and what is done with
the answer (unquoted labels dropped, old versions of a corrected preference overruled)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from evaluation.harness.environment import load_environment
from evaluation.harness.judges import Label
from evaluation.harness.llm_judge import LLMJudge, candidates_for
from evaluation.harness.scripted_llm import Reply, llm_server, tool_answer
from evaluation.harness.systems import InjectedCard, Injection
from memory_repo.layers import l0
from memory_repo.settings import get_settings
from memory_repo.store import load_memory
from tests.evaluation.tiny_env import FOLLOW_UP


def _candidates(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    letter = None
    for line in text.splitlines():
        if m := re.fullmatch(r"\[([A-Z])\]", line.strip()):
            letter = m.group(1)
            out[letter] = []
        elif letter and (m := re.fullmatch(r"\s+\d+\. (.*)", line)):
            out[letter].append(m.group(1))
    return out


def _labels(request: dict[str, Any]) -> dict[str, Any]:
    shown = _candidates(request["messages"][-1]["content"])
    labels = []
    for letter, items in shown.items():
        for n, text in enumerate(items, 1):
            if "teal" in text and len(items) == 1:
                labels.append(
                    {
                        "candidate": letter,
                        "item": n,
                        "label": "necessary",
                        "quote": "teal colour palette",
                    }
                )
            elif "teal" in text:
                labels.append(
                    {
                        "candidate": letter,
                        "item": n,
                        "label": "necessary",
                        "quote": "use TEAL   from now on",
                    }
                )  # from the follow-up
            elif len(items) == 1:
                labels.append(
                    {
                        "candidate": letter,
                        "item": n,
                        "label": "helpful",
                        "quote": "amber colour palette",
                    }
                )
            else:
                labels.append(
                    {
                        "candidate": letter,
                        "item": n,
                        "label": "necessary",
                        "quote": "words found nowhere",
                    }
                )
    return {"needs_memory": True, "labels": labels}


def test_judge_is_blind_shuffled_quoted_and_checks_old_versions(
    tiny_env: Path, tmp_path: Path
) -> None:
    env = load_environment(tiny_env, tmp_path / "work")
    items = load_memory(env.repo).items
    probe = next(p for p in env.probes if p.id == "t6-1")
    card = {cid: InjectedCard(id=cid, text=l0(items[cid]), bytes=40) for cid in items}
    answers = {
        "dose-mem/full": Injection(items=[card["teal"]], bytes=40),
        "dense": Injection(items=[card["amber"]], bytes=40),
        "bm25": Injection(items=[card["amber"], card["teal"]], bytes=80),
        "dose-mem/working": Injection(),
        "dose-mem": Injection(items=[card["teal"]], bytes=40),
    }
    with llm_server() as server:
        server.responder = lambda req: Reply(tool_answer(req, _labels(req)))
        settings = get_settings(
            home=tmp_path / "home",
            llm_base_url=server.url,
            llm_model="judge-1",
            llm_api_key="k",
            llm_max_retries=0,
        )
        judge = LLMJudge(settings, items, seed=7)
        verdicts = judge.judge_probe(probe, answers)
        request = server.requests[-1]
    sent = json.dumps(request, ensure_ascii=False)
    for name in answers:
        assert name not in sent  # blind to system names
    assert "score" not in request["messages"][-1]["content"].lower()
    assert FOLLOW_UP in sent  # follow-ups reach the judge ...
    assert "OLD: Charts use the amber colour palette." in sent  # ... and corrections
    shown = _candidates(request["messages"][-1]["content"])
    assert len(shown) == 3  # duplicates merged, the silent system is no candidate
    order = [tuple(i.id for i in inj.items) for _, inj in candidates_for(probe, answers, 7)]
    assert [len(v) for v in shown.values()] == [len(o) for o in order]
    orders = {
        tuple(tuple(i.id for i in inj.items) for _, inj in candidates_for(probe, answers, seed))
        for seed in range(12)
    }
    assert len(orders) > 1  # the seed really shuffles
    assert judge.stats.dropped_unquoted == 1
    assert judge.stats.overruled_old_version == 1
    assert verdicts["dose-mem/full"].labels == {"teal": Label.necessary}
    assert verdicts["dense"].labels == {"amber": Label.harmful}
    assert verdicts["bm25"].labels == {"amber": Label.harmful, "teal": Label.necessary}
    assert verdicts["dose-mem/working"].labels == {}
    assert all(v.needs_memory for v in verdicts.values())
