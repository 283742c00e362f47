"""The ``snapshot-eval`` flow: tag this week's state of the memory, then evaluate it.

The tag (``snapshot-<ISO year>-W<week>``) pins what the memory held, so a later evaluation
compares systems on exactly that state. The evaluation itself belongs to the evaluation
package and runs when a probe file is configured.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from prefect import flow, get_run_logger

from dose_mem.settings import get_settings
from memory_repo import history


def snapshot_tag(root: Path, today: dt.date) -> str | None:
    """Tag HEAD for this ISO week (idempotent); None when the repository has no commit."""
    repo = history.open_repo(root)
    if not repo.head.is_valid():
        return None
    year, week, _ = today.isocalendar()
    name = f"snapshot-{year}-W{week:02d}"
    if name not in {t.name for t in repo.tags}:
        repo.create_tag(name, message=f"weekly memory snapshot {year}-W{week:02d}")
    return name


@flow(name="snapshot-eval")
def snapshot_eval(home: str | None = None) -> str | None:
    settings = get_settings(home=Path(home) if home else None)
    log = get_run_logger()
    tag = snapshot_tag(settings.memory_path, dt.datetime.now(dt.UTC).date())
    log.info("memory snapshot: %s", tag or "nothing to tag (no commits)")
    log.info("evaluation is run by the evaluation package when a probe file is configured")
    return tag
