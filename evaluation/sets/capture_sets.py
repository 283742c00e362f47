"""Capture sets: write-quality sets in every agent's own format, scored for filing.

A capture set (``tests/data/capture_*``) is a write-quality set (``evaluation/
write_quality.py``) whose ``sessions/`` also holds ``hermes.yaml`` and ``pi.yaml``: specs
that Hermes Agent's and Pi's own code write into a real ``state.db`` and real session
files before the ingest (``evaluation/agents``), and whose ``labels.yaml`` also has:

* ``sessions``: every session with the project its facts belong to and whether the
  ingest must skip it (``subagent``, ``delegate``) or capture it;
* per item, the ``project`` it must be filed under, and ``expect: held`` for a project
  fact whose project no rule can know (it must be held, never global);
* ``harness``: strings the agents injected, which must appear in no card.

``oracle`` is a distiller that knows the labels: served on 127.0.0.1 as an
OpenAI-compatible endpoint (``evaluation/harness/scripted_llm.py``), it answers each distil
request with exactly the labelled facts found in that session's words (every item that
is to become a card or be held, with its labelled type) and files each as **global**, the
worst a model can do; its judge promotes every candidate. Run with it, the set measures
filing on every labelled fact instead of only on those the offline rules distil.

``score`` reads what one ingest left on disk (cards, sidecars, ``held.jsonl`` and the
run record with its sessions) and reports attribution, held facts, harness text in cards
and every session's outcome.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from evaluation.harness.scripted_llm import Reply, tool_answer, tool_name
from memory_repo import held, ingest_runs
from memory_repo.models import GLOBAL, Item
from memory_repo.store import evidence_sidecar

NO_PROJECT = {None, "none", "null", ""}


class SessionLabel(BaseModel):
    session: str
    agent: str
    project: str | None = None
    skip: str | None = None


class SessionOutcome(BaseModel):
    session: str
    agent: str
    expected: str  # captured | skipped
    status: str  # read | skipped | waiting | failed | unchanged | joined | missing
    reason: str = ""
    project: str | None = None
    want_project: str | None = None


class CaptureScores(BaseModel):
    filed: int = 0
    filed_right: int = 0
    attribution: float = 0.0
    by_agent: dict[str, list[int]] = Field(default_factory=dict)  # agent: [right, filed]
    misfiled: list[str] = Field(default_factory=list)
    global_leaks: list[str] = Field(default_factory=list)
    held_right: list[str] = Field(default_factory=list)
    held_missed: list[str] = Field(default_factory=list)
    held_wrong: list[str] = Field(default_factory=list)
    harness_in_cards: list[str] = Field(default_factory=list)
    filed_elsewhere: list[str] = Field(default_factory=list)
    sessions: list[SessionOutcome] = Field(default_factory=list)
    sessions_wrong: list[str] = Field(default_factory=list)
    session_projects_right: int = 0
    session_projects: int = 0


def materialise(sessions: Path, sources: Path) -> dict[str, str]:
    """Write the set's Hermes and Pi specs through the agents' own code into ``sources``
    (``hermes/state.db``, ``pi/--<cwd>--/...``); the Pi specs' names to Pi's session ids."""
    names: dict[str, str] = {}
    hermes_spec = sessions / "hermes.yaml"
    if hermes_spec.is_file():
        from evaluation.agents.hermes_writer import write_hermes_sessions

        write_hermes_sessions(_yaml(hermes_spec), sources / "hermes")
    pi_spec = sessions / "pi.yaml"
    if pi_spec.is_file():
        from evaluation.agents.pi import write_pi_sessions

        spec = _yaml(pi_spec)
        paths = write_pi_sessions(spec, sources / "pi")
        for entry, path in zip(spec, paths, strict=True):
            header = json.loads(path.read_text("utf-8").splitlines()[0])
            if entry.get("name"):
                names[str(entry["name"])] = str(header.get("id"))
    return names


def _yaml(path: Path) -> list[dict[str, Any]]:
    return list(yaml.safe_load(path.read_text("utf-8")) or [])


ORACLE_EXPECTS = ("card", "supersede", "merge", "held")


def oracle(labels: list[Any]) -> Callable[[dict[str, Any]], Reply]:
    """The responder of the labelled-facts distiller and the promote-all judge."""
    wanted = [lab for lab in labels if lab.expect in ORACLE_EXPECTS]

    def respond(request: dict[str, Any]) -> Reply:
        content = str(request["messages"][-1]["content"])
        if tool_name(request) == "FactList":
            facts = [
                {
                    "statement": lab.match,
                    "type": str(lab.type or "fact"),
                    "project": GLOBAL,
                    "confidence": 0.9,
                    "quote": lab.match,
                }
                for lab in wanted
                if lab.match in content
            ]
            return Reply(tool_answer(request, {"facts": facts}))
        count = len(re.findall(r"^## candidate \d+$", content, re.M))
        decisions = [{"index": i, "action": "promote", "reason": "oracle"} for i in range(count)]
        return Reply(tool_answer(request, {"decisions": decisions}))

    return respond


def latest_run(state: Path) -> ingest_runs.RunRecord | None:
    records, _ = ingest_runs.recent(state, limit=1)
    return records[0] if records else None


def score(
    labels: list[Any],
    sessions: list[SessionLabel],
    harness: list[str],
    rows: list[Any],
    new: dict[str, Item],
    memory: Path,
    state: Path,
    names: dict[str, str],
    matches: Any,
) -> CaptureScores:
    """Attribution over written cards with a labelled project; held items (held, not
    distilled at all, or wrongly written as a card); harness text
    in any new card's files; every labelled session's outcome in the run record."""
    s = CaptureScores()
    by_label = {lab.id: lab for lab in labels}
    agent_of = {lab.session: lab.agent for lab in sessions}
    for row in rows:
        label = by_label.get(row.label or "")
        if label is None or label.expect not in ("card", "supersede"):
            continue
        want = label.project if label.project not in NO_PROJECT else None
        if want is None:
            continue
        got = new[row.id].project
        s.filed += 1
        tally = s.by_agent.setdefault(agent_of.get(label.session, "?"), [0, 0])
        tally[1] += 1
        if got == want:
            s.filed_right += 1
            tally[0] += 1
        else:
            s.misfiled.append(f"{label.id}: {got}, not {want}")
            if got == GLOBAL:
                s.global_leaks.append(label.id)
    s.attribution = round(s.filed_right / s.filed, 3) if s.filed else 0.0
    written = {r.label for r in rows}
    quotes = [h.quote for h in held.read(state)]
    for label in labels:
        if label.expect != "held":
            continue
        if label.id in written:
            s.held_wrong.append(label.id)
        elif any(matches(label, q) for q in quotes):
            s.held_right.append(label.id)
        else:
            s.held_missed.append(label.id)
    s.harness_in_cards = _harness_hits(harness, new, memory)
    run = latest_run(state)
    s.filed_elsewhere = _filed_elsewhere(new, run)
    _sessions(s, sessions, run, names)
    return s


def _filed_elsewhere(new: dict[str, Item], run: ingest_runs.RunRecord | None) -> list[str]:
    """Cards from a session placed in project A by its path, filed under a project B."""
    placed = {
        r.session: r.project
        for r in (run.sessions if run else [])
        if r.how in ("cwd", "symlink", "worktree", "repo_root")
    }
    out = []
    for item in new.values():
        for ev in item.evidence:
            home = placed.get(ev.session)
            if home and item.project not in (home, GLOBAL):
                out.append(f"{item.id}: {item.project}, said in {home}")
    return out


def _harness_hits(harness: list[str], new: dict[str, Item], memory: Path) -> list[str]:
    """``id: 'string'`` for each harness string found in a new card or its sidecar."""
    hits = []
    for item in new.values():
        if not item.path:
            continue
        files = [memory / item.path, memory / evidence_sidecar(Path(item.path))]
        text = "\n".join(p.read_text("utf-8") for p in files if p.is_file())
        hits += [f"{item.id}: {h!r}" for h in harness if h in text]
    return hits


def _sessions(
    s: CaptureScores,
    labels: list[SessionLabel],
    run: ingest_runs.RunRecord | None,
    names: dict[str, str],
) -> None:
    records = run.sessions if run else []
    for label in labels:
        sid = names.get(label.session, label.session)
        record = next((r for r in records if _is(r, sid)), None)
        joined = next((r for r in records if sid in r.parts), None)
        expected = "skipped" if label.skip else "captured"
        if record is not None:
            status, reason, project = record.status, record.reason, record.project
        elif joined is not None:
            status, reason, project = "joined", f"into {joined.session}", joined.project
        else:
            status, reason, project = "missing", "", None
        want = label.project if label.project not in NO_PROJECT else None
        s.sessions.append(
            SessionOutcome(
                session=label.session,
                agent=label.agent,
                expected=expected,
                status=status,
                reason=reason,
                project=project,
                want_project=want,
            )
        )
        captured = status in ("read", "joined")
        if (expected == "captured") != captured or (status == "skipped" and not reason):
            s.sessions_wrong.append(f"{label.session}: {status} ({reason}), expected {expected}")
        if captured:
            s.session_projects += 1
            s.session_projects_right += int(
                (project or None) == want or (want is None and project == GLOBAL)
            )


def _is(record: ingest_runs.SessionRecord, sid: str) -> bool:
    return record.session == sid or Path(record.path.split("#")[0]).stem == sid


def render(s: CaptureScores) -> list[str]:
    """The capture part of a write-quality report (Markdown lines)."""
    captured = sum(o.status in ("read", "joined") for o in s.sessions)
    skipped = sum(o.status == "skipped" for o in s.sessions)
    lines = [
        "",
        "## Capture and filing",
        "",
        f"attribution: {s.filed_right}/{s.filed} = {s.attribution:.3f} of written cards "
        "under their labelled project",
        "by agent: " + ", ".join(f"{a} {r}/{n}" for a, (r, n) in sorted(s.by_agent.items())),
        f"misfiled: {', '.join(s.misfiled) or 'none'}",
        f"project facts filed as global: {', '.join(s.global_leaks) or 'none'}",
        f"held: {len(s.held_right)} held, {len(s.held_missed)} not distilled, "
        f"{len(s.held_wrong)} written as cards {s.held_wrong or ''}",
        f"harness text in cards: {', '.join(s.harness_in_cards) or 'none'}",
        "cards of a session in project A filed under B: "
        + (", ".join(s.filed_elsewhere) or "none"),
        f"sessions: {len(s.sessions)} labelled, {captured} captured, {skipped} skipped with a "
        f"reason; session projects right {s.session_projects_right}/{s.session_projects}",
        f"sessions wrong: {', '.join(s.sessions_wrong) or 'none'}",
        "",
        "| session | agent | expected | status | reason | project | labelled |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {o.session[:24]} | {o.agent} | {o.expected} | {o.status} | {o.reason} | "
        f"{o.project or ''} | {o.want_project or ''} |"
        for o in s.sessions
    ]
    return lines
