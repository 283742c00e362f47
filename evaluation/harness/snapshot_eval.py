"""The ``snapshot-eval`` flow: tag this week's state of the memory, then evaluate it.

The tag (``memory_repo.history.snapshot_tag``) pins what the memory held, so a later
evaluation compares systems on exactly that state; the evaluation runs when a probe file
is configured. The flow lives here, not in ``flows/``, because it runs the evaluation and
the write path never imports the evaluation (docs/architecture.md).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from prefect import flow, get_run_logger

from evaluation.harness.publish import evaluate_and_publish
from memory_repo.history import snapshot_tag
from memory_repo.settings import get_settings


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
    report = evaluate_and_publish(env_dir, settings, tag or "untagged")
    log.info("evaluation report written to %s", report)
    return tag
