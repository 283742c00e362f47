"""Agent session formats: one pure reader per format, all producing ``Transcript``.

Pure parsing (files in, ``Transcript`` out; no settings, no state), so every layer that
meets a transcript can read it: capture in the write path (``flows/capture``), the ingest
inbox that the recall service writes to (``memory_repo/inbox.py``), and the evaluation.
"""
