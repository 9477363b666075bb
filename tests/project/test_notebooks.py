"""Every notebook in ``notebooks/`` runs top to bottom without an error, in a fresh kernel.

Each notebook is executed with nbclient (what nbmake uses) in a new kernel started from this
interpreter (``sys.executable``), with figures going to matplotlib's Agg backend: once on the CPU
(``HYBLAS_BACKEND=cpu``) and, marked ``gpu``, once on the GPU (``HYBLAS_BACKEND=cuda``). The run
happens in memory: the stored notebooks are neither compared with nor rewritten. A separate check
asks that the stored copies hold the outputs of one clean top-to-bottom run, as readers see them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = {"01-tour", "02-algorithms-from-ops", "04-your-own-semiring", "05-networkx"}
KERNEL_NAME = "hyblas-notebook-test"
CELL_TIMEOUT_S = 300
STARTUP_TIMEOUT_S = 120


def _kernel_manager(kernel_dir: Path, backend: str) -> KernelManager:
    """A kernel of this interpreter whose environment selects ``backend`` and the Agg backend.

    The kernelspec is written to ``kernel_dir`` under a name of its own, so no ``python3``
    kernelspec installed elsewhere (for another interpreter) can be picked up instead.
    """
    spec_dir = kernel_dir / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"hyblas tests ({backend})",
        "language": "python",
        # the checkout under test comes first, as for the tests themselves
        "env": {"HYBLAS_BACKEND": backend, "MPLBACKEND": "Agg", "PYTHONPATH": path},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    specs = KernelSpecManager(kernel_dirs=[str(kernel_dir)], ensure_native_kernel=False)
    return KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)


def _backend_check(backend: str) -> nbformat.NotebookNode:
    """A last cell that fails unless the notebook really ran on ``backend``."""
    return nbformat.v4.new_code_cell(
        "import hyblas as _hb\n"
        f"assert _hb.backend() == {backend!r}, 'the kernel ran on ' + repr(_hb.backend())"
    )


def test_the_notebooks_are_there() -> None:
    stems = {path.stem for path in NOTEBOOKS}
    assert EXPECTED <= stems, f"missing from notebooks/: {sorted(EXPECTED - stems)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_outputs_are_one_clean_run(path: Path) -> None:
    """Stored with outputs, from a single top-to-bottom run (counts 1, 2, 3, ...), no errors."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code, f"{path.name} has no code cells"
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: execution counts {counts}; re-run it top to bottom in a fresh kernel "
        "and save it with its outputs"
    )
    errors = [
        output.get("ename")
        for cell in code
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors, f"{path.name} was saved with errors: {errors}"
    assert any(cell.outputs for cell in code), f"{path.name} was saved without outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, backend: str, tmp_path: Path) -> None:
    """Every cell runs without an error (nbclient raises CellExecutionError on the first)."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(_backend_check(backend))
    client = NotebookClient(
        nb,
        km=_kernel_manager(tmp_path / "kernels", backend),
        timeout=CELL_TIMEOUT_S,
        startup_timeout=STARTUP_TIMEOUT_S,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    client.execute()
    ran = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.execution_count is not None for cell in ran)
