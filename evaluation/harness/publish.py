"""Run an evaluation from a flow and publish its report as a Prefect markdown artifact."""

from __future__ import annotations

from pathlib import Path

from prefect.artifacts import create_markdown_artifact

from evaluation.harness.report import markdown, write_report
from evaluation.harness.run import run_evaluation
from memory_repo.settings import Settings


def evaluate_and_publish(env_dir: Path, settings: Settings, label: str) -> Path:
    """The report lands in ``<state>/eval/<label>/``; the artifact holds its Markdown."""
    result = run_evaluation(env_dir, settings)
    out = settings.state_path / "eval" / label
    write_report(result, out)
    create_markdown_artifact(
        markdown=markdown(result),
        key="snapshot-eval",
        description=f"dose-mem evaluation of {env_dir} ({label})",
    )
    return out / "report.md"
