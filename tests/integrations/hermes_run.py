"""Run inside Hermes Agent's own Python (not dose-mem's): ``python hermes_run.py PROMPT``.

Lists the memory providers as ``hermes memory`` does, then builds an ``AIAgent`` (which
loads ``$HERMES_HOME/.env`` and activates ``memory.provider`` from its config.yaml), runs
one conversation against the model at ``$FAKE_LLM`` and ends the session as Hermes
does. Prints one JSON line with what it saw.
"""

import importlib.util
import json
import os
import sys

seen = {"recall_api_importable": importlib.util.find_spec("recall_api") is not None}
from plugins.memory import discover_memory_providers  # noqa: E402 - after the check above

seen["discovered"] = {name: available for name, _, available in discover_memory_providers()}
import run_agent  # noqa: E402 - loads $HERMES_HOME/.env

agent = run_agent.AIAgent(
    base_url=os.environ["FAKE_LLM"],
    api_key="none",
    model="m",
    provider="custom",
    quiet_mode=True,
    skip_context_files=True,
    enabled_toolsets=[],
    max_iterations=3,
    session_id=os.environ["SESSION"],
)
manager = agent._memory_manager
seen["providers"] = [p.name for p in manager.providers] if manager else []
result = agent.run_conversation(sys.argv[1])
seen["final"] = result.get("final_response")
agent.shutdown_memory_provider(result.get("messages"))
print(json.dumps(seen))
