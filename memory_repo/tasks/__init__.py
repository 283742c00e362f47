"""Task state: units of work in flight, told by agents' events (docs/tasks.md)."""
