"""When a profile recalls: every turn, or on a session's first turn, a project switch, or a cue.

Session state is kept per (agent, session) in a bounded LRU, so a long-running service
never grows without limit; a session it has forgotten counts as new, which errs towards
one extra recall rather than a missed one.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

from profiles.model import Profile, Trigger


@dataclass
class SessionState:
    project: str | None
    last_turn: int


class SessionTracker:
    """Thread-safe, bounded memory of what each session last asked about."""

    def __init__(self, max_sessions: int = 10_000) -> None:
        self._max = max_sessions
        self._sessions: OrderedDict[tuple[str, str], SessionState] = OrderedDict()
        self._lock = threading.Lock()

    def observe(
        self, agent: str, session: str, turn: int, project: str | None
    ) -> SessionState | None:
        """Record this turn and return the state the session had before it (None if new)."""
        key = (agent, session)
        with self._lock:
            before = self._sessions.pop(key, None)
            self._sessions[key] = SessionState(project=project, last_turn=turn)
            while len(self._sessions) > self._max:
                self._sessions.popitem(last=False)
        return before

    def __len__(self) -> int:
        return len(self._sessions)


def cue_in(prompt: str, cues: list[str]) -> str | None:
    """The first cue phrase present in the prompt (whole words for Latin script)."""
    text = prompt.casefold()
    for cue in cues:
        needle = cue.casefold()
        if needle.isascii():
            if re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text):
                return cue
        elif needle in text:
            return cue
    return None


def fired(
    profile: Profile,
    *,
    turn: int,
    before: SessionState | None,
    project: str | None,
    prompt: str,
) -> str | None:
    """The name of the trigger that fires for this turn, or None when recall stays quiet."""
    triggers = set(profile.triggers)
    if Trigger.every_turn in triggers:
        return Trigger.every_turn.value
    if Trigger.cue in triggers and (cue := cue_in(prompt, profile.cues)):
        return f"cue:{cue}"
    if Trigger.first_turn in triggers and (turn == 1 or before is None):
        return Trigger.first_turn.value
    if (
        Trigger.project_switch in triggers
        and before is not None
        and project is not None
        and before.project != project
    ):
        return Trigger.project_switch.value
    if Trigger.new_subject in triggers:
        return Trigger.new_subject.value
    return None
