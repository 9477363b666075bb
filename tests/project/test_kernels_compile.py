"""Every CUDA kernel, specialized for every built-in semiring and dtype, compiles for sm_90.

Runs without a GPU: only the CUDA compiler (nvcc) is needed; skipped where it is absent.
Specializations are wrapped in one namespace each and built in a few translation units.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hyblas import dtypes as hb_dtypes
from hyblas.device import ewise, fill, inner, scatter, segments
from hyblas.executors.dense import kernels as dense_kernels
from hyblas.executors.pull import kernels as pull_kernels
from hyblas.executors.reference import kernels
from hyblas.executors.sparse import kernels as sparse_kernels
from hyblas.traversal import kernels as loop_kernels

NVCC = shutil.which("nvcc")
UNITS = 4  # translation units, compiled in parallel

pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA compiler) is not installed")


def _translation_unit(specializations: list[tuple[str, str, list[str]]]) -> str:
    includes: dict[str, None] = {}  # headers go before the namespaces, once each
    parts = []
    for label, source, names in specializations:
        namespace = f"hyblas_check_{label}"
        taken = ", ".join(f"(const void*)&{name}" for name in names)
        lines = source.splitlines()
        includes.update(dict.fromkeys(line for line in lines if line.startswith("#include")))
        body = "\n".join(line for line in lines if not line.startswith("#include"))
        parts.append(
            f"namespace {namespace} {{\n{body}\nconst void* instantiate[] = {{{taken}}};\n}}\n"
        )
    return "\n".join([*includes, *parts])


def _compile(path: Path) -> subprocess.CompletedProcess:
    output = str(path.with_suffix(".o"))
    command = [NVCC, "-arch=sm_90", "-std=c++17", "-c", str(path), "-o", output]
    return subprocess.run(command, capture_output=True, text=True, timeout=900)


def _compile_all(specializations: list[tuple[str, str, list[str]]], tmp_path: Path) -> None:
    chunks = [specializations[i::UNITS] for i in range(UNITS)]
    paths = []
    for number, chunk in enumerate(chunks):
        path = tmp_path / f"unit{number}.cu"
        path.write_text(_translation_unit(chunk))
        paths.append(path)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(_compile, paths))
    failures = [f"{p.name}:\n{r.stderr[-3000:]}" for p, r in zip(paths, results) if r.returncode]
    assert not failures, "\n\n".join(failures)
    assert all(p.with_suffix(".o").stat().st_size > 0 for p in paths)


def _expected_count() -> int:
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    return sum(len(NAMESPACES["semiring"][n].types) for n in BUILTIN_NAMES["semiring"])


def test_every_builtin_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    specializations = list(kernels.builtin_specializations())
    # every built-in semiring appears, with each dtype it serves
    assert len(specializations) == _expected_count()
    _compile_all(specializations, tmp_path)


def test_every_segment_reduce_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """The segmented reduction's group and block kernels, for every built-in monoid's operator
    and the duplicate rules first / second, on every dtype each serves."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = list(segments.builtin_specializations())
    ops = [NAMESPACES["monoid"][n].binaryop for n in BUILTIN_NAMES["monoid"]]
    ops += [NAMESPACES["binary"][n] for n in ("first", "second")]
    # and plus over a matrix's float32 values summed in float64
    assert len(specializations) == sum(len(op.types) for op in ops) + 1
    _compile_all(specializations, tmp_path)


def test_every_ewise_bitmap_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """Element-wise add / multiply of two bitmaps, for every built-in binary operator on every
    dtype it serves, plus mixed float32 / float64 operands."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = list(ewise.builtin_specializations())
    ops = [NAMESPACES["binary"][n] for n in BUILTIN_NAMES["binary"]]
    assert len(specializations) == sum(len(op.types) for op in ops) + 1
    _compile_all(specializations, tmp_path)


def test_every_inner_bitmap_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """The inner product of two bitmaps, for every built-in semiring on every dtype it serves,
    plus mixed float32 / float64 operands."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = list(inner.builtin_specializations())
    semirings = [NAMESPACES["semiring"][n] for n in BUILTIN_NAMES["semiring"]]
    assert len(specializations) == sum(len(sr.types) for sr in semirings) + 1
    _compile_all(specializations, tmp_path)


def test_every_scatter_bitmap_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """The sparse-to-bitmap scatter, for every value size of the built-in dtypes."""
    specializations = list(scatter.builtin_specializations())
    sizes = {hb_dtypes.lookup(dt).itemsize for dt in hb_dtypes.DTYPES}
    assert {int(label.rsplit("_", 1)[1]) for label, _, _ in specializations} == sizes
    _compile_all(specializations, tmp_path)


def test_the_fill_bitmap_kernel_compiles_for_sm90(tmp_path: Path) -> None:
    """The full-bitmap fill: one kernel for every value type (it writes a byte pattern)."""
    specializations = list(fill.builtin_specializations())
    assert [names for _, _, names in specializations] == [[fill.NAME]]
    _compile_all(specializations, tmp_path)


def test_every_dense_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """The dense executor's three kernels, for every built-in semiring and dtype, plus the
    fused write with a foreign mask type, another output type and an accumulator."""
    specializations = list(dense_kernels.builtin_specializations())
    assert len(specializations) == _expected_count() + 1
    _compile_all(specializations, tmp_path)


def test_every_sparse_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """The sparse executor's push, spread, finish and fill kernels, for every built-in semiring
    and dtype, plus int64 ids with a foreign mask type."""
    specializations = list(sparse_kernels.builtin_specializations())
    assert len(specializations) == _expected_count() + 1
    _compile_all(specializations, tmp_path)


def test_every_pull_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """The pull executor's warp and block kernels (with their early-exit condition), for every
    built-in semiring and dtype."""
    specializations = list(pull_kernels.builtin_specializations())
    assert len(specializations) == _expected_count()
    _compile_all(specializations, tmp_path)


def test_every_loop_specialization_compiles_for_sm90(tmp_path: Path) -> None:
    """The device loop's persistent kernel (levels for every built-in semiring and dtype, the
    improving variant where the add monoid allows it), with both CSR index layouts; and its
    entry test's facts kernel for both indptr types, and the kernel that writes a stay's levels
    into the state for every state type (all but bool), and the improving rounds' bitmap
    update: min / max on every type, lor / land on bool, bor / band on the integers."""
    specializations = list(loop_kernels.builtin_specializations())
    states = len(hb_dtypes.DTYPES) - 1
    integers = sum(dt.kind in "iu" for dt in hb_dtypes.DTYPES)
    improves = 2 * len(hb_dtypes.DTYPES) + 2 + 2 * integers
    # + int32 indptr, facts, reached levels, improve
    assert len(specializations) == _expected_count() + 1 + 2 + states + improves
    _compile_all(specializations, tmp_path)


def test_a_broken_expression_fails_to_compile(tmp_path: Path) -> None:
    """The check above can fail: a semiring whose CUDA expression is not C is rejected."""
    from hyblas.operators import NAMESPACES
    from hyblas.operators.classes import BinaryOp, Semiring

    broken = BinaryOp("broken", "((x) +* (y))", lambda x, y: x + y)
    semiring = Semiring("plus_broken", NAMESPACES["monoid"]["plus"], broken)
    import numpy as np

    source = kernels.specialize_spmv(semiring, np.dtype(np.float32))
    names = [kernels.spmv_name("warp", np.dtype(np.int32), False, False)]
    path = tmp_path / "broken.cu"
    path.write_text(_translation_unit([("broken", source, names)]))
    assert _compile(path).returncode != 0
