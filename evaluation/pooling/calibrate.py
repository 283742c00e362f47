"""The pooled calibration: the relevance model and each profile's bars refit on the
candidates many users shared (``Summary.turns``), with nobody's text.

- ``fit_pooled``: the relevance model (``relevance_fit.fit``: logistic, standardised
  features) on every user's candidate rows, each user weighing the same in total.
- ``simulate``: a profile in gate mode ``relevance`` replayed over shared turns from
  their features alone: the bar (``threshold``; ``new_subject`` on a later coding turn
  without a cue; less the cue relief after a cue; plus the other-project margin), items
  ordered by relevance and capped at ``max_items``. It leaves out what a summary cannot
  carry (the byte budget, what the session already holds, project switches), so it
  chooses bars; the user's own replay measures them (``rotation``).
- ``choose_bars``: per profile the rule of ``relevance_fit.choose_bars`` (routine
  injection and harmful items within their limits on every user; of the bars whose mean
  composite is near the best, the one serving most), with a margin for the user who was
  not pooled: routine injection within ``ROUTINE_MARGIN`` (not the profile's 5%) on
  every pooled user, and "near" meaning within ``TOLERANCE`` (not 0.05). Both were set
  after seeing four users' rotations (demo, webdev, labsci, firmware), before the fifth
  (dataeng) existed: docs/evaluation-pooling.md.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from evaluation.harness.metrics import metrics_from_sums
from evaluation.harness.systems import in_relevance_mode
from evaluation.pooling.summary import SharedTurn, Summary
from evaluation.tuning.relevance_data import Candidates
from evaluation.tuning.relevance_fit import NEW_SUBJECT, THRESHOLDS, fit, pick_bar
from profiles.model import GateMode, Profile, Trigger
from recall_api.relevance import FEATURES, RelevanceModel

# Routine injection a bar may reach on any pooled user: well under the working profile's
# 5%, since the user it is applied to varies (with 3% a left-out user reached 6.9%).
ROUTINE_MARGIN = 0.02
TOLERANCE = 0.02
# What a profile must gain on the pooled users before the calibration changes it: the
# margin within which two composites are called a tie; a change inside it flips with
# the last digit of a feature.
MIN_GAIN = TOLERANCE
CUE = FEATURES.index("cue")
OTHER_PROJECT = FEATURES.index("other_project")


class Calibration(BaseModel):
    """What ``dose-mem eval pool`` proposes: the pooled model and the bars of each profile
    it changes; ``kept`` says why a profile stays as shipped."""

    model: RelevanceModel
    bars: dict[str, dict[str, float]]
    users: int
    turns: int
    kept: dict[str, str] = {}
    applies: bool = True


def fit_pooled(summaries: list[Summary]) -> RelevanceModel:
    rows = [
        Candidates(
            group=f"user-{n}",
            key=str(k),
            ids=[str(i) for i in range(len(t.labels))],
            x=np.asarray(t.candidates, dtype=float),
            y=np.array([label == 1 for label in t.labels], dtype=float),
        )
        for n, s in enumerate(summaries)
        for k, t in enumerate(s.turns)
        if t.labels
    ]
    model = fit(rows)
    model.note = f"pooled from {len(summaries)} users' shared summaries (dose-mem eval pool)"
    return model


def simulate(turns: list[SharedTurn], model: RelevanceModel, profile: Profile) -> dict[str, float]:
    """Point metrics of ``profile`` (mode relevance) over the turns of its name."""
    gate = profile.gate
    later_bar = Trigger.new_subject in profile.triggers and Trigger.every_turn not in (
        profile.triggers
    )
    need = hit = noneed = silent = routine = loud = items = harmful = harmful_turns = 0
    n = 0
    for t in turns:
        if t.profile != profile.name:
            continue
        n += 1
        injected: list[int] = []
        if t.labels:
            x = np.asarray(t.candidates, dtype=float)
            p = model.probability(x)
            cued = bool(x[0, CUE] > 0.5)
            base = gate.new_subject if (later_bar and t.later and not cued) else gate.threshold
            if cued:
                base -= gate.cue_relief
            for i in np.argsort(-p, kind="stable"):
                bar = base + (gate.other_project_margin if x[i, OTHER_PROJECT] > 0.5 else 0.0)
                if p[i] >= bar:
                    injected.append(int(i))
                if len(injected) >= profile.max_items:
                    break
        got = [t.labels[i] for i in injected]
        items += len(got)
        bad = sum(g == -1 for g in got)
        harmful += bad
        harmful_turns += bad > 0
        if t.kind == "memory":
            need += 1
            hit += any(g == 1 for g in got)
        else:
            noneed += 1
            silent += not got
        if t.kind == "routine":
            routine += 1
            loud += bool(got)
    hit_rate = hit / need if need else 0.0
    silence = silent / noneed if noneed else 0.0
    return {
        "turns": n,
        "hit_rate": hit_rate,
        "silence": silence,
        "routine_injection_rate": loud / routine if routine else 0.0,
        "harmful_rate": harmful / items if items else 0.0,
        "composite": 0.5 * hit_rate + 0.5 * silence - (harmful_turns / n if n else 0.0),
    }


def _with(profile: Profile, **gate: float) -> Profile:
    return profile.model_copy(update={"gate": profile.gate.model_copy(update=gate)})


def choose_bars(
    summaries: list[Summary], model: RelevanceModel, profiles: dict[str, Profile]
) -> dict[str, dict[str, float]]:
    """Per profile: the threshold, then (coding profiles) the later-turn bar."""
    chosen: dict[str, dict[str, float]] = {}

    def best(profile: Profile, field: str, grid: list[float]) -> float:
        def runs(value: float) -> list[dict[str, float]]:
            trial = _with(profile, **{field: value})
            return [m for s in summaries if (m := simulate(s.turns, model, trial))["turns"]]

        return pick_bar(grid, runs, min(profile.routine_limit, ROUTINE_MARGIN), TOLERANCE)

    for name, shipped in profiles.items():
        profile = in_relevance_mode(shipped)
        later = Trigger.new_subject in profile.triggers
        if later:
            profile = _with(profile, new_subject=1.0)
        threshold = best(profile, "threshold", THRESHOLDS)
        profile = _with(profile, threshold=threshold)
        chosen[name] = {"threshold": threshold}
        if later:
            chosen[name]["new_subject"] = best(profile, "new_subject", NEW_SUBJECT)
    return chosen


def shipped_composite(summaries: list[Summary], name: str) -> float | None:
    """The users' mean composite of profile ``name`` as shipped, from their count sums."""
    own = [
        float(metrics_from_sums(np.asarray(sums))["composite"])
        for s in summaries
        if (sums := s.profiles.get(name)) is not None
    ]
    return float(np.mean(own)) if own else None


def _mean_composite(summaries: list[Summary], model: RelevanceModel, profile: Profile) -> float:
    runs = [simulate(s.turns, model, profile) for s in summaries]
    return float(np.mean([m["composite"] for m in runs if m["turns"]] or [0.0]))


def calibrate(summaries: list[Summary], profiles: dict[str, Profile]) -> Calibration:
    """The pooled model and bars, applied only where the pooled users gain.

    Per profile, on the pooled users (mean composite; "before" from their count sums,
    the profiles as shipped):

    - a profile in gate mode ``score`` changes to mode relevance at the pooled bars when
      that gains at least ``MIN_GAIN``;
    - a profile already in mode relevance is moved by the pooled model whatever its
      bars, so it takes the better of its own and the pooled bars under that model.

    The calibration applies (``bars`` not empty, the model proposed) only when some
    profile gains at least ``MIN_GAIN`` and no profile in mode relevance loses more than
    ``MIN_GAIN`` under the pooled model: it never proposes what the users' own numbers
    say is no better than what they have.
    """
    model = fit_pooled(summaries)
    bars: dict[str, dict[str, float]] = {}
    kept: dict[str, str] = {}
    gains: list[float] = []
    losses: list[str] = []
    for name, chosen in choose_bars(summaries, model, profiles).items():
        before = shipped_composite(summaries, name)
        if before is None:
            kept[name] = "no pooled user has this profile"
            continue
        after = _mean_composite(
            summaries, model, _with(in_relevance_mode(profiles[name]), **chosen)
        )
        if profiles[name].gate.mode == GateMode.relevance:
            own = _mean_composite(summaries, model, profiles[name])
            if own >= after:
                after, chosen = own, {}
            gains.append(after - before)
            if after < before - MIN_GAIN:
                losses.append(name)
            if chosen:
                bars[name] = chosen
            else:
                kept[name] = f"its own bars are best under the pooled model ({own:.4f})"
        elif after >= before + MIN_GAIN:
            bars[name] = chosen
            gains.append(after - before)
        else:
            kept[name] = (
                f"pooled {after:.4f} does not beat shipped {before:.4f} by {MIN_GAIN} "
                "(mean composite)"
            )
    applies = bool(gains) and max(gains) >= MIN_GAIN and not losses
    if not applies:
        why = f"the pooled model would cost {', '.join(losses)}" if losses else "no gain"
        kept |= {name: f"not applied: {why}" for name in bars}
        bars = {}
    return Calibration(
        model=model,
        bars=bars,
        users=len(summaries),
        turns=sum(len(s.turns) for s in summaries),
        kept=kept,
        applies=applies,
    )


def calibrated_profiles(
    profiles: dict[str, Profile], calibration: Calibration
) -> dict[str, Profile]:
    """The profiles the calibration changes in mode relevance with the pooled bars; the
    others as shipped (they run with the pooled model too, when it applies)."""
    return {
        name: _with(in_relevance_mode(shipped), **calibration.bars[name])
        if name in calibration.bars
        else shipped
        for name, shipped in profiles.items()
    }
