"""Progress bars of the long-running algorithms: same results, real counts, off by default."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tqdm.std import tqdm as std_tqdm

import hyblas as hb
from hyblas.algorithms import betweenness_centrality, multi_source_bfs, pagerank, reporting, sssp
from hyblas.errors import HyblasError, InvalidValue, MissingDependency
from hyblas.viz import progress as hb_progress

ROOT = Path(__file__).resolve().parents[2]


class _RecordingBar(std_tqdm):
    """A text tqdm bar that remembers its updates and whether it was closed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.updates: list[int] = []
        self.was_closed = False
        super().__init__(*args, **kwargs)

    def update(self, n: float | None = 1) -> bool | None:
        self.updates.append(n)
        return super().update(n)

    def close(self) -> None:
        self.was_closed = True
        super().close()


class _Recorder:
    """Stands in for ``tqdm.auto.tqdm``: makes recording bars that write to a StringIO."""

    def __init__(self) -> None:
        self.bars: list[_RecordingBar] = []
        self.kwargs: list[dict[str, Any]] = []
        self.out = io.StringIO()

    def __call__(self, **kwargs: Any) -> _RecordingBar:
        self.kwargs.append(kwargs)
        bar = _RecordingBar(file=self.out, mininterval=0, **kwargs)
        self.bars.append(bar)
        return bar

    @property
    def bar(self) -> _RecordingBar:
        assert len(self.bars) == 1, f"expected exactly one bar, got {len(self.bars)}"
        return self.bars[0]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> _Recorder:
    rec = _Recorder()
    monkeypatch.setattr(hb_progress, "_tqdm_class", lambda: rec)
    return rec


@pytest.fixture
def no_bars(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden() -> Any:
        raise AssertionError("a progress bar was created")

    monkeypatch.setattr(hb_progress, "_tqdm_class", forbidden)


def _fake_ipython(monkeypatch: pytest.MonkeyPatch, shell_class: str | None) -> None:
    """Put an IPython module into sys.modules whose ``get_ipython()`` returns a shell of that
    class name (None: no running shell, as in a plain ``import IPython``)."""
    shell = type(shell_class, (), {})() if shell_class is not None else None
    module = types.ModuleType("IPython")
    module.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", module)


def _graph(backend: str) -> hb.Matrix:
    return hb.generators.erdos_renyi(
        60, 240, seed=3, symmetric=True, dtype=np.float64, backend=backend
    )


def _coo(x: hb.Vector | hb.Matrix) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(a) for a in x.to_backend("cpu").to_coo())


def _assert_identical(a: hb.Vector | hb.Matrix, b: hb.Vector | hb.Matrix) -> None:
    assert type(a) is type(b) and a.dtype == b.dtype
    assert (a.shape == b.shape) if isinstance(a, hb.Matrix) else (a.size == b.size)
    for x, y in zip(_coo(a), _coo(b), strict=True):
        np.testing.assert_array_equal(x, y)


# --- the helper --------------------------------------------------------------------------------


def test_false_gives_a_no_op_bar(no_bars: None) -> None:
    bar = hb_progress.progress_bar(False, total=10, desc="x", unit="it")
    assert bar is hb_progress.NO_BAR
    with bar as same:
        assert same is bar
        assert same.update() is None and same.update(5) is None
        assert same.set_postfix(a=1, refresh=False) is None
    assert bar.close() is None


def test_true_gives_a_counting_tqdm_bar(recorder: _Recorder) -> None:
    with hb_progress.progress_bar(True, total=4, desc="thing", unit="step") as bar:
        for _ in range(3):
            bar.update()
    assert bar is recorder.bar and bar.was_closed
    assert (bar.n, bar.total, bar.desc, bar.unit) == (3, 4, "thing", "step")
    assert "thing" in recorder.out.getvalue() and "3/4" in recorder.out.getvalue()
    assert "delay" not in recorder.kwargs[0]  # asked for explicitly: shown at once


def test_finish_completes_an_early_stopped_bar(recorder: _Recorder) -> None:
    with hb_progress.progress_bar(True, total=10, desc="x") as bar:
        bar.update(4)
        reporting.finish(bar)
    assert (bar.n, bar.total) == (4, 4) and "4/4" in recorder.out.getvalue()
    with hb_progress.progress_bar(True, total=None, desc="y") as unknown:
        unknown.update(3)
        reporting.finish(unknown)
    assert (unknown.n, unknown.total) == (3, None)
    reporting.finish(hb_progress.NO_BAR)  # a no-op bar has nothing to finish


def test_true_uses_tqdm_auto_with_ipywidgets_else_the_text_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util  # noqa: PLC0415

    import tqdm.auto  # noqa: PLC0415
    import tqdm.std  # noqa: PLC0415

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "ipywidgets" else real(name, *a),
    )
    assert hb_progress._tqdm_class() is tqdm.auto.tqdm
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "ipywidgets" else real(name, *a),
    )
    assert hb_progress._tqdm_class() is tqdm.std.tqdm


@pytest.mark.parametrize("bad", ["yes", 1, 0, 1.0, np.True_, [], "auto"])
def test_invalid_progress_values_raise(bad: Any, no_bars: None) -> None:
    with pytest.raises(InvalidValue, match="progress must be True, False or None"):
        hb_progress.progress_bar(bad, total=1, desc="x", unit="it")


def test_none_in_a_plain_process_gives_no_bar(no_bars: None) -> None:
    assert not hb_progress.in_notebook()
    assert hb_progress.progress_bar(None, total=3, desc="x") is hb_progress.NO_BAR


@pytest.mark.parametrize("shell", [None, "TerminalInteractiveShell"])
def test_none_in_a_terminal_ipython_gives_no_bar(
    shell: str | None, no_bars: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_ipython(monkeypatch, shell)
    assert not hb_progress.in_notebook()
    assert hb_progress.progress_bar(None, total=3, desc="x") is hb_progress.NO_BAR


def test_none_in_a_notebook_gives_a_delayed_bar(
    recorder: _Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_ipython(monkeypatch, "ZMQInteractiveShell")
    assert hb_progress.in_notebook()
    ranks, count = pagerank(_graph("cpu"), return_iterations=True)
    bar = recorder.bar
    assert recorder.kwargs[0]["delay"] == hb_progress.NOTEBOOK_DELAY_S > 0
    assert bar.n == count and bar.was_closed
    assert recorder.out.getvalue() == ""  # a fast call: the delayed bar never showed


def test_none_in_a_notebook_without_tqdm_gives_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_ipython(monkeypatch, "ZMQInteractiveShell")
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    assert hb_progress.progress_bar(None, total=3, desc="x") is hb_progress.NO_BAR


def test_true_without_tqdm_raises_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # makes `import tqdm...` raise ImportError
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(MissingDependency, match="pip install tqdm") as info:
        hb_progress.progress_bar(True, total=3, desc="x")
    assert isinstance(info.value, ImportError) and isinstance(info.value, HyblasError)
    with pytest.raises(MissingDependency, match="pip install tqdm"):
        pagerank(_graph("cpu"), progress=True)
    # without a bar asked for, the algorithms do not need tqdm
    assert pagerank(_graph("cpu"), progress=False).size == 60
    assert pagerank(_graph("cpu")).size == 60


# --- the algorithms ----------------------------------------------------------------------------

_RUNS: dict[str, Callable[..., Any]] = {
    "pagerank": lambda A, **kw: pagerank(A, **kw),
    "pagerank_data": lambda A, **kw: pagerank(A, variant="data", **kw),
    "betweenness_centrality": lambda A, **kw: betweenness_centrality(A, batch=16, **kw),
    "sssp": lambda A, **kw: sssp(hb.generators.random_weights(A, 0.5, 4.0, seed=1), 2, **kw),
    "multi_source_bfs": lambda A, **kw: multi_source_bfs(A, [0, 5, 17, 59], **kw),
}


@pytest.mark.parametrize("name", list(_RUNS))
def test_results_do_not_depend_on_progress(name: str, backend: str, recorder: _Recorder) -> None:
    A = _graph(backend)  # noqa: N806
    run = _RUNS[name]
    quiet = run(A, progress=False)
    assert recorder.bars == []
    shown = run(A, progress=True)
    default = run(A)
    assert len(recorder.bars) == 1 and recorder.bar.was_closed and recorder.bar.n > 0
    assert recorder.bar.desc == name.removesuffix("_data")
    _assert_identical(quiet, shown)
    _assert_identical(quiet, default)


def test_pagerank_counts_iterations(recorder: _Recorder) -> None:
    A = _graph("cpu")  # noqa: N806
    _, count = pagerank(A, return_iterations=True, max_iter=50, progress=True)
    bar = recorder.bar
    assert count > 1 and recorder.kwargs[0]["total"] == 50 and bar.unit == "iteration"
    assert bar.n == bar.total == count  # converged: the bar ends complete, not at count/50
    assert bar.updates == [1] * count
    assert "change=" in recorder.out.getvalue()


def test_pagerank_fixed_iterations_total(recorder: _Recorder) -> None:
    pagerank(_graph("cpu"), iterations=7, progress=True)
    assert (recorder.bar.n, recorder.bar.total) == (7, 7)


def test_pagerank_data_counts_rounds(recorder: _Recorder) -> None:
    _, rounds = pagerank(_graph("cpu"), variant="data", return_iterations=True, progress=True)
    bar = recorder.bar
    assert rounds > 1 and recorder.kwargs[0]["total"] == 100 and bar.unit == "round"
    assert bar.n == bar.total == rounds
    assert "active=" in recorder.out.getvalue()


@pytest.mark.parametrize("variant", ["power", "data"])
def test_bar_is_closed_when_pagerank_raises(variant: str, recorder: _Recorder) -> None:
    with pytest.raises(InvalidValue, match="converge"):
        pagerank(_graph("cpu"), variant=variant, max_iter=2, tol=1e-12, progress=True)
    assert recorder.bar.was_closed and recorder.bar.n == 2


def test_betweenness_counts_sources_per_batch(recorder: _Recorder) -> None:
    betweenness_centrality(_graph("cpu"), sources=[1, 4, 9, 16, 25, 36, 49], batch=3, progress=True)
    bar = recorder.bar
    assert bar.updates == [3, 3, 1]  # one update per batch, by its number of sources
    assert (bar.n, bar.total, bar.unit) == (7, 7, "source")
    betweenness_centrality(_graph("cpu"), sources=5, batch=64, progress=True)
    assert recorder.bars[1].updates == [5] and recorder.bars[1].total == 5


def test_sssp_counts_relaxation_rounds(recorder: _Recorder) -> None:
    # unit weights: round k reaches exactly the vertices k edges away, and one more round
    # finds that the last frontier improves nothing
    # finds that the last frontier improves nothing. Host rounds update the bar each round;
    # rounds in the device loop (its emulation here) show up together when it hands back.
    A = _graph("cpu")  # noqa: N806
    with hb.ops.loop.loop_params(device_loop=False):
        dist = sssp(A, 0, progress=True)
    bar = recorder.bar
    assert bar.n == int(dist.reduce(hb.monoid.max)) + 1 and bar.updates == [1] * bar.n
    assert bar.total is None and bar.unit == "round"
    assert "frontier=" in recorder.out.getvalue()
    sssp(A, 0, progress=True)
    in_loop = recorder.bars[1]
    assert in_loop.n == bar.n and len(in_loop.updates) < bar.n


def test_sssp_bar_is_closed_on_a_negative_cycle(recorder: _Recorder) -> None:
    A = hb.Matrix.from_coo([0, 1, 2], [1, 2, 1], [1.0, -2.0, 1.0], nrows=3, ncols=3)  # noqa: N806
    with pytest.raises(InvalidValue, match="negative cycle"):
        sssp(A, 0, progress=True)
    assert recorder.bar.was_closed and recorder.bar.n == 3


def test_multi_source_bfs_counts_levels(recorder: _Recorder) -> None:
    levels = multi_source_bfs(_graph("cpu"), [0, 7, 30], progress=True)
    bar = recorder.bar
    deepest = int(np.asarray(levels.to_coo()[2]).max())
    assert bar.n == deepest + 1 and bar.total is None and bar.unit == "level"


@pytest.mark.parametrize("name", list(_RUNS))
def test_algorithms_reject_invalid_progress(name: str, no_bars: None) -> None:
    with pytest.raises(InvalidValue, match="progress"):
        _RUNS[name](_graph("cpu"), progress="yes")


def test_empty_inputs_validate_progress_and_show_no_bar(no_bars: None) -> None:
    empty = hb.Matrix.new(np.float64, 0, 0)
    with pytest.raises(InvalidValue, match="progress"):
        pagerank(empty, progress=1)
    with pytest.raises(InvalidValue, match="progress"):
        multi_source_bfs(_graph("cpu"), [], progress="no")
    with pytest.raises(InvalidValue, match="progress"):
        betweenness_centrality(_graph("cpu"), sources=[], progress=0)


@pytest.mark.parametrize("name", list(_RUNS))
def test_default_progress_in_a_plain_process_creates_no_bar(name: str, no_bars: None) -> None:
    assert _RUNS[name](_graph("cpu")) is not None


def test_importing_and_running_the_algorithms_does_not_import_tqdm() -> None:
    code = (
        "import sys, hyblas, hyblas.algorithms as alg\n"
        "A = hyblas.generators.erdos_renyi(30, 90, seed=1, symmetric=True)\n"
        "alg.pagerank(A); alg.pagerank(A, progress=False); alg.sssp(A, 0)\n"
        "alg.multi_source_bfs(A, [0, 1]); alg.betweenness_centrality(A, sources=3)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('tqdm', 'IPython'))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    env = dict(
        os.environ,
        PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        HYBLAS_BACKEND="cpu",
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_without_ipywidgets_tqdm_auto_is_not_even_imported() -> None:
    """Importing tqdm.auto in a kernel without ipywidgets prints a warning into the cell."""
    import importlib.util  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    if importlib.util.find_spec("ipywidgets") is not None:
        pytest.skip("ipywidgets is installed here: tqdm.auto is the bar to use")
    code = (
        "import sys; from hyblas.viz import progress; progress._tqdm_class(); "
        "assert 'tqdm.auto' not in sys.modules and 'tqdm.autonotebook' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
