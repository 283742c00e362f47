"""The ``import-memories`` flow: the memory files each agent already keeps, once, into cards.

locate files -> skip those the ledger has at the same hash -> statements as candidates
(the line is the quote; a daily log goes through distil and verify) -> drop what memory
already holds -> pre-screen -> group equivalents across files and settle contradictions
(``flows/onboarding/grouping.py``) -> neighbours -> judge -> append (one commit, the same
journal, ledger and rollback as ingest) -> reindex.

The ledger keeps, per file, ``import:<path>`` with the hash of its bytes and the run, no
text; a file is read again when its bytes changed or its run was rolled back (then only
the statements memory does not already hold go on).

Nothing of a statement that holds a secret leaves the run: it is rejected by the
pre-screen, and every statement shown in the summary, the artifacts and the logs is
passed through ``memory_repo.secrets.redact`` first. ``dry_run`` plans everything and
writes nothing (no card, no ledger, no journal).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from pydantic import BaseModel, Field

from flows import append
from flows.capture import ledger
from flows.facts import Candidate, Decision
from flows.ingest import (
    _run_id,
    _with_retries,
    append_cards,
    find_neighbours,
    judge_all,
    reindex,
    screen,
)
from flows.lock import ingest_lock
from flows.onboarding import candidates as reading
from flows.onboarding import grouping
from flows.onboarding.locations import AGENTS, MemoryFile, agent_id, default_files, given_files
from flows.rollback import rolled_back_runs
from flows.verify import canonical
from memory_repo.bootstrap import has_memory, init_memory
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.models import Registry
from memory_repo.secrets import redact
from memory_repo.settings import Settings, get_settings
from memory_repo.store import load_memory

LEDGER_PREFIX = "import:"


class Outcome(BaseModel):
    """What became of one statement (or one group of equivalent statements)."""

    action: str
    statement: str
    project: str
    sources: list[str]
    reason: str
    target: str | None = None


class ImportSummary(BaseModel):
    run_id: str
    dry_run: bool = False
    agents: list[str] = Field(default_factory=list)
    files_read: list[str] = Field(default_factory=list)
    files_unchanged: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    statements: int = 0
    already_in_memory: int = 0
    prescreen_rejected: int = 0
    grouped_evidence: int = 0
    superseded_in_import: int = 0
    conflicts: list[str] = Field(default_factory=list)
    decisions: dict[str, int] = Field(default_factory=dict)
    outcomes: list[Outcome] = Field(default_factory=list)
    cards_written: int = 0
    evidence_appended: int = 0
    commit: str | None = None


@task(cache_policy=NO_CACHE)
def locate(
    agents: list[str], paths: list[str], settings: Settings, registry: Registry
) -> list[MemoryFile]:
    """Each file once, even when two names lead to it (``CLAUDE.md`` as a link to
    ``AGENTS.md`` is read as the first agent's)."""
    if paths:
        found = [f for agent in agents for f in given_files(agent, paths, registry)]
    else:
        found = [f for agent in agents for f in default_files(agent, settings, registry)]
    seen: set[Path] = set()
    out = []
    for f in found:
        real = f.path.resolve()
        if real not in seen:
            seen.add(real)
            out.append(f)
    return out


@task(cache_policy=NO_CACHE)
def read_file(
    source: MemoryFile, settings: Settings, registry: Registry
) -> tuple[list[Candidate], str]:
    return reading.read(source, settings, registry)


@task(cache_policy=NO_CACHE)
def group_equivalents(candidates: list[Candidate], embedder: Embedder) -> grouping.Grouped:
    return grouping.group(candidates, embedder)


def held_quotes(root: Path) -> set[tuple[str, str]]:
    """(file, canonical quote) of every evidence entry already in memory that names a file."""
    out = set()
    for item in load_memory(root).items.values():
        for ev in item.evidence:
            path, _, line = ev.session.rpartition(":")
            if path and line.isdigit():
                out.add((path, canonical(ev.quote)))
    return out


def _outcome(c: Candidate, d: Decision) -> Outcome:
    action = {"promote": "write"}.get(d.action, d.action)
    return Outcome(
        action=action,
        statement=redact(c.fact.statement),
        project=c.fact.project,
        sources=[c.session, *(e.session for e in c.also)],
        reason=redact(d.reason),
        target=d.target,
    )


@flow(name="import-memories")
def import_memories(
    agents: list[str] | None = None,
    paths: list[str] | None = None,
    dry_run: bool = False,
    home: str | None = None,
) -> ImportSummary:
    """Import the agents' own memory files (all four when ``agents`` is empty), or the
    Markdown files ``paths`` read as the one agent named; ``home`` overrides DOSE_MEM_HOME."""
    settings = get_settings(home=Path(home) if home else None)
    log = get_run_logger()
    names = [agent_id(a) for a in (agents or AGENTS)]
    summary = ImportSummary(run_id=_run_id(), dry_run=dry_run, agents=names)
    with ingest_lock(settings.state_path, wait_s=5.0):
        root = settings.memory_path
        if not has_memory(root) and not dry_run:
            init_memory(root)
        embedder = make_embedder(settings)
        if has_memory(root):
            if not dry_run:
                append.recover(root, settings.state_path)
            reindex(settings, embedder)
        registry = load_memory(root).registry if has_memory(root) else Registry()
        entries = ledger.load(settings.state_path / "ledger.json")
        undone = rolled_back_runs(root) if has_memory(root) else set()
        held = held_quotes(root) if has_memory(root) else set()
        candidates: list[Candidate] = []
        done: dict[str, ledger.LedgerEntry] = {}
        standing: set[str] = set()  # lines of instructions and memory files; not daily logs
        for source in locate(names, paths or [], settings, registry):
            key = f"{LEDGER_PREFIX}{source.path}"
            try:
                digest = reading.file_hash(source.path.read_bytes())
                entry = entries.get(key)
                if entry and entry.hash == digest and entry.run not in undone:
                    summary.files_unchanged.append(str(source.path))
                    continue
                found, digest = read_file(source, settings, registry)
            except (OSError, reading.UnreadableFile) as exc:
                summary.problems.append(f"{source.path}: {exc.__class__.__name__}: {exc}")
                continue
            except Exception as exc:  # a model failing on a daily log fails that file only
                summary.problems.append(f"{source.path}: not read this run ({exc})")
                continue
            summary.files_read.append(str(source.path))
            summary.statements += len(found)
            fresh = [
                c for c in found if (reading.source_of(c)[0], canonical(c.fact.quote)) not in held
            ]
            summary.already_in_memory += len(found) - len(fresh)
            candidates += fresh
            if source.kind != "daily":
                standing |= {c.session for c in fresh}
            done[key] = ledger.LedgerEntry(turns=len(found), hash=digest, run=summary.run_id)
        kept, rejected = screen(candidates, frozenset(standing))
        summary.prescreen_rejected = len(rejected)
        grouped = group_equivalents(kept, embedder)
        summary.grouped_evidence = grouped.merged
        summary.superseded_in_import = len(grouped.superseded)
        summary.conflicts = [redact(c) for c in grouped.conflicts]
        near = find_neighbours(grouped.kept, settings, embedder)
        decisions = _with_retries(judge_all, settings)(grouped.kept, near, settings)
        decided = list(zip(grouped.kept, decisions, strict=True))
        summary.outcomes = [_outcome(c, d) for c, d in decided]
        summary.outcomes += [
            _outcome(c, Decision(action="reject", reason=r)).model_copy(
                update={"action": "superseded"}
            )
            for c, r in grouped.superseded
        ]
        summary.outcomes += [_outcome(c, Decision(action="reject", reason=r)) for c, r in rejected]
        summary.decisions = dict(Counter(o.action for o in summary.outcomes))
        if not dry_run:
            memory = load_memory(root)
            paths_of = {i: item.path for i, item in memory.items.items()}
            writes = append.plan(root, summary.run_id, decided, paths_of, memory.registry)
            counts = {"files": len(summary.files_read)} | {
                k: summary.decisions.get(k, 0)
                for k in ("write", "merge", "supersede", "superseded", "reject")
            }
            journal = append.Journal(
                run_id=summary.run_id,
                writes=writes,
                message=append.commit_message(summary.run_id, counts, flow="import"),
                ledger=done,
            )
            journal = append_cards(settings, journal)
            summary.commit = journal.commit
            summary.cards_written, summary.evidence_appended = append.written(writes)
            if writes:
                reindex(settings, embedder)
    log.info(
        "import %s%s: %d files, decisions %s, commit %s",
        summary.run_id,
        " (dry run)" if dry_run else "",
        len(summary.files_read),
        summary.decisions,
        summary.commit,
    )
    _artifacts(summary)
    return summary


def _artifacts(summary: ImportSummary) -> None:
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(summary.decisions.items())) or "none"
    rows = [
        f"# Import run `{summary.run_id}`{' (dry run)' if summary.dry_run else ''}",
        "",
        "| | |",
        "|---|---|",
        f"| agents | {', '.join(summary.agents)} |",
        f"| files read | {len(summary.files_read)} |",
        f"| files unchanged since the last import | {len(summary.files_unchanged)} |",
        f"| statements | {summary.statements} |",
        f"| already in memory | {summary.already_in_memory} |",
        f"| pre-screen rejected | {summary.prescreen_rejected} |",
        f"| evidence from other files grouped in | {summary.grouped_evidence} |",
        f"| superseded by a newer statement | {summary.superseded_in_import} |",
        f"| decisions | {kinds} |",
        f"| cards written | {summary.cards_written} |",
        f"| commit | {summary.commit or 'none'} |",
    ]
    if summary.conflicts:
        rows += ["", "## Conflicts for you to check", ""] + [f"- {c}" for c in summary.conflicts]
    if summary.problems:
        rows += ["", "## Files skipped", ""] + [f"- {p}" for p in summary.problems]
    create_markdown_artifact(
        key="import-summary",
        description=f"import run {summary.run_id}",
        markdown="\n".join(rows),
    )
    create_table_artifact(
        key="import-decisions",
        description=f"decisions of import run {summary.run_id}",
        table=[o.model_dump() | {"sources": ", ".join(o.sources)} for o in summary.outcomes],
    )


if __name__ == "__main__":
    import_memories()
