"""The memory repository's git history: commits, the repo "as of" a moment, weekly snapshots.

This module is the one way the project reaches git, through GitPython (``open_repo``):
writes (``init_repo``, ``commit``, ``revert``, ``snapshot_tag``) and reads (``history``,
``export_tree``, and for the index's refresh ``head`` and ``changed_paths``). Code outside
it asks these functions, or calls git commands on the ``git.Repo`` ``open_repo`` returns;
it never starts git itself. The recall service imports none of it (docs/index.md, "Git").

Evaluation replays weeks of memory growth, so every read here works on any past commit
without touching the working tree: a past state is written out from the commit's tree
into a separate directory where ``load_memory`` can read it like any other repository.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import git
from pydantic import BaseModel

from memory_repo.errors import DoseMemError

IDENTITY = {"name": "dose-mem", "email": "dose-mem@localhost"}
_GIT_ENV = {
    "GIT_AUTHOR_NAME": IDENTITY["name"],
    "GIT_AUTHOR_EMAIL": IDENTITY["email"],
    "GIT_COMMITTER_NAME": IDENTITY["name"],
    "GIT_COMMITTER_EMAIL": IDENTITY["email"],
}


class HistoryError(DoseMemError):
    """A git operation on the memory repository could not be done (no repo, conflict ...)."""


class CommitInfo(BaseModel):
    sha: str
    date: dt.datetime
    message: str


def utc(when: dt.datetime) -> dt.datetime:
    """Naive datetimes are taken as UTC, so comparisons with git dates never raise."""
    return when.replace(tzinfo=dt.UTC) if when.tzinfo is None else when


def open_repo(root: Path) -> git.Repo:
    try:
        return git.Repo(root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise HistoryError(f"{root} is not a git repository") from exc


def init_repo(root: Path) -> git.Repo:
    """A git repository at ``root`` (created if missing) with a committer identity of its own,
    so commits work on machines with no global git config."""
    root.mkdir(parents=True, exist_ok=True)
    repo = git.Repo(root) if (root / ".git").exists() else git.Repo.init(root)
    with repo.config_writer() as config:
        if not config.has_option("user", "name"):
            config.set_value("user", "name", IDENTITY["name"])
        if not config.has_option("user", "email"):
            config.set_value("user", "email", IDENTITY["email"])
    return repo


def commit(root: Path, paths: Iterable[str], message: str, when: dt.datetime | None = None) -> str:
    """Commit ``paths`` (relative to ``root``; deleted ones are removed) dated ``when``."""
    repo = open_repo(root)
    paths = sorted(set(paths))
    present = [p for p in paths if (root / p).exists()]
    gone = [p for p in paths if not (root / p).exists()]
    if present:
        repo.index.add(present)
    if gone:
        repo.index.remove(gone, r=True, ignore_unmatch=True)
    stamp = _git_date(when or dt.datetime.now(dt.UTC))
    actor = git.Actor(IDENTITY["name"], IDENTITY["email"])
    made = repo.index.commit(
        message, author=actor, committer=actor, author_date=stamp, commit_date=stamp
    )
    return made.hexsha


def history(root: Path) -> list[CommitInfo]:
    """Every commit reachable from HEAD, parents before children (commits made in the same
    second keep their real order); empty for a repo with no commits."""
    repo = open_repo(root)
    if not repo.head.is_valid():
        return []
    return [_info(c) for c in repo.iter_commits("HEAD", topo_order=True, reverse=True)]


def _info(commit: git.Commit) -> CommitInfo:
    return CommitInfo(
        sha=commit.hexsha,
        date=commit.committed_datetime.astimezone(dt.UTC),
        message=str(commit.message).strip(),
    )


def file_history(root: Path, rel: str, limit: int = 50) -> list[CommitInfo]:
    """Commits that touched ``rel`` (renames followed), newest first."""
    repo = open_repo(root)
    if not repo.head.is_valid():
        return []
    return [_info(c) for c in repo.iter_commits("HEAD", paths=rel, max_count=limit)]


def commit_before(root: Path, when: dt.datetime) -> CommitInfo | None:
    """The last commit strictly before ``when``: what a system could have known then."""
    earlier = [c for c in history(root) if c.date < utc(when)]
    return earlier[-1] if earlier else None


def snapshot_tag(root: Path, today: dt.date) -> str | None:
    """Tag HEAD for ``today``'s ISO week (idempotent); None when the repository has no commit.

    The tag (``snapshot-<ISO year>-W<week>``) pins what the memory held that week, so a
    later evaluation compares systems on exactly that state.
    """
    repo = open_repo(root)
    if not repo.head.is_valid():
        return None
    year, week, _ = today.isocalendar()
    name = f"snapshot-{year}-W{week:02d}"
    if name not in {t.name for t in repo.tags}:
        repo.create_tag(name, message=f"weekly memory snapshot {year}-W{week:02d}")
    return name


def export_tree(root: Path, rev: str, dest: Path) -> Path:
    """Write every file of commit ``rev`` into ``dest`` (which must not hold other files)."""
    repo = open_repo(root)
    try:
        tree = repo.commit(rev).tree
    except (git.BadName, ValueError) as exc:
        raise HistoryError(f"no commit {rev!r} in {root}") from exc
    dest.mkdir(parents=True, exist_ok=True)
    for blob in tree.traverse():
        if blob.type != "blob":
            continue
        target = dest / blob.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.data_stream.read())
    return dest


@contextmanager
def memory_as_of(root: Path, at: str | dt.datetime) -> Iterator[Path | None]:
    """A temporary copy of the repository at a commit (sha/ref) or at a moment.

    For a moment, the state is that of the last commit strictly before it; ``None`` is
    yielded when there was no commit yet. The copy is deleted on exit.
    """
    if isinstance(at, dt.datetime):
        found = commit_before(root, at)
        if found is None:
            yield None
            return
        at = found.sha
    tmp = Path(tempfile.mkdtemp(prefix="dose-mem-asof-"))
    try:
        yield export_tree(root, at, tmp / "memory")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def revert(root: Path, sha: str, message: str | None = None) -> str:
    """Undo one commit with a new commit (history is never rewritten); returns the new sha."""
    repo = open_repo(root)
    env = {**os.environ, **_GIT_ENV}
    try:
        repo.git.revert(sha, no_edit=True, no_commit=message is not None, env=env)
        if message is not None:
            repo.git.commit("-m", message, env=env)
    except git.GitCommandError as exc:
        if (Path(repo.git_dir) / "REVERT_HEAD").exists():
            repo.git.revert("--abort")
        detail = str(exc.stderr).strip().strip("'").removeprefix("stderr: '") or str(exc)
        raise HistoryError(f"cannot revert {sha}: {detail.splitlines()[0]}") from exc
    return repo.head.commit.hexsha


def head(root: Path) -> str | None:
    """The sha of HEAD; None when ``root`` is no git repository or has no commit yet."""
    try:
        repo = open_repo(root)
    except HistoryError:
        return None
    return repo.head.commit.hexsha if repo.head.is_valid() else None


def changed_paths(root: Path, since: str) -> set[str] | None:
    """Paths that differ between commit ``since`` and the work tree (staged, unstaged,
    deleted; renames as a deletion and an addition), plus untracked files git does not
    ignore. None when ``root`` is no git repository or ``since`` is not a commit of it:
    the caller must then treat every file as changed. Both git commands walk the work
    tree, so they run side by side."""
    try:
        repo = open_repo(root)
    except HistoryError:
        return None
    commands = [
        ["git", "diff", "--name-only", "--no-renames", "-z", since],
        ["git", "ls-files", "--others", "--exclude-standard", "-z"],
    ]
    try:
        running = [repo.git.execute(c, as_process=True) for c in commands]
        outputs = []
        for process in running:
            outputs.append(process.proc.stdout.read().decode("utf-8", "surrogateescape"))
            process.wait()
    except (OSError, git.GitCommandError):
        return None
    return {rel for out in outputs for rel in out.split("\0") if rel}


def _git_date(when: dt.datetime) -> str:
    """Git's internal date format: seconds since the epoch and a UTC offset."""
    when = utc(when)
    offset = when.utcoffset() or dt.timedelta()
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"{int(when.timestamp())} {sign}{hours:02d}{mins:02d}"
