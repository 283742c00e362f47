"""The read path as a library: identity -> trigger -> scope -> retrieve -> gate -> assemble.

``RecallEngine`` holds what must persist across requests (the open index, the registry,
session state); the HTTP app, the MCP server and the evaluation all call it directly.
It never writes cards.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from memory_repo.errors import UnknownItem
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.index.hits import Hit
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.snapshot_load import Loader
from memory_repo.layers import l0, l1, l2
from memory_repo.models import GLOBAL, Item, Project, Registry
from memory_repo.recall_log import Kind, RecallLog
from memory_repo.registry import REGISTRY_FILE, load_registry
from memory_repo.settings import Settings
from memory_repo.store import load_file
from memory_repo.tasks.view import line
from profiles.model import Profile
from profiles.overrides import AgentProfiles
from recall_api.assemble import assemble, assemble_tasks, render
from recall_api.bridge import Bridge
from recall_api.evidence import Prompt, read_prompt
from recall_api.gate import Judged, decide
from recall_api.given import Given, GivenStore, version
from recall_api.models import (
    HeldItem,
    Identity,
    InjectedItem,
    Reason,
    RecallRequest,
    RecallResult,
)
from recall_api.relevance import Context, RelevanceModel, RepoModel, shipped_model
from recall_api.scoping import (
    Resolution,
    allowed,
    gate_project,
    prefilter_for,
    resolve_project,
)
from recall_api.task_board import TaskBoard
from recall_api.triggers import SessionTracker, cue_in, fired

CANDIDATES = 10
# A prompt shaped as a question, in English or Chinese.
_QUESTION = re.compile(r"[?？]|吗|呢|没有?\s*$|了没")
log = logging.getLogger(__name__)


@dataclass
class Trace:
    """How one recall was decided, for the recall log: how the project was resolved,
    the hits the gate saw (in retrieval order), how the gate judged each, and which of
    those that passed the agent already held."""

    how: str = "none"
    hits: list[Hit] = field(default_factory=list)
    judged: list[Judged] = field(default_factory=list)
    held: list[HeldItem] = field(default_factory=list)


def prefilter_warm() -> Prefilter:
    return Prefilter(clauses=[ScopeClause(projects=[GLOBAL])])


class RecallEngine:
    def __init__(
        self,
        memory_root: Path,
        index_dir: Path,
        profiles: dict[str, Profile],
        embedder: Embedder | Future[Embedder] | None = None,
        *,
        recall_log: RecallLog | None = None,
        today: Callable[[], dt.date] = dt.date.today,
        loader: Loader = "inline",
        tasks: TaskBoard | None = None,
        relevance: RelevanceModel | None = None,
    ) -> None:
        self.memory_root = Path(memory_root)
        self._relevance = RepoModel(self.memory_root, relevance or shipped_model())
        self.tasks = tasks
        self.index = Index.open(
            Path(index_dir), embedder or make_embedder(Settings()), loader=loader
        )
        self.profiles = profiles
        self.overrides = AgentProfiles(self.memory_root)
        self.sessions = SessionTracker()
        self.given = GivenStore()
        self.recall_log = recall_log
        self._today = today
        self._registry_mtime = -1.0
        self._registry = Registry()
        self._lock = threading.Lock()
        self._reload: threading.Thread | None = None
        self.bridge = Bridge.for_embedder(self.index.embedder)

    # -- state that may change under a running service -------------------------------
    @property
    def relevance(self) -> RelevanceModel:
        """The memory's own relevance model when one was applied, else the shipped one
        (or the one an evaluation set)."""
        return self._relevance.current()

    @relevance.setter
    def relevance(self, model: RelevanceModel) -> None:
        self._relevance.default = model

    @property
    def registry(self) -> Registry:
        """The registry, re-read only when its file changed (one stat per request)."""
        path = self.memory_root / REGISTRY_FILE
        mtime = path.stat().st_mtime if path.exists() else 0.0
        if mtime != self._registry_mtime:
            with self._lock:
                self._registry = load_registry(self.memory_root)
                self._registry_mtime = mtime
        return self._registry

    def refresh(self) -> bool:
        """Pick up a finished reindex; in-flight requests keep the table they started with.

        A reindex caught half-way (its meta written, its table not yet openable) must not
        fail requests: the engine keeps serving the table it has and tries again next time.
        """
        try:
            return self.index.reload_if_changed()
        except Exception:
            log.warning("index reload failed; still serving the previous version", exc_info=True)
            return False

    def refresh_soon(self) -> None:
        """When the index moved, start ``refresh`` on its own thread unless one is
        running; return at once (one stat when nothing changed).

        The only owner of reloads: a load takes a child process's start plus the read
        (seconds; docs/index.md), and the request that noticed the new version, like
        every other, answers from the snapshot it has meanwhile.
        """
        if not self.index.changed():
            return
        with self._lock:
            if self._reload is not None and self._reload.is_alive():
                return
            self._reload = threading.Thread(target=self.refresh, name="index-reload", daemon=True)
            self._reload.start()

    def warm_up(self) -> None:
        """Load the embedding model and the table's files now, not on an agent's first prompt."""
        self.index.embedder.embed_query("warm up")
        self.index.search("warm up 预热", prefilter_warm(), k=1)  # CJK loads jieba's dictionary

    def today(self) -> dt.date:
        """The day lifecycle rules are judged on (injectable for tests)."""
        return self._today()

    def forget_sessions(self) -> None:
        """Forget every session's state (turns, projects, what each was given): a replay
        of logged or simulated turns starts as a freshly started service would."""
        self.sessions = SessionTracker()
        self.given = GivenStore()

    def profile(self, identity: Identity, override: Profile | None = None) -> Profile:
        """``override`` when given; else the token's profile refined by the agent's
        override file in the memory repository (``profiles/overrides.py``)."""
        if override is not None:
            return override
        return self.overrides.for_agent(identity.agent, self.profiles[identity.profile])

    # -- operations ----------------------------------------------------------------------
    def recall(
        self, identity: Identity, request: RecallRequest, profile_override: Profile | None = None
    ) -> RecallResult:
        profile = self.profile(identity, profile_override)
        trace = Trace()
        result = self._recall(identity, request, profile, trace)
        if self.recall_log is not None:
            self.recall_log.record(
                "recall",
                agent=identity.agent,
                profile=profile.name,
                session=request.session_id,
                turn=request.turn,
                project=result.project,
                project_how=trace.how,
                cwd=request.cwd,
                trigger=result.trigger,
                reason=result.reason.value,
                prompt=request.prompt,
                candidates=partial(_candidates, trace, result, profile),
                injected=[i.id for i in result.items],
                bytes=result.bytes,
            )
        return result

    def _recall(
        self,
        identity: Identity,
        request: RecallRequest,
        profile: Profile,
        trace: Trace,
    ) -> RecallResult:
        """The decision; ``trace`` receives how it was reached, for the recall log.

        For an agent that keeps its injections (``Profile.keeps``), a passing item the
        session holds in the version it would be shown is not given again: it takes no
        budget and no place under the item cap (``RecallResult.held``), and what is
        given is remembered for the session (``GivenStore``). ``context_reset`` forgets
        what the session was given first. Task-state lines are held alike: a task whose
        line has not changed since the agent was given it is not given again.
        """
        if request.context_reset:
            self.given.forget(identity.agent, request.session_id)
        keeps = profile.keeps(identity.agent)
        registry = self.registry
        where = resolve_project(
            registry, project=request.project, cwd=request.cwd, prompt=request.prompt
        )
        trace.how = where.how
        before = self.sessions.observe(
            identity.agent, request.session_id, request.turn, where.project
        )
        quiet = partial(RecallResult.quiet, profile=profile.name, project=where.project)
        if self.tasks is not None and cue_in(request.prompt, profile.status_cues):
            answered = self._task_state(identity, profile, registry, where, request, keeps, trace)
            if answered is not None:
                return answered
        trigger = fired(
            profile, turn=request.turn, before=before, project=where.project, prompt=request.prompt
        )
        if trigger is None:
            return quiet(Reason.not_triggered)
        found = self._search(identity, request, profile, registry, where)
        if isinstance(found, Reason):
            if _refused(identity, where):  # the answer names no project it refused
                return RecallResult.quiet(found, profile=profile.name, trigger=trigger)
            return quiet(found, trigger=trigger)
        hits = found
        prompt = read_prompt(request.prompt, self.index.parts, self.bridge)
        cued = cue_in(request.prompt, profile.cues) is not None
        trace.hits = hits
        judged = decide(
            prompt,
            hits,
            profile,
            self.relevance,
            cued=cued,
            project=gate_project(profile, where),
            trigger=trigger,
        )
        passing = _passing(judged, trace.judged)
        held = self.given.held(identity.agent, request.session_id) if keeps else {}
        if held:
            passing = _not_held(passing, held, profile, trace.held)
        items, text = assemble(passing, profile)
        if keeps and items:
            self._remember(identity, request, items)
        if not items:
            why = Reason.held if trace.held else Reason.below_threshold
            return quiet(why, trigger=trigger, considered=len(hits), held=trace.held)
        return RecallResult.dose(
            items,
            text,
            profile=profile.name,
            project=where.project,
            trigger=trigger,
            considered=len(hits),
            held=trace.held,
        )

    def _search(
        self,
        identity: Identity,
        request: RecallRequest,
        profile: Profile,
        registry: Registry,
        where: Resolution,
    ) -> list[Hit] | Reason:
        """The candidates in the token's and profile's scope, or why there are none."""
        if _refused(identity, where):
            return Reason.out_of_scope
        prefilter = prefilter_for(profile, identity, registry, where.project, self._today())
        if prefilter.is_empty():
            return Reason.out_of_scope
        hits = self.index.search(request.prompt, prefilter, k=CANDIDATES)
        return hits or Reason.no_hits

    def candidates(
        self, identity: Identity, request: RecallRequest, profile: Profile
    ) -> tuple[Prompt, list[Hit], Context]:
        """What the gate would judge for this request, whatever the trigger and session
        say (no session state is touched): for fitting and checking the relevance model
        on exactly the candidates recall sees."""
        registry = self.registry
        where = resolve_project(
            registry, project=request.project, cwd=request.cwd, prompt=request.prompt
        )
        found = self._search(identity, request, profile, registry, where)
        prompt = read_prompt(request.prompt, self.index.parts, self.bridge)
        cued = cue_in(request.prompt, profile.cues) is not None
        context = Context(cued, gate_project(profile, where))
        return prompt, [] if isinstance(found, Reason) else found, context

    def _remember(
        self, identity: Identity, request: RecallRequest, items: list[InjectedItem]
    ) -> None:
        """What this turn gave, as the session now holds it."""
        given = [(i.id, version(i.text)) for i in items]
        self.given.give(identity.agent, request.session_id, request.turn, given)

    def _task_state(
        self,
        identity: Identity,
        profile: Profile,
        registry: Registry,
        where: Resolution,
        request: RecallRequest,
        keeps: bool,
        trace: Trace,
    ) -> RecallResult | None:
        """A status question's answer from task state: the tasks it asks about, or
        ``no_task`` when it is a question and no visible task fits; ``None`` (go on to
        cards) when the cue was not a question and no task fits. For an agent that
        keeps its injections, a task line it holds as it is now is not given again
        (``held``; nothing given and something held: reason ``held``)."""
        assert self.tasks is not None
        board = self.tasks
        project, prompt = where.project, request.prompt
        tasks = board.visible(identity, profile, registry, project)
        chosen = board.answer(prompt, tasks, project, registry) if tasks else None
        quiet = partial(RecallResult.quiet, profile=profile.name, project=project, trigger="status")
        no_task = quiet(Reason.no_task)
        if not chosen:
            if _QUESTION.search(prompt):
                return no_task
            return None
        now = board.now()
        lines = [
            (
                t.id,
                t.project,
                (f"[{t.project}] " if t.project else "") + line(t, now, board.stale_hours, 160),
            )
            for t in chosen
        ]
        held = self.given.held(identity.agent, request.session_id) if keeps else {}
        if held:
            lines = [t for t in lines if not _holds(held, t[0], f"- {t[2]}", trace.held)]
        items, text = assemble_tasks(lines, profile)
        if keeps and items:
            self._remember(identity, request, items)
        if not items:
            return quiet(Reason.held, held=trace.held) if trace.held else no_task
        return RecallResult.dose(
            items,
            text,
            profile=profile.name,
            project=project,
            trigger="status",
            considered=len(tasks),
            held=trace.held,
        )

    def search(
        self,
        identity: Identity,
        query: str,
        *,
        project: str | None = None,
        cwd: str | None = None,
        k: int = 10,
        include_inactive: bool = False,
        session: str | None = None,
        turn: int | None = None,
    ) -> list[Hit]:
        """The agent's own memory_search: same scope rules, no trigger, no gate; logged
        (with the ids it returned) as a signal for the recalls before it."""
        profile = self.profile(identity)
        registry = self.registry
        where = resolve_project(registry, project=project, cwd=cwd, prompt=query)
        if project and (where.project is None or not allowed(identity, where.project)):
            hits: list[Hit] = []
        else:
            prefilter = prefilter_for(
                profile,
                identity,
                registry,
                where.project,
                self._today(),
                automatic=not include_inactive,
            )
            hits = [] if prefilter.is_empty() else self.index.search(query, prefilter, k=k)
        self._signal(
            "search",
            identity,
            session,
            turn,
            project=where.project,
            project_how=where.how,
            cwd=cwd,
            prompt=query,
            ids=[h.item_id for h in hits],
        )
        return hits

    def read(
        self,
        identity: Identity,
        item_id: str,
        *,
        session: str | None = None,
        turn: int | None = None,
    ) -> Item:
        """One item in full (L2), readable even when superseded, expired or archived;
        a successful read is logged as a signal for the recalls before it.

        An item of a project outside the token's set is reported as missing, so ids of
        other projects cannot be probed.
        """
        path = self.index.item_path(item_id)
        if path is None:
            raise UnknownItem(item_id)
        items, _ = load_file(self.memory_root, path, self.registry)
        item = next((i for i in items if i.id == item_id), None)
        if item is None or not allowed(identity, item.project):
            raise UnknownItem(item_id)
        self._signal("read", identity, session, turn, project=item.project, ids=[item_id])
        return item

    def _signal(
        self,
        kind: Kind,
        identity: Identity,
        session: str | None,
        turn: int | None,
        **fields: object,
    ) -> None:
        """Log a search or read: what tells whether the recalls before it served."""
        if self.recall_log is not None:
            self.recall_log.record(
                kind,
                agent=identity.agent,
                profile=identity.profile,
                session=session,
                turn=turn,
                **fields,
            )

    def visible_projects(self, identity: Identity) -> list[Project]:
        return [p for p in self.registry.projects if allowed(identity, p.id)]


def _passing(judged: Iterable[Judged], seen: list[Judged]) -> Iterator[tuple[Hit, float]]:
    """The judged hits that passed, as assembly takes them; ``seen`` receives every hit
    judged (the recall log's candidates), in the order judged."""
    for j in judged:
        seen.append(j)
        if j.passed:
            yield j.hit, j.score


def _not_held(
    passing: Iterable[tuple[Hit, float]],
    held: dict[str, Given],
    profile: Profile,
    out: list[HeldItem],
) -> Iterator[tuple[Hit, float]]:
    """The passing hits the session does not hold in the version this profile would show
    them; ``out`` receives those it holds, with the turn each was given on."""
    for hit, value in passing:
        if not _holds(held, hit.item_id, render(hit, profile.level, profile.read_with), out):
            yield hit, value


def _holds(held: dict[str, Given], item_id: str, line: str, out: list[HeldItem]) -> bool:
    """Whether the session holds ``item_id`` as ``line`` shows it; if so ``out`` receives
    it with the turn it was given on."""
    given = held.get(item_id)
    if given is None or given.version != version(line):
        return False
    out.append(HeldItem(id=item_id, turn=given.turn))
    return True


def _refused(identity: Identity, where: Resolution) -> bool:
    """An explicit project the token may not see (or none known): out of scope."""
    return where.how == "explicit" and (
        where.project is None or not allowed(identity, where.project)
    )


def _candidates(trace: Trace, result: RecallResult, profile: Profile) -> list[dict[str, object]]:
    """Each hit's score (a relevance in mode relevance), bar and fate, as
    ``recall_log.LoggedCandidate`` fields, in the order the gate judged them; the rank is
    the fused (retrieval) rank. A hit the gate never reached (mode score stops at the item
    cap) is ``item_cap`` without a score; one that passed but was not injected was
    ``held`` (with the turn it was given on) when the session holds it, else left out for
    the item cap when the cap was reached, else for the byte budget."""
    injected = {i.id for i in result.items}
    held = {h.id: h.turn for h in result.held}
    full = len(result.items) >= profile.max_items
    out: list[dict[str, object]] = []
    for j in trace.judged:
        row: dict[str, object] = {
            "id": j.hit.item_id,
            "project": j.hit.project,
            "rank": j.hit.rank,
            "score": round(j.score, 4),
            "bar": round(j.bar, 4),
        }
        if j.hit.item_id in held:
            row["dropped"] = "held"
            row["given_turn"] = held[j.hit.item_id]
        elif j.hit.item_id not in injected:
            row["dropped"] = (
                "below_threshold"
                if j.score < j.bar
                else "l0_overlap"
                if not j.headline
                else "item_cap"
                if full
                else "budget"
            )
        out.append(row)
    seen = {j.hit.item_id for j in trace.judged}
    out += [
        {"id": h.item_id, "project": h.project, "rank": h.rank, "dropped": "item_cap"}
        for h in trace.hits
        if h.item_id not in seen
    ]
    return out


def item_view(item: Item) -> dict[str, object]:
    """An item as the API shows it: all three layers plus its lifecycle fields."""
    return {
        "id": item.id,
        "project": item.project,
        "type": item.type.value,
        "path": item.path,
        "created": item.created.isoformat(),
        "status": item.status.value,
        "expires": item.expires.isoformat() if item.expires else None,
        "supersedes": item.supersedes,
        "l0": l0(item),
        "l1": l1(item),
        "sections": [{"heading": c.heading, "text": c.text} for c in l2(item)],
        "evidence": [e.model_dump(mode="json") for e in item.evidence],
        "global": item.project == GLOBAL,
    }
