"""Whether an item is worth injecting at all, from absolute evidence.

RRF only orders; it always ranks something first. The gate therefore scores each hit by
what it actually shares with the prompt: semantic similarity (cosine of the best chunk)
and lexical support (the share of the prompt's content words the item contains). The
working profile also asks that the one-line L0 itself share words with the prompt, so a
card is injected only when its headline is visibly about what was asked.
"""

from __future__ import annotations

from memory_repo.index.hits import Hit
from memory_repo.index.tokenize import content_words
from profiles.model import Profile

COSINE_WEIGHT = 0.5


def stems(text: str) -> set[str]:
    """Content words folded to a crude stem, so 'environments' supports 'environment'."""
    out = set()
    for word in content_words(text):
        if word.isascii() and len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.add(word)
    return out


def lexical_support(prompt_stems: set[str], hit: Hit) -> float:
    if not prompt_stems:
        return 0.0
    item = stems(f"{hit.l0} {hit.heading} {hit.text}")
    return len(prompt_stems & item) / len(prompt_stems)


def score(prompt_stems: set[str], hit: Hit) -> float:
    """A number in [0, 1] comparable across queries, unlike an RRF score."""
    cos = max(0.0, min(1.0, hit.cosine))
    return COSINE_WEIGHT * cos + (1 - COSINE_WEIGHT) * lexical_support(prompt_stems, hit)


def l0_overlap(prompt_stems: set[str], hit: Hit) -> int:
    return len(prompt_stems & stems(hit.l0))


def passes(prompt_stems: set[str], hit: Hit, profile: Profile) -> tuple[bool, float]:
    value = score(prompt_stems, hit)
    ok = value >= profile.gate.threshold and l0_overlap(prompt_stems, hit) >= (
        profile.gate.min_l0_overlap
    )
    return ok, value
