"""What a prompt and a candidate item share, measured absolutely (RRF only orders).

These measures are what the gate judges by: added into one ``score`` (the ``score`` gate
mode), or read as features by the relevance model (``relevance.py``, the ``relevance``
mode).

- the cosine is trusted as far as both texts are written in languages the embedder
  aligns (``Embedder.languages``: Latin script counts as English, CJK as Chinese); an
  English-only model's cosine never vouches for Chinese text; between a mostly Chinese
  and a mostly English text a multilingual cosine is lifted by ``CROSS_LIFT``
  (translations score lower than paraphrases);
- lexical support counts the asked words another text holds, by light stem; a word it
  lacks literally still counts when the embedder's own word vectors find its translation
  there (``bridge.Bridge``), so 测试 supports a card that says "tests" (at
  ``BRIDGE_CREDIT`` of a literal match).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memory_repo.index.hits import Hit
from memory_repo.index.terms import plural_stem
from memory_repo.index.tokenize import content_words
from memory_repo.index.vectors import CHINESE_ENGLISH, Part, cosine_part, languages_of
from recall_api.bridge import Bridge

# Tuned on the bilingual set's dev half and the routine prompts (docs/read-path.md):
# a word found only through the bridge counts 3/4 of a literal one (word vectors also
# pair unrelated words, 注解 ~ ruling 0.64), and a cosine between a mostly Chinese and a
# mostly English text is lifted by 0.2 (the multilingual model's twins sit that much
# lower across languages than within one).
BRIDGE_CREDIT = 0.75
# The evidence score's cosine share (``score``), set with the thresholds it was tuned with.
COSINE_WEIGHT = 0.5
CROSS_LIFT = 0.2
# Entries per hit-text cache: the items a working set of prompts keeps returning.
HIT_CACHE = 4096
_LATIN = re.compile(r"[A-Za-z]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@lru_cache(maxsize=HIT_CACHE)
def words(text: str, *, parts: bool = False) -> dict[str, str]:
    """Content words by their light stem (``terms.plural_stem``), each
    with the word as written, which the bridge embeds. A prompt's words are read without
    ``parts``, so each identifier counts once; an item's with them, so ``annotation.md``
    also offers ``annotation``.

    Single characters are dropped: in Chinese they are mostly particles jieba left over.
    Cached: the same item texts come back request after request. Do not mutate.
    """
    return {plural_stem(w): w for w in content_words(text, parts=parts) if len(w) >= 2}


@lru_cache(maxsize=HIT_CACHE)
def script_shares(text: str) -> tuple[float, float]:
    """(Latin, CJK) shares of the letters that are either; (1.0, 0.0) for neither."""
    latin = len(_LATIN.findall(text))
    cjk = len(_CJK.findall(text))
    return (latin / (latin + cjk), cjk / (latin + cjk)) if latin + cjk else (1.0, 0.0)


def mostly_chinese(text: str) -> bool:
    """More CJK than Latin letters. An identifier or a path counts for its letters, so
    "修复 test_grid.py 里失败的测试" is not a purely Chinese prompt."""
    return script_shares(text)[1] > 0.5


def covered_share(text: str, languages: frozenset[str]) -> float:
    """The share of ``text``'s letters written in a script of ``languages``."""
    latin, cjk = script_shares(text)
    return latin * ("en" in languages) + cjk * ("zh" in languages)


@dataclass(frozen=True)
class Prompt:
    """What the gate knows of a prompt: its text and words, the embedder's parts (one
    per model, each with the languages it aligns), and the bridge if there is one."""

    text: str
    words: dict[str, str]
    parts: tuple[Part, ...]
    bridge: Bridge | None = None


def read_prompt(text: str, parts: tuple[Part, ...], bridge: Bridge | None = None) -> Prompt:
    return Prompt(text, words(text), parts, bridge)


def support(asked: dict[str, str], text: str, bridge: Bridge | None, credit: float = 1.0) -> float:
    """How many of the ``asked`` words (by stem, as ``words`` gives them) ``text`` holds:
    1 for each present by stem, ``credit`` for each present only through the bridge by
    translation."""
    item = words(text, parts=True)
    missing = [raw for stem, raw in asked.items() if stem not in item]
    found = len(asked) - len(missing)
    if bridge is None or not missing:
        return found
    return found + credit * len(bridge.translated(missing, frozenset(item.values())))


def cosine(prompt: Prompt, hit: Hit) -> tuple[float, float]:
    """(cosine, trust): the cosine of the embedder part that specialises in both texts'
    languages (``vectors.cosine_part``), and the share of both texts written in a
    language that part aligns (the lower of the two)."""
    item = f"{hit.l0} {hit.text}"
    index = 0
    if len(prompt.parts) > 1 and hit.part_cosines:
        index = cosine_part(prompt.parts, languages_of(prompt.text) | languages_of(item))
        value = hit.part_cosines[index]
    else:
        value = hit.cosine
    covered = prompt.parts[index].languages
    if covered >= CHINESE_ENGLISH and mostly_chinese(prompt.text) != mostly_chinese(item):
        value += CROSS_LIFT
    trust = min(covered_share(prompt.text, covered), covered_share(item, covered))
    return max(0.0, min(1.0, value)), trust


def lexical_support(prompt: Prompt, hit: Hit) -> float:
    """The share of the prompt's words the item holds (L0, heading and chunk text)."""
    if not prompt.words:
        return 0.0
    text = f"{hit.l0} {hit.heading} {hit.text}"
    return support(prompt.words, text, prompt.bridge, BRIDGE_CREDIT) / len(prompt.words)


def score(prompt: Prompt, hit: Hit) -> float:
    """The evidence score in [0, 1], comparable across queries unlike an RRF score:
    ``COSINE_WEIGHT`` of the cosine and the rest of lexical support, the cosine weighed by
    how far it is trusted for both texts (the ``score`` gate mode, docs/read-path.md)."""
    cos, trust = cosine(prompt, hit)
    lex = lexical_support(prompt, hit)
    return trust * (COSINE_WEIGHT * cos + (1 - COSINE_WEIGHT) * lex) + (1 - trust) * lex


def l0_overlap(prompt: Prompt, hit: Hit) -> int:
    """Prompt words the item's L0 line holds, by stem or (a whole word each) through the
    bridge."""
    return int(support(prompt.words, hit.l0, prompt.bridge))
