"""The files each agent's client piece is made of, as installed on the agent's machine.

Every piece is self-contained: the standard library, or only what its host agent ships
(Hermes: httpx; Pi: Node's built-ins), so none needs dose-mem installed beside the
agent. ``dose-mem connect`` copies them; the service serves them at
``/v1/client/<piece>/<file>`` for machines that only reach it over the network.

Contract: ``files(piece)`` maps each installed file name to its source text; the names
are fixed per piece and the texts are the repository's files as they are (no template).
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent
_HOOKS = _HERE.parent / "hooks.py"

PIECES: dict[str, dict[str, Path]] = {
    # the hook client: Claude Code's and Codex's hooks, Codex's notify
    "hook": {"dose_mem_hook.py": _HOOKS},
    # $HERMES_HOME/plugins/dose-mem/
    "hermes": {
        "__init__.py": _HERE / "hermes" / "__init__.py",
        "plugin.yaml": _HERE / "hermes" / "plugin.yaml",
        "provider.py": _HERE / "hermes_provider.py",
        "dose_mem_hook.py": _HOOKS,
    },
    # ~/.pi/agent/extensions/
    "pi": {"dose-mem.ts": _HERE / "pi" / "dose-mem.ts"},
}


def files(piece: str) -> dict[str, str]:
    """File name -> text of ``piece``; KeyError for an unknown piece."""
    return {name: path.read_text(encoding="utf-8") for name, path in PIECES[piece].items()}
