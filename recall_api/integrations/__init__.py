"""Adapters that plug dose-mem into agents' own extension points (over the HTTP API)."""
