"""Every CUDA kernel file, specialized for every built-in semiring and dtype, compiles for sm_90.

Runs without a GPU: only the CUDA compiler (nvcc) is needed; skipped where it is absent.

How: each kernel family (one ``builtin_specializations()``: a kernel file, or the device loop's
four) becomes one translation unit holding every specialization, each in its own namespace with
its kernel templates instantiated (their addresses taken, as NVRTC's name expressions do) and
its macros undefined after it. Each unit is built by two nvcc calls, device code only (NVRTC
builds no host code either). The calls of all families run in parallel
(``tests/support/kernel_builds.py``): in a session that runs its tests in one process they start
when collection ends, on every core but one, while the other tests run on that one; otherwise
(an xdist worker) at the first of these tests, one per core. A line is printed as each ends
(through the terminal reporter, whatever ``-s`` says), when a test of this module waits for it.

1. Every specialization: ``nvcc -arch=lto_90 -dlto --ltoir``, the device-side C++ front end
   and NVVM's lowering to (unoptimized) NVVM IR.
2. A sample: one specialization per kernel and value type (the label's last word; the
   semiring changes from one type to the next): ``nvcc -arch=sm_90 -cubin`` at the default
   optimization, the whole way to machine code, as NVRTC builds a kernel at first use; the
   cubin must hold the code of every kernel the sampled specializations name.

What it proves: the source of every built-in specialization of every kernel file, with every
kernel template instance the executors name, is accepted by the device compiler's front end
(syntax, types, overloads, template instantiation, the __host__ / __device__ calling rules) and
lowered to NVVM IR; and every kernel compiles to sm_90 machine code on every value type:
PTX generation, the optimizer and ptxas (the inline PTX, static shared memory sized by the
value type, sm_90's limits) pass there.

What it does not prove: that each of the other specializations gets through PTX generation,
the optimizer and ptxas. An error that only appears there, for one semiring on a type that the
sample builds with another, shows on the GPU machine, where NVRTC compiles each specialization
at first use and the gpu-marked tests run them; so does anything NVRTC (same front end, its own
built-in headers) and nvcc disagree on, and whether any kernel computes the right result.

Cost: printed at the end (nvcc's own CPU time, about two and a half minutes), most of it
alongside the other tests where the builds start early, and up to 2.5 GB of memory for each of
the three largest units (one or two at a time on a 2-core machine).
The previous check, every specialization built to an sm_90 object, took about 10 minutes there;
every specialization to PTX, even at -O0, costs 2 to 4 times the CPU time of NVVM IR, over the
2 minutes this check may take.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hyblas import dtypes as hb_dtypes
from hyblas.device import fill
from hyblas.executors.reference import kernels
from hyblas.traversal import kernels as loop_kernels
from tests.support.kernel_builds import (
    IR,
    MACHINE_CODE,
    NVCC,
    Builds,
    Specialization,
    blamed,
    check,
    compile_unit,
    early_builds,
    families_of,
    family,
    problems,
    sample,
)

pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA compiler) is not installed")


@pytest.fixture(scope="module")
def builds(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    selected = families_of(request.session.items)
    early = early_builds(request.config, selected)
    if early is not None:  # started when collection ended, stopped when the session ends
        yield early
        return
    started = Builds(request.config, selected, tmp_path_factory.mktemp("kernels"))
    yield started
    started.close()


def _expected_count() -> int:
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    return sum(len(NAMESPACES["semiring"][n].types) for n in BUILTIN_NAMES["semiring"])


# --------------------------------------------------------------------------------------------
# One test per kernel family: its specializations are all there, and they compile
# --------------------------------------------------------------------------------------------


@family("reference")
def test_every_builtin_specialization_compiles_for_sm90(builds: Builds) -> None:
    specializations = builds.specializations["reference"]
    # every built-in semiring appears, with each dtype it serves
    assert len(specializations) == _expected_count()
    check(builds, "reference")


@family("segment_reduce")
def test_every_segment_reduce_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The segmented reduction's group and block kernels, for every built-in monoid's operator
    and the duplicate rules first / second, on every dtype each serves."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = builds.specializations["segment_reduce"]
    ops = [NAMESPACES["monoid"][n].binaryop for n in BUILTIN_NAMES["monoid"]]
    ops += [NAMESPACES["binary"][n] for n in ("first", "second")]
    # and plus over a matrix's float32 values summed in float64
    assert len(specializations) == sum(len(op.types) for op in ops) + 1
    check(builds, "segment_reduce")


@family("ewise_bitmap")
def test_every_ewise_bitmap_specialization_compiles_for_sm90(builds: Builds) -> None:
    """Element-wise add / multiply of two bitmaps, for every built-in binary operator on every
    dtype it serves, plus mixed float32 / float64 operands."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = builds.specializations["ewise_bitmap"]
    ops = [NAMESPACES["binary"][n] for n in BUILTIN_NAMES["binary"]]
    assert len(specializations) == sum(len(op.types) for op in ops) + 1
    check(builds, "ewise_bitmap")


@family("inner_bitmap")
def test_every_inner_bitmap_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The inner product of two bitmaps, for every built-in semiring on every dtype it serves,
    plus mixed float32 / float64 operands."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = builds.specializations["inner_bitmap"]
    semirings = [NAMESPACES["semiring"][n] for n in BUILTIN_NAMES["semiring"]]
    assert len(specializations) == sum(len(sr.types) for sr in semirings) + 1
    check(builds, "inner_bitmap")


@family("masked_dot")
def test_every_masked_dot_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The masked dot-product SpGEMM's thread and warp kernels, for every built-in semiring on
    every dtype it serves, with int32 and int64 indices."""
    specializations = builds.specializations["masked_dot"]
    assert len(specializations) == _expected_count()
    check(builds, "masked_dot")


@family("scatter_bitmap")
def test_every_scatter_bitmap_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The sparse-to-bitmap scatter, for every value size of the built-in dtypes."""
    specializations = builds.specializations["scatter_bitmap"]
    sizes = {hb_dtypes.lookup(dt).itemsize for dt in hb_dtypes.DTYPES}
    assert {int(label.rsplit("_", 1)[1]) for label, _, _ in specializations} == sizes
    check(builds, "scatter_bitmap")


@family("indexed")
def test_every_indexed_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The gather and the scatter by an index list, for every value size of the built-in
    dtypes."""
    specializations = builds.specializations["indexed"]
    sizes = {hb_dtypes.lookup(dt).itemsize for dt in hb_dtypes.DTYPES}
    assert {int(label.rsplit("_", 1)[1]) for label, _, _ in specializations} == sizes
    check(builds, "indexed")


@family("indexed_accum")
def test_every_indexed_accum_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The scatter folded by a monoid, for every built-in monoid on every 4- and 8-byte
    integer type it takes and gives as it is (min on int64: FastSV's stochastic hooking)."""
    specializations = builds.specializations["indexed_accum"]
    labels = {label for label, _, _ in specializations}
    assert {"indexed_accum_min_int64", "indexed_accum_plus_uint32"} <= labels
    assert not any(label.endswith(("float64", "int8", "bool")) for label in labels)
    check(builds, "indexed_accum")


@family("union_find")
def test_the_union_find_kernels_compile_for_sm90(builds: Builds) -> None:
    """Connected components' union-find kernels (sampling, compression, the full pass by
    threads and by blocks) for both parent types and the three CSR index layouts."""
    specializations = builds.specializations["union_find"]
    assert [label for label, _, _ in specializations] == ["union_find_int32", "union_find_int64"]
    assert all(len(names) == 10 for _, _, names in specializations)
    check(builds, "union_find")


@family("fill_bitmap")
def test_the_fill_bitmap_kernel_compiles_for_sm90(builds: Builds) -> None:
    """The full-bitmap fill: one kernel for every value type (it writes a byte pattern)."""
    specializations = builds.specializations["fill_bitmap"]
    assert [names for _, _, names in specializations] == [[fill.NAME]]
    check(builds, "fill_bitmap")


@family("dense")
def test_every_dense_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The dense executor's three kernels, for every built-in semiring and dtype, plus the
    fused write with a foreign mask type, another output type and an accumulator."""
    specializations = builds.specializations["dense"]
    assert len(specializations) == _expected_count() + 1
    check(builds, "dense")


@family("sparse")
def test_every_sparse_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The sparse executor's push, spread, finish and fill kernels, for every built-in semiring
    and dtype, plus int64 ids with a foreign mask type."""
    specializations = builds.specializations["sparse"]
    assert len(specializations) == _expected_count() + 1
    check(builds, "sparse")


@family("pull")
def test_every_pull_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The pull executor's warp and block kernels (with their early-exit condition), for every
    built-in semiring and dtype."""
    specializations = builds.specializations["pull"]
    assert len(specializations) == _expected_count()
    check(builds, "pull")


@family("loop")
def test_every_loop_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The device loop's persistent kernel (levels for every built-in semiring and dtype, the
    improving variant where the add monoid allows it), with both CSR index layouts; and its
    entry test's facts kernel for both indptr types, and the kernel that writes a stay's levels
    into the state for every state type (all but bool), and the improving rounds' bitmap
    update: min / max on every type, lor / land on bool, bor / band on the integers."""
    specializations = builds.specializations["loop"]
    states = len(hb_dtypes.DTYPES) - 1
    integers = sum(dt.kind in "iu" for dt in hb_dtypes.DTYPES)
    improves = 2 * len(hb_dtypes.DTYPES) + 2 + 2 * integers
    # + int32 indptr, facts, reached levels, improve
    assert len(specializations) == _expected_count() + 1 + 2 + states + improves
    check(builds, "loop")


# --------------------------------------------------------------------------------------------
# The check itself: what it samples, and that it can fail
# --------------------------------------------------------------------------------------------


def test_the_sample_has_every_kernel_on_every_value_type() -> None:
    """The device loop's family (four kernel files, several kernels): its sample builds each
    kernel on every value type it serves, a few dozen of its 576 specializations, and the
    semiring changes from one type to the next."""
    specializations = list(loop_kernels.builtin_specializations())
    chosen = sample(specializations)

    def kernel_types(specs: list[Specialization]) -> set[tuple[str, str]]:
        return {
            (name.split("<", 1)[0], label.rsplit("_", 1)[-1])
            for label, _, names in specs
            for name in names
        }

    assert kernel_types(chosen) == kernel_types(specializations)
    assert len(chosen) < len(specializations) / 10
    loops = [label for label, _, names in chosen if names[0] == loop_kernels.loop_name(True)]
    semirings = {label.removeprefix("loop_").rsplit("_", 1)[0] for label in loops}
    assert len(semirings) >= len(hb_dtypes.DTYPES) - 1


def _broken_spmv(expression: str) -> Specialization:
    from hyblas.operators import NAMESPACES
    from hyblas.operators.classes import BinaryOp, Semiring

    broken = BinaryOp("broken", expression, lambda x, y: x + y)
    semiring = Semiring("plus_broken", NAMESPACES["monoid"]["plus"], broken)
    source = kernels.specialize_spmv(semiring, np.dtype(np.float32))
    names = [kernels.spmv_name("warp", np.dtype(np.int32), False, False)]
    return "broken", source, names


def test_a_broken_expression_fails_to_compile(tmp_path: Path) -> None:
    """The check above can fail: a semiring whose CUDA expression is not C is rejected, and
    the failure names it, among the family's other specializations."""
    family_specs = list(kernels.builtin_specializations())[:3]
    specializations = [family_specs[0], _broken_spmv("((x) +* (y))"), *family_specs[1:]]
    result = compile_unit("reference", specializations, IR, tmp_path)
    assert result.returncode != 0
    assert blamed(result) == ["broken"]
    assert "broken" in problems(result)[0]


# Sources each well-formed C++ on its own, wrong for the device, and the stage that rejects it
_WRONG = {
    # an error only in the instance: the check takes each named instance's address
    "a template instance": (
        "template <typename I> __global__ void hyblas_k(I* p) { p[0] = I::missing; }",
        ["hyblas_k<int>"],
        IR,
    ),
    "a host function called from a kernel": (
        "int hyblas_host() { return 1; }\n"
        "__global__ void hyblas_k(int* p) { p[0] = hyblas_host(); }",
        ["hyblas_k"],
        IR,
    ),
    "inline PTX that is not PTX": (
        '__global__ void hyblas_k(int* p) { asm volatile("bar.sink %0;" : : "r"(1)); }',
        ["hyblas_k"],
        MACHINE_CODE,
    ),
    "more static shared memory than sm_90 has": (
        "__global__ void hyblas_k(double* p) {\n"
        "    __shared__ double s[8192];\n"
        "    s[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[0] = s[p[1] > 0];\n}",
        ["hyblas_k"],
        MACHINE_CODE,
    ),
}


@pytest.mark.parametrize("wrong", list(_WRONG))
def test_a_wrong_kernel_fails_where_the_docstring_says(wrong: str, tmp_path: Path) -> None:
    """Each kind of error is caught by the stage the module docstring credits with it, and the
    failure names the specialization to blame."""
    source, names, stage = _WRONG[wrong]
    specializations = [("wrong", source, names)]
    result = compile_unit("wrong", specializations, stage, tmp_path)
    assert result.returncode != 0, result.log
    assert blamed(result) == ["wrong"], result.log
    if stage is MACHINE_CODE:  # the front end and NVVM accept it: only the sample shows it
        assert compile_unit("wrong", specializations, IR, tmp_path).returncode == 0
