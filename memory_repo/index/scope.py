"""The prefilter every index query carries: which projects and types, and which lifecycle.

Scope is applied inside the query (a LanceDB ``where`` clause), never to results after
the fact, so an item outside a token's projects can not be returned even by a bug in
ranking or truncation.
"""

from __future__ import annotations

import datetime as dt
import re

from pydantic import BaseModel, Field

from memory_repo.lifecycle import is_alive
from memory_repo.models import CardType

_SAFE = re.compile(r"^[A-Za-z0-9_.\-]+$")


class ScopeClause(BaseModel):
    """Items of these projects, optionally only of these types."""

    projects: list[str]
    types: list[CardType] | None = None


class Prefilter(BaseModel):
    """A disjunction of clauses plus the lifecycle rule; no clauses means nothing matches."""

    clauses: list[ScopeClause] = Field(default_factory=list)
    automatic: bool = True
    today: dt.date = Field(default_factory=dt.date.today)

    def is_empty(self) -> bool:
        return not any(c.projects for c in self.clauses)

    def admits(
        self,
        project: str,
        card_type: str,
        *,
        superseded: bool,
        archived: bool,
        expires: dt.date | None,
    ) -> bool:
        """The rule for one index row, in plain Python: some clause holds its project (and
        type), and in automatic mode the row is alive (``lifecycle.is_alive``). This is the
        reference ``where`` and ``Snapshot.mask`` are property-tested against."""
        in_scope = any(
            project in c.projects and (c.types is None or card_type in c.types)
            for c in self.clauses
        )
        if not in_scope or not self.automatic:
            return in_scope
        return is_alive(superseded=superseded, archived=archived, expires=expires, today=self.today)

    def where(self) -> str:
        """The SQL predicate for LanceDB; identifiers are whitelisted, never interpolated raw."""
        ors = []
        for clause in self.clauses:
            if not clause.projects:
                continue
            part = f"project IN ({_quoted(clause.projects)})"
            if clause.types is not None:
                if not clause.types:
                    continue
                part += f" AND type IN ({_quoted([t.value for t in clause.types])})"
            ors.append(f"({part})")
        scope = " OR ".join(ors) if ors else "false"
        if not self.automatic:
            return f"({scope})"
        day = self.today.isoformat()
        return (
            f"({scope}) AND superseded = false AND archived = false"
            f" AND (expires IS NULL OR expires > date '{day}')"
        )


def _quoted(values: list[str]) -> str:
    for value in values:
        if not _SAFE.match(value):
            raise ValueError(f"unsafe identifier in scope: {value!r}")
    return ", ".join(f"'{v}'" for v in sorted(set(values)))
