"""Hermes Agent: the memory plugin directory, ``memory.provider`` and the token in .env.

Formats, read in hermes-agent 0.19.0 (the wheel in .tools/agents/hermes-0.19.0):
* ``plugins/memory/__init__.py``: user memory providers live in
  ``$HERMES_HOME/plugins/<name>/``, recognised by ``register_memory_provider`` in their
  ``__init__.py``; sibling ``*.py`` files are registered as submodules, so the plugin's
  relative imports work. The files are ``recall_api.integrations.client_files.files
  ("hermes")``, copied as they are.
* ``hermes_cli/config.py``: ``memory.provider`` in ``$HERMES_HOME/config.yaml`` selects the
  one active external provider (edited as one line: ``dose_mem.connect.yamlkey``).
* ``hermes_cli/env_loader.py``: ``$HERMES_HOME/.env`` is loaded into the process
  environment at start (python-dotenv, ``KEY=value`` and ``export KEY=value``), where the
  provider reads DOSE_MEM_URL and DOSE_MEM_TOKEN.

Another provider that was active is remembered in ``plugins/dose-mem/connect.json`` (its
config line, as it was) and put back by disconnect.
"""

from __future__ import annotations

import json
from pathlib import Path

from dose_mem.connect import dotenv, homes, yamlkey
from dose_mem.connect.edits import owned, text_edit
from dose_mem.connect.files import read_text
from dose_mem.connect.model import ConnectError, Plan, Target

AGENT = "hermes"
SCOPES = ("user",)
PROVIDER = "dose-mem"
MANIFEST = "connect.json"
ENV_KEYS = ("DOSE_MEM_URL", "DOSE_MEM_TOKEN")


def plugin_files() -> dict[str, str]:
    from recall_api.integrations.client_files import files

    return files("hermes")


def _paths(target: Target) -> tuple[Path, Path, Path]:
    home = homes.hermes_home(target.env, target.home)
    return home / "plugins" / PROVIDER, home / "config.yaml", home / ".env"


def _manifest(plugin_dir: Path) -> dict[str, str]:
    try:
        data = json.loads(read_text(plugin_dir / MANIFEST) or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def connect(target: Target) -> Plan:
    if target.scope != "user":
        raise ConnectError("hermes: only --scope user (Hermes has no per-project plugins)")
    plugin_dir, config, env_file = _paths(target)
    config_text = read_text(config)
    new_config, replaced = yamlkey.set_provider(config_text, PROVIDER, str(config))
    plan = Plan(AGENT)
    for name, text in plugin_files().items():
        plan.edits.append(owned(plugin_dir / name, text, "the dose-mem memory provider"))
    if replaced is not None:
        record = json.dumps({"memory.provider": replaced}, indent=2) + "\n"
        plan.edits.append(owned(plugin_dir / MANIFEST, record, "the provider it replaced"))
        plan.warnings.append(
            f"memory.provider was {yamlkey.get_provider(config_text)!r}; Hermes runs one "
            "external provider, so dose-mem replaces it (disconnect puts it back)."
        )
    where = str(config)
    plan.edits.append(
        text_edit(
            config,
            new_config,
            f"memory.provider: {PROVIDER}",
            undo=lambda text: yamlkey.unset_provider(text, PROVIDER, None, where),
        )
    )
    values = {"DOSE_MEM_URL": target.url, "DOSE_MEM_TOKEN": target.token}
    plan.edits.append(
        text_edit(
            env_file,
            dotenv.set_keys(read_text(env_file), values),
            ", ".join(ENV_KEYS),
            secret=True,
            undo=lambda text: dotenv.remove_keys(text, ENV_KEYS),
        )
    )
    plan.next_steps.append(
        "Start a new Hermes session; `hermes memory status` names dose-mem as the provider."
    )
    return plan


def disconnect(target: Target) -> Plan:
    plugin_dir, config, env_file = _paths(target)
    restore = _manifest(plugin_dir).get("memory.provider")
    plan = Plan(AGENT)
    for name in [*plugin_files(), MANIFEST]:
        plan.edits.append(owned(plugin_dir / name, None, "the dose-mem memory provider"))
    new_config = yamlkey.unset_provider(read_text(config), PROVIDER, restore, str(config))
    what = "memory.provider restored" if restore else "memory.provider"
    plan.edits.append(text_edit(config, new_config, what, removing=True))
    plan.edits.append(
        text_edit(
            env_file,
            dotenv.remove_keys(read_text(env_file), ENV_KEYS),
            ", ".join(ENV_KEYS),
            removing=True,
        )
    )
    plan.caches.append((plugin_dir / "__pycache__", {Path(n).stem for n in plugin_files()}))
    plan.remove_dirs += [plugin_dir, plugin_dir.parent]
    return plan


def current_token(target: Target) -> str | None:
    return dotenv.get(read_text(_paths(target)[2]), "DOSE_MEM_TOKEN")
