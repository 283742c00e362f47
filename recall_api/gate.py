"""Whether an item is worth injecting at all, from absolute evidence.

RRF only orders; it always ranks something first. The gate therefore scores each hit by
what it actually shares with the prompt: semantic similarity (cosine of the best chunk)
and lexical support (the share of the prompt's content words the item contains). The
default embedder is English-only, so its cosine is trusted only as far as both texts are
written in Latin script; Chinese text is judged on jieba-segmented lexical support. The
working profile also asks that the one-line L0 itself share words with the prompt, so a
card is injected only when its headline is visibly about what was asked.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory_repo.index.hits import Hit
from memory_repo.index.tokenize import content_words
from memory_repo.models import GLOBAL
from profiles.model import Profile

COSINE_WEIGHT = 0.5
# Entries per hit-text cache: enough for the items a working set of prompts keeps
# returning; at 32768 the two caches held ~60 MB of texts once a 100k-card memory had
# served a few thousand different prompts.
HIT_CACHE = 4096
_LATIN = re.compile(r"[A-Za-z]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@lru_cache(maxsize=HIT_CACHE)
def stems(text: str) -> frozenset[str]:
    """Content words folded to a crude stem, so 'environments' supports 'environment'.

    Single characters are dropped: in Chinese they are mostly particles jieba left over.
    Cached: the same item texts come back request after request, and segmenting them
    again was most of the gate's cost on the hot path.
    """
    out = set()
    for word in content_words(text, parts=False):
        if len(word) < 2:
            continue
        if word.isascii() and len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.add(word)
    return frozenset(out)


def lexical_support(prompt_stems: frozenset[str], hit: Hit) -> float:
    if not prompt_stems:
        return 0.0
    item = stems(f"{hit.l0} {hit.heading} {hit.text}")
    return len(prompt_stems & item) / len(prompt_stems)


@lru_cache(maxsize=HIT_CACHE)
def latin_share(text: str) -> float:
    """Share of Latin letters among Latin letters and CJK characters (1.0 for neither).

    Cached like ``stems``: each hit's text is measured on every request that returns it.
    """
    latin = len(_LATIN.findall(text))
    cjk = len(_CJK.findall(text))
    return latin / (latin + cjk) if latin + cjk else 1.0


def score(prompt_stems: frozenset[str], hit: Hit, trust: float = 1.0) -> float:
    """A number in [0, 1] comparable across queries, unlike an RRF score.

    ``trust`` is how far the embedder's cosine means anything for this prompt (its Latin
    share); the item's own Latin share lowers it further.
    """
    cos = max(0.0, min(1.0, hit.cosine))
    lex = lexical_support(prompt_stems, hit)
    weight = min(trust, latin_share(f"{hit.l0} {hit.text}"))
    return weight * (COSINE_WEIGHT * cos + (1 - COSINE_WEIGHT) * lex) + (1 - weight) * lex


def l0_overlap(prompt_stems: frozenset[str], hit: Hit) -> int:
    return len(prompt_stems & stems(hit.l0))


def bar(profile: Profile, hit: Hit, *, cued: bool, project: str | None) -> float:
    """The score this hit must reach: lower after a memory cue, higher from another project."""
    gate = profile.gate
    value = gate.threshold - (gate.cue_relief if cued else 0.0)
    if project is not None and hit.project not in (project, GLOBAL):
        value += gate.other_project_margin
    return value


def passes(
    prompt_stems: frozenset[str],
    hit: Hit,
    profile: Profile,
    trust: float = 1.0,
    *,
    cued: bool = False,
    project: str | None = None,
) -> tuple[bool, float]:
    value = score(prompt_stems, hit, trust)
    ok = value >= bar(profile, hit, cued=cued, project=project) and l0_overlap(
        prompt_stems, hit
    ) >= (profile.gate.min_l0_overlap)
    return ok, value
