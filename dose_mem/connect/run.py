"""One connect or disconnect run: plan it, apply it (or, in a dry run, only show it), and
say what happened.

Contract: nothing is written, and no token issued, until every file of the agent's set-up
has been read and planned without error; a dry run writes nothing at all and issues no
token. ``report`` gives the lines the CLI prints: per file what changed, the unified diff
of each change in a dry run (tokens masked), then warnings and next steps.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType

from dose_mem.connect import agents, files
from dose_mem.connect.model import AGENTS, DEFAULT_PROFILE, ConnectError, FileEdit, Plan, Target
from dose_mem.connect.tokens import DRY_RUN_TOKEN, Chosen, choose_token, choose_url, issue

# Agents whose set-up runs the `dose-mem` command (the others ship their own client).
_RUNS_DOSE_MEM = frozenset({"claude-code", "codex", "openclaw"})


@dataclass
class Result:
    """What a run planned and, unless ``dry_run``, wrote (``written``)."""

    action: str
    plan: Plan
    dry_run: bool
    chosen: Chosen | None = None
    token_left: str | None = None
    written: list[FileEdit] = field(default_factory=list)


def _module_for(agent: str, scope: str) -> ModuleType:
    if agent not in AGENTS:
        raise ConnectError(f"unknown agent {agent!r}; one of: {', '.join(AGENTS)}")
    module = agents.module(agent)
    if scope not in module.SCOPES:
        raise ConnectError(f"{agent}: --scope {scope} is not supported (only {module.SCOPES[0]})")
    return module


def _current(module: ModuleType, target: Target) -> str | None:
    try:
        return module.current_token(target)
    except ConnectError:
        return None


def connect(
    agent: str,
    *,
    env: Mapping[str, str],
    cwd: Path,
    home: Path,
    store_path: Path,
    profiles_dir: Path,
    scope: str = "user",
    url: str | None = None,
    token: str | None = None,
    issue_new: bool = False,
    dry_run: bool = False,
    dose_home: Path | None = None,
) -> Result:
    """Connect ``agent``: see the module contract and ``tokens.choose_token``.

    ``store_path`` is the token store (``--issue`` checks and issues there), ``profiles_dir``
    the user's profile overrides (the issued profile must exist), ``dose_home`` dose-mem's
    home, given to the MCP server when it is not ``~/.dose-mem``. Raises ``ConnectError``.
    """
    module = _module_for(agent, scope)
    custom_home = None
    if dose_home is not None and dose_home.expanduser().resolve() != (home / ".dose-mem").resolve():
        custom_home = str(dose_home.expanduser().resolve())
    base = Target(
        agent, scope, dict(env), cwd, home, choose_url(url, env), DRY_RUN_TOKEN, custom_home
    )
    module.connect(base)  # every file readable and editable before a token is issued
    chosen = choose_token(
        agent,
        given=token,
        issue_new=issue_new,
        env=env,
        current=_current(module, base),
        store_path=store_path,
        issuer=lambda: issue(store_path, profiles_dir, agent),
        dry_run=dry_run,
    )
    plan = module.connect(replace(base, token=chosen.token))
    if agent in _RUNS_DOSE_MEM and shutil.which("dose-mem", path=env.get("PATH")) is None:
        plan.warnings.append(
            "`dose-mem` is not on PATH here; the agent runs `dose-mem ...`, so put it on the "
            "PATH the agent starts with (e.g. `uv tool install`, or link .venv/bin/dose-mem)."
        )
    written = [] if dry_run else files.apply(plan)
    return Result("connect", plan, dry_run, chosen=chosen, written=written)


def disconnect(
    agent: str,
    *,
    env: Mapping[str, str],
    cwd: Path,
    home: Path,
    scope: str = "user",
    dry_run: bool = False,
) -> Result:
    """Take out what ``connect`` wrote for ``agent``; the token itself stays valid."""
    module = _module_for(agent, scope)
    target = Target(agent, scope, dict(env), cwd, home)
    left = _current(module, target)
    plan = module.disconnect(target)
    written = [] if dry_run else files.apply(plan)
    return Result("disconnect", plan, dry_run, token_left=left, written=written)


def _status(edit: FileEdit, dry_run: bool) -> str:
    if not edit.changed:
        return "unchanged"
    word = "create" if edit.before is None else "remove" if edit.after is None else "update"
    return f"would {word}" if dry_run else word + "d"


def _token_line(result: Result) -> str | None:
    chosen = result.chosen
    if chosen is not None:
        profile = DEFAULT_PROFILE[result.plan.agent]
        how = {
            "given": "given with --token",
            "env": "from DOSE_MEM_TOKEN",
            "kept": "the one it is already connected with",
            "issued": f"issued now ({profile} profile); `dose-mem token revoke "
            f"{chosen.token_id}` revokes it",
            "would-issue": f"a new {profile}-profile token would be issued",
        }[chosen.source]
        shown = "(new)" if chosen.source == "would-issue" else chosen.token_id
        return f"token {shown}: {how}"
    if result.token_left and result.written:
        token_id = result.token_left.split("_", 2)[1] if result.token_left.count("_") >= 2 else "?"
        return f"token {token_id} is still valid: `dose-mem token revoke {token_id}` revokes it"
    return None


def report(result: Result) -> list[str]:
    plan = result.plan
    lines = [f"dose-mem {result.action} {plan.agent}" + (" (dry run)" if result.dry_run else "")]
    token_line = _token_line(result)
    if token_line:
        lines.append(f"  {token_line}")
    shown = [e for e in plan.edits if e.before is not None or e.after is not None]
    for edit in shown:
        lines.append(f"  {_status(edit, result.dry_run):<13} {edit.path}  ({edit.what})")
    if result.dry_run:
        for edit in plan.changes:
            lines.extend(files.diff(edit).rstrip("\n").splitlines())
        lines.append("dry run: nothing was written")
    elif not plan.changes:
        lines.append("nothing to change")
    lines.extend(f"warning: {w}" for w in plan.warnings)
    if result.action == "connect" and plan.next_steps:
        lines.append("next:")
        lines.extend(f"  - {step}" for step in plan.next_steps)
    return lines
