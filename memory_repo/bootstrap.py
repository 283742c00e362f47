"""A new, empty memory repository: the folder layout, a README for humans, a first commit."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memory_repo.history import commit, init_repo
from memory_repo.models import Registry
from memory_repo.registry import REGISTRY_FILE, render_registry

KEEP_FILE = "global/cards/.gitkeep"

MEMORY_README = """\
# Memory

The source of truth of dose-mem: plain Markdown in git. Edit any file with an editor;
run `dose-mem check` afterwards to see any file that does not parse.

```
registry.yaml                        projects: id, name, aliases, nicknames,
                                     paths (cwd roots), kind, status
global/cards/<id>.md                 cards of no project (preferences, habits ...)
projects/<project>/brief.md          project brief, one item per ## section
projects/<project>/decisions.md      decision log, one item per ## entry
projects/<project>/cards/<id>.md     one fact per card
<cards>/<id>.evidence.jsonl          evidence appended to a card after it was written
```

A card is YAML front matter (`id` = file name, `type`, `project`, `conclusion`,
`created`, `expires`, `supersedes`, `status`, `confidence`, `source`, `evidence`) and a
Markdown body whose `## ` headings split it into retrievable chunks.

Files are never rewritten by dose-mem: a correction is a new card whose `supersedes`
names the old one. Superseded, expired and archived cards stay here, readable by id,
but are never recalled automatically.
"""


def has_memory(root: Path) -> bool:
    """A directory counts as a memory once it holds anything besides an empty git repo."""
    return root.is_dir() and any(p.name != ".git" for p in root.iterdir())


def init_memory(root: Path, when: dt.datetime | None = None) -> str:
    """Create the empty layout and commit it; returns the commit sha."""
    init_repo(root)
    files = {
        REGISTRY_FILE: render_registry(Registry()),
        "README.md": MEMORY_README,
        KEEP_FILE: "",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return commit(root, files, "Initialise memory repository", when)
