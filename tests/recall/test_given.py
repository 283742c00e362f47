"""The bounds of what the service remembers per session (``recall_api/given.py``)."""

from __future__ import annotations

from recall_api.given import GivenStore, version


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_version_is_the_line_as_shown() -> None:
    line = '- uv for Python envs [global/convention] (memory_read("uv"))'
    assert version(line) == version(line + "\n")
    assert version(line) != version(line.replace("uv for", "uv 0.5 for"))


def test_given_items_are_held_with_their_turn_until_forgotten() -> None:
    store = GivenStore()
    store.give("hermes", "s1", 1, [("a", version("A")), ("b", version("B"))])
    store.give("hermes", "s1", 3, [("a", version("A2"))])
    held = store.held("hermes", "s1")
    assert {k: (g.version, g.turn) for k, g in held.items()} == {
        "a": (version("A2"), 3),
        "b": (version("B"), 1),
    }
    assert store.held("hermes", "s2") == {} and store.held("pi", "s1") == {}
    assert store.forget("hermes", "s1") == 2
    assert store.held("hermes", "s1") == {} and store.items == 0


def test_the_least_recently_used_session_goes_first() -> None:
    store = GivenStore(max_sessions=2)
    store.give("a", "s1", 1, [("x", b"1")])
    store.give("a", "s2", 1, [("x", b"1")])
    store.give("a", "s1", 2, [("y", b"2")])  # s1 used again: s2 is now the oldest
    store.give("a", "s3", 1, [("x", b"1")])
    assert len(store) == 2
    assert store.held("a", "s2") == {}
    assert set(store.held("a", "s1")) == {"x", "y"} and set(store.held("a", "s3")) == {"x"}


def test_items_are_bounded_in_all_and_per_session() -> None:
    store = GivenStore(max_items=5, per_session=3)
    store.give("a", "s1", 1, [(f"i{n}", b"v") for n in range(4)])
    assert list(store.held("a", "s1")) == ["i1", "i2", "i3"]  # the oldest went first
    store.give("a", "s2", 1, [("j0", b"v"), ("j1", b"v"), ("j2", b"v")])
    assert store.items <= 5
    assert store.held("a", "s1") == {}  # the least recently used session made room
    assert len(store.held("a", "s2")) == 3


def test_a_session_unused_past_its_age_is_forgotten() -> None:
    clock = Clock()
    store = GivenStore(ttl_s=60, clock=clock)
    store.give("a", "old", 1, [("x", b"1")])
    clock.now += 30
    store.give("a", "new", 1, [("x", b"1")])
    clock.now += 31  # old is 61 s unused, new 31 s
    assert store.held("a", "old") == {} and set(store.held("a", "new")) == {"x"}
    clock.now += 100
    store.give("a", "newest", 1, [("x", b"1")])  # eviction drops what aged meanwhile
    assert len(store) == 1 and store.items == 1
