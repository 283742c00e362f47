"""The ``snapshot-eval`` flow: tag this week's state of the memory, then evaluate it.

The tag (``snapshot-<ISO year>-W<week>``) pins what the memory held, so a later evaluation
compares systems on exactly that state. The evaluation itself belongs to the evaluation
package and runs when a probe file is configured.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from prefect import flow, get_run_logger

from memory_repo import history
from memory_repo.settings import get_settings


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
def snapshot_eval(home: str | None = None, eval_env: str | None = None) -> str | None:
    """``eval_env`` (default ``<home>/eval`` when it holds an env.yaml) is an evaluation
    environment, usually with ``memory:`` pointing at the user's memory repository."""
    settings = get_settings(home=Path(home) if home else None)
    log = get_run_logger()
    tag = snapshot_tag(settings.memory_path, dt.datetime.now(dt.UTC).date())
    log.info("memory snapshot: %s", tag or "nothing to tag (no commits)")
    env_dir = Path(eval_env) if eval_env else settings.home / "eval"
    if not (env_dir / "env.yaml").is_file():
        log.info("no evaluation environment at %s; skipping the evaluation", env_dir)
        return tag
    from evaluation.publish import evaluate_and_publish

    report = evaluate_and_publish(env_dir, settings, tag or "untagged")
    log.info("evaluation report written to %s", report)
    return tag
