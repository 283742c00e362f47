"""One tokeniser for BM25, the gate's lexical support, and the write path's similarity.

The same function runs at index and query time, so the two agree. What it does to text,
in order:

- **folds** full-width forms and compatibility characters (NFKC: ``ｐａｒｓｅ＿ｔａｂｌｅ``
  -> ``parse_table``, ``，`` -> ``,``), drops thousands separators (``1,200`` -> ``1200``)
  and writes traditional Chinese as simplified (OpenCC ``t2s``: 測試 -> 测试), so either
  form of a word finds the other;
- **segments** Chinese runs with jieba (its dictionary ships in the wheel): the
  search mode, which also yields the words inside a compound, for recall (``parts``),
  the precise mode, one reading of the sentence, for overlap counts;
- keeps **identifiers** whole wherever they stand, inside a Chinese sentence too:
  ``parse_table``, ``v2.1``, ``test_grid.py``, a command-line flag ``--split``. With
  ``parts`` an identifier also yields its pieces (``parse``, ``table``; ``split``);
- drops **stopwords** of both languages, Chinese filler words (顺便, 帮我, 一下 ...)
  included.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

import jieba
import opencc

jieba.setLogLevel(logging.WARNING)

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAS_CJK = re.compile(rf"[{_CJK}]")
_PIECE = re.compile(
    rf"[{_CJK}]+"
    r"|(?<![\w\-])--?[A-Za-z][A-Za-z0-9_.\-]*[A-Za-z0-9_]"  # a flag: -v is too short, --split
    r"|[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9]"
)
_NUMBER_SEP = re.compile(r"(?<=\d),(?=\d{3}\b)")
_SUBWORD = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_T2S = opencc.OpenCC("t2s")

_ENGLISH_STOPWORDS = """
a an the and or but if then of to in on at by for with from as is are was were be been
being it its this that these those i me my we our you your he she they them do does did
can could should would will shall may might must not no so than too very just about into
over under up down out what which who whom how why when where there here all any each
please let lets get got make made use using used also again still some more most other
"""
# Particles, pronouns and the filler words a request wraps around its content: 帮我 /
# 顺便 / 一下 / 是不是 say nothing about which memory is meant.
_CHINESE_STOPWORDS = """
的 了 是 在 和 与 或 也 就 都 而 及 着 把 被 让 给 我 你 他 她 它 我们 你们 他们 这 那 这个
那个 这些 那些 一个 吗 呢 吧 啊 呀 么 请 一下 什么 怎么 如何 为什么 哪 哪里 哪个 哪些 还 又
很 再 现在 还是 应该 怎样 怎么样 多少 是不是 有没有 能不能 要不要 顺便 帮我 帮忙 加上 可以
需要 这里 那里 然后 如果 因为 所以 但是 已经 没有 不是 就是 还有 一些 一点 这样 那样 看看
看一下 告诉 知道 觉得 是否 可能 比较 非常 所有 一直 刚才 的话 好的 谢谢 麻烦 一起
"""
STOPWORDS = frozenset(_ENGLISH_STOPWORDS.split()) | frozenset(_CHINESE_STOPWORDS.split())


def normalise(text: str) -> str:
    """NFKC, no thousands separators, traditional characters as simplified."""
    text = _NUMBER_SEP.sub("", unicodedata.normalize("NFKC", text))
    return _T2S.convert(text) if _HAS_CJK.search(text) else text


def is_cjk(word: str) -> bool:
    return "\u3400" <= word[0] <= "\ufaff"


@lru_cache(maxsize=65536)
def _cjk_words(run: str, search: bool) -> tuple[str, ...]:
    cut = jieba.cut_for_search(run) if search else jieba.cut(run)
    return tuple(w for w in cut if w.strip())


def tokens(text: str, *, parts: bool = True) -> list[str]:
    """Lower-cased terms in reading order, stopwords dropped. With ``parts`` (recall) a
    Chinese compound also yields its words and an identifier its pieces; without
    (overlap counts) each word and identifier comes once."""
    out: list[str] = []
    for match in _PIECE.finditer(normalise(text)):
        piece = match.group(0)
        if is_cjk(piece):
            out.extend(_cjk_words(piece, parts))
            continue
        whole = piece.lower().rstrip(".-")
        whole = whole if whole.startswith("-") else whole.lstrip(".")
        out.append(whole)
        pieces = [p.lower() for p in _SUBWORD.findall(_CAMEL.sub(" ", piece))]
        if parts and (len(pieces) > 1 or whole.startswith("-")):
            out.extend(pieces)
    return [t for t in out if t not in STOPWORDS]


def content_words(text: str, *, parts: bool = True) -> set[str]:
    """Distinct non-stopword terms, for lexical-overlap checks (gate, judge)."""
    return {t for t in tokens(text, parts=parts) if len(t) > 1 or is_cjk(t)}
