"""What looks like a secret, in one place at the bottom layer, so that every path that
keeps text from a transcript can ask: the write path refuses facts that hold one and
redacts everything it writes beside the cards (artifacts, logs, reports); task state
stores event text redacted.

The patterns cover API keys of the common providers (OpenAI and Anthropic ``sk-``,
GitHub, GitLab, Slack, AWS access key ids and secret keys, Google ``AIza``, Hugging Face
``hf_``, Stripe, npm, PyPI, SendGrid), JWTs, whole private-key blocks, bearer headers,
credentials in a URL (``postgres://user:pass@host``), dose-mem's own tokens, credential
assignments in a shell command (``HF_TOKEN=...``), and a password, token or key stated
in English or Chinese ("the password is ...", "密码是 ...", "令牌：...", "secret
<value>"). A false positive costs a rejected fact; a miss costs a leak.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
REDACTED = "[redacted]"

# A value that reads like a credential: 12+ characters mixing letters and digits.
_CREDENTIAL_VALUE = r"(?=[^\s,，。;；]*[A-Za-z])(?=[^\s,，。;；]*\d)[^\s,，。;；'\"]{12,}"

SECRET = [
    re.compile(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----)?", re.DOTALL
    ),
    re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b(ghp|gho|ghs|ghu|ghr|github_pat|glpat|xox[abpre])[-_][A-Za-z0-9_-]{10,}"),
    re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"),
    re.compile(r"\bhf_[A-Za-z0-9]{20,}"),
    re.compile(r"\b(sk|rk|pk)_(live|test)_[A-Za-z0-9]{16,}"),
    re.compile(r"\bnpm_[A-Za-z0-9]{30,}"),
    re.compile(r"\bpypi-[A-Za-z0-9_-]{40,}"),
    re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}(\.[A-Za-z0-9_-]+)?"),
    re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{16,}", _I),
    re.compile(r"\bdm_[A-Za-z0-9]{4,}_[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]{3,}@[^\s/]+", _I),
    re.compile(
        r"(\b(password|passwd|pwd|passphrase|secret|token|api[_ -]?key|access[_ -]?key)|"
        r"密码|口令|密钥|令牌|秘钥)\s*(is|was|=|:|：|是|为|:=)\s*\S{4,}",
        _I,
    ),
    re.compile(
        r"\b(password|passwd|secret|token|api[_ -]?key|access[_ -]?key)\s+" + _CREDENTIAL_VALUE,
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
