"""The ``reindex`` flow: bring the derived index up to date with the memory repository."""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger

from memory_repo.index import build
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.settings import Settings, get_settings


def refresh_index(settings: Settings, embedder: Embedder, full: bool = False) -> build.BuildReport:
    if full:
        return build.rebuild(settings.memory_path, settings.index_path, embedder)
    return build.refresh(settings.memory_path, settings.index_path, embedder)


@flow(name="reindex")
def reindex(home: str | None = None, full: bool = False) -> build.BuildReport:
    """Incremental by default; ``full`` rebuilds from the Markdown files."""
    settings = get_settings(home=Path(home) if home else None)
    report = refresh_index(settings, make_embedder(settings), full=full)
    get_run_logger().info(
        "reindex %s: %s", report.mode, report.model_dump_json(exclude={"problems"})
    )
    for problem in report.problems:
        get_run_logger().warning("skipped %s", problem)
    return report
