"""The paths the readers and writers take: checked before anything is read or written, so that
a bad path is a named error (scipy's Matrix Market writer, for one, says nothing when the
directory is missing) and a failed write leaves nothing behind."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from ..errors import InvalidObject, InvalidValue

__all__ = ["readable_file", "writable_file", "os_errors_named"]


def _name(path: Any, argument: str) -> str:
    if not isinstance(path, str | os.PathLike):
        raise InvalidObject(f"{argument} must be a str or os.PathLike, got {type(path).__name__}")
    name = os.fspath(path)
    if not isinstance(name, str):  # a PathLike of bytes
        raise InvalidObject(f"{argument} must name a path as text, got {name!r}")
    if not name:
        raise InvalidValue(f"{argument} is empty")
    if "\0" in name:  # no file system takes one; os.stat would say "embedded null byte"
        raise InvalidValue(f"{argument} {name!r} holds a NUL byte, which no path may hold")
    return name


def _missing(name: str, argument: str) -> InvalidValue:
    """Why ``name`` does not exist: a missing directory on the way, or a regular file where a
    directory should be, or the file itself."""
    parent = os.path.dirname(os.path.abspath(name))
    while parent and not os.path.exists(parent):
        up = os.path.dirname(parent)
        if up == parent:
            break
        parent = up
    if os.path.exists(parent) and not os.path.isdir(parent):
        return InvalidValue(f"{argument} {name!r} lies under {parent!r}, a file, not a directory")
    directory = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(directory):
        return InvalidValue(f"{argument} {name!r}: the directory {directory!r} does not exist")
    return InvalidValue(f"{argument} {name!r}: no such file")


def readable_file(path: Any, argument: str = "path") -> str:
    """``path`` as a str, if it names a regular file this process may read.

    Raises
    ------
    InvalidObject
        If ``path`` is not a str or os.PathLike.
    InvalidValue
        If ``path`` is empty or holds a NUL byte, or the file does not exist (the message says
        whether a directory is missing or a file stands where a directory should), is a
        directory, or may not be read.
    """
    name = _name(path, argument)
    if not os.path.exists(name):
        raise _missing(name, argument)
    if os.path.isdir(name):
        raise InvalidValue(f"{argument} {name!r} is a directory, not a file")
    if not os.access(name, os.R_OK):
        raise InvalidValue(f"{argument} {name!r} may not be read (permission denied)")
    return name


def writable_file(path: Any, argument: str = "path") -> str:
    """``path`` as a str, if a file may be written there (created or replaced): the errors
    of :func:`readable_file`, InvalidValue also where the file or its directory may not be
    written."""
    name = _name(path, argument)
    directory = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(directory):
        raise _missing(name, argument)
    if os.path.isdir(name):
        raise InvalidValue(f"{argument} {name!r} is a directory, not a file")
    if os.path.exists(name):
        if not os.access(name, os.W_OK):
            raise InvalidValue(f"{argument} {name!r} may not be written (permission denied)")
    elif not os.access(directory, os.W_OK | os.X_OK):
        raise InvalidValue(
            f"{argument} {name!r}: the directory {directory!r} may not be written "
            "(permission denied)"
        )
    return name


@contextlib.contextmanager
def os_errors_named(name: str, argument: str = "path") -> Iterator[None]:
    """Turn an OSError inside the block (a race with the checks above, a full disk) into
    InvalidValue naming the path."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InvalidValue(f"{argument} {name!r} could not be read or written: {reason}") from exc
