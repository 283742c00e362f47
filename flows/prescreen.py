"""Pre-screen: deterministic rejection of the kinds of "facts" that make bad memory.

Six known bad kinds (generic knowledge, timestamped incident timelines, command-repair
logs, version snapshots, records of creating a document, one-off task instructions) and
anything that looks like a secret. A persistence word ("never", 以后) does not switch a
kind off: "don't ask me why" after a command log is still a command log, "for this PR
only, don't ..." still one-off; only the loose generic test (a bare "X is Y") yields to
the person's words. Each rule returns a reason, so a rejected fact says
why in the run summary. Rules look at the statement and the quote together.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flows.facts import Candidate
from memory_repo.models import GLOBAL, CardType
from memory_repo.secrets import has_secret

_I = re.IGNORECASE

_TIME = re.compile(r"\b([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?\b|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_COMMAND_LOG = re.compile(
    r"(\bran\b|\bre-?ran\b|\bexecuted\b|\bexit code\b|\$ \S+|\bthen (re)?ran\b|"
    r"\bfixed (it|the|by)\b.*\b(running|reinstall|pip|npm|apt|chmod|git)\b|"
    r"\b(pip|npm|apt-get|brew) install\b.*\b(fixed|worked|resolved)\b|"
    r"执行了|运行了.*(修复|解决))",
    _I,
)
_VERSION = re.compile(r"\bv?\d+\.\d+(\.\d+)?\b")
_VERSION_STATE = re.compile(
    r"\b(currently (on|at|running)|is (now )?(on|at) (version|v)|upgraded to|bumped to|"
    r"downgraded to|latest version|installed version|version is)\b|当前版本|升级到|版本是",
    _I,
)
_CREATED_DOC = re.compile(
    r"\b(created|wrote|drafted|generated|added|saved|exported)\b.{0,40}(\b(file|document|docs?|"
    r"readme|report|page|notes?|spreadsheet|slides?|pdf|markdown)\b|"
    r"[\w/.-]+\.(md|pdf|docx?|xlsx|pptx|html|ipynb)\b)|"
    r"(创建|写|生成|新建|导出|更新|整理|补充)了.{0,20}(文档|文件|报告|页面|笔记)|"
    r"\b(updated|edited|rewrote)\b.{0,20}\b(readme|docs?|document)\b|"
    r"把\s*(README|[\w/.-]+\.(md|pdf|docx?))\s*(更新|整理|补充|改)了",
    _I,
)
_PERSISTENT = re.compile(
    r"\b(always|never|from now on|by default|every time|whenever|in general|prefer|"
    r"instead|don'?t|do not|avoid|remember|going forward|convention|rule)\b|"
    r"一律|以后|总是|永远|每次|默认|不要|别再|记住|换成|改成|统一|优先|习惯",
    _I,
)
_ONE_OFF = re.compile(
    r"^\s*(please|pls|can you|could you|would you|now|next|go ahead|let'?s|fix|run|create|"
    r"write|open|add|delete|remove|rename|update|check|look at)\b|"
    r"^\s*(帮我|请|麻烦|现在|接下来|先)",
    _I,
)
# Scoped to this task whatever persistence words surround it: "for this PR only", today.
_SCOPED = re.compile(
    r"\bfor (this|the current) (pr|task|branch|session|change|commit|run|ticket)( only)?\b|"
    r"\b(just|only) (for )?(this|today)\b|\b(today|tonight|right now|for now|this time|"
    r"until i('ve| have)? (review|check|look))\b|"
    r"^\s*先不要|^\s*先别|暂时|这次|今天|等我.{0,12}(再说|再)|先放着",
    _I,
)
_PERSONAL = re.compile(
    r"\b(i|we|my|our|me|us|you|your|user|team|project|repo|this)\b|我|我们|咱们|你|项目|仓库", _I
)
# A definition is lookup-able whatever surrounds it ("记住，BM25 是一种 ...").
_DEFINITION = re.compile(
    r"是一种|是一个.{0,10}(算法|函数|协议|格式)|是指|指的是|\bstands for\b|"
    r"\bis (a|an) (type|kind|form|family) of\b|\bmeans that\b",
    _I,
)
_GENERIC = re.compile(
    r"^\s*(the |a |an )?[\w .+#-]{1,40}\b(is|are|means|stands for|was (invented|created|released)|"
    r"uses|supports|returns)\b|是一种|是指|指的是|表示",
    _I,
)

Rule = Callable[[str, str, Candidate], str | None]


def _secret(text: str, _quote: str, _c: Candidate) -> str | None:
    return "looks like a secret" if has_secret(text) else None


def _timeline(text: str, _quote: str, _c: Candidate) -> str | None:
    return "timestamped incident timeline" if len(_TIME.findall(text)) >= 2 else None


def _command_log(text: str, _quote: str, _c: Candidate) -> str | None:
    return "command-repair log" if _COMMAND_LOG.search(text) else None


def _version(text: str, _quote: str, _c: Candidate) -> str | None:
    return "version snapshot" if _VERSION.search(text) and _VERSION_STATE.search(text) else None


def _created_doc(text: str, _quote: str, _c: Candidate) -> str | None:
    return "record of creating a document" if _CREATED_DOC.search(text) else None


def _one_off(text: str, quote: str, c: Candidate) -> str | None:
    if c.fact.type == CardType.task or _SCOPED.search(quote):
        return "one-off task instruction"
    if _ONE_OFF.search(quote) and not _PERSISTENT.search(quote):
        return "one-off task instruction"
    return None


def _generic(text: str, _quote: str, c: Candidate) -> str | None:
    """A lookup-able statement, unless the person's quote ties it to them or their work."""
    names_project = c.fact.project != GLOBAL and c.fact.project.lower() in text.lower()
    if _DEFINITION.search(text) and not names_project:
        return "generic knowledge"
    if _PERSONAL.search(text) or _PERSISTENT.search(text):
        return None
    return "generic knowledge" if _GENERIC.search(c.fact.statement) else None


RULES: list[Rule] = [_secret, _timeline, _command_log, _version, _created_doc, _one_off, _generic]


def screen(candidate: Candidate, standing: bool = False) -> str | None:
    """The reason to reject, or None when the candidate may go on to the judge.

    ``standing``: the quote is a line of a file the agent loads at every session start
    (an imported ``CLAUDE.md``), an instruction that stands by construction, so the
    one-off rule does not apply to it; every other rule does."""
    text = f"{candidate.fact.statement}\n{candidate.fact.quote}"
    for rule in RULES:
        if standing and rule is _one_off:
            continue
        reason = rule(text, candidate.fact.quote, candidate)
        if reason:
            return reason
    return None
