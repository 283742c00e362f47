"""The labelled write-quality set through a real ingest flow run (Prefect harness, git
memory, LanceDB index): no planted secret in any file afterwards, and the offline
provider's bar from issue 15 (docs/capture.md, "Write quality")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.sets.write_quality import (
    WriteReport,
    load_set,
    prefect_database_files,
    run_write_eval,
)
from memory_repo.secrets import has_secret, redact

DATA = Path(__file__).parents[1] / "data"
SET = DATA / "write_quality"
SETS = {SET.name: SET, "write_quality_holdout": DATA / "write_quality_holdout"}


@pytest.fixture(scope="module", params=sorted(SETS))
def report(request, harness, tmp_path_factory) -> tuple[WriteReport, Path, Path]:
    work = tmp_path_factory.mktemp("write-eval")
    mp = pytest.MonkeyPatch()
    mp.delenv("DOSE_MEM_LLM_BASE_URL", raising=False)
    try:
        yield run_write_eval(load_set(SETS[request.param]), work), work, SETS[request.param]
    finally:
        mp.undo()


def test_no_planted_secret_in_any_file_or_prefects_database(report) -> None:
    result, work, root = report
    secrets = [i.secret for i in load_set(root).items if i.secret]
    assert len(secrets) >= 2
    db = prefect_database_files()
    assert db, "the harness database was found"
    # The home holds memory, state (ledger, run journals, tasks) and the index; the
    # sources beside it are the agents' own histories, which hold the secrets by design.
    files = [p for p in (work / "home").rglob("*") if p.is_file()] + db
    assert len(files) > 20
    assert len(load_set(SET).items) >= 30
    leaks = [(str(p), s) for p in files for s in secrets if s.encode() in p.read_bytes()]
    assert leaks == [] and result.secrets_on_disk == []


def test_the_offline_provider_meets_the_bar(report) -> None:
    result, _, root = report
    a = result.all
    assert a.precision >= 0.9, result.cards
    assert a.recall >= 0.6, a.missed
    expected = load_set(root).items
    assert a.supersede_wrong == []
    assert len(a.supersede_right) == sum(i.expect == "supersede" for i in expected) >= 1
    assert a.merge_wrong == []
    assert len(a.merge_right) == sum(i.expect == "merge" for i in expected) >= 1
    assert result.l1_with_session_id == []
    assert result.unreadable_ids == []


def test_every_planted_secret_is_caught_and_redacted() -> None:
    sessions = (SET / "sessions").rglob("*.jsonl")
    text = "\n".join(p.read_text("utf-8") for p in sessions)
    for label in load_set(SET).items:
        if label.secret:
            assert label.secret in text
            line = next(x for x in text.splitlines() if label.secret in x)
            assert has_secret(line)
            assert label.secret not in redact(text)


def test_the_command_prints_one_json_report_and_refuses_a_non_set(harness, tmp_path) -> None:
    from typer.testing import CliRunner

    from dose_mem.cli.main import app

    home = ["--home", str(tmp_path / "home")]
    bad = CliRunner().invoke(app, [*home, "eval", "write", str(tmp_path)])
    assert bad.exit_code == 2 and "not a write-quality set" in bad.output
    out = tmp_path / "report"
    ok = CliRunner().invoke(
        app,
        [*home, "eval", "write", str(SETS["write_quality_holdout"]), "--json", "--out", str(out)],
    )
    assert ok.exit_code == 0, ok.output
    report = json.loads(ok.stdout.strip().splitlines()[-1])
    assert report["provider"] == "rules" and report["all"]["must_write"] == 7
    assert report["secrets_on_disk"] == []
    assert "| split | cards | precision |" in (out / "report.md").read_text("utf-8")
