"""Load a whole memory repository into items, collecting problems instead of stopping.

This is the one place that knows the repository's folder layout (``registry.yaml``,
``global/cards/``, ``projects/<p>/{brief.md, decisions.md, cards/}`` and the evidence
sidecars; see the README, "The memory repository"); everything else asks it for items.
A malformed file becomes a ``Problem`` (path and reason) and is skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from frontmatter.default_handlers import YAMLHandler
from pydantic import ValidationError

from memory_repo.cards import content_hash, parse_card_text, read_text
from memory_repo.errors import MalformedCard
from memory_repo.lifecycle import supersedes_cycles
from memory_repo.models import GLOBAL, Card, Evidence, Item, Problem, Registry
from memory_repo.registry import REGISTRY_FILE, load_registry
from memory_repo.sections import parse_sections

EVIDENCE_SUFFIX = ".evidence.jsonl"


class _FastYAML(YAMLHandler):
    """libyaml's C loader when present: parsing 100k cards is dominated by YAML."""

    def load(self, fm: str, **kwargs: object) -> object:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(fm, Loader=loader)


_HANDLER = _FastYAML()


@dataclass
class Memory:
    """A snapshot of the repository: its registry, its good items and its problems."""

    root: Path
    registry: Registry
    items: dict[str, Item] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)


def memory_files(root: Path) -> Iterator[str]:
    """Relative paths of every file that can hold items, in a stable order.

    ``os.scandir`` over the known folders rather than globbing: every refresh lists the
    whole repo (glob against scandir: docs/index.md).
    """
    found = _md_files(root / "global" / "cards", "global/cards/")
    for project in _subdirs(root / "projects"):
        base = root / "projects" / project
        found += _md_files(base / "cards", f"projects/{project}/cards/")
        found += [
            f"projects/{project}/{name}"
            for name in ("brief.md", "decisions.md")
            if (base / name).is_file()
        ]
    yield from sorted(found)


def _md_files(folder: Path, prefix: str) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return [prefix + e.name for e in entries if e.name.endswith(".md") and e.is_file()]
    except (FileNotFoundError, NotADirectoryError):
        return []


def _subdirs(folder: Path) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return [e.name for e in entries if e.is_dir()]
    except (FileNotFoundError, NotADirectoryError):
        return []


def evidence_sidecar(card_path: Path) -> Path:
    return card_path.with_name(card_path.stem + EVIDENCE_SUFFIX)


def load_file(root: Path, rel: str, registry: Registry) -> tuple[list[Item], str]:
    """Items of one file and its content hash (card plus evidence sidecar)."""
    path = root / rel
    parts = rel.split("/")
    text = read_text(path, rel)
    digest = content_hash(text.encode("utf-8"))
    folder_project = GLOBAL if parts[0] == "global" else parts[1]
    if folder_project != GLOBAL and folder_project not in registry.ids:
        raise MalformedCard(rel, f"unknown project {folder_project!r} (not in {REGISTRY_FILE})")
    if parts[-1] == "brief.md":
        return parse_sections(text, rel, folder_project, "brief"), digest
    if parts[-1] == "decisions.md":
        return parse_sections(text, rel, folder_project, "decision"), digest
    card = _parse_with_fast_yaml(text, rel, path.stem)
    if card.project != GLOBAL and card.project not in registry.ids:
        raise MalformedCard(rel, f"unknown project {card.project!r} (not in {REGISTRY_FILE})")
    if card.project != folder_project:
        raise MalformedCard(
            rel, f"project {card.project!r} does not match its folder ({folder_project!r})"
        )
    sidecar = evidence_sidecar(path)
    if sidecar.exists():
        raw = sidecar.read_bytes()
        digest = content_hash(text.encode("utf-8") + raw)
        extra, _ = read_evidence(raw, sidecar.relative_to(root).as_posix())
        card.evidence = [*card.evidence, *extra]
    return [card_item(card, rel, digest)], digest


def card_item(card: Card, rel: str, digest: str) -> Item:
    title = card.conclusion or card.id
    return Item(
        id=card.id,
        type=card.type,
        project=card.project,
        created=card.created,
        expires=card.expires,
        supersedes=card.supersedes,
        status=card.status,
        confidence=card.confidence,
        source=card.source,
        path=rel,
        title=title,
        conclusion=card.conclusion,
        body=card.body,
        evidence=card.evidence,
        content_hash=digest,
    )


def load_memory(root: Path) -> Memory:
    """Every item of the repository, plus every problem found on the way (each reported once)."""
    root = Path(root)
    registry = load_registry(root)
    memory = Memory(root=root, registry=registry)
    for rel in memory_files(root):
        try:
            items, digest = load_file(root, rel, registry)
        except MalformedCard as exc:
            memory.problems.append(Problem(path=exc.path, reason=exc.reason))
            continue
        memory.files[rel] = digest
        memory.problems.extend(sidecar_problems(root, rel))
        for item in items:
            if item.id in memory.items:
                first = memory.items[item.id].path
                memory.problems.append(
                    Problem(path=rel, reason=f"duplicate id {item.id!r} (also in {first})")
                )
                continue
            memory.items[item.id] = item
    memory.problems.extend(reference_problems(memory.items))
    return memory


def sidecar_problems(root: Path, rel: str) -> list[Problem]:
    sidecar = evidence_sidecar(root / rel)
    if "/cards/" not in rel or not sidecar.exists():
        return []
    return read_evidence(sidecar.read_bytes(), sidecar.relative_to(root).as_posix())[1]


def reference_problems(items: dict[str, Item]) -> list[Problem]:
    """Supersedes links that point nowhere, and supersedes cycles."""
    problems = [
        Problem(path=item.path, reason=f"supersedes {old!r}, which does not exist")
        for item in items.values()
        for old in item.supersedes
        if old not in items
    ]
    graph = {item.id: list(item.supersedes) for item in items.values() if item.supersedes}
    for cycle in supersedes_cycles(graph):
        loop = " -> ".join([*cycle, cycle[0]])
        problems.append(Problem(path=items[cycle[0]].path, reason=f"supersedes cycle: {loop}"))
    return problems


def _parse_with_fast_yaml(text: str, rel: str, stem: str) -> Card:
    return parse_card_text(text, rel, stem, handler=_HANDLER)


def read_evidence(raw: bytes, rel: str) -> tuple[list[Evidence], list[Problem]]:
    """Good lines of a sidecar and a problem per bad one.

    The sidecar is append-only, so a torn or bad line must not take the card with it: the
    card keeps its other evidence and the line is reported (``<path>:<line>``).
    """
    good: list[Evidence] = []
    problems: list[Problem] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            good.append(Evidence.model_validate(json.loads(line.decode("utf-8"))))
        except UnicodeDecodeError as exc:
            problems.append(Problem(path=f"{rel}:{n}", reason=f"not UTF-8 at byte {exc.start}"))
        except (json.JSONDecodeError, ValidationError) as exc:
            reason = f"bad evidence line: {str(exc).splitlines()[0]}"
            problems.append(Problem(path=f"{rel}:{n}", reason=reason))
    return good, problems
