"""What the operation and executor tests share: the catalogue, the dtypes an operator serves,
how a result is compared with the model, and how an operation is called with write controls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

import hyblas as hb
from tests.support import model
from tests.support import strategies as S

SEMIRINGS = list(hb.semiring)  # the built-in catalogue (user ops are registered inside tests)


class Opaque:
    """An object of no kind hyblas knows, whose repr is the same in every process (``object()``'s
    names its address, and pytest-xdist's workers must collect the same test ids)."""

    def __repr__(self) -> str:
        return "Opaque()"


OPAQUE = Opaque()


def served(op: Any) -> list[np.dtype]:
    """The test dtypes ``op`` accepts (logical operators cast every input to bool)."""
    if getattr(op, "cast_inputs_to", None) is not None:
        return list(S.DTYPES)
    if isinstance(op, hb.semiring.Semiring) and op.binaryop.cast_inputs_to is not None:
        return list(S.DTYPES)
    return [d for d in S.DTYPES if d in op.types]


# --- comparison ---------------------------------------------------------------------------------


def values_close(a: Any, b: Any, dtype: np.dtype) -> bool:
    """Equal, or for floats close to ``rtol=1e-5`` (NaN equal to NaN)."""
    if np.dtype(dtype).kind == "f":
        return bool(np.allclose(a, b, rtol=1e-5, atol=0, equal_nan=True))
    return bool(np.array_equal(a, b))


def assert_matches(result: Any, expected: model.Vec | model.Mat, *, dtype: bool = True) -> None:
    """Structure first (which positions hold an entry), then dtype, then values."""
    if isinstance(expected, model.Vec):
        assert isinstance(result, hb.Vector), type(result)
        assert result.size == expected.shape[0]
        idx, vals = result.to_coo()
        exp_idx = np.flatnonzero(expected.present)
        assert idx.tolist() == exp_idx.tolist(), f"structure: got {idx}, expected {exp_idx}"
        keys = [int(i) for i in idx]
        exp_vals = expected.values[exp_idx]
    else:
        assert isinstance(result, hb.Matrix), type(result)
        assert result.shape == expected.shape
        rows, cols, vals = result.to_coo()
        er, ec = np.nonzero(expected.present)
        got = list(zip(rows.tolist(), cols.tolist()))
        want = list(zip(er.tolist(), ec.tolist()))
        assert got == want, f"structure: got {got}, expected {want}"
        keys = got
        exp_vals = expected.values[er, ec]
    if dtype:
        assert result.dtype == expected.dtype, f"dtype {result.dtype} != {expected.dtype}"
    fixed = [k not in expected.cands for k in keys]
    assert values_close(vals[fixed], exp_vals[fixed], expected.dtype), (
        f"values: got {vals[fixed]}, expected {exp_vals[fixed]}"
    )
    for k, v in zip(keys, vals.tolist()):
        if k in expected.cands:  # the `any` monoid: any reduced value is a valid answer
            assert any(values_close(v, c, expected.dtype) for c in expected.cands[k]), (k, v)


def expected_after(ctl: S.WriteControls, t: model.Vec | model.Mat) -> model.Vec | model.Mat:
    return model.write(
        None if ctl.out is None else model.of(ctl.out),
        t,
        mask=None if ctl.mask is None else model.of(ctl.mask),
        mask_kind=ctl.mask_kind,
        accum=ctl.hyblas_accum(),
        replace=ctl.replace,
    )


def run_op(fn: Any, ctl: S.WriteControls, backend: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` with the write controls; check it returns ``out`` itself when given one."""
    out = None if ctl.out is None else ctl.out.hyblas(backend)
    result = fn(
        *args,
        mask=ctl.hyblas_mask(backend),
        accum=ctl.hyblas_accum(),
        replace=ctl.replace,
        out=out,
        **kwargs,
    )
    if out is not None:
        assert result is out
    assert result.backend == backend
    return result


@st.composite
def semiring_and_dtype(draw: Any) -> tuple[Any, np.dtype]:
    sr = hb.semiring[draw(st.sampled_from(SEMIRINGS))]
    return sr, draw(st.sampled_from(served(sr)))


# --- bad input: the named error, and nothing the caller passed in changed ------------------


def snapshot(obj: Any) -> Any:
    """What must not change in ``obj``: a container's entries (bytes, so NaN equals NaN),
    dtype and shape; a mask's parent and kind; an array's bytes; anything else its repr."""
    if isinstance(obj, hb.Vector | hb.Matrix):
        arrays = obj.to_coo()
        return (type(obj).__name__, obj.shape, str(obj.dtype), *(a.tobytes() for a in arrays))
    if isinstance(obj, hb.ops.Mask):
        return ("mask", obj.structural, obj.complement, snapshot(obj.parent))
    if isinstance(obj, np.ndarray):
        return ("array", obj.shape, str(obj.dtype), obj.tobytes())
    if isinstance(obj, list | tuple):
        return tuple(snapshot(o) for o in obj)
    return (type(obj).__name__, repr(obj))  # a scalar (NaN equals NaN), an operator...


def raises_unchanged(
    exc: type[BaseException] | tuple[type[BaseException], ...],
    match: str | None,
    fn: Callable[[], Any],
    *objects: Any,
) -> pytest.ExceptionInfo:
    """``fn()`` raises ``exc`` (its message matching ``match``) and every one of ``objects``
    (the call's inputs, its ``out``) is as it was before."""
    before = [snapshot(o) for o in objects]
    with pytest.raises(exc, match=match) as info:
        fn()
    after = [snapshot(o) for o in objects]
    for i, (was, now) in enumerate(zip(before, after)):
        assert was == now, f"argument {i} changed by a call that raised {info.type.__name__}"
    return info


def built_no_transpose(A: Any) -> bool:  # noqa: N803
    """Whether no transpose of ``A`` was built: none is at hand, or ``A`` is known to equal
    its transpose (then ``A.T`` is ``A`` itself)."""
    transpose = A.transpose_at_hand()
    return transpose is None or transpose is A
