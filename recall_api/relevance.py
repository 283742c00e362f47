"""Relevance: the calibrated probability that a candidate item helps with this prompt.

The evidence score (``evidence.score``) adds a cosine and a share of shared words and
holds the sum against a bar tuned on the team's own wording. Here every candidate is
described by the same features (``FEATURES``: the cosine of the part that reads both
texts, each model's cosine, cross-language terms, lexical support both ways with stems
and the bridge, normalised BM25, ranks in each leg, exact identifiers, the project
relation, the item type, a memory cue, the prompt's shape, and where the item stands
among the other candidates) and a logistic model fitted on data written neither by nor
for any one memory (``evaluation/tuning/relevance_fit.py``; docs/read-path.md, "Gate", has what
it was fitted on and its leave-one-environment-out numbers) turns them into a
probability: one scale on every memory. A profile in gate mode ``relevance`` holds it
against its bar and orders the injected items by it (``gate.decide``); the inspector
shows it in either mode.

Contract:
- ``features`` is a pure function of the prompt, the candidate list and the context
  (cue, resolved project); a candidate's row does not depend on the order of the list
  except through the ``*_gap`` features, which compare it with the best candidate.
- ``RelevanceModel.probability`` is monotone in the model's linear score and in [0, 1].
- The shipped model (``relevance_model.json``) is data, like a profile: refitting
  changes the file, never this code.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memory_repo.index.hits import Hit
from memory_repo.index.tokenize import normalise
from memory_repo.models import GLOBAL, CardType
from recall_api.evidence import (
    BRIDGE_CREDIT,
    HIT_CACHE,
    Prompt,
    cosine,
    lexical_support,
    mostly_chinese,
    support,
    words,
)

MODEL_FILE = Path(__file__).with_name("relevance_model.json")
log = logging.getLogger(__name__)

FEATURES: tuple[str, ...] = (
    "cos",  # the trusted part's cosine (cross-language lift included), times its trust
    "untrusted",  # 1 - trust: the share judged on words alone
    "cos_en",  # the first (English) part's cosine; the other part's where it did not rank it
    "cos_multi",  # the last (multilingual) part's cosine, likewise
    "cross",  # prompt and item written mostly in different scripts
    "lex",  # share of the prompt's words found in the item (stems, bridge)
    "lex_l0",  # share of the prompt's words found in the item's headline
    "rev_l0",  # share of the headline's words found in the prompt
    "bm25",  # best chunk's BM25, saturated: s / (s + 5)
    "bm25_top",  # BM25 over the best candidate's
    "inv_rank",  # 1 / fused rank
    "inv_dense_rank",
    "inv_bm25_rank",
    "ident",  # share of the prompt's identifiers, paths and numbers found as written
    "has_ident",
    "same_project",  # the item's project is the one the prompt is about
    "global",
    "other_project",  # another project than the one the prompt is about
    "standing",  # a preference, convention, pitfall or habit (not a fact of the moment)
    "cue",  # the prompt carries a memory cue ("as usual", "老样子")
    "question",
    "prompt_words",  # log(1 + content words of the prompt)
    "cross_cos",  # cos on a cross-language pair (0 within one language)
    "cross_lex",  # lex on a cross-language pair
    "cos_gap",  # cos minus the best candidate's
    "lex_gap",  # lex minus the best candidate's
)
STANDING = frozenset({CardType.preference, CardType.convention, CardType.pitfall, CardType.habit})
_QUESTION = re.compile(r"[?？]|吗|呢|什么|怎么|哪|几|多少|\b(what|which|where|how|who|when|why)\b")
_IDENT = re.compile(r"[A-Za-z0-9]*[_./:\\-]?[A-Za-z0-9]*\d[A-Za-z0-9_.:/-]*|\w+[_./]\w[\w./-]*")


@dataclass(frozen=True)
class Context:
    """What the relevance of a candidate depends on beyond the texts."""

    cued: bool = False
    project: str | None = None


@lru_cache(maxsize=HIT_CACHE)
def identifiers(text: str) -> frozenset[str]:
    """Tokens a person copies rather than paraphrases: with a digit, an underscore, a dot,
    a slash or a colon inside (``parse_table``, ``cart.spec.ts``, ``0.28.1``, ``r3``)."""
    return frozenset(
        m.group(0).lower().strip("._:/-")
        for m in _IDENT.finditer(normalise(text))
        if len(m.group(0).strip("._:/-")) >= 2
    )


def _row(prompt: Prompt, hit: Hit, context: Context, question: bool) -> list[float]:
    cos, trust = cosine(prompt, hit)
    trusted = cos * trust
    n = len(prompt.words)
    item_text = f"{hit.l0} {hit.heading} {hit.text}"
    lex = lexical_support(prompt, hit)
    lex_l0 = support(prompt.words, hit.l0, prompt.bridge, BRIDGE_CREDIT) / n if n else 0.0
    headline = words(hit.l0)
    rev = (
        support(headline, prompt.text, prompt.bridge, BRIDGE_CREDIT) / len(headline)
        if headline
        else 0.0
    )
    asked = identifiers(prompt.text)
    found = identifiers(item_text) if asked else frozenset()
    ident = len(asked & found) / len(asked) if asked else 0.0
    item_cjk = mostly_chinese(item_text)
    # A part that did not run (an English model on a Chinese prompt) or did not rank the
    # item reads 0; standing in the other part's value keeps "not measured" from looking
    # like "unrelated".
    parts = hit.part_cosines or (hit.cosine,)
    first, last = parts[0], parts[-1]
    cross = float(mostly_chinese(prompt.text) != item_cjk)
    same = context.project is not None and hit.project == context.project
    other = context.project is not None and hit.project not in (context.project, GLOBAL)
    return [
        trusted,
        1.0 - trust,
        first or last,
        last or first,
        cross,
        lex,
        lex_l0,
        rev,
        hit.bm25 / (hit.bm25 + 5.0),
        0.0,  # bm25_top, filled in by ``features``
        1.0 / hit.rank,
        1.0 / hit.dense_rank if hit.dense_rank else 0.0,
        1.0 / hit.bm25_rank if hit.bm25_rank else 0.0,
        ident,
        float(bool(asked)),
        float(same),
        float(hit.project == GLOBAL),
        float(other),
        float(hit.type in STANDING),
        float(context.cued),
        float(question),
        math.log1p(n),
        cross * trusted,
        cross * lex,
        0.0,  # cos_gap
        0.0,  # lex_gap
    ]


_COL = {name: i for i, name in enumerate(FEATURES)}


def features(prompt: Prompt, hits: list[Hit], context: Context) -> np.ndarray:
    """One row of ``FEATURES`` per hit, in the hits' order (float64, shape (n, F))."""
    if not hits:
        return np.zeros((0, len(FEATURES)))
    question = bool(_QUESTION.search(prompt.text.lower()))
    x = np.array([_row(prompt, h, context, question) for h in hits], dtype=np.float64)
    top_bm25 = max(h.bm25 for h in hits)
    x[:, _COL["bm25_top"]] = [h.bm25 / top_bm25 if top_bm25 > 0 else 0.0 for h in hits]
    x[:, _COL["cos_gap"]] = x[:, _COL["cos"]] - x[:, _COL["cos"]].max()
    x[:, _COL["lex_gap"]] = x[:, _COL["lex"]] - x[:, _COL["lex"]].max()
    return x


class RelevanceModel(BaseModel):
    """A logistic model over standardised ``FEATURES``: p = sigmoid(w . (x - mean) / scale + b).

    ``fitted_on`` names the data (sources and row counts), so the file says where its
    numbers came from.
    """

    model_config = ConfigDict(extra="forbid")

    features: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float
    fitted_on: dict[str, int] = Field(default_factory=dict)
    note: str = ""

    def check(self) -> RelevanceModel:
        if tuple(self.features) != FEATURES:
            raise ValueError(f"model features {self.features} differ from {FEATURES}")
        return self

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = ((x - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(self.weights)
        return 1.0 / (1.0 + np.exp(-(z + self.bias)))

    def contributions(self, row: np.ndarray) -> dict[str, float]:
        """Each feature's share of one row's linear score (log-odds), largest first."""
        z = (row - np.asarray(self.mean)) / np.asarray(self.scale) * np.asarray(self.weights)
        order = np.argsort(-np.abs(z), kind="stable")
        return {self.features[i]: float(z[i]) for i in order}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.model_dump(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> RelevanceModel:
        return cls.model_validate_json(path.read_text(encoding="utf-8")).check()


@cache
def shipped_model() -> RelevanceModel:
    return RelevanceModel.load(MODEL_FILE)


# A model the user applied to their memory (``dose-mem eval pool --propose``, then
# ``dose-mem profiles apply``), beside the agents' profile overrides.
REPO_MODEL = "profiles/relevance-model.json"


class RepoModel:
    """The relevance model recall uses: ``<memory>/profiles/relevance-model.json`` when
    it is there and valid, else ``default`` (the shipped model, or one an evaluation
    sets). Re-read only when the file changes (one ``stat`` per call), so an apply or a
    rollback takes effect on the next request; a file that cannot be read or does not
    fit ``FEATURES`` is logged (path and reason) and ignored."""

    def __init__(self, memory_root: Path, default: RelevanceModel) -> None:
        self.path = Path(memory_root) / REPO_MODEL
        self.default = default
        self._stamp: int | None = None
        self._model: RelevanceModel | None = None

    def current(self) -> RelevanceModel:
        try:
            stamp = self.path.stat().st_mtime_ns
        except OSError:
            return self.default
        if stamp != self._stamp:
            try:
                self._model = RelevanceModel.load(self.path)
            except (OSError, ValueError) as exc:
                log.warning("relevance model ignored: %s: %s", self.path, exc)
                self._model = None
            self._stamp = stamp
        return self._model or self.default


def judge(
    prompt: Prompt, hits: list[Hit], context: Context, model: RelevanceModel
) -> list[tuple[Hit, float]]:
    """Every hit with its probability, most relevant first (ties: fused rank)."""
    if not hits:
        return []
    p = model.probability(features(prompt, hits, context))
    order = sorted(range(len(hits)), key=lambda i: (-p[i], hits[i].rank))
    return [(hits[i], float(p[i])) for i in order]
