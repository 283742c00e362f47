"""``dose-mem eval share``: a ``Summary`` of one user's evaluation, with no text in it.

Two sources:

- **an environment** (``share_environment``): every probe answered by the shipped
  profiles against its weekly snapshot (``dose-mem`` as shipped, task state on, in
  session context) and judged by its gold labels; every card probe's candidates, exactly
  as recall sees them (``relevance_data.environment_candidates``), with their features
  and labels (1 useful, -1 harmful, 0 neither);
- **a recall log** (``share_log``): the last ``days`` of this machine's log, labelled by
  what the agent did next (``log_signals``: an id it read or searched its way to after
  the recall helps; an injected id it never touched does not). Each logged recall is
  replayed against the current index for its candidates' features, under its agent's
  profile (the token's projects are not in the log, so every project the profile admits
  is searched: the candidates may be a superset of what the agent saw). A recall the
  agent followed with a search or read is ``memory``; one it did not is ``quiet``.
  The count columns read: ``need`` = memory turns, ``need_hit`` = memory turns whose
  injection the agent used, ``noneed`` and ``routine`` = quiet turns.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from evaluation.harness.environment import Environment
from evaluation.harness.metrics import COLUMNS, TurnRecord, language_tag
from evaluation.harness.probes import Probe
from evaluation.harness.run import answer_all, gold_records, keeping
from evaluation.harness.snapshots import SnapshotStore
from evaluation.harness.systems import SHIPPED, DoseMem
from evaluation.harness.task_feed import boards_for
from evaluation.pooling.summary import (
    DIGITS,
    MANIFEST,
    MIN_BUCKET,
    Bucket,
    Histogram,
    SharedTurn,
    Signals,
    Summary,
    check_vocabulary,
    histogram,
    profile_label,
    suppress_counts,
)
from evaluation.tuning.log_signals import agent_signals
from evaluation.tuning.relevance_data import Candidates, environment_candidates
from memory_repo.index.embedders import Embedder
from memory_repo.recall_log import joined, read_entries
from memory_repo.settings import Settings
from profiles.model import Profile
from recall_api.engine import RecallEngine
from recall_api.evidence import mostly_chinese
from recall_api.models import Identity, RecallRequest
from recall_api.relevance import FEATURES, RelevanceModel, features, shipped_model


def kind_of(probe: Probe) -> str:
    if probe.gold is not None and probe.gold.needs_memory:
        return "memory"
    return "routine" if "routine" in probe.tags else "chat"


def shipped_records(
    env: Environment, store: SnapshotStore, profiles: dict[str, Profile], settings: Settings
) -> list[TurnRecord]:
    """Every probe answered by the profiles as shipped, judged by gold, in session context."""
    boards = boards_for(env.tasks, store.workdir / "task-boards-share", settings)
    system = DoseMem("dose-mem", profiles, env.spec, shipped=True, tasks=boards)
    probes = [p for p in env.probes if p.gold is not None]
    answers = answer_all(system, probes, env, store, lambda _g: SHIPPED)
    return gold_records(system.name, probes, answers, keeping(profiles))


def summarise_turns(
    source: str,
    turns: list[SharedTurn],
    sums: Iterable[tuple[str, str | None, str, list[float]]],
    model: RelevanceModel,
    today: dt.date,
    signals: list[Signals] | None = None,
) -> Summary:
    """The summary of ``turns`` and the count rows ``sums`` (profile, language pair, kind,
    columns), buckets under ``MIN_BUCKET`` suppressed."""
    turns_col = COLUMNS.index("turns")
    by_profile: dict[str, np.ndarray] = {}
    by_bucket: dict[tuple[str, str | None, str], np.ndarray] = {}
    for profile, lang, kind, row in sums:
        vec = np.asarray(row, dtype=float)
        by_profile[profile] = by_profile.get(profile, 0) + vec
        by_bucket[(profile, lang, kind)] = by_bucket.get((profile, lang, kind), 0) + vec
    suppressed: list[str] = []

    def keep(label: str, vec: np.ndarray) -> list[float] | None:
        if vec[turns_col] < MIN_BUCKET:
            suppressed.append(label)
            return None
        return [round(float(v), DIGITS) for v in vec]

    profiles = {p: keep(f"profile {p}", v) for p, v in sorted(by_profile.items())}
    buckets = [
        Bucket(profile=p, lang=lang, kind=k, sums=keep(f"bucket {p}/{lang}/{k}", v))  # type: ignore[arg-type]
        for (p, lang, k), v in sorted(by_bucket.items(), key=lambda kv: str(kv[0]))
    ]
    best: dict[tuple[str, str], list[float]] = defaultdict(list)
    for t in turns:
        x = np.asarray(t.candidates)
        best[(t.profile, t.kind)].append(float(model.probability(x).max()) if len(x) else 0.0)
    histograms = []
    for (p, k), values in sorted(best.items()):
        counts = suppress_counts(histogram(values))
        if any(c is None for c in counts):
            suppressed.append(f"histogram bins {p}/{k}")
        histograms.append(Histogram(profile=p, kind=k, counts=counts))  # type: ignore[arg-type]
    summary = Summary(
        source=source,  # type: ignore[arg-type]
        created=today,
        features=list(FEATURES),
        profiles=profiles,
        buckets=buckets,
        turns=turns,
        histograms=histograms,
        signals=signals or [],
        suppressed=suppressed,
        manifest=dict(MANIFEST),
    )
    check_vocabulary(summary)
    return summary


def _turn(c: Candidates, probe: Probe, served: bool) -> SharedTurn:
    harmful = set(c.meta.get("harmful", []))  # type: ignore[call-overload]
    labels = [1 if y else (-1 if i in harmful else 0) for i, y in zip(c.ids, c.y, strict=True)]
    return SharedTurn(
        profile=profile_label(probe.profile),
        kind=kind_of(probe),  # type: ignore[arg-type]
        lang=language_tag(probe.tags),
        later=probe.turn > 1,
        served=served,
        candidates=[[round(float(v), DIGITS) for v in row] for row in c.x],
        labels=labels,
    )


def share_environment(
    env_dir: Path,
    embedder: Embedder,
    profiles: dict[str, Profile],
    workdir: Path,
    settings: Settings | None = None,
    model: RelevanceModel | None = None,
    today: dt.date | None = None,
) -> Summary:
    """The summary of one environment under the shipped ``profiles``."""
    env, store, cands = environment_candidates(env_dir, embedder, profiles, workdir)
    return environment_summary(env, store, cands, profiles, settings, model, today)


def environment_summary(
    env: Environment,
    store: SnapshotStore,
    cands: list[Candidates],
    profiles: dict[str, Profile],
    settings: Settings | None = None,
    model: RelevanceModel | None = None,
    today: dt.date | None = None,
) -> Summary:
    """``share_environment`` for an environment already loaded with its candidates."""
    settings = settings or Settings()
    records = {r.probe_id: r for r in shipped_records(env, store, profiles, settings)}
    probes = {p.id: p for p in env.probes}
    turns = [_turn(c, probes[c.key], records[c.key].served) for c in cands if c.key in records]
    sums = [
        (
            profile_label(probes[r.probe_id].profile),
            r.lang,
            kind_of(probes[r.probe_id]),
            r.counts(),
        )
        for r in records.values()
    ]
    return summarise_turns(
        "environment", turns, sums, model or shipped_model(), today or dt.date.today()
    )


def _lang(text: str) -> str:
    han = mostly_chinese(text)
    latin = any("a" <= ch.lower() <= "z" for ch in text)
    cjk = any("\u4e00" <= ch <= "\u9fff" for ch in text)
    if cjk and latin and not han:
        return "mixed"
    return "zh" if han or cjk else "en"


def share_log(
    settings: Settings,
    days: float = 30.0,
    *,
    turns: int = 3,
    now: dt.datetime | None = None,
    engine: RecallEngine | None = None,
    profiles: dict[str, Profile] | None = None,
) -> Summary:
    """The summary of the last ``days`` of this machine's recall log."""
    from profiles.model import load_profiles

    now = now or dt.datetime.now(dt.UTC)
    pairs = joined(read_entries(settings.recall_log_path, since=now - dt.timedelta(days=days)))
    by_agent = agent_signals(pairs) if pairs else {}
    profiles = profiles or load_profiles(settings.profiles_path)
    if engine is None and by_agent:
        from memory_repo.index.embedders import make_embedder

        engine = RecallEngine(
            settings.memory_path, settings.index_path, profiles, make_embedder(settings)
        )
    shared: list[SharedTurn] = []
    sums: list[tuple[str, str | None, str, list[float]]] = []
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for signals in by_agent.values():
        profile = profiles.get(signals.profile)
        label = profile_label(signals.profile)
        c = counts[label]
        c[0] += len(signals.outcomes)
        c[1] += len(signals.misses)
        c[2] += signals.used
        c[3] += signals.unused_items
        c[4] += signals.routine
        if profile is None or engine is None:
            continue
        who = Identity(agent=signals.agent, profile=signals.profile, projects=None)
        for o in signals.outcomes:
            e = o.entry
            assert e.prompt is not None  # agent_signals keeps replayable recalls only
            request = RecallRequest(
                prompt=e.prompt,
                session_id=e.session or "log",
                turn=e.turn or 1,
                cwd=e.cwd,
                project=e.project,
            )
            prompt, hits, context = engine.candidates(who, request, profile)
            helps = o.wanted | o.used
            memory = bool(helps)
            kind = "memory" if memory else "quiet"
            lang = _lang(e.prompt)
            if hits:
                shared.append(
                    SharedTurn(
                        profile=label,
                        kind=kind,  # type: ignore[arg-type]
                        lang=lang,
                        later=(e.turn or 1) > 1,
                        served=bool(o.used),
                        candidates=[
                            [round(float(v), DIGITS) for v in row]
                            for row in features(prompt, hits, context)
                        ],
                        labels=[int(h.item_id in helps) for h in hits],
                    )
                )
            injected = len(e.injected)
            row = dict.fromkeys(COLUMNS, 0.0)
            row.update(
                turns=1,
                injected=float(injected > 0),
                items=injected,
                bytes=e.bytes,
                need=float(memory),
                need_hit=float(bool(o.used)),
                noneed=float(not memory),
                noneed_silent=float(not memory and not injected),
                routine=float(o.routine),
                routine_injected=float(o.routine and injected > 0),
                served=float(bool(o.used)),
            )
            sums.append((label, lang, kind, [row[k] for k in COLUMNS]))
    signals_out = [
        Signals(
            profile=p,
            **{
                k: (v if v >= MIN_BUCKET else None)
                for k, v in zip(
                    ("recalls", "misses", "used", "unused_items", "routine"), c, strict=True
                )
            },
        )
        for p, c in sorted(counts.items())
    ]
    return summarise_turns(
        "recall_log",
        shared,
        sums,
        engine.relevance if engine is not None else shipped_model(),
        now.date(),
        signals_out,
    )
