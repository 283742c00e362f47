"""A TableKit checkout that exists on this machine, for a server whose own working
directory must be in the project (the stdio MCP server scopes by it).

The demo registry's TableKit root, ``/home/demo/code/tablekit``, exists on no test
machine, and a process cannot run in a directory that does not exist. So the demo home
is copied and the copy's registry is given one more TableKit root: a real directory
under the test's temporary folder, as a person registers a second checkout.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from memory_repo.registry import REGISTRY_FILE, load_registry, render_registry
from memory_repo.settings import Settings
from recall_api.tokens import TokenStore, tokens_path

ROTATED_QUERY = "rotated pages pdfplumber"
ROTATED_CARD = "pdfplumber-011-rotated-pages"  # a TableKit pitfall (memory_repo/demo.py)


@dataclass(frozen=True)
class Checkout:
    settings: Settings  # the copied home, whose registry knows ``path``
    path: Path  # a TableKit checkout: run the server here
    token: str  # a coding agent's token: profile working, project tablekit


def tablekit_checkout(demo: Settings, folder: Path) -> Checkout:
    """Copy ``demo``'s home into ``folder`` and register ``folder/tablekit`` as a TableKit
    root in the copy; returns it with a working-profile token for TableKit."""
    home = folder / "home"
    shutil.copytree(demo.home, home)
    checkout = folder / "tablekit"
    checkout.mkdir()
    settings = Settings(home=home)
    registry = load_registry(settings.memory_path)
    projects = [
        p.model_copy(update={"paths": [*p.paths, str(checkout)]}) if p.id == "tablekit" else p
        for p in registry.projects
    ]
    (settings.memory_path / REGISTRY_FILE).write_text(
        render_registry(registry.model_copy(update={"projects": projects})), encoding="utf-8"
    )
    token = TokenStore(tokens_path(settings)).issue("codex", "working", ["tablekit"])[0]
    return Checkout(settings=settings, path=checkout, token=token)
