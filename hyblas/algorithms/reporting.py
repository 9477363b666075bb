"""Progress reporting of the long-running algorithms.

An algorithm's loop asks :func:`progress_bar` for a bar and calls ``bar.update()``
unconditionally: it gets a tqdm bar (made by the factory :mod:`hyblas.viz.progress` installs
here at import) or a do-nothing stand-in with the same few methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..errors import InvalidValue, MissingDependency

__all__ = [
    "ProgressBar",
    "NO_BAR",
    "check_progress",
    "finish",
    "progress_bar",
    "install_bar_factory",
]


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

BarFactory = Callable[..., ProgressBar]
_factories: list[BarFactory] = []


def install_bar_factory(factory: BarFactory) -> None:
    """Make ``factory(progress, total=, desc=, unit=)`` the maker of the algorithms' bars for
    ``progress`` True or None (:mod:`hyblas.viz.progress` installs tqdm's at import)."""
    _factories[:] = [factory]


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
    progress: bool | None, *, total: int | None, desc: str, unit: str = "it"
) -> ProgressBar:
    """A progress bar for an algorithm's loop, or a no-op stand-in.

    Parameters
    ----------
    progress : bool or None
        True: always a bar. False: never (a no-op object). None: the installed factory decides
        (a bar only inside a Jupyter kernel, see :func:`hyblas.viz.progress.progress_bar`).
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
        If ``progress`` is True and no bar can be made (tqdm is not installed).
    """
    check_progress(progress, desc)
    if progress is False:
        return NO_BAR
    if not _factories:
        if progress:
            raise MissingDependency("progress=True needs hyblas.viz (imported by hyblas) and tqdm")
        return NO_BAR
    return _factories[0](progress, total=total, desc=desc, unit=unit)
