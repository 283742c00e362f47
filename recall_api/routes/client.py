"""``GET /v1/client/dose_mem_hook.py``: the hook and notify commands as one file.

A machine that reaches the service over a private network needs no dose-mem install:
it downloads this file (``recall_api/hooks.py``, standard library only) and runs it
with any Python 3.11 as ``python3 dose_mem_hook.py claude-code|codex|notify-codex``
(docs/integrations.md). The file holds no secret, so it is served without a token.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from recall_api import hooks

router = APIRouter(tags=["client"])
HOOK_FILE = Path(hooks.__file__)


@router.get("/v1/client/dose_mem_hook.py", response_class=PlainTextResponse)
def hook_file() -> PlainTextResponse:
    return PlainTextResponse(
        HOOK_FILE.read_text(encoding="utf-8"), media_type="text/x-python; charset=utf-8"
    )
