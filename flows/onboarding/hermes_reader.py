"""Hermes Agent's curated memory files (``memories/MEMORY.md``, ``memories/USER.md``).

Entries are separated by a line holding only ``§`` (``ENTRY_DELIMITER = "\\n§\\n"`` in
``tools/memory_tool.py``) and may span lines; each line of an entry is read like a
Markdown line, so a multi-line entry yields one statement per line.
"""

from __future__ import annotations

from flows.onboarding.markdown_reader import Statement
from flows.onboarding.markdown_reader import statements as markdown_statements

DELIMITER = "§"


def statements(text: str) -> list[Statement]:
    return markdown_statements(text, skip=frozenset({DELIMITER}))
