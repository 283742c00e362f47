"""prefect.yaml is the one description of the deployments the serve entry point registers."""

from __future__ import annotations

from flows.serve import deployments


def test_the_deployments_come_from_prefect_yaml() -> None:
    found = {d.name: d for d in deployments()}
    assert set(found) == {"ingest", "reindex", "import-memories", "snapshot-eval", "tune-profiles"}
    assert [s.schedule.cron for s in found["ingest"].schedules] == ["*/15 * * * *"]
    assert found["ingest"].concurrency_limit == 1
    assert found["reindex"].schedules == []
    assert found["import-memories"].schedules == []  # on demand
    assert found["import-memories"].concurrency_limit == 1
    assert [s.schedule.cron for s in found["snapshot-eval"].schedules] == ["0 3 * * 1"]
    assert found["snapshot-eval"].entrypoint.endswith(
        "evaluation/harness/snapshot_eval.py:snapshot_eval"
    )
    assert [s.schedule.cron for s in found["tune-profiles"].schedules] == ["0 4 * * 1"]
    assert found["tune-profiles"].entrypoint.endswith(
        "evaluation/tuning/tune_profiles.py:tune_profiles"
    )
