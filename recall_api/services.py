"""The service's parts, built from the settings: the engine (warmed up), the token
store and the rollback hook, without the web framework (``app.py`` serves them over
HTTP; ``dose-mem mcp`` over MCP, which so starts without FastAPI)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from memory_repo.index.embedders import make_embedder, one_blas_thread
from memory_repo.recall_log import RecallLog
from memory_repo.settings import Settings
from profiles.model import load_profiles
from recall_api.engine import RecallEngine
from recall_api.task_board import TaskBoard
from recall_api.tokens import TokenStore, tokens_path


@dataclass
class Services:
    settings: Settings
    engine: RecallEngine
    tokens: TokenStore
    # The write path's rollback (``flows.rollback.rollback``), handed in by whoever starts
    # the service (``dose-mem serve``): the read path never imports flows. None: the
    # inspector offers the command line instead.
    rollback: Callable[[Settings, str], str] | None = None


def build_services(
    settings: Settings, rollback: Callable[[Settings, str], str] | None = None
) -> Services:
    return Services(
        settings=settings,
        engine=build_engine(settings),
        tokens=TokenStore(tokens_path(settings)),
        rollback=rollback,
    )


def build_engine(settings: Settings) -> RecallEngine:
    """The engine ``dose-mem serve`` answers with: query-side embedder, one BLAS thread,
    the recall log and task board of ``settings``, warmed up (index loaded, models run)."""
    one_blas_thread()
    # The models load on a thread while the index is read (in a child process with the
    # service's loader): independent work, on two cores (docs/operations.md, "CLI start-up").
    with ThreadPoolExecutor(1, thread_name_prefix="dose-mem-embedder") as pool:
        embedder = pool.submit(make_embedder, settings, for_queries=True)
        engine = RecallEngine(
            settings.memory_path,
            settings.index_path,
            load_profiles(settings.profiles_path),
            embedder,
            recall_log=recall_log_for(settings),
            loader=settings.snapshot_loader,
            tasks=TaskBoard(
                settings.tasks_path,
                stale_hours=settings.task_stale_hours,
                keep_days=settings.task_keep_days,
            ),
        )
    engine.warm_up()
    return engine


def recall_log_for(settings: Settings) -> RecallLog | None:
    """The recall log's writer, or None when the log is turned off."""
    if not settings.recall_log:
        return None
    return RecallLog(
        settings.recall_log_path,
        days=settings.recall_log_days,
        max_mb=settings.recall_log_mb,
        prompts=settings.recall_log_prompts,
    )
