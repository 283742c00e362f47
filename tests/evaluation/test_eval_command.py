"""``dose-mem eval run`` end to end on a tiny environment, with the gold and the LLM judge;
``dose-mem eval probes-from-sessions`` on captured transcripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from dose_mem.cli.main import app
from evaluation.harness.metrics import METRICS
from evaluation.harness.probes import Split, load_probes
from evaluation.harness.scripted_llm import Reply, llm_server, tool_answer
from tests.evaluation.cli import eval_json


def test_eval_run_gold_prints_one_json_object_and_writes_the_report(
    tiny_env: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    data, out = eval_json(tiny_env, tmp_path, "--workdir", str(work))
    assert data["probes"] == 12
    assert data["splits"] == {"dev": 8, "test": 4}
    assert {"dose-mem/full", "dose-mem/working", "dense", "bm25"} <= set(data["systems"])
    for metrics in data["systems"].values():
        assert set(metrics) == set(METRICS)  # every metric, not a headline few
        for m in metrics.values():
            assert m["value"] is None or m["ci"][0] <= m["value"] <= m["ci"][1]
    assert set(data["thresholds"]) == set(data["systems"])
    assert set(data["thresholds"]["dose-mem"]["chosen"]) == {"full", "working"}
    assert data["thresholds"]["dense"]["chosen"]["all"] >= 0
    assert {s["name"] for s in data["skipped"]} == {"mem0", "openviking"}
    assert all(s["reason"] for s in data["skipped"])
    # --workdir keeps what the run built: the memory's git history and each snapshot.
    assert (work / "memory" / ".git").is_dir()
    assert len(list((work / "snapshots").iterdir())) == 2
    for name in ("report.md", "results.json", "quality.png", "dose.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "quality.png").read_bytes()[:4] == b"\x89PNG"
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "mem0" in report and "not installed" in report  # skipped, with the reason
    full = json.loads((out / "results.json").read_text(encoding="utf-8"))["full"]
    assert full["test_probes"] == 4 and full["dev_probes"] == 8


def _neutral_judge(request: dict[str, Any]) -> Reply:
    text = request["messages"][-1]["content"]
    labels = []
    letter = None
    for line in text.splitlines():
        if line.strip().startswith("[") and line.strip().endswith("]"):
            letter, n = line.strip()[1], 0
        elif letter and line.startswith("  ") and ". " in line:
            n += 1
            quote = line.split(". ", 1)[1][:12]
            labels.append({"candidate": letter, "item": n, "label": "helpful", "quote": quote})
    return Reply(tool_answer(request, {"needs_memory": True, "labels": labels}))


def test_eval_run_llm_judge_reports_agreement(tiny_env: Path, tmp_path: Path) -> None:
    with llm_server() as server:
        server.responder = _neutral_judge
        result = CliRunner().invoke(
            app,
            [
                "--home",
                str(tmp_path / "home"),
                "eval",
                "run",
                str(tiny_env),
                "--judge",
                "llm",
                "--out",
                str(tmp_path / "r"),
            ],
            env={"DOSE_MEM_LLM_BASE_URL": server.url, "DOSE_MEM_LLM_API_KEY": "k"},
        )
        calls = len(server.requests)
    assert result.exit_code == 0, result.output
    assert calls >= 4  # one per test probe (+ none for tuning: gold labels tune)
    full = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))["full"]
    assert full["judge"] == "llm"
    assert "kappa_llm_vs_gold" in full["agreement"]
    assert full["agreement"]["sampled_probes"] == 1


def test_eval_run_llm_judge_without_endpoint_is_a_clear_error(
    tiny_env: Path, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        app,
        ["--home", str(tmp_path / "home"), "eval", "run", str(tiny_env), "--judge", "llm"],
        env={"DOSE_MEM_LLM_BASE_URL": ""},
    )
    assert result.exit_code == 1
    assert "LLM endpoint" in result.output


def test_eval_run_refuses_a_workdir_that_holds_files(tiny_env: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("mine", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["eval", "run", str(tiny_env), "--workdir", str(work), "--json"]
    )
    assert result.exit_code == 2
    assert "empty or new folder" in result.output
    assert (work / "notes.txt").read_text(encoding="utf-8") == "mine"  # nothing lost


def test_probes_from_sessions_makes_unlabelled_time_split_probes(tmp_path: Path) -> None:
    sessions = []
    for week, day in enumerate(["2026-03-02", "2026-03-09", "2026-03-16"]):
        sessions.append(
            {
                "session_id": f"s{week}",
                "agent": "claude-code",
                "cwd": "/code/alpha",
                "turns": [
                    {"role": "user", "text": "set up the env 按我的习惯", "at": f"{day}T10:00:00Z"},
                    {"role": "assistant", "text": "done", "at": f"{day}T10:01:00Z"},
                    {"role": "user", "text": "run the tests", "at": f"{day}T10:02:00Z"},
                    {"role": "user", "text": "commit it", "at": f"{day}T10:05:00Z"},
                ],
            }
        )
    src = tmp_path / "sessions.jsonl"
    src.write_text(
        "\n".join(json.dumps(s, ensure_ascii=False) for s in sessions) + "\n", encoding="utf-8"
    )
    out = tmp_path / "probes.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "probes-from-sessions",
            str(src),
            "--out",
            str(out),
            "--profile",
            "claude-code=working",
        ],
    )
    assert result.exit_code == 0, result.output
    probes = load_probes(out)
    assert len(probes) == 9 and all(p.gold is None for p in probes)
    first = probes[0]
    assert first.previous_turn is None and first.follow_ups == ["run the tests", "commit it"]
    assert probes[1].previous_turn == "set up the env 按我的习惯"
    assert [p.split for p in probes].count(Split.dev) == 3  # the first of three weeks
