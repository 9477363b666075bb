"""The backend's shared helpers that touch the interpreter: ``many_small_objects`` holds the
cyclic garbage collector off while a result's containers are made, and leaves them out of
the young generation, without losing the collector's setting, the process's frozen objects,
or the garbage it would have collected."""

from __future__ import annotations

import gc
import weakref

import pytest

pytest.importorskip("networkx")
pytest.importorskip("_nx_hyblas", reason="nx-hyblas is not installed")

from nx_hyblas import common  # noqa: E402
from nx_hyblas.common import many_small_objects  # noqa: E402


class _Node:
    """A weak-referenceable object that can be put in a cycle."""

    other: _Node | None = None


def test_the_collector_is_off_inside_and_its_setting_restored() -> None:
    was = gc.isenabled()
    try:
        for setting in (True, False):
            (gc.enable if setting else gc.disable)()
            with many_small_objects():
                assert not gc.isenabled()
            assert gc.isenabled() is setting
    finally:
        (gc.enable if was else gc.disable)()


def test_the_sets_made_inside_leave_the_young_generation_untraversed() -> None:
    assert gc.isenabled()
    with many_small_objects():
        made = [{k} for k in range(20_000)]
    young = {id(obj) for obj in gc.get_objects(generation=0)}
    assert not any(id(s) in young for s in made)
    assert gc.get_count()[0] < gc.get_threshold()[0]  # no young collection is due
    assert gc.get_freeze_count() == 0
    assert all(gc.is_tracked(s) for s in made[:10])  # still the collector's, in generation 2
    old = {id(obj) for obj in gc.get_objects(generation=2)}
    assert all(id(s) in old for s in made[:100])


def test_the_process_frozen_objects_stay_frozen() -> None:
    mine = [{"a process's object"}]
    gc.freeze()
    try:
        with many_small_objects():
            made = [{k} for k in range(1_000)]
        tracked = {id(obj) for obj in gc.get_objects()}  # the frozen ones are not listed
        assert id(mine[0]) not in tracked and id(mine) not in tracked
        assert any(id(s) in tracked for s in made)  # the block's own were not frozen
    finally:
        gc.unfreeze()
    assert id(mine) in {id(obj) for obj in gc.get_objects()}


def test_objects_frozen_before_networkx_was_imported_are_the_interpreters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # as CPython 3.12 starts (its immortal objects frozen): the block still moves its sets
    # out of the young generation
    startup = [{"frozen before import networkx"}]
    gc.freeze()
    try:
        monkeypatch.setattr(common, "FROZEN_AT_IMPORT", gc.get_freeze_count())
        with many_small_objects():
            made = [{k} for k in range(20_000)]
        young = {id(obj) for obj in gc.get_objects(generation=0)}
        assert not any(id(s) in young for s in made)
        assert gc.get_count()[0] < gc.get_threshold()[0]
        assert id(startup) in {id(obj) for obj in gc.get_objects(generation=2)}
    finally:
        gc.unfreeze()


def test_garbage_made_before_is_still_collected() -> None:
    a, b = _Node(), _Node()
    a.other, b.other = b, a  # a cycle: only the cyclic collector frees it
    alive = weakref.ref(a)
    del a, b
    with many_small_objects():
        made = [{k} for k in range(1_000)]
    assert len(made) == 1_000
    gc.collect()
    assert alive() is None
