"""The project registry (``registry.yaml``): names, aliases and cwd roots of every project."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from memory_repo.errors import MalformedCard
from memory_repo.models import Registry

REGISTRY_FILE = "registry.yaml"


def load_registry(root: Path) -> Registry:
    """Load the registry; a broken registry is an error, since every scope decision needs it."""
    path = root / REGISTRY_FILE
    if not path.exists():
        return Registry()
    try:
        # libyaml's C loader when present: every refresh reads the registry.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
        return Registry.model_validate(data)
    except (yaml.YAMLError, ValidationError, UnicodeDecodeError) as exc:
        raise MalformedCard(REGISTRY_FILE, f"invalid registry: {str(exc).splitlines()[0]}") from exc


def render_registry(registry: Registry) -> str:
    data = registry.model_dump(mode="json", exclude_defaults=False)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1000)
