"""Whether this machine's kernel cache holds what hyblas compiles, and the notice a process
gives when it may not.

On the GPU every kernel is compiled the first time an operation needs it, hyblas's own
(``compile_module``, NVRTC) and CuPy's (element-wise operations,
reductions, per value type): each takes a fraction of a second to seconds, and the results go
to CuPy's on-disk kernel cache, so a later process loads them instead. On a machine whose
cache is empty the first calls of a session therefore wait for the compiler. ``python -m
hyblas warmup`` compiles the common kernels ahead and leaves a marker file in the cache
directory; a process that finds no marker logs one warning (logger ``"hyblas"``) when it
first takes the GPU, so that the wait is never silent.

A kernel bundle (``kernel_bundle.py``, made by ``python -m hyblas warmup --bundle``) carries
that marker among the CuPy cache files it seeds, so a machine with a matching bundle counts
as warm. The marker's name holds a digest of hyblas's kernel files, CuPy's version and the
device's compute capability: a new version of either, or another GPU, needs a warmup again. Clearing
CuPy's cache (``CUPY_CACHE_DIR``, by default ``~/.cupy/kernel_cache``) removes the marker with
the kernels.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from pathlib import Path
from types import ModuleType

from .kernel_bundle import active_bundle, seed_kernel_cache

__all__ = [
    "kernel_cache_dir",
    "cache_files",
    "warm_marker",
    "is_warm",
    "mark_warm",
    "announce_first_use",
]

_LOG = logging.getLogger("hyblas")
_PACKAGE = Path(__file__).resolve().parents[1]


def kernel_cache_dir(cp: ModuleType) -> Path:
    """CuPy's on-disk kernel cache directory (``CUPY_CACHE_DIR`` or its default)."""
    get = getattr(getattr(cp.cuda, "compiler", None), "get_cache_dir", None)
    if get is not None:
        return Path(get())
    return Path(os.environ.get("CUPY_CACHE_DIR", Path.home() / ".cupy" / "kernel_cache"))


def cache_files(cp: ModuleType) -> set[str]:
    """The files in CuPy's kernel cache, as paths relative to it (none where it is absent)."""
    directory = kernel_cache_dir(cp)
    if not directory.is_dir():
        return set()
    return {p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file()}


@functools.cache
def _kernel_digest() -> str:
    """A digest of every kernel file's text in the package (a changed kernel: a new digest)."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.cu")):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def warm_marker(cp: ModuleType) -> Path:
    """The marker file a warmup leaves for this device, CuPy version and set of kernels."""
    capability = cp.cuda.Device().compute_capability  # "90" on an H100
    name = f"hyblas-warm-{_kernel_digest()}-cupy{cp.__version__}-sm{capability}"
    return kernel_cache_dir(cp) / name


def is_warm(cp: ModuleType) -> bool:
    """Whether a warmup of these kernels ran on this machine (its marker is there)."""
    try:
        return warm_marker(cp).exists()
    except OSError:  # an unreadable cache directory: as if cold
        return False


def mark_warm(cp: ModuleType) -> Path:
    """Leave the marker (after a warmup); returns its path."""
    marker = warm_marker(cp)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("written by `python -m hyblas warmup`\n")
    return marker


_ANNOUNCED = False


def announce_first_use(cp: ModuleType) -> None:
    """Once per process: seed CuPy's kernel cache from the kernel bundle (where it matches
    this CuPy and GPU), then log the first-use warning where no warmup marker is found."""
    global _ANNOUNCED  # noqa: PLW0603 - once per process
    if _ANNOUNCED:
        return
    _ANNOUNCED = True
    bundle = active_bundle()
    if bundle is not None:
        try:
            copied = seed_kernel_cache(bundle, cp, kernel_cache_dir(cp))
        except OSError as exc:  # an unwritable cache: kernels compile as without a bundle
            _LOG.warning("hyblas: could not seed the kernel cache from the bundle: %s", exc)
        else:
            if copied:
                _LOG.info("hyblas: %d kernel cache files taken from the bundle", copied)
    if is_warm(cp):
        return
    _LOG.warning(
        "hyblas: no kernel warmup on this machine: CUDA kernels are compiled when an "
        "operation first needs them (up to seconds each, cached on disk under %s); "
        "`python -m hyblas warmup` compiles the common ones ahead",
        kernel_cache_dir(cp),
    )
