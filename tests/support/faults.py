"""Fault injection on the GPU: CuPy's allocator made to fail one chosen allocation."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Iterator
from typing import Any


@dataclasses.dataclass
class Allocations:
    """What a :func:`failing_allocation` block saw: the device allocations it asked for, and
    whether the chosen one came (and failed)."""

    fail_at: int
    count: int = 0
    failed: bool = False


def _cupy() -> Any:
    import cupy  # noqa: PLC0415 - tests that inject faults run only where CuPy is usable

    return cupy


@contextlib.contextmanager
def failing_allocation(fail_at: int | None) -> Iterator[Allocations]:
    """Inside the block, the ``fail_at``-th device allocation (from 1) raises CuPy's
    ``OutOfMemoryError`` as a full device would; the others come from the default pool.
    ``fail_at=None`` fails none (to count a call's allocations)."""
    cp = _cupy()
    pool = cp.get_default_memory_pool()
    seen = Allocations(fail_at=-1 if fail_at is None else fail_at)

    def allocate(size: int) -> Any:
        seen.count += 1
        if seen.count == seen.fail_at:
            seen.failed = True
            raise cp.cuda.memory.OutOfMemoryError(size, pool.total_bytes())
        return pool.malloc(size)

    previous = cp.cuda.get_allocator()
    cp.cuda.set_allocator(allocate)
    try:
        yield seen
    finally:
        cp.cuda.set_allocator(previous)


def device_bytes_in_use() -> int:
    """Bytes of the default pool held by live arrays, once unreachable ones are collected."""
    gc.collect()
    cp = _cupy()
    cp.cuda.get_current_stream().synchronize()
    return int(cp.get_default_memory_pool().used_bytes())
