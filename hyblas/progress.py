"""Optional progress bars for the long-running algorithms.

``progress_bar`` returns either a tqdm bar or a do-nothing stand-in with the same few methods,
so an algorithm's loop calls ``bar.update()`` unconditionally. tqdm is imported only when a bar
is actually shown, never at ``import hyblas`` time.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any, Protocol

from .errors import InvalidValue, MissingDependency

__all__ = ["ProgressBar", "check_progress", "finish", "in_notebook", "progress_bar"]

# A bar opened by default (progress=None, in a notebook) appears only once a call has run this
# long, so that short calls never flash one.
NOTEBOOK_DELAY_S = 2.0


class ProgressBar(Protocol):
    """What the algorithms use of a bar (a subset of ``tqdm.tqdm``)."""

    def update(self, n: int = 1) -> Any: ...

    def set_postfix(self, *args: Any, **kwargs: Any) -> Any: ...

    def close(self) -> Any: ...

    def __enter__(self) -> ProgressBar: ...

    def __exit__(self, *exc: object) -> Any: ...


class _NoBar:
    """The bar of ``progress=False``: every method does nothing."""

    __slots__ = ()

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


NO_BAR = _NoBar()


def _tqdm_class() -> Any:
    """``tqdm.auto.tqdm`` where ipywidgets is installed (a widget in Jupyter), else the text
    bar ``tqdm.std.tqdm`` (``tqdm.auto`` would warn "IProgress not found" into the cell).

    The one place tqdm is imported; tests replace it to record the bars created.

    Raises
    ------
    MissingDependency
        If tqdm is not installed.
    """
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:
        raise MissingDependency(
            "progress=True needs tqdm, which is not installed: pip install tqdm"
        ) from exc
    if importlib.util.find_spec("ipywidgets") is None:
        from tqdm.std import tqdm
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


def check_progress(progress: Any, name: str) -> None:
    """Raise :class:`~hyblas.errors.InvalidValue` unless ``progress`` is True, False or None.

    For algorithms that validate their arguments before they know whether a loop will run.
    """
    if progress is not None and progress is not True and progress is not False:
        raise InvalidValue(f"{name}: progress must be True, False or None, got {progress!r}")


def finish(bar: ProgressBar) -> None:
    """Mark a loop that stopped before its ``total`` (it converged) as complete.

    The total was only an upper bound; closing a Jupyter widget bar short of its total would
    show it in the error colour. The bar is not redrawn here (that would show a bar still
    held back by ``delay``); ``close()`` draws the final state.
    """
    if getattr(bar, "total", None) is not None and bar.n < bar.total:
        bar.total = bar.n


def progress_bar(
    progress: bool | None,
    *,
    total: int | None,
    desc: str,
    unit: str = "it",
) -> ProgressBar:
    """A progress bar for an algorithm's loop, or a no-op stand-in.

    Parameters
    ----------
    progress : bool or None
        True: always a tqdm bar. False: never (a no-op object; tqdm is not imported).
        None: a bar only inside a Jupyter kernel and only if tqdm is installed, shown once the
        call has run for ``NOTEBOOK_DELAY_S`` seconds; no bar in scripts and tests.
    total : int, optional
        Expected number of updates (an upper bound is fine); None when unknown.
    desc : str
        Label in front of the bar (the algorithm's name).
    unit : str
        What one update counts ("iteration", "level", "source"...).

    Returns
    -------
    ProgressBar
        Has ``update(n=1)``, ``set_postfix(**values)``, ``close()`` and works as a context
        manager (closing the bar on exit, also when the loop raises).

    Raises
    ------
    InvalidValue
        If ``progress`` is not True, False or None.
    MissingDependency
        If ``progress`` is True and tqdm is not installed.
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
