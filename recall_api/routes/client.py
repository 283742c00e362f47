"""The client pieces, served for machines that reach the service only over the network.

``GET /v1/client/<piece>/<file>`` serves each file of ``client_files.PIECES``: the hook
client (``hook/dose_mem_hook.py``, any Python 3.11, standard library only), the Hermes
plugin directory (``hermes/__init__.py``, ``plugin.yaml``, ``provider.py``,
``dose_mem_hook.py``) and the Pi extension (``pi/dose-mem.ts``); ``GET
/v1/client/dose_mem_hook.py`` stays for the hook client's older URL. None of them holds
a secret, so they are served without a token (docs/integrations.md, "Agents on other
machines").
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from fastapi.responses import PlainTextResponse

from recall_api.integrations.client_files import PIECES

router = APIRouter(tags=["client"])
_TYPES = {".py": "text/x-python", ".ts": "text/plain", ".yaml": "application/yaml"}


def _serve(piece: str, name: str) -> PlainTextResponse:
    path = PIECES.get(piece, {}).get(name)
    if path is None:
        known = ", ".join(f"{p}/{n}" for p, files in PIECES.items() for n in files)
        raise HTTPException(404, f"no client file {piece}/{name} (served: {known})")
    kind = _TYPES.get(path.suffix, "text/plain")
    return PlainTextResponse(path.read_text(encoding="utf-8"), media_type=f"{kind}; charset=utf-8")


@router.get("/v1/client/dose_mem_hook.py", response_class=PlainTextResponse)
def hook_file() -> PlainTextResponse:
    return _serve("hook", "dose_mem_hook.py")


@router.get("/v1/client/{piece}/{name}", response_class=PlainTextResponse)
def client_file(piece: str, name: str) -> PlainTextResponse:
    return _serve(piece, name)
