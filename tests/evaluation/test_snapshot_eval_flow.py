"""The snapshot-eval flow evaluates the user's own memory repository (``memory:`` in
env.yaml) on their probe file and publishes the report as a Prefect artifact."""

from __future__ import annotations

import shutil
from pathlib import Path

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

from evaluation.harness.environment import build_history, load_env_spec
from evaluation.harness.snapshot_eval import snapshot_eval


def test_flow_tags_evaluates_and_publishes(tiny_env: Path, tmp_path: Path, harness: None) -> None:
    home = tmp_path / "home"
    spec = load_env_spec(tiny_env)
    build_history(tiny_env / "history", home / "memory", spec.tz)  # the user's real repo
    user_env = home / "eval"
    user_env.mkdir(parents=True)
    shutil.copy(tiny_env / "probes.jsonl", user_env / "probes.jsonl")
    text = (tiny_env / "env.yaml").read_text(encoding="utf-8")
    (user_env / "env.yaml").write_text(text + "memory: ../memory\n", encoding="utf-8")

    tag = snapshot_eval(home=str(home))

    assert tag is not None and tag.startswith("snapshot-")
    report = home / "state" / "eval" / tag / "report.md"
    assert "dose-mem/full" in report.read_text(encoding="utf-8")
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["snapshot-eval"]))
        )
    assert found and "dose-mem/working" in str(found[-1].data)
