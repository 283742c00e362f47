"""The ``ingest`` flow: ended sessions in, verified cards and one git commit out.

capture -> digest -> distill -> verify -> pre-screen -> neighbours -> judge -> append ->
reindex; beside it, task state (``flows/task_events.py``): finishing events found in the
sessions go to the task journal, finished tasks' results join the candidates, and the
task pages get one commit of their own. Every step is a plain function (flows/*.py)
wrapped here as a Prefect task; the steps that call out to a model retry with backoff
(``llm_retry_delays_s``).

A model that keeps hanging, failing or answering garbage after those retries fails only
the sessions it was asked about: they are listed in the run summary, left out of the
ledger, and so read again by the next run. Nothing of theirs is written.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run
from pydantic import BaseModel, Field

from flows import append, filing, judge, neighbours, prescreen, rules, task_events, verify
from flows import digest as digest_step
from flows import distill as distill_step
from flows.capture import ledger, listing, sources
from flows.capture.ledger import Pending
from flows.capture.sources import Found
from flows.digest import Digest
from flows.facts import Candidate, Decision, Fact, Neighbour
from flows.lock import ingest_lock
from flows.reindex import refresh_index
from memory_repo import held as held_store
from memory_repo import ingest_runs
from memory_repo.bootstrap import has_memory, init_memory
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.index.query import Index, IndexMissing
from memory_repo.models import Registry
from memory_repo.registry import load_registry
from memory_repo.secrets import redact
from memory_repo.settings import Settings, get_settings
from memory_repo.store import load_memory
from memory_repo.tasks import journal as task_journal
from memory_repo.tasks.fold import fold
from memory_repo.tasks.model import TaskEvent
from memory_repo.tasks.pages import write_pages
from memory_repo.transcripts.transcript import session_key


class RunSummary(BaseModel):
    run_id: str
    recovered: list[str] = Field(default_factory=list)
    sessions_read: int = 0
    sessions_failed: list[str] = Field(default_factory=list)
    facts_distilled: int = 0
    quotes_rejected: int = 0
    prescreen_rejected: int = 0
    decisions: dict[str, int] = Field(default_factory=dict)
    cards_written: int = 0
    evidence_appended: int = 0
    commit: str | None = None
    held: int = 0
    sessions: list[ingest_runs.SessionRecord] = Field(default_factory=list)
    task_events: int = 0
    task_results_offered: int = 0
    task_pages_commit: str | None = None


@task(cache_policy=NO_CACHE)
def capture(settings: Settings, now: dt.datetime) -> tuple[list[Pending], list[Found]]:
    """The sessions to read now (new ones whole, grown ones from their new part) and
    every session found, with why each of the others is not read."""
    found = sources.survey(settings, now)
    return listing.to_read(found, settings), found


@task(cache_policy=NO_CACHE)
def digest(item: Pending, registry: Registry, personal_agents: list[str]) -> Digest:
    return digest_step.digest(item, registry, personal_agents)


@task(cache_policy=NO_CACHE)
def distill(d: Digest, settings: Settings, registry: Registry) -> list[Fact]:
    with _redacted_failure():
        return distill_step.distill(d, settings, registry)


@task(cache_policy=NO_CACHE)
def verify_quotes(facts: list[Fact], d: Digest) -> tuple[list[Candidate], list[Fact]]:
    return verify.verify(facts, d)


@task(cache_policy=NO_CACHE)
def screen(
    candidates: list[Candidate], standing: frozenset[str] = frozenset()
) -> tuple[list[Candidate], list[tuple[Candidate, str]]]:
    """The pre-screen; candidates whose ``session`` is in ``standing`` are standing
    instructions (``prescreen.screen``), as lines of an imported memory file are."""
    kept, rejected = [], []
    for c in candidates:
        reason = prescreen.screen(c, standing=c.session in standing)
        if reason:
            rejected.append((c, reason))
        else:
            kept.append(c)
    return kept, rejected


@task(cache_policy=NO_CACHE)
def find_neighbours(
    candidates: list[Candidate], settings: Settings, embedder: Embedder
) -> list[list[Neighbour]]:
    try:
        index = Index.open(settings.index_path, embedder)
    except IndexMissing:
        index = None
    items = load_memory(settings.memory_path).items
    return [neighbours.neighbours(c, index, items) for c in candidates]


@task(cache_policy=NO_CACHE)
def judge_all(
    candidates: list[Candidate], near: list[list[Neighbour]], settings: Settings
) -> list[Decision]:
    with _redacted_failure():
        return judge.judge(candidates, near, settings)


@task(cache_policy=NO_CACHE)
def append_cards(settings: Settings, journal: append.Journal) -> append.Journal:
    return append.apply(settings.memory_path, settings.state_path, journal)


@task(cache_policy=NO_CACHE)
def reindex(settings: Settings, embedder: Embedder) -> None:
    refresh_index(settings, embedder)


@task(cache_policy=NO_CACHE)
def session_task_events(
    settings: Settings, digests: list[Digest], now: dt.datetime
) -> tuple[int, list[TaskEvent]]:
    return task_events.ingest_sessions(settings.tasks_path, digests, now)


@task(cache_policy=NO_CACHE)
def task_results(settings: Settings, events: list[TaskEvent]) -> tuple[list[Candidate], list[str]]:
    return task_events.result_candidates(settings.tasks_path, events)


@task(cache_policy=NO_CACHE)
def task_pages(settings: Settings, now: dt.datetime) -> str | None:
    """Read the journal again at the run's end: the service may have accepted live
    events while the run judged and wrote."""
    events, _ = task_journal.read(settings.tasks_path)
    return write_pages(settings.memory_path, fold(events).values(), now, settings.task_stale_hours)


def fold_duplicates(candidates: list[Candidate]) -> list[Candidate]:
    """Near-identical facts from this same run become one candidate with more evidence."""
    kept: list[Candidate] = []
    for c in candidates:
        words = rules.subject(c.fact.statement)
        twin = next(
            (
                k
                for k in kept
                if rules.jaccard(words, rules.subject(k.fact.statement)) >= rules.NEAR_DUPLICATE
                and not (c.correction and words - rules.subject(k.fact.statement))
            ),
            None,
        )
        if twin is None:
            kept.append(c)
        else:
            twin.also.append(append.evidence_of(c, ""))
    return kept


class ModelFailed(RuntimeError):
    """A model step failed; its message is redacted (Prefect stores it in the task state)."""


@contextmanager
def _redacted_failure() -> Iterator[None]:
    """Re-raise any failure with a redacted message and no chained exception: an
    instructor validation error quotes the model's answer, which quotes the session."""
    try:
        yield
    except Exception as exc:
        raise ModelFailed(redact(f"{type(exc).__name__}: {exc}")[:2000]) from None


class RedactLogs(logging.Filter):
    """Rewrites a record whose text (or traceback) holds a secret before any handler,
    Prefect's API handler included, stores it."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        clean = redact(text)
        if clean != text:
            record.msg, record.args, record.exc_info, record.exc_text = clean, (), None, None
        return True


def redact_logs() -> None:
    """Install ``RedactLogs`` on every handler of Prefect's loggers, once."""
    for name in ("", "prefect.extra", "prefect.flow_runs", "prefect.task_runs"):
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, RedactLogs) for f in handler.filters):
                handler.addFilter(RedactLogs())


def _with_retries(step: Any, settings: Settings) -> Any:
    delays = settings.llm_retry_delays_s
    return step.with_options(retries=len(delays), retry_delay_seconds=delays or 0)


def _run_id() -> str:
    short = (flow_run.get_id() or uuid.uuid4().hex)[:8]
    return f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%SZ}-{short}"


@flow(name="ingest")
def ingest(home: str | None = None) -> RunSummary:
    """One ingest run over every configured source; ``home`` overrides DOSE_MEM_HOME."""
    settings = get_settings(home=Path(home) if home else None)
    redact_logs()
    summary = RunSummary(run_id=_run_id())
    with ingest_lock(settings.state_path, wait_s=5.0):
        root = settings.memory_path
        if not has_memory(root):
            init_memory(root)
        summary.recovered = append.recover(root, settings.state_path)
        embedder = make_embedder(settings)
        reindex(settings, embedder)
        now = dt.datetime.now(dt.UTC)
        items, found = capture(settings, now)
        summary.sessions_read = len(items)
        digests, candidates, failed = _distil_sessions(items, settings, summary)
        summary.task_events, journal_events = session_task_events(settings, digests, now)
        offered, offered_tasks = task_results(settings, journal_events)
        summary.task_results_offered = len(offered)
        by_key = {d.key: d for d in digests}
        decided, held = _decide(candidates + offered, by_key, settings, embedder, summary, failed)
        summary.sessions_failed = sorted(failed)
        summary.sessions = listing.records(
            found,
            {i.transcript.key for i in items},
            failed,
            load_registry(settings.memory_path),
            settings.capture_personal_agents,
        )
        summary.decisions = dict(Counter(d.action for _, d in decided))
        summary.held = hold(settings, summary.run_id, held, by_key)
        _write(items, decided, failed, settings, embedder, summary)
        if not failed & {_session_key(c) for c in offered}:
            task_events.mark_proposed(settings.tasks_path, offered_tasks)
        summary.task_pages_commit = task_pages(settings, now)
    get_run_logger().info(
        "ingest %s: %s", summary.run_id, summary.model_dump_json(exclude={"sessions"})
    )
    _artifacts(summary, decided)
    _record(settings, summary, decided, held)
    return summary


def _session_key(c: Candidate) -> str:
    """The key a candidate's session has in the ledger and in ``failed``."""
    return session_key(c.agent, c.session)


def _distil_sessions(
    items: list[Pending], settings: Settings, summary: RunSummary
) -> tuple[list[Digest], list[Candidate], set[str]]:
    """Digest, distil and verify each session: its digests (all of them, for task
    events), the candidates whose quotes verified, and the keys of sessions whose model
    step failed after its retries (nothing of theirs goes on; they are read again)."""
    registry = load_memory(settings.memory_path).registry
    distil_with_retries = _with_retries(distill, settings)
    digests: list[Digest] = []
    candidates: list[Candidate] = []
    failed: set[str] = set()
    for item in items:
        d = digest(item, registry, settings.capture_personal_agents)
        digests.append(d)
        try:
            facts = distil_with_retries(d, settings, registry)
        except Exception as exc:  # any model failure fails this session only
            get_run_logger().warning(
                "distil of %s failed after retries (%s); it is read again next run",
                item.transcript.key,
                exc,
            )
            failed.add(item.transcript.key)
            continue
        kept, dropped = verify_quotes(facts, d)
        summary.facts_distilled += len(facts)
        summary.quotes_rejected += len(dropped)
        candidates += kept
    return digests, candidates, failed


def _decide(
    candidates: list[Candidate],
    digests: dict[str, Digest],
    settings: Settings,
    embedder: Embedder,
    summary: RunSummary,
    failed: set[str],
) -> tuple[list[tuple[Candidate, Decision]], list[tuple[Candidate, str]]]:
    """Pre-screen, file under projects, fold this run's duplicates, find neighbours and
    judge: the decisions, and the facts held for want of a project (``flows/filing.py``).
    A judge that fails after its retries adds the judged sessions to ``failed`` and
    decides nothing for them; pre-screen rejections of sessions that did not fail are
    decisions too."""
    kept, rejected = screen(candidates)
    summary.prescreen_rejected = len(rejected)
    kept, held = filing.file_all(kept, digests, load_registry(settings.memory_path))
    kept = fold_duplicates(kept)
    near = find_neighbours(kept, settings, embedder)
    try:
        decisions = _with_retries(judge_all, settings)(kept, near, settings)
    except Exception as exc:  # the judged sessions fail, the rest go on
        get_run_logger().warning(
            "judge failed after retries (%s); its sessions are read again", exc
        )
        failed |= {_session_key(c) for c in kept}
        kept, decisions = [], []
    decided = list(zip(kept, decisions, strict=True))
    decided += [
        (c, Decision(action="reject", reason=r))
        for c, r in rejected
        if _session_key(c) not in failed
    ]
    return decided, [(c, why) for c, why in held if _session_key(c) not in failed]


def hold(
    settings: Settings, run_id: str, held: list[tuple[Candidate, str]], digests: dict[str, Digest]
) -> int:
    """Keep the held facts under state (``memory_repo.held``); the number held."""
    now = dt.datetime.now(dt.UTC)
    cwds = {key: d.cwd for key, d in digests.items()}
    facts = [
        held_store.HeldFact(
            key=held_store.fact_key(c.agent, c.session, c.fact.quote),
            run=run_id,
            at=c.at or now,
            agent=c.agent,
            session=c.session,
            cwd=cwds.get(_session_key(c)),
            type=str(c.fact.type),
            statement=c.fact.statement,
            quote=c.fact.quote,
            reason=why,
        )
        for c, why in held
    ]
    held_store.add(settings.state_path, facts)
    return len(facts)


def _write(
    items: list[Pending],
    decided: list[tuple[Candidate, Decision]],
    failed: set[str],
    settings: Settings,
    embedder: Embedder,
    summary: RunSummary,
) -> None:
    """Plan every file, journal it with the ledger entries of the sessions that did
    not fail, append in one commit and reindex when anything was written."""
    memory = load_memory(settings.memory_path)
    paths = {i: item.path for i, item in memory.items.items()}
    writes = append.plan(settings.memory_path, summary.run_id, decided, paths, memory.registry)
    counts = {k: summary.decisions.get(k, 0) for k in ("promote", "merge", "supersede", "reject")}
    journal = append.Journal(
        run_id=summary.run_id,
        writes=writes,
        message=append.commit_message(summary.run_id, {"sessions": len(items), **counts}),
    )
    ledger.record(
        journal.ledger, [i for i in items if i.transcript.key not in failed], summary.run_id
    )
    journal = append_cards(settings, journal)
    summary.commit = journal.commit
    summary.cards_written, summary.evidence_appended = append.written(writes)
    if writes:
        reindex(settings, embedder)


def _record(
    settings: Settings,
    summary: RunSummary,
    decided: list[tuple[Candidate, Decision]],
    held: list[tuple[Candidate, str]],
) -> None:
    """The run's decisions, held facts and sessions under state, for the inspector and
    ``dose-mem sessions`` (``memory_repo.ingest_runs``); unchanged sessions are counted."""
    unchanged = Counter(r.agent for r in summary.sessions if r.status == "unchanged")
    ingest_runs.save(
        settings.state_path,
        ingest_runs.RunRecord(
            run_id=summary.run_id,
            flow_run_id=flow_run.get_id(),
            finished=dt.datetime.now(dt.UTC),
            sessions_read=summary.sessions_read,
            commit=summary.commit,
            decisions=[
                ingest_runs.DecisionRecord(
                    statement=c.fact.statement,
                    action=d.action,
                    target=d.target,
                    reason=d.reason,
                    agent=c.agent,
                    session=c.session,
                    project=c.fact.project,
                )
                for c, d in decided
            ]
            + [
                ingest_runs.DecisionRecord(
                    statement=c.fact.statement,
                    action="hold",
                    reason=why,
                    agent=c.agent,
                    session=c.session,
                )
                for c, why in held
            ],
            sessions=[r for r in summary.sessions if r.status != "unchanged"],
            unchanged=dict(unchanged),
        ),
    )


def _artifacts(summary: RunSummary, decided: list[tuple[Candidate, Decision]]) -> None:
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(summary.decisions.items())) or "none"
    create_markdown_artifact(
        key="ingest-summary",
        description=f"ingest run {summary.run_id}",
        markdown="\n".join(
            [
                f"# Ingest run `{summary.run_id}`",
                "",
                "| | |",
                "|---|---|",
                f"| sessions read | {summary.sessions_read} |",
                f"| sessions failed (retried next run) | {len(summary.sessions_failed)} |",
                f"| facts distilled | {summary.facts_distilled} |",
                f"| quotes rejected | {summary.quotes_rejected} |",
                f"| pre-screen rejected | {summary.prescreen_rejected} |",
                f"| decisions | {kinds} |",
                f"| cards written | {summary.cards_written} |",
                f"| evidence appended | {summary.evidence_appended} |",
                f"| commit | {summary.commit or 'none (nothing new)'} |",
                f"| facts held (project unknown) | {summary.held} |",
                f"| task events from sessions | {summary.task_events} |",
                f"| task results offered | {summary.task_results_offered} |",
                f"| task pages commit | {summary.task_pages_commit or 'none (unchanged)'} |",
                f"| recovered runs | {', '.join(summary.recovered) or 'none'} |",
            ]
        ),
    )
    create_table_artifact(
        key="ingest-decisions",
        description=f"decisions of ingest run {summary.run_id}",
        table=[
            {
                "statement": redact(c.fact.statement),
                "action": d.action,
                "target": d.target or "",
                "reason": redact(d.reason),
                "agent": c.agent,
                "session": c.session,
            }
            for c, d in decided
        ],
    )


if __name__ == "__main__":
    ingest()
