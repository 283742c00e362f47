"""Filing: the project each candidate fact is written under, or why it waits.

The session's project comes from ``memory_repo.attribution`` (cwd, then a project named
in the person's words, then a personal agent's personal project), carried by its
``Digest``. Per fact (docs/capture.md, "Project attribution"):

* a session with a project files every fact there (rules 1-3 win), except a fact the
  person's words make global: a preference, pitfall, convention or habit said to hold
  in every project ("in any of my repos", "不管哪个 repo"), or a preference about how
  agents answer them ("reply in two sentences", "回我简短一点"). A distiller's "global"
  or another project does not move it. A fact that names one other project B (and not
  the session's own) goes to B when the session was placed by its words; when it was
  placed by its path it is held: an agent in project A never writes into project B;
* a session without a project files a fact that names exactly one project there, a fact
  the words make global as global, and a preference, pitfall, convention or habit that
  is about no particular system (no code, identifier, acronym or number) as global;
* any other fact may belong to a project nobody named: it is **held**, never global.
  Held facts are kept under state with their reason (``memory_repo.held``), shown by
  ``dose-mem sessions held`` and the inspector.
"""

from __future__ import annotations

import re

from flows.digest import Digest
from flows.facts import Candidate
from memory_repo.attribution import projects_named_in
from memory_repo.models import GLOBAL, CardType, Registry
from memory_repo.text import unfinished_sentence
from memory_repo.transcripts.transcript import session_key

# Types that may hold across projects.
CROSS_PROJECT = frozenset(
    {CardType.preference, CardType.pitfall, CardType.convention, CardType.habit}
)
ABOUT_THE_PERSON = frozenset({CardType.preference, CardType.habit})
PLACED_BY_PATH = frozenset({"cwd", "symlink", "worktree", "repo_root"})

# Words that tie a statement to the place it was said in.
_HERE = re.compile(
    r"\b(this|our|the)\s+(repo|repository|project|codebase|app|service|pipeline|package|"
    r"site|story|investigation|firmware|tool|build|ci|tests?|deploy|release|branch|"
    r"database|db|schema|server|config)\b|\bin here\b|\bhere\b|"
    r"[这這][个個]([项項]目|[仓倉]庫?|[仓倉]库|[库庫]|代[码碼][库庫]|工具|[网網]站|服[务務])|"
    r"本([项項]目|[仓倉][库庫])|[这這][里裡裏]|[这這][边邊]",
    re.IGNORECASE,
)
_PATH = re.compile(r"(?:^|[\s(`'\"])(?:~?/|\./)[\w.-]+/|\b[a-z][a-z0-9+.-]*://")
# The person says it holds everywhere.
_EVERYWHERE = re.compile(
    r"\b(all|every|any|each)\s+(of\s+)?(my\s+)?(projects?|repos?|repositories|codebases?)\b|"
    r"\bacross\s+(all\s+)?(my\s+)?(projects|repos)\b|\bno matter (which|what)\b|"
    r"\b(in general|general rule|everywhere|for everything)\b|"
    r"(所有|每[个個]|任何|哪[个個])的?([项項]目|[仓倉][库庫]|repo)|不管(哪[个個]|什[么麼]|是)|"
    r"通用(的?[规規][则則]|的?[规規]矩)",
    re.IGNORECASE,
)
# A project named only to be set aside: "unrelated to X", "not about X", "X 无关".
_ASIDE = re.compile(
    r"\b(unrelated to|not about|not for|apart from|aside from|besides|other than)"
    r"\s+(\S+\s+){0,2}\S+|[跟和与與][^，。,.;；:：]{1,16}?[无無][关關]",
    re.IGNORECASE,
)
# The specifics of some system: code, an identifier, an acronym, a value with a number.
_SPECIFIC = re.compile(
    r"`[^`]+`|\b[\w.-]+=[\w.-]+|\w+::\w+|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b|"
    r"\b[A-Z]{2,}[A-Z0-9]*\b|\d",
)
# A preference about how agents are to work with the person: addressed to them ("reply
# briefly", "answer me in Chinese", "your answers", "回我简短一点"), not the word alone
# ("same answers to the last bit" is a result).
_TO_THE_PERSON = re.compile(
    r"\b(answer|reply|respond|write back)\s+(me|to me|in|with|briefly|shortly|concisely|"
    r"first|only)\b|\b(your|the|keep|make)\s+(answers|replies|responses)\b|"
    r"\b(tell|ask|call|remind|show) me\b|\bexplain\b.{0,40}\bto me\b|"
    r"回我|回答我|回答[时時]|回[复覆]我|[跟和]我[说說]|[给給]我[讲講]|叫我|[问問]我",
    re.IGNORECASE,
)


def _words(c: Candidate) -> str:
    """What the fact says: its statement and the person's quote."""
    return f"{c.fact.statement}\n{c.fact.quote}"


def named_projects(registry: Registry, text: str) -> list[str]:
    """The projects ``text`` is about: those it names, less one named only to set it
    aside ("unrelated to the game: for tidepool, ...", "跟地面站无关")."""
    named = projects_named_in(registry, text)
    if len(named) < 2:
        return named
    aside = projects_named_in(registry, " ".join(m.group(0) for m in _ASIDE.finditer(text)))
    return [p for p in named if p not in aside] or named


def portable(c: Candidate, registry: Registry) -> bool:
    """A fact that may hold in every project: its type allows it, and it names no project,
    no path or URL, and not "this repo" or "the build"."""
    text = _words(c)
    return (
        c.fact.type in CROSS_PROJECT
        and not _HERE.search(text)
        and not _PATH.search(text)
        and not projects_named_in(registry, text)
    )


def lead(c: Candidate, d: Digest) -> str:
    """The words just before the quote in its turn, back to the previous sentence's end:
    where a person scopes what follows ("one thing, and this goes for every repo: ...")."""
    for turn in d.turns:
        at = turn.text.find(c.fact.quote) if turn.role == "user" else -1
        if at > 0:
            return unfinished_sentence(turn.text[:at])
    return ""


def global_because(c: Candidate, registry: Registry, d: Digest | None = None) -> str | None:
    """Why ``c`` holds across projects, when the person's words say so: they scope it to
    every project (in the fact or just before it), or it is a preference about how
    agents answer them."""
    text = f"{_words(c)}\n{lead(c, d) if d else ''}"
    if c.fact.type in CROSS_PROJECT and _EVERYWHERE.search(text):
        return "said to hold in every project"
    if c.fact.type in ABOUT_THE_PERSON and _TO_THE_PERSON.search(text) and portable(c, registry):
        return "a preference about how agents answer the person"
    return None


def general(c: Candidate, registry: Registry) -> bool:
    """Portable and about no particular system: no code, identifier, acronym or number
    (a setting's value, a module's name), which would belong to some project."""
    return portable(c, registry) and not _SPECIFIC.search(_words(c))


def file_fact(c: Candidate, d: Digest, registry: Registry) -> tuple[str | None, str]:
    """The project ``c`` is filed under and why; ``None`` means held, the reason says why.

    A session with a project files there, unless the person's words make the fact
    global (``global_because``), whatever project the distiller gave it; a
    session placed by its words (not its path) files a fact naming another project there.
    A session without a project files a fact that names one project there, a global one
    as global, a general preference, pitfall, convention or habit (``general``) as
    global, and holds the rest: a setting, a module or a value said with no project in
    sight belongs to some project, so it waits rather than reaching every project's
    agents."""
    named = named_projects(registry, _words(c))
    because = global_because(c, registry, d)
    if d.project != GLOBAL:
        if because:
            return GLOBAL, f"{because} (said in {d.project})"
        if len(named) == 1 and named[0] != d.project:
            if d.how not in PLACED_BY_PATH:
                return named[0], f"the fact names {named[0]}"
            return None, f"said in {d.project}'s session ({d.why}) but about {named[0]}"
        return d.project, d.why
    if len(named) == 1:
        return named[0], f"{d.why}; the fact names {named[0]}"
    if because:
        return GLOBAL, f"{d.why}; {because}"
    if general(c, registry):
        return GLOBAL, f"{d.why}; a general {c.fact.type}, about no particular system"
    return None, f"a {c.fact.type} with no project in sight: {d.why}"


def file_all(
    candidates: list[Candidate], digests: dict[str, Digest], registry: Registry
) -> tuple[list[Candidate], list[tuple[Candidate, str]]]:
    """Each candidate with its project set, and the held ones with their reasons.
    ``digests`` is keyed by ``agent:session``; a candidate of no digest (an imported
    file, a task result) keeps its project."""
    kept: list[Candidate] = []
    held: list[tuple[Candidate, str]] = []
    for c in candidates:
        d = digests.get(session_key(c.agent, c.session))
        if d is None:
            kept.append(c)
            continue
        project, why = file_fact(c, d, registry)
        if project is None:
            held.append((c, why))
        else:
            kept.append(
                c.model_copy(update={"fact": c.fact.model_copy(update={"project": project})})
            )
    return kept, held
