"""A kernel launch the driver refuses surfaces as BackendError naming the kernel (checked here
with a stand-in kernel; the GPU's own refusal: ``test_faults.py``)."""

from __future__ import annotations

import pytest

from hyblas.backend import launch
from hyblas.errors import BackendError


class CUDADriverError(RuntimeError):
    """Named as CuPy's driver error is."""


class _Kernel:
    name = "hyblas_stand_in"

    def __init__(self, error: Exception | None) -> None:
        self.error = error
        self.launched = 0

    def __call__(self, grid: tuple, block: tuple, args: tuple, shared_mem: int = 0) -> None:
        if self.error is not None:
            raise self.error
        self.launched += 1


def test_a_refused_launch_names_the_kernel_and_its_configuration() -> None:
    kernel = _Kernel(CUDADriverError("CUDA_ERROR_INVALID_VALUE: invalid argument"))
    with pytest.raises(BackendError, match=r"hyblas_stand_in .*grid \(2,\), block \(4096,\)"):
        launch(kernel, (2,), (4096,), ())


def test_other_errors_pass_through_unchanged() -> None:
    with pytest.raises(TypeError, match="bad argument"):
        launch(_Kernel(TypeError("bad argument")), (1,), (32,), ())
    kernel = _Kernel(None)
    launch(kernel, (1,), (32,), ())
    assert kernel.launched == 1
