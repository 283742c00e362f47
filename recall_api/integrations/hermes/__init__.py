"""dose-mem for Hermes Agent: the memory plugin's entry point.

This file, ``provider.py`` (``recall_api/integrations/hermes_provider.py``) and
``dose_mem_hook.py`` (``recall_api/hooks.py``) make up the plugin directory
``$HERMES_HOME/plugins/dose-mem/`` that ``dose-mem connect hermes`` writes and the
service serves at ``/v1/client/hermes/<file>``. Hermes' loader registers the sibling
files as submodules (``plugins/memory/__init__.py``, ``_load_provider_from_dir``), so
the relative import below needs nothing but what Hermes itself ships (httpx). The
loader recognises a memory plugin by ``register_memory_provider`` in this source.
"""

from .provider import DoseMemProvider


def register(ctx):  # Hermes passes its plugin context
    ctx.register_memory_provider(DoseMemProvider())
