"""Kernels compiled ahead of time: the bundle a packager builds and hyblas loads instead of
compiling at first use.

A bundle is a directory (``index.json``, ``modules/``, ``cupy-cache/``). ``modules/`` holds,
for every module hyblas compiles during ``python -m hyblas warmup`` (one
``ModuleRequest``: source, name expressions, options), its cubin per listed GPU
architecture, and the index maps each kernel's name expression to its lowered (mangled)
name, so that ``hyblas.backend.compile_module`` loads the cubin with
``cupy.RawModule(path=...)`` and never calls NVRTC for it. A cubin runs on its architecture
and on later minor versions of the same major one (``sm_80`` on an A10's ``8.6``); a device
the bundle has no cubin for compiles as before. ``cupy-cache/`` holds the files the same
warmup left in CuPy's own kernel cache for CuPy's kernels (element-wise operations,
reductions, sorts): CuPy names them by its version, NVRTC's and the architecture, so they
are copied into the user's cache (never over a file there) only where the running CuPy and
device are the bundle's.

Where hyblas looks: ``HYBLAS_KERNEL_BUNDLE`` (a directory; empty: no bundle), else the
package's own ``hyblas/_kernels`` (present in a wheel built after
``python -m hyblas warmup --bundle hyblas/_kernels``; absent in a source checkout).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import BackendError

__all__ = [
    "BUNDLE_ENV",
    "ModuleRequest",
    "BundledModule",
    "KernelBundle",
    "LoadedModule",
    "bundle_directory",
    "active_bundle",
    "compile_for",
    "write_bundle",
    "seed_kernel_cache",
]

BUNDLE_ENV = "HYBLAS_KERNEL_BUNDLE"
FORMAT = 1  # of index.json; a bundle of another format is refused
_PACKAGED = Path(__file__).resolve().parents[1] / "_kernels"
_LOG = logging.getLogger("hyblas")


@dataclasses.dataclass(frozen=True)
class ModuleRequest:
    """One module as ``compile_module`` is asked for it: what decides its compiled code."""

    source: str
    name_expressions: tuple[str, ...]
    options: tuple[str, ...]
    cooperative: bool

    def key(self) -> str:
        """The module's name in a bundle: a digest of everything that decides its code."""
        text = json.dumps(
            [FORMAT, self.source, list(self.name_expressions), list(self.options)]
        ).encode()
        return hashlib.sha256(text).hexdigest()[:32]


@dataclasses.dataclass(frozen=True)
class BundledModule:
    """A module in a bundle: its kernels' lowered names and its cubin per architecture."""

    lowered: Mapping[str, str]  # name expression -> lowered name
    cubins: Mapping[str, str]  # compute capability ("90") -> file, relative to the bundle

    def cubin_for(self, capability: str) -> str | None:
        """The cubin that runs on ``capability``: its own, else the newest of the same major
        version at or below it (binary compatible), else None."""
        if capability in self.cubins:
            return self.cubins[capability]
        major, minor = _split(capability)
        usable = [c for c in self.cubins if _split(c)[0] == major and _split(c)[1] <= minor]
        return self.cubins[max(usable, key=_split)] if usable else None


def _split(capability: str) -> tuple[int, int]:
    return int(capability[:-1]), int(capability[-1])


@dataclasses.dataclass(frozen=True)
class KernelBundle:
    """A bundle read from ``directory`` (see the module's text)."""

    directory: Path
    modules: Mapping[str, BundledModule]
    cupy_version: str  # the CuPy that filled cupy-cache/
    cache_capability: str  # the device it filled it on
    cache_files: tuple[str, ...]  # relative to cupy-cache/

    @classmethod
    def read(cls, directory: str | os.PathLike[str]) -> KernelBundle:
        """Read the bundle in ``directory`` (:class:`~hyblas.errors.BackendError`: not one)."""
        root = Path(directory)
        try:
            index = json.loads((root / "index.json").read_text())
            if index.get("format") != FORMAT:
                raise BackendError(f"kernel bundle {root}: format {index.get('format')!r}")
            modules = {
                key: BundledModule(dict(entry["lowered"]), dict(entry["cubins"]))
                for key, entry in index["modules"].items()
            }
            cache = index["cupy_cache"]
            return cls(root, modules, cache["cupy"], cache["capability"], tuple(cache["files"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BackendError(f"not a readable kernel bundle: {root} ({exc})") from exc

    def cubin(self, request: ModuleRequest, capability: str) -> tuple[Path, BundledModule] | None:
        """The cubin of ``request`` for ``capability`` and its module entry, or None."""
        module = self.modules.get(request.key())
        if module is None:
            return None
        found = module.cubin_for(capability)
        return None if found is None else (self.directory / found, module)


def bundle_directory() -> Path | None:
    """Where the bundle is: ``HYBLAS_KERNEL_BUNDLE`` if set (empty: none), else the
    package's ``_kernels`` where it holds an index, else None."""
    named = os.environ.get(BUNDLE_ENV)
    if named is not None:
        return Path(named) if named else None
    return _PACKAGED if (_PACKAGED / "index.json").is_file() else None


@functools.cache
def active_bundle() -> KernelBundle | None:
    """The bundle of :func:`bundle_directory`, read once per process (None without one; a
    named directory that is not a bundle raises, a damaged packaged one is logged and
    skipped)."""
    directory = bundle_directory()
    if directory is None:
        return None
    try:
        return KernelBundle.read(directory)
    except BackendError:
        if os.environ.get(BUNDLE_ENV):
            raise
        _LOG.warning("hyblas: the packaged kernel bundle %s is unreadable; compiling", directory)
        return None


class LoadedModule:
    """A bundled module loaded from its cubin: ``get_function`` takes the name expression
    ``compile_module`` was asked for, as a ``cupy.RawModule`` compiled from source does."""

    def __init__(self, module: Any, lowered: Mapping[str, str]) -> None:
        self.module = module
        self.lowered = dict(lowered)

    def get_function(self, name_expression: str) -> Any:
        """The kernel ``name_expression`` (a ``cupy.RawKernel``)."""
        return self.module.get_function(self.lowered[name_expression])


def compile_for(
    cp: ModuleType, request: ModuleRequest, capability: str
) -> tuple[bytes, dict[str, str]]:
    """Compile ``request`` with NVRTC to a cubin for ``capability`` (no device needed): the
    cubin's bytes and each name expression's lowered name.

    The options are those ``cupy.RawModule`` compiles with (CuPy's include directories and
    ``-ftz=true`` added to the request's), so that a bundled kernel is the JIT-compiled one.
    """
    try:
        options = cp._core.core.assemble_cupy_compiler_options(request.options) + ("-ftz=true",)
    except AttributeError as exc:  # a CuPy without it: build no bundle rather than a different one
        raise BackendError(f"this CuPy ({cp.__version__}) cannot build a kernel bundle") from exc
    compiled, lowered = cp.cuda.compiler.compile_using_nvrtc(
        request.source,
        options,
        arch=capability,
        name_expressions=list(request.name_expressions),
        cache_in_memory=True,
    )
    if not isinstance(compiled, bytes) or lowered is None:
        raise BackendError(f"NVRTC gave no cubin for sm_{capability} (too new for it?)")
    return compiled, {name: lowered[name] for name in request.name_expressions}


def write_bundle(
    directory: Path,
    modules: Iterable[tuple[ModuleRequest, Mapping[str, tuple[bytes, Mapping[str, str]]]]],
    cache_files: Mapping[str, Path],
    *,
    cupy_version: str,
    cache_capability: str,
) -> KernelBundle:
    """Write a bundle into ``directory``: each request with its cubins (capability ->
    (bytes, lowered names)), and ``cache_files`` (name in CuPy's kernel cache -> the file) as
    ``cupy-cache/``. Returns it as read back.

    A ``directory`` that holds a bundle has it replaced (its index, ``modules/`` and
    ``cupy-cache/``; nothing else there is touched); one that holds anything else is refused.
    """
    if directory.is_dir() and any(directory.iterdir()):
        if not (directory / "index.json").is_file():
            raise BackendError(f"{directory} is not empty and holds no kernel bundle")
        for part in ("modules", "cupy-cache"):
            shutil.rmtree(directory / part, ignore_errors=True)
        (directory / "index.json").unlink()
    (directory / "modules").mkdir(parents=True, exist_ok=True)
    entries: dict[str, dict[str, Any]] = {}
    for request, cubins in modules:
        key = request.key()
        entry: dict[str, Any] = {"lowered": {}, "cubins": {}}
        for capability, (image, lowered) in sorted(cubins.items()):
            name = f"modules/{key}.sm_{capability}.cubin"
            (directory / name).write_bytes(image)
            entry["cubins"][capability] = name
            entry["lowered"] = dict(lowered)
        entries[key] = entry
    for relative, path in cache_files.items():
        target = directory / "cupy-cache" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    index = {
        "format": FORMAT,
        "modules": entries,
        "cupy_cache": {
            "cupy": cupy_version,
            "capability": cache_capability,
            "files": sorted(cache_files),
        },
    }
    (directory / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    return KernelBundle.read(directory)


def seed_kernel_cache(bundle: KernelBundle, cp: ModuleType, cache_dir: Path) -> int:
    """Copy the bundle's CuPy cache files into ``cache_dir`` where the running CuPy and device
    are the bundle's; a file already there is kept. Returns how many were copied."""
    capability = cp.cuda.Device().compute_capability
    if bundle.cupy_version != cp.__version__ or bundle.cache_capability != capability:
        return 0
    copied = 0
    for relative in bundle.cache_files:
        target = cache_dir / relative
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + f".{os.getpid()}.part")
        shutil.copyfile(bundle.directory / "cupy-cache" / relative, partial)
        os.replace(partial, target)  # a reader never sees half a file
        copied += 1
    return copied
