"""Session capture: which ended sessions an ingest reads (``sources``) and how much of
each was read before (``ledger``). The format readers are in ``memory_repo/transcripts``."""
