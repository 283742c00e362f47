"""Which Prefect API a shell command's flow run talks to, and one retry when it can't start.

``dose-mem ingest`` and ``dose-mem import`` run a Prefect flow in this process. When
``PREFECT_API_URL`` is set, that server is used. Otherwise, when the server ``make up``
started answers on 127.0.0.1:4200, the run goes there (one database, and the run shows in
the UI). Otherwise Prefect starts a temporary server for the run: its start-up is given
``EPHEMERAL_STARTUP_S`` (Prefect's default of 20 counts only its own sleeps and failed on
a 2-core machine with both cores busy), and a run that fails because that server did not
come up is tried once more. Prefect must not phone home: dose-mem works offline.
"""

from __future__ import annotations

import os
import urllib.request
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
UP_API = "http://127.0.0.1:4200/api"  # dose_mem/up.py's PREFECT_PORT
EPHEMERAL_STARTUP_S = 120
NOT_UP = "Timed out while attempting to connect to ephemeral Prefect API server"


def use_prefect(api: str = UP_API) -> str:
    """Set Prefect's environment for this process; which API it will use, in words."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    if os.environ.get("PREFECT_API_URL"):
        return f"Prefect at {os.environ['PREFECT_API_URL']}"
    try:
        with urllib.request.urlopen(f"{api}/health", timeout=1.0) as answer:
            if answer.status == 200:
                os.environ["PREFECT_API_URL"] = api
                return f"Prefect at {api} (started by make up)"
    except OSError:
        pass
    os.environ.setdefault(
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", str(EPHEMERAL_STARTUP_S)
    )
    return "a temporary Prefect server"


def run_flow(run: Callable[[], T]) -> T:
    """``run()``, once more if the temporary Prefect server did not come up the first time."""
    try:
        return run()
    except RuntimeError as exc:
        if NOT_UP not in str(exc):
            raise
    return run()


def advice(exc: Exception) -> str:
    """One line on what to do when a flow could not reach Prefect."""
    if NOT_UP in str(exc):
        return (
            "Prefect's temporary server did not start twice (a busy machine?): run "
            "`make up` (a Prefect server that stays), or set PREFECT_API_URL"
        )
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
