"""``dose-mem profiles apply``: commit the latest tune-profiles proposals, once.

All proposals of a run that are applied together land as one commit of the memory
repository carrying the run trailer (``Dose-Mem-Run: <tune run id>``), so ``dose-mem
rollback <run id>`` reverts it like an ingest run. A proposal whose file changed since
it was made (another apply, a rollback, a hand edit) is marked ``stale`` and skipped:
the next run proposes from the new state.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flows.append import RUN_TRAILER
from memory_repo import history
from memory_repo.files import write_atomic
from memory_repo.settings import Settings
from profiles.proposals import Proposal, ProposalError, load_run, save_run


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


def apply_proposals(settings: Settings, agents: list[str] | None = None) -> tuple[str, list[str]]:
    """(commit sha, agents applied) for the latest run's open proposals (of ``agents``,
    when given). Raises ``ProposalError`` when there is nothing to apply."""
    state, root = settings.state_path, settings.memory_path
    run = load_run(state)
    if run is None:
        raise ProposalError(f"no tune-profiles run under {state} (run the flow first)")
    chosen: list[Proposal] = []
    for p in run.proposals:
        if p.status != "proposed" or (agents and p.agent not in agents):
            continue
        if file_sha256(root / p.path) != p.base_sha256:
            p.status = "stale"
            continue
        chosen.append(p)
    if not chosen:
        save_run(state, run)
        raise ProposalError(f"no open proposal in tune run {run.run_id} to apply")
    before = {
        p.path: (root / p.path).read_bytes() if (root / p.path).exists() else None for p in chosen
    }
    lines = "\n".join(f"- {p.agent} ({p.profile}): {p.change}" for p in chosen)
    message = (
        f"tune-profiles {run.run_id}: {len(chosen)} profile override(s)\n\n{lines}\n\n"
        f"{RUN_TRAILER}: {run.run_id}\n"
    )
    try:
        for p in chosen:
            write_atomic(root / p.path, p.text.encode("utf-8"))
        sha = history.commit(root, [p.path for p in chosen], message)
    except BaseException:  # leave the files as they were: nothing half applied
        for rel, data in before.items():
            if data is None:
                (root / rel).unlink(missing_ok=True)
            else:
                write_atomic(root / rel, data)
        raise
    for p in chosen:
        p.status, p.commit = "applied", sha
    save_run(state, run)
    return sha, [p.agent for p in chosen]
