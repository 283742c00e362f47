"""Serve the deployments of ``prefect.yaml`` from this process against a running server.

``prefect.yaml`` stays the one description of the deployments (names, entrypoints,
schedules, concurrency): this reads it and hands each flow to ``prefect.serve``, so the
same deployments appear in the UI whether they run here or on a work pool.
Run with ``PREFECT_API_URL`` pointing at the server: ``python -m flows.serve``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from prefect import serve
from prefect.deployments.runner import RunnerDeployment
from prefect.flows import load_flow_from_entrypoint

PREFECT_YAML = Path(__file__).parents[1] / "prefect.yaml"


def deployments(config: Path = PREFECT_YAML) -> list[RunnerDeployment]:
    spec: dict[str, Any] = yaml.safe_load(config.read_text("utf-8"))
    root = config.parent
    out = []
    for entry in spec["deployments"]:
        path, func = entry["entrypoint"].split(":")
        flow = load_flow_from_entrypoint(f"{root / path}:{func}", use_placeholder_flow=False)
        crons = [s["cron"] for s in entry.get("schedules", []) if "cron" in s]
        out.append(
            flow.to_deployment(
                name=entry["name"],
                cron=crons or None,
                concurrency_limit=entry.get("concurrency_limit"),
                parameters=entry.get("parameters") or {},
                description=entry.get("description"),
                tags=entry.get("tags"),
            )
        )
    return out


def main() -> None:
    serve(*deployments())


if __name__ == "__main__":
    main()
