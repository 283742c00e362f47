"""What the recall log says about one agent's doses: misses, used items, routine prompts.

From ``recall_log.joined`` (each recall with the searches and reads of the same agent
and session within a few turns after it):

* **miss**: the agent searched or read after a recall that gave nothing, or gave other
  ids. What it wanted: the ids it read, or, when it only searched, each search's top
  hit. The recalls one search or read follows form one miss (``Miss.recalls``); a
  profile serves the miss when any of them would inject a wanted id.
* **used**: an injected id the agent then read.
* **unused**: an injected id it never read or searched its way to; counts against the
  dose.
* **routine**: a recall that no search or read followed; the profile's
  ``routine_limit`` bounds the share of these that may inject anything.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from memory_repo.recall_log import Joined, RecallLogEntry


@dataclass
class Outcome:
    """One logged recall, and what the agent did after it."""

    entry: RecallLogEntry
    wanted: set[str] = field(default_factory=set)
    used: set[str] = field(default_factory=set)
    routine: bool = False


@dataclass
class Miss:
    """One search or read that recall should have made unnecessary."""

    recalls: list[int]
    wanted: set[str]
    first: dt.datetime


@dataclass
class AgentSignals:
    agent: str
    profile: str
    outcomes: list[Outcome] = field(default_factory=list)
    misses: list[Miss] = field(default_factory=list)

    @property
    def routine(self) -> int:
        return sum(o.routine for o in self.outcomes)

    @property
    def used(self) -> int:
        return sum(bool(o.used) for o in self.outcomes)

    @property
    def unused_items(self) -> int:
        return sum(len(set(o.entry.injected) - o.used - o.wanted) for o in self.outcomes)


def wanted_ids(pair: Joined) -> set[str]:
    """What the signals after a recall looked for: read ids, else each search's top hit."""
    read = set(pair.read_ids)
    if read:
        return read
    return {s.ids[0] for s in pair.signals if s.kind == "search" and s.ids}


def agent_signals(pairs: list[Joined]) -> dict[str, AgentSignals]:
    """Per agent, in log order: each recall's outcome and the misses, grouped by the
    first signal that revealed them. Recalls whose prompt was stored as a hash only
    are left out: they can not be replayed."""
    out: dict[str, AgentSignals] = {}
    groups: dict[tuple[str, dt.datetime], Miss] = {}
    for pair in pairs:
        entry = pair.recall
        if entry.prompt is None:
            continue
        agent = out.setdefault(entry.agent, AgentSignals(entry.agent, entry.profile))
        agent.profile = entry.profile
        injected = set(entry.injected)
        wanted = wanted_ids(pair)
        outcome = Outcome(
            entry,
            wanted=wanted - injected,
            used=injected & set(pair.read_ids),
            routine=not pair.signals,
        )
        agent.outcomes.append(outcome)
        if outcome.wanted:
            first = min(s.at for s in pair.signals)
            key = (entry.agent, first)
            if key not in groups:
                groups[key] = Miss([], set(), first)
                agent.misses.append(groups[key])
            groups[key].recalls.append(len(agent.outcomes) - 1)
            groups[key].wanted |= outcome.wanted
    return out
