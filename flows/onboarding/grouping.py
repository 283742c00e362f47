"""Group equivalent statements from several files into one candidate; settle contradictions.

Two statements of the same project are *equivalent* when their cosine under the
configured embedder reaches ``SAME`` (read on the part the gate would read for their
languages, ``vectors.cosine_part``: with the default bilingual pair, Chinese against
English is judged by the multilingual model) and they have the same polarity (both or
neither negated). A group becomes one candidate: the representative is the person's own
words first, then the newest, then the shortest; every other file in the group adds one
evidence entry (one per file, its first line).

Two groups of the same project *contradict* when they are about the same subject (cosine
on the multilingual part at least ``RELATED``) yet not equivalent. The newer group (its
newest file's mtime, by day) supersedes the older, whose statements are rejected with
that reason. When the dates cannot tell (same day), the clearer one is kept (the
person's own words, then a rule cue word, then the shorter) and the conflict is listed
for the person.
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
from pydantic import BaseModel, Field

from flows.facts import Candidate
from flows.onboarding.candidates import source_of
from flows.rules import CUE
from memory_repo.index.vectors import CHINESE_ENGLISH, Embedder, cosine_part, languages_of, parts_of
from memory_repo.models import Evidence

SAME = 0.75
RELATED = 0.5
_NEGATION = re.compile(
    r"\b(never|don'?t|do not|doesn'?t|no longer|avoid|stop|not)\b|不要|别|不再|避免|禁止|不用|勿",
    re.IGNORECASE,
)
_EPOCH = dt.datetime.min.replace(tzinfo=dt.UTC)


class Grouped(BaseModel):
    kept: list[Candidate] = Field(default_factory=list)
    superseded: list[tuple[Candidate, str]] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    merged: int = 0


def _where(c: Candidate) -> str:
    path, line = source_of(c)
    return f"{path}:{line}"


def _date(c: Candidate) -> dt.date | None:
    return c.at.date() if c.at else None


def _newest(members: list[Candidate]) -> dt.datetime:
    return max((m.at or _EPOCH for m in members), default=_EPOCH)


def _clearness(c: Candidate) -> tuple[bool, bool, int]:
    return (not c.by_user, not CUE.search(c.fact.statement), len(c.fact.statement))


class _Cosines:
    def __init__(self, texts: list[str], embedder: Embedder) -> None:
        self.texts = texts
        self.vectors = embedder.embed(texts) if texts else np.zeros((0, embedder.dim))
        self.parts = parts_of(embedder)
        self.langs = [languages_of(t) for t in texts]

    def _on(self, i: int, j: int, part_no: int) -> float:
        p = self.parts[part_no]
        a, b = self.vectors[i, p.start : p.stop], self.vectors[j, p.start : p.stop]
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        return float(a @ b) / norm if norm else 0.0

    def gate(self, i: int, j: int) -> float:
        return self._on(i, j, cosine_part(self.parts, self.langs[i] | self.langs[j]))

    def multilingual(self, i: int, j: int) -> float:
        return self._on(i, j, cosine_part(self.parts, CHINESE_ENGLISH))


def group(candidates: list[Candidate], embedder: Embedder) -> Grouped:
    out = Grouped()
    cos = _Cosines([c.fact.statement for c in candidates], embedder)
    negated = [bool(_NEGATION.search(c.fact.statement)) for c in candidates]
    parent = list(range(len(candidates)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(candidates)):
        for j in range(i + 1, len(candidates)):
            if (
                candidates[i].fact.project == candidates[j].fact.project
                and negated[i] == negated[j]
                and cos.gate(i, j) >= SAME
            ):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(candidates)):
        groups.setdefault(root(i), []).append(i)
    reps: dict[int, int] = {}
    for key, members in groups.items():
        rep = min(
            members,
            key=lambda i: (
                not candidates[i].by_user,
                -(candidates[i].at or _EPOCH).timestamp(),
                len(candidates[i].fact.statement),
                i,
            ),
        )
        reps[key] = rep
    lost: dict[int, str] = {}
    pairs = sorted(
        (
            (cos.multilingual(reps[a], reps[b]), a, b)
            for a in groups
            for b in groups
            if a < b and candidates[reps[a]].fact.project == candidates[reps[b]].fact.project
        ),
        reverse=True,
    )
    for score, a, b in pairs:
        if score < RELATED or a in lost or b in lost:
            continue
        ca, cb = candidates[reps[a]], candidates[reps[b]]
        na = _newest([candidates[i] for i in groups[a]])
        nb = _newest([candidates[i] for i in groups[b]])
        if na.date() != nb.date():
            win, lose = (a, b) if na > nb else (b, a)
            w, loser = candidates[reps[win]], candidates[reps[lose]]
            lost[lose] = (
                f"superseded: contradicted by the newer {w.fact.statement!r} "
                f"({_where(w)}, {_date(w)}) over {_date(loser)}"
            )
        else:
            win, lose = (a, b) if _clearness(ca) <= _clearness(cb) else (b, a)
            w, loser = candidates[reps[win]], candidates[reps[lose]]
            lost[lose] = f"conflict on the same day: kept the clearer {w.fact.statement!r}"
            out.conflicts.append(
                f"{loser.fact.statement!r} ({_where(loser)}) contradicts "
                f"{w.fact.statement!r} ({_where(w)}), both dated {_date(w)}: "
                f"kept the second; edit the card if that is wrong"
            )
    for key, members in groups.items():
        if key in lost:
            out.superseded += [(candidates[i], lost[key]) for i in members]
            continue
        rep = candidates[reps[key]].model_copy(deep=True)
        files = {source_of(rep)[0]}
        for i in sorted(members, key=lambda i: source_of(candidates[i])):
            other = candidates[i]
            path, line = source_of(other)
            if path in files:
                continue
            files.add(path)
            rep.also.append(
                Evidence(
                    agent=other.agent,
                    session=other.session,
                    at=other.at,
                    quote=other.fact.quote,
                    file=path,
                    line=line,
                )
            )
        out.merged += len(files) - 1
        out.kept.append(rep)
    return out
