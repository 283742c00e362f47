"""Per-agent profile overrides kept in the memory repository: ``<memory>/profiles/<agent>.yaml``.

A profile (``profiles/*.yaml``, or the user's ``<home>/profiles``) is shared by every
agent whose token names it. An override is a partial profile for one agent, written by
``tune-profiles`` and committed with ``dose-mem profiles apply`` (so ``dose-mem
rollback`` undoes it and the change is in the memory's history):

    profile: working        # the profile it refines; ignored for a token of another
    gate:
      threshold: 0.35       # any Profile field but name; mappings merge key by key

The merged result must be a valid ``Profile``. An override that cannot be read, is not
valid, or names another profile is logged (path and reason) and ignored: the agent
keeps its plain profile, and recall never fails for it.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from profiles.model import Profile, ProfileError

OVERRIDES_DIR = "profiles"
log = logging.getLogger(__name__)


def override_rel(agent: str) -> str:
    """The override's path inside the memory repository."""
    return f"{OVERRIDES_DIR}/{agent}.yaml"


def merge(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` laid over it; nested mappings merge key by key."""
    out = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def read_override(path: Path) -> dict[str, Any]:
    """The override's mapping; raises ``ProfileError`` naming the file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read override: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("profile"), str):
        raise ProfileError(f"{path}: an override is a mapping naming its 'profile'")
    if "name" in data:
        raise ProfileError(f"{path}: an override may not rename the profile")
    return data


def apply_override(base: Profile, override: dict[str, Any], path: Path | str = "") -> Profile:
    """``base`` refined by ``override``; raises ``ProfileError`` when the result is invalid."""
    changes = {k: v for k, v in override.items() if k != "profile"}
    try:
        return Profile.model_validate(merge(base.model_dump(mode="json"), changes))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise ProfileError(f"{path}: {where}: {err['msg']}") from exc


class AgentProfiles:
    """The profile each agent recalls with: its token's profile, refined by its override.

    Re-read only when the overrides folder or a file in it changed (one ``stat`` of the
    folder per call, plus one per file present), so a commit by ``dose-mem profiles
    apply`` or a rollback takes effect on the next request.
    """

    def __init__(self, memory_root: Path) -> None:
        self.folder = Path(memory_root) / OVERRIDES_DIR
        self._stamp: tuple[tuple[str, int], ...] | None = None
        self._overrides: dict[str, dict[str, Any]] = {}
        self._merged: dict[tuple[str, str], Profile] = {}
        self._lock = threading.Lock()

    def _current(self) -> dict[str, dict[str, Any]]:
        try:
            with os.scandir(self.folder) as entries:
                files = sorted(
                    (e.name, e.stat().st_mtime_ns) for e in entries if e.name.endswith(".yaml")
                )
        except (FileNotFoundError, NotADirectoryError):
            files = []
        stamp = tuple(files)
        if stamp != self._stamp:
            with self._lock:
                loaded: dict[str, dict[str, Any]] = {}
                for name, _ in files:
                    path = self.folder / name
                    try:
                        loaded[name.removesuffix(".yaml")] = read_override(path)
                    except ProfileError as exc:
                        log.warning("profile override ignored: %s", exc)
                self._overrides, self._merged, self._stamp = loaded, {}, stamp
        return self._overrides

    def override(self, agent: str) -> dict[str, Any] | None:
        return self._current().get(agent)

    def for_agent(self, agent: str, base: Profile) -> Profile:
        """The profile ``agent`` recalls with when its token names ``base``."""
        override = self.override(agent)
        if override is None:
            return base
        key = (agent, base.name)
        if key not in self._merged:
            self._merged[key] = self._merge(agent, base, override)
        return self._merged[key]

    def _merge(self, agent: str, base: Profile, override: dict[str, Any]) -> Profile:
        if override["profile"] != base.name:
            log.warning(
                "profile override %s/%s.yaml refines %r, but the token's profile is %r; ignored",
                self.folder,
                agent,
                override["profile"],
                base.name,
            )
            return base
        try:
            return apply_override(base, override, self.folder / f"{agent}.yaml")
        except ProfileError as exc:
            log.warning("profile override ignored: %s", exc)
            return base
