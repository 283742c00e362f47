"""Fit the relevance model and the profiles' bars, and measure both on data left out.

``python -m evaluation.tuning.relevance_fit [--envs demo,webdev,labsci] [--bars JSON] [--write]``

1. Candidates (``relevance_data``) from every environment, the demo's extra sets and
   LoCoMo.
2. Leave one environment out: for each environment E, a model is fitted on every other
   group (LoCoMo included) and each profile's bars are chosen on the other environments
   (``choose_bars``), or fixed by ``--bars``; E's test split is then answered once and
   judged by its gold labels, next to the dense baseline always on and tuned on E's own
   dev split (an advantage the baseline keeps).
3. LoCoMo: recall@10 of hybrid retrieval and of the top 30 reordered by relevance, each
   conversation scored by a model fitted without it.
4. ``--write``: the model fitted on everything, written to
   ``recall_api/relevance_model.json``, and the bars chosen with it on every environment
   (printed; the shipped gates: personal in mode ``relevance``, full and working in mode
   ``score``, docs/read-path.md, "What ships").

Every profile is judged in mode ``relevance`` here (``systems.in_relevance_mode``).

Logistic regression is scikit-learn's (L2, lbfgs); each group's rows weigh the same in
total, so LoCoMo's many questions do not outvote the environments.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from evaluation.harness.environment import Environment
from evaluation.harness.metrics import point_estimates
from evaluation.harness.probes import Probe, Split
from evaluation.harness.run import answer_all, gold_records, tune
from evaluation.harness.snapshots import SnapshotStore
from evaluation.harness.systems import SHIPPED, DoseMem, baseline_systems, in_relevance_mode
from evaluation.harness.task_feed import boards_for
from evaluation.tuning.relevance_data import (
    Candidates,
    demo_candidates,
    environment_candidates,
    locomo_candidates,
)
from memory_repo.index.embedders import CachedEmbedder, make_embedder
from memory_repo.settings import Settings
from profiles.model import Profile, Trigger, load_profiles
from recall_api.relevance import FEATURES, MODEL_FILE, RelevanceModel

ROOT = Path(__file__).resolve().parents[2]
ENVS = ROOT / "evaluation" / "envs"
LOCOMO = ROOT.parent / "shared" / "benchmarks" / "locomo"
THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 19)]
NEW_SUBJECT = [round(0.05 * i, 2) for i in range(8, 21)]  # 1.0: never on a later turn
C = 1.0
HARMFUL_LIMIT = 0.01
# Routine coding injection a chosen bar may reach (#28's bound; the shipped working
# profile's own routine_limit, 0.05, bounds the score mode's tuning).
ROUTINE_LIMIT = 0.03
COMPOSITE_TOLERANCE = 0.05
METRICS = (
    "hit_rate",
    "silence",
    "harmful_rate",
    "harmful_turn_rate",
    "routine_injection_rate",
    "composite",
)


def fit(cands: Iterable[Candidates], c: float = C) -> RelevanceModel:
    """A logistic model over standardised features; each group weighs the same in total."""
    from sklearn.linear_model import LogisticRegression

    rows = [x for x in cands if len(x.ids)]
    x = np.vstack([r.x for r in rows])
    y = np.concatenate([r.y for r in rows])
    groups = np.concatenate([[r.group] * len(r.ids) for r in rows])
    names, counts = np.unique(groups, return_counts=True)
    per = dict(zip(names, counts, strict=True))
    weight = np.array([len(y) / (len(per) * per[g]) for g in groups])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit((x - mean) / scale, y, sample_weight=weight)
    return RelevanceModel(
        features=list(FEATURES),
        mean=[round(float(v), 6) for v in mean],
        scale=[round(float(v), 6) for v in scale],
        weights=[round(float(v), 6) for v in model.coef_[0]],
        bias=round(float(model.intercept_[0]), 6),
        fitted_on={str(g): int(n) for g, n in per.items()},
    )


def ranking_quality(model: RelevanceModel, cands: list[Candidates]) -> dict[str, float]:
    """Average precision over all candidate rows, and the share of prompts with a positive
    whose most relevant candidate is one (P@1), against fused rank order."""
    rows = [r for r in cands if len(r.ids)]
    p = [model.probability(r.x) for r in rows]
    with_pos = [(r, q) for r, q in zip(rows, p, strict=True) if r.y.any()]
    top = np.mean([r.y[int(np.argmax(q))] for r, q in with_pos]) if with_pos else 0.0
    rrf_top = np.mean([r.y[0] for r, _ in with_pos]) if with_pos else 0.0
    from sklearn.metrics import average_precision_score

    y = np.concatenate([r.y for r in rows])
    return {
        "rows": len(y),
        "average_precision": round(float(average_precision_score(y, np.concatenate(p))), 3),
        "p_at_1": round(float(top), 3),
        "p_at_1_fused_rank": round(float(rrf_top), 3),
    }


class Replay:
    """One environment's snapshots and task boards, answered with any model and bars."""

    def __init__(self, env: Environment, store: SnapshotStore, settings: Settings) -> None:
        self.env = env
        self.store = store
        self.boards = boards_for(env.tasks, store.workdir / "task-boards", settings)

    def probes(self, split: Split | None = None) -> list[Probe]:
        return [p for p in self.env.probes if split is None or p.split == split]

    def metrics(
        self,
        model: RelevanceModel,
        profiles: dict[str, Profile],
        probes: list[Probe],
    ) -> dict[str, dict[str, float]]:
        """Point metrics per profile group and over all (``"all"``)."""
        commits = {c.sha: c for p in probes if (c := self.env.snapshot_for(p)) is not None}
        for commit in commits.values():
            self.store.get(commit).engine.relevance = model
        system = DoseMem("dose-mem", profiles, self.env.spec, shipped=True, tasks=self.boards)
        answers = answer_all(system, probes, self.env, self.store, lambda _g: SHIPPED)
        records = gold_records(system.name, probes, answers)
        groups = {g: {p.id for p in probes if p.profile == g} for g in {p.profile for p in probes}}
        # later turns of coding sessions: where only the new_subject trigger opens recall
        groups["working_later"] = {p.id for p in probes if p.profile == "working" and p.turn > 1}
        out = {"all": point_estimates(records)}
        for group, ids in groups.items():
            if ids:
                out[group] = point_estimates([r for r in records if r.probe_id in ids])
        return out

    def dense(self) -> dict[str, dict[str, float]]:
        """The dense baseline on the test split: always on (threshold 0: the top items on
        every turn), and with its threshold tuned on this environment's own dev split."""
        [system] = [s for s in baseline_systems(self.env.spec) if s.name == "dense"]
        chosen, _ = tune(system, self.probes(Split.dev), self.env, self.store)
        test = self.probes(Split.test)
        out = {}
        for name, threshold in (("always_on", 0.0), ("tuned", chosen["all"])):
            answers = answer_all(system, test, self.env, self.store, lambda _g, t=threshold: t)
            out[name] = point_estimates(gold_records("dense", test, answers))
        return out


def with_gate(profiles: dict[str, Profile], name: str, **gate: float) -> dict[str, Profile]:
    base = profiles[name]
    new = base.model_copy(update={"gate": base.gate.model_copy(update=gate)})
    return {**profiles, name: new}


def pick_bar(
    grid: list[float],
    runs: Callable[[float], list[dict[str, float]]],
    routine_limit: float,
    tolerance: float,
) -> float:
    """The bar of ``grid`` to use, from each environment's (or user's) metrics at it
    (``runs``): only bars whose routine injection stays within ``routine_limit`` and
    whose harmful items stay within ``HARMFUL_LIMIT`` on every one; of those, the ones
    whose mean composite is within ``tolerance`` of the best; of those, the one serving
    most (mean hit rate), ties to the higher bar. None passing: the highest bar."""
    scored = []
    for value in grid:
        mine = runs(value)
        if not mine:
            continue
        if max(m["routine_injection_rate"] for m in mine) > routine_limit:
            continue
        if max(m["harmful_rate"] for m in mine) > HARMFUL_LIMIT:
            continue
        composite = float(np.mean([m["composite"] for m in mine]))
        served = float(np.mean([m["hit_rate"] for m in mine]))
        scored.append((composite, served, value))
    if not scored:
        return max(grid)
    top = max(c for c, _, _ in scored)
    return max((served, value) for c, served, value in scored if c >= top - tolerance)[1]


def choose_bars(
    model: RelevanceModel, replays: list[Replay], profiles: dict[str, Profile]
) -> dict[str, dict[str, float]]:
    """Per profile: the threshold, then (working) the new_subject bar, chosen over
    ``replays`` (every probe of each environment):

    1. only bars whose routine injection stays within the profile's ``routine_limit``
       (at most ``ROUTINE_LIMIT``) and whose share of harmful items stays within
       ``HARMFUL_LIMIT``, on every environment;
    2. of those, the ones whose mean composite is within ``COMPOSITE_TOLERANCE`` of the
       best (indistinguishable: about the half-width of the composite's 95% CI here);
    3. of those, the one that serves the most memory-needing turns (mean hit rate);
       ties go to the higher bar.

    The composite alone is flat over a wide range of bars on these environments and
    then picks whichever strict bar the noise favours; serving is what a new user's
    first day is measured by (docs/read-path.md, "How the model and the bars were
    fitted").
    """
    chosen: dict[str, dict[str, float]] = {name: {} for name in profiles}

    def best(name: str, field: str, grid: list[float], current: dict[str, Profile]) -> float:
        def runs(value: float) -> list[dict[str, float]]:
            trial = with_gate(current, name, **{field: value})
            found = [r.metrics(model, trial, r.probes()) for r in replays]
            return [m[name] for m in found if name in m]

        limit = min(profiles[name].routine_limit, ROUTINE_LIMIT)
        return pick_bar(grid, runs, limit, COMPOSITE_TOLERANCE)

    current = dict(profiles)
    for name in profiles:
        later = Trigger.new_subject in profiles[name].triggers
        if later:
            current = with_gate(current, name, new_subject=1.0)
        threshold = best(name, "threshold", THRESHOLDS, current)
        current = with_gate(current, name, threshold=threshold)
        chosen[name]["threshold"] = threshold
        if later:
            bar = best(name, "new_subject", NEW_SUBJECT, current)
            current = with_gate(current, name, new_subject=bar)
            chosen[name]["new_subject"] = bar
    return chosen


def apply_bars(profiles: dict[str, Profile], bars: dict[str, dict[str, float]]) -> dict:
    out = dict(profiles)
    for name, gate in bars.items():
        out = with_gate(out, name, **gate)
    return out


def locomo_recall(cands: list[Candidates], models: dict[str, RelevanceModel]) -> dict:
    """Recall@10 of fused order and of relevance order over each question's candidates,
    each conversation's model fitted without it."""
    fused, ordered = [], []
    for r in cands:
        wanted = int(r.meta["wanted"])  # type: ignore[call-overload]
        p = models[str(r.meta["conversation"])].probability(r.x)
        order = np.argsort(-p, kind="stable")
        fused.append(r.y[:10].sum() / wanted)
        ordered.append(r.y[order[:10]].sum() / wanted)
    return {
        "questions": len(cands),
        "fused_r10": round(float(np.mean(fused)), 4),
        "relevance_r10": round(float(np.mean(ordered)), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", default="demo,webdev,labsci")
    parser.add_argument("--locomo", default=str(LOCOMO))
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--out", default="")
    parser.add_argument(
        "--bars",
        default="",
        help="fixed bars for every fold instead of choosing them, as JSON: "
        '\'{"full": {"threshold": 0.35}, "working": {"threshold": 0.45}}\'',
    )
    args = parser.parse_args()
    settings = Settings()
    embedder = CachedEmbedder(make_embedder(settings), size=16384)
    profiles = {name: in_relevance_mode(p) for name, p in load_profiles().items()}
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="relevance-fit-") as tmp:
        work = Path(tmp)
        replays: dict[str, Replay] = {}
        cands: dict[str, list[Candidates]] = {}
        for name in args.envs.split(","):
            env, store, found = environment_candidates(ENVS / name, embedder, profiles, work / name)
            replays[name], cands[name] = Replay(env, store, settings), found
        cands["demo"] = cands.get("demo", []) + demo_candidates(embedder, profiles, work)
        files = sorted(Path(args.locomo).glob("*.json"))
        loco = locomo_candidates(files, embedder, k=30)
        loco10 = [_top(r, 10) for r in loco]
        report["rows"] = {g: sum(len(r.ids) for r in v) for g, v in cands.items()}
        folds: dict[str, object] = {}
        for held in replays:
            train = [r for g, v in cands.items() if g != held for r in v] + loco10
            model = fit(train)
            others = [replays[g] for g in replays if g != held]
            bars = json.loads(args.bars) if args.bars else choose_bars(model, others, profiles)
            tuned = apply_bars(profiles, bars)
            replay = replays[held]
            mine = replay.metrics(model, tuned, replay.probes(Split.test))
            folds[held] = {
                "bars": bars,
                "ranking": ranking_quality(model, cands[held]),
                "dose_mem": _round(mine),
                "dense": _round(replay.dense()),
            }
            print(json.dumps({held: folds[held]}), flush=True)
        report["loeo"] = folds
        by_conv = {}
        for conv in sorted({str(r.meta["conversation"]) for r in loco}):
            train = [r for v in cands.values() for r in v] + [
                r for r in loco10 if r.meta["conversation"] != conv
            ]
            by_conv[conv] = fit(train)
        report["locomo"] = locomo_recall(loco, by_conv)
        print(json.dumps({"locomo": report["locomo"]}), flush=True)
        if args.write:
            everything = [r for v in cands.values() for r in v] + loco10
            model = fit(everything)
            model.note = "fitted by python -m evaluation.tuning.relevance_fit --write"
            bars = choose_bars(model, list(replays.values()), profiles)
            model.save(MODEL_FILE)
            report["shipped"] = {"bars": bars, "fitted_on": model.fitted_on}
            print(json.dumps({"shipped": report["shipped"]}), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")


def _top(r: Candidates, k: int) -> Candidates:
    """A LoCoMo question's first ``k`` fused candidates, as recall would judge them (its
    gap features still measured against the best of the 30 collected)."""
    return Candidates(r.group, r.key, r.ids[:k], r.x[:k], r.y[:k], r.meta)


def _round(m: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    return {g: {k: round(v[k], 4) for k in METRICS if k in v} for g, v in m.items()}


if __name__ == "__main__":
    main()
