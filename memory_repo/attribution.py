"""Which project a session or a prompt belongs to: one rule, for the write path and recall.

The order (docs/capture.md, "Project attribution"):

1. **The working directory.** The registry root that contains ``cwd`` (the longest wins,
   compared by whole path components), tried as written, then with symlinks resolved,
   then, inside a git worktree, as the worktree's main checkout; then the repository root
   the agent recorded for the session (Hermes keeps ``git_repo_root``).
2. **A project named in the words**: exactly one project whose name, id, alias or
   nickname occurs as a whole word.
3. **A personal agent's session** goes to the personal project, when there is exactly one.
4. Else no project. What is then done with a fact is the write path's rule
   (``flows/filing.py``): only a cross-project preference, pitfall, convention or habit
   may be global; a project fact waits, held with its reason.

Pure functions of the registry and the strings they are given, except that step 1 looks
at the file system (symlinks, ``.git`` files) of the machine it runs on; a path that does
not exist here (an agent on another machine) is compared as written. Those lookups are
cached per path: recall resolves a project on every prompt.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from memory_repo.models import ProjectKind, Registry

How = str  # cwd | symlink | worktree | repo_root | named | personal | none


@dataclass(frozen=True)
class Attribution:
    """A project (``None``: none found), how it was found and why, in words for a person."""

    project: str | None
    how: How
    why: str


def project_for_cwd(registry: Registry, cwd: str) -> str | None:
    """The project whose registry root is the longest one containing ``cwd`` as written."""
    here = _normal(cwd)
    best: tuple[int, str] | None = None
    for proj in registry.projects:
        for root in proj.paths:
            base = _normal(root)
            if _within(here, base) and (best is None or len(base) > best[0]):
                best = (len(base), proj.id)
    return best[1] if best else None


def locate(registry: Registry, cwd: str | None, repo_root: str | None = None) -> Attribution:
    """Step 1 alone: the project of a working directory, or ``how="none"``."""
    if cwd:
        if found := project_for_cwd(registry, cwd):
            return Attribution(found, "cwd", f"cwd {cwd} is in {found}")
        real = _realpath(cwd)
        if real != _normal(cwd) and (found := project_for_cwd(registry, real)):
            return Attribution(found, "symlink", f"cwd {cwd} resolves to {real}, in {found}")
        main = _main_worktree(real)
        if main and (found := project_for_cwd(registry, main)):
            return Attribution(found, "worktree", f"cwd {cwd} is a worktree of {main}, {found}")
    if repo_root and (found := project_for_cwd(registry, repo_root)):
        return Attribution(found, "repo_root", f"repository {repo_root} is {found}")
    return Attribution(None, "none", f"cwd {cwd} is in no registered project" if cwd else "no cwd")


def projects_named_in(registry: Registry, text: str) -> list[str]:
    """Projects whose name, id, alias or nickname occurs in ``text`` as a whole word."""
    folded = text.casefold()
    return [p.id for p in registry.projects if any(_mentions(folded, n) for n in p.names)]


def mentions(text: str, name: str) -> bool:
    """``name`` occurs in ``text``, case-folded, as a whole word (a name in Chinese, or
    any name not in ASCII, as a substring)."""
    return _mentions(text.casefold(), name)


def attribute(
    registry: Registry,
    *,
    cwd: str | None,
    words: str,
    repo_root: str | None = None,
    personal: bool = False,
) -> Attribution:
    """Steps 1 to 3 for a session (``words``: the person's own words in it) or a prompt."""
    found = locate(registry, cwd, repo_root)
    if found.project:
        return found
    named = projects_named_in(registry, words)
    if len(named) == 1:
        return Attribution(named[0], "named", f"{found.why}; the words name {named[0]}")
    if personal:
        mine = [p.id for p in registry.projects if p.kind == ProjectKind.personal]
        if len(mine) == 1:
            return Attribution(mine[0], "personal", f"{found.why}; a personal agent's session")
    if named:
        return Attribution(None, "none", f"{found.why}; the words name {', '.join(named)}")
    return Attribution(None, "none", f"{found.why}; the words name no project")


def _mentions(folded: str, name: str) -> bool:
    needle = name.casefold().strip()
    if not needle:
        return False
    if not needle.isascii():
        return needle in folded
    return re.search(rf"(?<![\w-]){re.escape(needle)}(?![\w-])", folded) is not None


def _normal(path: str) -> str:
    return posixpath.normpath(os.path.expanduser(path))


def _within(here: str, base: str) -> bool:
    return here == base or here.startswith(base.rstrip("/") + "/")


@functools.lru_cache(maxsize=4096)
def _realpath(path: str) -> str:
    return os.path.realpath(_normal(path))


@functools.lru_cache(maxsize=4096)
def _main_worktree(path: str) -> str | None:
    """The main checkout of the git worktree holding ``path``, if ``path`` is in a linked
    worktree: its ``.git`` is a file ``gitdir: <main>/.git/worktrees/<name>``, whose
    ``commondir`` names the main repository's ``.git``."""
    here = Path(path)
    for folder in (here, *here.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                return None
            if not dot_git.is_file():
                continue
            line = dot_git.read_text("utf-8", errors="replace").strip()
        except OSError:
            return None
        if not line.startswith("gitdir:"):
            return None
        gitdir = (folder / line.removeprefix("gitdir:").strip()).resolve()
        common = gitdir / "commondir"
        try:
            common_dir = (gitdir / common.read_text("utf-8").strip()).resolve()
        except OSError:
            return None
        if common_dir.name != ".git":
            return None
        relative = here.relative_to(folder)
        return str(common_dir.parent / relative)
    return None
