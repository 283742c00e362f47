"""Append: turn decisions into files and one git commit, crash-safely.

Nothing is written until the whole run is planned. The plan (every file's final bytes,
the commit message, the ledger entries) is saved first as a run journal under state;
then files are written atomically, then committed, then the ledger is updated and the
journal marked done. A run that dies anywhere in between leaves a journal behind, and the
next run finishes it before doing anything else: if the commit landed it only records the
ledger, else it rewrites the same bytes and commits. A run that fails with an exception
undoes its own files (and reverts its commit if one landed).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from flows.capture.ledger import LedgerEntry
from flows.capture.ledger import load as load_ledger
from flows.capture.ledger import save as save_ledger
from flows.card_text import card_id as text_card_id
from flows.facts import Candidate, Decision
from memory_repo import history
from memory_repo.cards import render_card
from memory_repo.files import write_atomic
from memory_repo.ingest_runs import RUN_TRAILER
from memory_repo.models import GLOBAL, Card, Evidence, Registry, Source
from memory_repo.store import evidence_sidecar

log = logging.getLogger("dose_mem.flows")
CRASH_ENV = "DOSE_MEM_CRASH_AT"


class Write(BaseModel):
    rel: str
    data: str
    before: str | None = None


class Journal(BaseModel):
    run_id: str
    status: Literal["staged", "done", "rolled_back"] = "staged"
    message: str
    writes: list[Write] = Field(default_factory=list)
    ledger: dict[str, LedgerEntry] = Field(default_factory=dict)
    commit: str | None = None


def crash_point(name: str) -> None:
    """Test hook: ``DOSE_MEM_CRASH_AT=<name>`` kills this process here, as a power cut would."""
    if os.environ.get(CRASH_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def journal_dir(state: Path) -> Path:
    return state / "runs"


def card_id(candidate: Candidate) -> str:
    """Readable and deterministic: type, the statement's content words (Chinese through
    pinyin), a short hash of statement and session (``flows/card_text.py``)."""
    fact = candidate.fact
    return text_card_id(fact.type.value, fact.statement, candidate.session)


def evidence_of(candidate: Candidate, run_id: str, decision: Decision | None = None) -> Evidence:
    """Provenance: who said it where, the quote, and (when given) what the judge decided
    and why. It lives in front matter or the sidecar, never in the body."""
    extra = {"decision": decision.action, "reason": decision.reason} if decision else {}
    return Evidence(
        agent=candidate.agent,
        session=candidate.session,
        at=candidate.at,
        quote=candidate.fact.quote,
        run=run_id,
        by_user=candidate.by_user,
        **extra,
    )


def new_card(candidate: Candidate, decision: Decision, run_id: str) -> Card:
    """The body is the statement alone: L1 and L2 are cut from it, so it carries no
    session, quote or judge reasoning (those are the evidence)."""
    fact = candidate.fact
    created = (candidate.at or dt.datetime.now(dt.UTC)).date()
    return Card(
        id=card_id(candidate),
        type=fact.type,
        project=fact.project,
        conclusion=fact.statement,
        created=created,
        confidence=fact.confidence,
        source=Source.auto,
        supersedes=[decision.target] if decision.action == "supersede" and decision.target else [],
        evidence=[evidence_of(candidate, run_id, decision), *candidate.also],
        body=fact.statement,
    )


def card_rel(card: Card, registry: Registry) -> str:
    if card.project != GLOBAL and card.project in registry.ids:
        return f"projects/{card.project}/cards/{card.id}.md"
    return f"global/cards/{card.id}.md"


def plan(
    root: Path,
    run_id: str,
    decided: list[tuple[Candidate, Decision]],
    paths: dict[str, str],
    registry: Registry,
) -> list[Write]:
    """Final bytes of every file this run touches; ``paths`` maps existing ids to their files."""
    writes: dict[str, Write] = {}
    for candidate, decision in decided:
        if decision.action in ("promote", "supersede"):
            card = new_card(candidate, decision, run_id)
            if card.project != GLOBAL and card.project not in registry.ids:
                card.project = GLOBAL
            rel = card_rel(card, registry)
            if (root / rel).exists() or rel in writes:
                continue
            writes[rel] = Write(rel=rel, data=render_card(card))
        elif decision.action == "merge" and "/cards/" in paths.get(decision.target or "", ""):
            # Only cards carry an evidence sidecar; a fact already in a brief or decision
            # log needs no new record.
            rel = Path(paths[decision.target])
            side = evidence_sidecar(rel).as_posix()
            if side not in writes:
                before = (root / side).read_text("utf-8") if (root / side).exists() else None
                writes[side] = Write(rel=side, data=before or "", before=before)
            for ev in (evidence_of(candidate, run_id, decision), *candidate.also):
                writes[side].data += ev.model_dump_json(exclude_none=True) + "\n"
    return list(writes.values())


def save_journal(state: Path, journal: Journal) -> Path:
    path = journal_dir(state) / f"{journal.run_id}.json"
    write_atomic(path, journal.model_dump_json(indent=1).encode("utf-8"))
    return path


def find_run_commit(root: Path, run_id: str) -> str | None:
    repo = history.open_repo(root)
    if not repo.head.is_valid():
        return None
    out = repo.git.log("--format=%H", "--fixed-strings", f"--grep={RUN_TRAILER}: {run_id}")
    return out.splitlines()[0] if out.strip() else None


def land(root: Path, state: Path, journal: Journal) -> Journal:
    """Write, commit, record: the one path both a fresh run and a recovery take."""
    for w in journal.writes:
        write_atomic(root / w.rel, w.data.encode("utf-8"))
    crash_point("before_commit")
    if journal.writes and journal.commit is None:
        journal.commit = find_run_commit(root, journal.run_id) or history.commit(
            root, [w.rel for w in journal.writes], journal.message
        )
    crash_point("after_commit")
    entries = load_ledger(state / "ledger.json")
    entries.update(journal.ledger)
    save_ledger(state / "ledger.json", entries)
    journal.status = "done"
    if journal.writes:
        save_journal(state, journal)
    else:  # a run that wrote nothing needs no record: keep state small at 96 runs a day
        (journal_dir(state) / f"{journal.run_id}.json").unlink(missing_ok=True)
    return journal


def apply(root: Path, state: Path, journal: Journal) -> Journal:
    """Land a planned run; on an exception undo its files (and its commit) and re-raise."""
    save_journal(state, journal)
    try:
        return land(root, state, journal)
    except BaseException:
        undo(root, state, journal)
        raise


def undo(root: Path, state: Path, journal: Journal) -> None:
    sha = journal.commit or find_run_commit(root, journal.run_id)
    if sha:
        history.revert(root, sha, f"Roll back failed ingest run {journal.run_id}")
    else:
        for w in journal.writes:
            path = root / w.rel
            if w.before is None:
                path.unlink(missing_ok=True)
            else:
                write_atomic(path, w.before.encode("utf-8"))
    journal.status = "rolled_back"
    save_journal(state, journal)
    log.warning("ingest run %s rolled back", journal.run_id)


def recover(root: Path, state: Path) -> list[str]:
    """Finish every run a crash left half done; returns their ids."""
    finished = []
    for path in sorted(journal_dir(state).glob("*.json")):
        journal = Journal.model_validate_json(path.read_bytes())
        if journal.status != "staged":
            continue
        log.warning("finishing ingest run %s left by a crash", journal.run_id)
        land(root, state, journal)
        finished.append(journal.run_id)
    return finished


def commit_message(run_id: str, counts: dict[str, int], flow: str = "ingest") -> str:
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    return f"{flow} {run_id}: {summary}\n\n{RUN_TRAILER}: {run_id}\n"


def written(writes: list[Write]) -> tuple[int, int]:
    """(new card files, evidence sidecars touched) of a planned run."""
    sidecars = sum(1 for w in writes if w.rel.endswith(".evidence.jsonl"))
    cards = sum(1 for w in writes if w.before is None and not w.rel.endswith(".evidence.jsonl"))
    return cards, sidecars
