"""``dose-mem connect AGENT`` / ``disconnect AGENT``: write each agent's own set-up for the
recall service, merged with what the user already has there, and take it out again.

One module per job: ``model`` (what a run changes), ``files`` (atomic writes, backups,
diffs), ``homes`` (where each agent keeps its files), ``tokens`` (which token to write),
one editor per file format (``jsonfile``, ``hookgroups``, ``dotenv``, ``yamlkey``), one
module per agent under ``agents/``, and ``run`` (plan, then apply or show).

Contract shared by every agent: connecting twice writes the same bytes; a dry run writes
nothing; disconnect removes exactly what connect added (recognised by its command string,
server name or key name) and nothing the user wrote; every write is atomic; a file that
holds a token ends up 0600. docs/integrations.md, "Connecting agents", says it for users.
"""
