"""What a partitioned container reads from the part this process holds."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LocallyHeld"]


class LocallyHeld:
    """A base of DistMatrix and DistVector: the value type and backend are those of ``local``
    (this process's block or piece), the same on every process."""

    local: Any

    @property
    def dtype(self) -> np.dtype:
        """The value type."""
        return self.local.dtype

    @property
    def backend(self) -> str:
        """Where the blocks (pieces) live."""
        return self.local.backend
