"""Pi: the dose-mem extension in a directory of its own under Pi's extensions.

Formats, read in @mariozechner/pi-coding-agent 0.73.1 (.tools/agents/pi-0.73.1):
* ``dist/config.js`` ``getAgentDir``: ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``.
* ``docs/extensions.md`` and ``dist/core/extensions/loader.js``: ``<agent dir>/extensions/``
  is searched for ``*.ts`` files and for directories with an ``index.ts``, each loaded
  with jiti and its default export called once with the extension API.
* Pi has no per-extension settings or env (docs/settings.md), and the extension
  (``recall_api/integrations/pi/dose-mem.ts``) reads DOSE_MEM_URL and DOSE_MEM_TOKEN from
  the environment when Pi calls it. So connect writes ``extensions/dose-mem/`` holding the
  extension as it is and an ``index.ts`` that sets those two variables in Pi's process
  and hands the extension on (mode 0600: it holds the token). Pi's own child processes
  (its bash tool) inherit them, as Claude Code's do from settings.json ``env``.

A hand-copied ``extensions/dose-mem.ts`` (the README's manual step) would load the
extension twice; connect removes it, with a warning.
User scope only: a project's ``.pi/extensions/`` would put the token in the repository.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from dose_mem.connect import homes
from dose_mem.connect.edits import owned
from dose_mem.connect.files import read_text
from dose_mem.connect.model import ConnectError, Plan, Target

AGENT = "pi"
SCOPES = ("user",)
FOLDER = "dose-mem"
_TOKEN_LINE = re.compile(r'process\.env\.DOSE_MEM_TOKEN = "([^"]*)";')


def extension_files() -> dict[str, str]:
    from recall_api.integrations.client_files import files

    return files("pi")


def _dirs(target: Target) -> tuple[Path, Path]:
    extensions = homes.pi_agent_dir(target.env, target.home) / "extensions"
    return extensions, extensions / FOLDER


def loader(url: str, token: str, extension: str) -> str:
    """The generated ``index.ts``: sets the environment, then exports the extension."""
    module = "./" + extension
    return (
        "/*\n"
        " * dose-mem for Pi: written by `dose-mem connect pi`, removed by `dose-mem "
        "disconnect pi`.\n"
        " * Pi gives extensions no settings of their own, and ./dose-mem.ts reads the "
        "service's\n"
        " * address and this agent's token from the environment when Pi calls it, so this "
        "entry\n"
        " * point sets them first (this file holds the token: mode 0600).\n"
        " */\n"
        f"import doseMem from {json.dumps(module)};\n"
        "\n"
        f"process.env.DOSE_MEM_URL = {json.dumps(url)};\n"
        f"process.env.DOSE_MEM_TOKEN = {json.dumps(token)};\n"
        "\n"
        "export default doseMem;\n"
    )


def connect(target: Target) -> Plan:
    if target.scope != "user":
        raise ConnectError("pi: only --scope user (a project's .pi/ would hold the token)")
    extensions, folder = _dirs(target)
    files = extension_files()
    plan = Plan(AGENT)
    for name, text in files.items():
        plan.edits.append(owned(folder / name, text, "the dose-mem extension"))
    entry = next(iter(files))
    plan.edits.append(
        owned(
            folder / "index.ts",
            loader(target.url, target.token, entry),
            "entry point: DOSE_MEM_URL, DOSE_MEM_TOKEN",
            secret=True,
        )
    )
    for name in files:
        loose = extensions / name
        if loose.exists():
            plan.edits.append(owned(loose, None, "hand-copied copy (now in dose-mem/)"))
            plan.warnings.append(f"removed {loose}: the extension now loads from {folder}/")
    plan.next_steps.append(
        "Start a new Pi session (or `/reload` in a running one); the extension registers "
        "memory_search and memory_read."
    )
    return plan


def disconnect(target: Target) -> Plan:
    extensions, folder = _dirs(target)
    plan = Plan(AGENT)
    for name in [*extension_files(), "index.ts"]:
        plan.edits.append(owned(folder / name, None, "the dose-mem extension"))
    plan.remove_dirs += [folder, extensions]
    return plan


def current_token(target: Target) -> str | None:
    found = _TOKEN_LINE.search(read_text(_dirs(target)[1] / "index.ts") or "")
    return found.group(1) if found else None
