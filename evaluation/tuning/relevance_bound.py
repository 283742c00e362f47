"""How far can any bar on these features take the coding agents? An upper bound.

``python -m evaluation.tuning.relevance_bound [--envs demo,webdev,labsci,dataeng,firmware]``

#28 asks the working profile to serve as many memory-needing turns as the dense baseline
that injects its top five on every turn, with routine injection at or below 3%. This
measures the best any per-turn bar could do on each environment E's coding turns
(every working-profile probe, dev and test), with a relevance model fitted without E
(LoCoMo and the other environments), in three ways:

- ``relevance``: speak when the best candidate's relevance reaches a bar;
- ``intent``: a logistic classifier of "this prompt needs memory" over the prompt's
  embedding (the index's own models) and the three best relevances, fitted on the other
  environments' turns;
- each with the bar chosen **on E itself** (the lowest bar whose routine injection is
  within the limit: an oracle no deployed gate has), and with the bar chosen on the other
  environments (what a shipped gate gets).

A memory turn counts as served when the rule speaks and one of the two most relevant
candidates (the working profile's item cap) is useful. ``always-on dense`` is the same
turns' share whose gold is in the dense leg's top five. If the oracle cannot reach the
dense baseline within the limit, no bar on these features can, and the gap is in the
features (the two small embedding models), not in the bars.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from evaluation.harness.systems import in_relevance_mode
from evaluation.tuning.relevance_data import Candidates, environment_candidates, locomo_candidates
from evaluation.tuning.relevance_fit import ENVS, LOCOMO, _top, fit
from memory_repo.index.embedders import CachedEmbedder, make_embedder
from memory_repo.settings import Settings
from profiles.model import load_profiles
from recall_api.relevance import FEATURES, RelevanceModel

LIMITS = (0.03, 0.05, 0.10)
DENSE_RANK = FEATURES.index("inv_dense_rank")


def _rows(
    cands: list[Candidates], model: RelevanceModel, prompts: dict[str, np.ndarray]
) -> list[dict]:
    out = []
    for c in cands:
        if c.meta.get("profile") != "working":
            continue
        p = model.probability(c.x) if len(c.ids) else np.zeros(0)
        order = np.argsort(-p, kind="stable")
        top = np.sort(p)[::-1][:3] if len(p) else np.zeros(0)
        dense5 = len(c.ids) > 0 and bool(
            c.y[(c.x[:, DENSE_RANK] >= 1 / 5) & (c.x[:, DENSE_RANK] > 0)].any()
        )
        out.append(
            {
                "need": bool(c.meta["needs_memory"]),
                "routine": bool(c.meta["routine"]),
                "best": float(top[0]) if len(top) else 0.0,
                "top3": np.pad(top, (0, 3 - len(top))),
                "good": bool(len(p) and c.y[order[:2]].any()),
                "dense5": dense5,
                "vec": prompts[c.key],
            }
        )
    return out


def bound(envs: list[str], work: Path) -> dict[str, dict[str, float]]:
    from sklearn.linear_model import LogisticRegression

    settings = Settings()
    embedder = CachedEmbedder(make_embedder(settings), size=16384)
    profiles = {n: in_relevance_mode(p) for n, p in load_profiles().items()}
    cands: dict[str, list[Candidates]] = {}
    prompts: dict[str, dict[str, np.ndarray]] = {}
    for name in envs:
        env, _store, found = environment_candidates(ENVS / name, embedder, profiles, work / name)
        cands[name] = found
        text = {p.id: p.prompt for p in env.probes}
        keys = [c.key for c in found]
        vecs = embedder.embed([text[k] for k in keys])
        prompts[name] = dict(zip(keys, vecs, strict=True))
    loco = [_top(r, 10) for r in locomo_candidates(sorted(LOCOMO.glob("*.json")), embedder, 30)]
    out: dict[str, dict[str, float]] = {}
    for held in envs:
        model = fit([r for g, v in cands.items() if g != held for r in v] + loco)
        mine = _rows(cands[held], model, prompts[held])
        train = [r for g in envs if g != held for r in _rows(cands[g], model, prompts[g])]
        x_train = np.array([np.concatenate([r["vec"], r["top3"]]) for r in train])
        mean, scale = x_train.mean(axis=0), x_train.std(axis=0) + 1e-6
        clf = LogisticRegression(C=0.05, max_iter=3000)
        clf.fit((x_train - mean) / scale, [r["need"] for r in train])
        x_mine = np.array([np.concatenate([r["vec"], r["top3"]]) for r in mine])
        intent = clf.predict_proba((x_mine - mean) / scale)[:, 1]
        intent_train = clf.predict_proba((x_train - mean) / scale)[:, 1]
        need = np.array([r["need"] for r in mine])
        routine = np.array([r["routine"] for r in mine])
        good = np.array([r["good"] for r in mine]) & need
        row: dict[str, float] = {
            "memory_turns": int(need.sum()),
            "routine_turns": int(routine.sum()),
            "always_on_dense": round(float(np.mean([r["dense5"] for r in mine if r["need"]])), 3),
            "top2_ceiling": round(float(good.sum() / need.sum()), 3),
        }
        best = np.array([r["best"] for r in mine])
        for rule, score, own in (
            ("relevance", best, np.array([r["best"] for r in train])),
            ("intent", intent, intent_train),
        ):
            for limit in LIMITS:
                row[f"{rule}_oracle_{limit}"] = round(_oracle(score, routine, good, need, limit), 3)
            t_routine = np.array([r["routine"] for r in train])
            bar = _bar(own, t_routine, 0.03)
            loud = score >= bar
            row[f"{rule}_shipped_served"] = round(float((loud & good).sum() / need.sum()), 3)
            row[f"{rule}_shipped_routine"] = round(float(loud[routine].mean()), 3)
        out[held] = row
        print(json.dumps({held: row}), flush=True)
    return out


def _bar(score: np.ndarray, routine: np.ndarray, limit: float) -> float:
    for bar in [*sorted(set(score.tolist())), np.inf]:
        if not routine.any() or (score >= bar)[routine].mean() <= limit:
            return float(bar)
    return float("inf")


def _oracle(
    score: np.ndarray, routine: np.ndarray, good: np.ndarray, need: np.ndarray, limit: float
) -> float:
    loud = score >= _bar(score, routine, limit)
    return float((loud & good).sum() / need.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", default="demo,webdev,labsci,dataeng,firmware")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relevance-bound-") as tmp:
        bound(args.envs.split(","), Path(tmp))


if __name__ == "__main__":
    main()
