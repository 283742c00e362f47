"""What looks like a secret, in one place at the bottom layer, so that every path that
keeps text from a transcript can ask: the write path refuses facts that hold one, and
task state stores event text redacted.

The patterns cover API keys (OpenAI-style ``sk-``, GitHub, GitLab, Slack, AWS), JWTs,
private-key blocks, bearer headers, dose-mem's own tokens, credential assignments in a
shell command (``HF_TOKEN=...``), and "password = ..." in English and Chinese. A false
positive costs a rejected fact; a miss costs a leak.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
REDACTED = "[redacted]"

SECRET = [
    re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b(ghp|gho|ghs|github_pat|glpat|xox[abpr])[-_][A-Za-z0-9_-]{10,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{16,}", _I),
    re.compile(r"\bdm_[A-Za-z0-9]{4,}_[A-Za-z0-9_-]{16,}"),
    re.compile(
        r"(\b(password|passwd|pwd|secret|token|api[_ -]?key)|密码|口令|密钥)"
        r"\s*(is|=|:|：|是)\s*\S{4,}",
        _I,
    ),
]
# NAME=value in a shell command whose name ends like a credential's (HF_TOKEN,
# OPENAI_API_KEY, DB_PASSWORD; not TOKENIZERS_PARALLELISM), value of 6+ characters.
_ASSIGNED = re.compile(
    r"\b([A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PAT))=(\"[^\"]{6,}\"|'[^']{6,}'|[^\s\"']{6,})"
)


def has_secret(text: str) -> bool:
    return any(p.search(text) for p in SECRET) or bool(_ASSIGNED.search(text))


def redact(text: str) -> str:
    """``text`` with every secret-looking span replaced by ``[redacted]`` (an assignment
    keeps its name: ``HF_TOKEN=[redacted]``)."""
    text = _ASSIGNED.sub(lambda m: f"{m.group(1)}={REDACTED}", text)
    for pattern in SECRET:
        text = pattern.sub(REDACTED, text)
    return text
