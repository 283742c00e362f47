"""What each inspector page shows, as plain data for its template.

Everything here reads: the memory repository (cards, git history), the token store, the
logs and run records under state. The only write the inspector makes is the rollback,
and that is the write path's own function (``Services.rollback``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import BaseModel

from memory_repo import history, ingest_runs
from memory_repo.lifecycle import expiry, retirement, superseded_ids
from memory_repo.models import Item
from memory_repo.recall_log import Joined, joined, read_entries
from memory_repo.store import Memory, evidence_sidecar, load_memory
from recall_api.deps import Services
from recall_api.engine import item_view
from recall_api.explain import Explanation, Lifecycle, explain
from recall_api.models import Identity, RecallRequest
from recall_api.tokens import ADMIN_PROFILE

# The README's demo table: (prompt, cwd) pairs offered as one-click examples.
DEMO_PROMPTS: list[tuple[str, str]] = [
    ("Rename parse_table and update the tests", "/home/demo/code/tablekit"),
    ("Set up the Python environment for this project", "/home/demo/code/tablekit"),
    ("What does parse_table return?", "/home/demo/research/tabsense"),
    ("Which colour for unverified entries?", "/home/demo/code/tablekit"),
    ("未验证的条目用什么颜色标？", "/home/demo/code/tablekit"),
    ("帮我配一下这个项目的 Python 环境", "/home/demo/code/tablekit"),
    ("按我的习惯配置环境", "/home/demo/code/tablekit"),
    ("把 parse_table 改个名，顺便更新测试", "/home/demo/code/tablekit"),
    ("What language should you reply to me in?", "/home/demo/code/tablekit"),
]


def agents(svc: Services) -> list[Identity]:
    """Every live agent token's identity (one per agent, profile and projects), else one
    per configured profile seeing every project."""
    seen: dict[tuple[str, str, tuple[str, ...] | None], Identity] = {}
    for record in svc.tokens.list():
        if record.revoked or record.admin or record.profile not in svc.engine.profiles:
            continue
        key = (record.agent, record.profile, tuple(record.projects or ()) or None)
        seen.setdefault(
            key,
            Identity(
                agent=record.agent,
                profile=record.profile,
                projects=record.projects,
                token_id=record.id,
            ),
        )
    if seen:
        return list(seen.values())
    return [
        Identity(agent=f"({name})", profile=name, projects=None)
        for name in sorted(svc.engine.profiles)
        if name != ADMIN_PROFILE
    ]


def dose(svc: Services, request: RecallRequest, session: str = "") -> list[Explanation]:
    """Each agent's dry run; with ``session``, also what that session of the agent already
    holds (``GivenStore``), which a real recall there would hold back."""
    lifecycle = Lifecycle.load(svc.engine.memory_root)
    out = []
    for who in agents(svc):
        e = explain(svc.engine, who, request, lifecycle)
        if session:
            held = svc.engine.given.held(who.agent, session)
            e.held = {item: given.turn for item, given in held.items()}
        out.append(e)
    return out


class CardRow(BaseModel):
    id: str
    project: str
    type: str
    l0: str
    created: dt.date
    state: str  # live | superseded | expired | archived


def _state(item: Item, memory: Memory, superseded: set[str], today: dt.date) -> str:
    return retirement(item, today, superseded, memory.registry) or "live"


def cards(
    root: Path, today: dt.date, project: str | None, card_type: str | None
) -> tuple[list[CardRow], list[str], list[str], list[str]]:
    """Rows (by project, type, id), the projects and types to filter on, and problems."""
    memory = load_memory(root)
    retired = superseded_ids(memory.items.values())
    rows = [
        CardRow(
            id=item.id,
            project=item.project,
            type=item.type.value,
            l0=str(item_view(item)["l0"]),
            created=item.created,
            state=_state(item, memory, retired, today),
        )
        for item in memory.items.values()
        if (not project or item.project == project)
        and (not card_type or item.type.value == card_type)
    ]
    rows.sort(key=lambda r: (r.project, r.type, r.id))
    projects = sorted({i.project for i in memory.items.values()})
    types = sorted({i.type.value for i in memory.items.values()})
    return rows, projects, types, [f"{p.path}: {p.reason}" for p in memory.problems]


class CardPage(BaseModel):
    view: dict[str, object]
    state: str
    expiry: dt.date | None
    older: list[str]  # what this card supersedes, transitively, nearest first
    newer: list[str]  # what supersedes it, transitively, nearest first
    history: list[history.CommitInfo]


def card(root: Path, today: dt.date, item_id: str) -> CardPage | None:
    memory = load_memory(root)
    item = memory.items.get(item_id)
    if item is None:
        return None
    replaced_by: dict[str, list[str]] = {}
    for other in memory.items.values():
        for old in other.supersedes:
            replaced_by.setdefault(old, []).append(other.id)
    paths = [item.path]
    sidecar = str(evidence_sidecar(Path(item.path)))
    if (root / sidecar).exists():
        paths.append(sidecar)
    commits = {c.sha: c for p in paths for c in history.file_history(root, p)}
    return CardPage(
        view=item_view(item),
        state=_state(item, memory, superseded_ids(memory.items.values()), today),
        expiry=expiry(item),
        older=list(
            _walk(item.id, lambda i: memory.items[i].supersedes if i in memory.items else [])
        ),
        newer=list(_walk(item.id, lambda i: replaced_by.get(i, []))),
        history=sorted(commits.values(), key=lambda c: c.date, reverse=True),
    )


def _walk(start: str, step: Callable[[str], list[str]]) -> Iterator[str]:
    """Breadth-first along ``step`` (id -> ids), each id once, ``start`` excluded."""
    seen = {start}
    frontier = [start]
    while frontier:
        nxt: list[str] = []
        for node in frontier:
            for other in step(node):
                if other not in seen:
                    seen.add(other)
                    nxt.append(other)
                    yield other
        frontier = nxt


class LogFilter(BaseModel):
    agent: str | None = None
    reason: str | None = None
    text: str | None = None
    missed: bool = False  # only recalls followed by the agent's own search or read


def recall_log(folder: Path, want: LogFilter, limit: int = 100) -> list[Joined]:
    """Recalls from the recall log, newest first, each with the searches and reads of
    the same agent and session that followed it (``recall_log.joined``)."""
    entries = read_entries(folder, agent=want.agent)
    rows = [
        j
        for j in joined(entries)
        if (not want.reason or j.recall.reason == want.reason)
        and (not want.text or want.text.casefold() in (j.recall.prompt or "").casefold())
        and (not want.missed or j.signals)
    ]
    return rows[::-1][:limit]


def logged_agents(folder: Path) -> list[str]:
    return sorted({e.agent for e in read_entries(folder, kind="recall")})


class RunRow(BaseModel):
    run_id: str
    when: dt.datetime | None
    record: ingest_runs.RunRecord | None
    landed: ingest_runs.LandedRun | None
    prefect_url: str | None


def runs(svc: Services, limit: int = 50) -> tuple[list[RunRow], list[str]]:
    """Recorded runs and landed commits together, newest first."""
    records, problems = ingest_runs.recent(svc.settings.state_path, limit)
    landed = ingest_runs.landed(svc.settings.memory_path, limit)
    by_id = {r.run_id: r for r in records}
    base = svc.settings.prefect_ui_url.rstrip("/")
    rows = []
    for run_id in set(by_id) | set(landed):
        record, commit = by_id.get(run_id), landed.get(run_id)
        when = record.finished if record else commit.date if commit else None
        flow_run = record.flow_run_id if record else None
        rows.append(
            RunRow(
                run_id=run_id,
                when=when,
                record=record,
                landed=commit,
                prefect_url=f"{base}/runs/flow-run/{flow_run}" if flow_run else None,
            )
        )
    rows.sort(key=lambda r: r.when or dt.datetime.min.replace(tzinfo=dt.UTC), reverse=True)
    return rows[:limit], problems
