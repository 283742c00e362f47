"""``dose-mem check``: every malformed file of a memory repository, each named once.

The loader already skips and records bad files while indexing; the checker reuses it
so the two can never disagree, and adds only what the loader has no reason to open
(stray files in card folders, evidence sidecars whose card is gone).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from memory_repo.errors import MalformedCard
from memory_repo.models import Problem, Registry
from memory_repo.registry import REGISTRY_FILE, load_registry
from memory_repo.store import EVIDENCE_SUFFIX, load_memory

_CARD_DIRS = ("global/cards", "projects/*/cards")


class CheckReport(BaseModel):
    items: int = 0
    files: int = 0
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.ok:
            return f"{self.items} items in {self.files} files, no problems"
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        return f"{count} {noun} ({self.items} good items in {self.files} files)"


def check_memory(root: Path) -> CheckReport:
    try:
        registry = load_registry(root)
    except MalformedCard as exc:
        # Without a registry every project file would look unknown: report the cause only.
        return CheckReport(problems=[Problem(path=exc.path, reason=exc.reason)])
    memory = load_memory(root)
    problems = [*memory.problems, *stray_files(root), *registry_problems(registry)]
    return CheckReport(items=len(memory.items), files=len(memory.files), problems=unique(problems))


def stray_files(root: Path) -> list[Problem]:
    """Files in card folders that are neither cards nor the sidecar of an existing card."""
    problems: list[Problem] = []
    for pattern in _CARD_DIRS:
        for path in sorted(p for d in root.glob(pattern) for p in d.iterdir() if p.is_file()):
            rel = path.relative_to(root).as_posix()
            if path.name.startswith("."):
                continue
            if path.name.endswith(EVIDENCE_SUFFIX):
                card = path.with_name(path.name.removesuffix(EVIDENCE_SUFFIX) + ".md")
                if not card.exists():
                    problems.append(Problem(path=rel, reason="evidence sidecar without a card"))
            elif path.suffix != ".md":
                problems.append(
                    Problem(path=rel, reason="not a card (card folders hold only .md files)")
                )
    return problems


def registry_problems(registry: Registry) -> list[Problem]:
    ids = [p.id for p in registry.projects]
    return [
        Problem(path=REGISTRY_FILE, reason=f"duplicate project id {pid!r}")
        for pid in sorted({i for i in ids if ids.count(i) > 1})
    ]


def unique(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str]] = set()
    out: list[Problem] = []
    for problem in problems:
        key = (problem.path, problem.reason)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return out
