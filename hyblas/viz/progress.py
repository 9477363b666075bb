"""The algorithms' progress bars, drawn by tqdm: installed into
:mod:`hyblas.algorithms.reporting` at import. tqdm is imported only when a bar is actually
shown, never at ``import hyblas`` time."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from ..algorithms.reporting import NO_BAR, ProgressBar, check_progress, install_bar_factory
from ..errors import MissingDependency

__all__ = ["in_notebook", "progress_bar", "install"]

# A bar opened by default (progress=None, in a notebook) appears only once a call has run this
# long, so that short calls never flash one.
NOTEBOOK_DELAY_S = 2.0


def _tqdm_class() -> Any:
    """``tqdm.auto.tqdm`` where ipywidgets is installed (a widget in Jupyter), else the text
    bar ``tqdm.std.tqdm`` (``tqdm.auto`` would warn "IProgress not found" into the cell).

    The one place tqdm is imported; tests replace it to record the bars created.

    Raises
    ------
    MissingDependency
        If tqdm is not installed.
    """
    if importlib.util.find_spec("tqdm") is None:
        raise MissingDependency(
            "progress=True needs tqdm, which is not installed: pip install tqdm"
        )
    # tqdm.auto warns when it is imported in a kernel without ipywidgets: decide before importing
    if importlib.util.find_spec("ipywidgets") is None:
        from tqdm.std import tqdm  # noqa: PLC0415 - optional: imported only to draw a bar
    else:
        from tqdm.auto import tqdm  # noqa: PLC0415
    return tqdm


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (an IPython ``ZMQInteractiveShell``).

    IPython is looked up in ``sys.modules`` only, never imported: a process that has not
    imported it is not a kernel.
    """
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    if get_ipython is None:
        return False
    try:
        shell = get_ipython()
    except Exception:  # a broken IPython install just means "not a notebook"
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def progress_bar(
    progress: bool | None,
    *,
    total: int | None,
    desc: str,
    unit: str = "it",
) -> ProgressBar:
    """A tqdm bar for an algorithm's loop, or the no-op stand-in: the factory
    :func:`hyblas.algorithms.reporting.progress_bar` calls (its parameters and errors).

    ``progress=True``: always a tqdm bar (MissingDependency without tqdm); ``None``: a bar only
    inside a Jupyter kernel and only if tqdm is installed, shown once the call has run for
    ``NOTEBOOK_DELAY_S`` seconds; no bar in scripts and tests.
    """
    check_progress(progress, desc)
    if progress is False or (progress is None and not in_notebook()):
        return NO_BAR
    if progress is None:
        try:
            tqdm = _tqdm_class()
        except MissingDependency:
            return NO_BAR
        return tqdm(total=total, desc=desc, unit=unit, delay=NOTEBOOK_DELAY_S)
    return _tqdm_class()(total=total, desc=desc, unit=unit)


def install() -> None:
    """Make :func:`progress_bar` the algorithms' bar factory."""
    install_bar_factory(progress_bar)
