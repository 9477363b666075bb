"""Sphinx configuration of the hyblas documentation site.

Build it with ``sphinx-build -W --keep-going -b html docs out/docs-html`` (``pip install -e
".[docs]"`` first). The API reference is generated from the docstrings (autosummary, numpydoc),
the notebooks are rendered with the outputs stored in them (myst-nb, never executed here), and
the benchmark results page is written from ``benchmarks/results/`` at every build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# the checkout being documented comes first (not an installed copy elsewhere)
sys.path[:0] = [str(ROOT), str(ROOT / "nx-hyblas")]
os.environ.setdefault("HYBLAS_BACKEND", "cpu")  # building the docs never needs a GPU
os.environ.setdefault("MPLBACKEND", "Agg")

import hyblas  # noqa: E402

sys.path.insert(0, str(DOCS))
import _generate  # noqa: E402

project = "hyblas"
author = "the hyblas developers"
copyright = "the hyblas developers"  # noqa: A001 - Sphinx's name for it
release = hyblas.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "notebooks/figures"]
templates_path = ["_templates"]

# a broken cross-reference is a warning, and CI builds with warnings as errors
nitpicky = True
nitpick_ignore = [
    # numpydoc's "Returns" / "Yields" types without a name are read as references
    ("py:class", "optional"),
]

# the API reference: one page per public name
autosummary_generate = True
autosummary_imported_members = True
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc sections give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = {"GL08"}  # a public name without a docstring fails the build
numpydoc_validation_exclude = {r"\.__\w+__$", r"\._\w+$"}

# notebooks: the outputs stored in them are rendered, never recomputed
nb_execution_mode = "off"
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]


html_theme = "pydata_sphinx_theme"
html_title = f"hyblas {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
}
html_static_path: list[str] = []

# pages written at build time from the code and benchmarks/results/
_generate.benchmark_results(ROOT / "benchmarks" / "results", DOCS / "generated")
_generate.operator_tables(DOCS / "generated")
_generate.networkx_functions(DOCS / "generated")
_generate.notebooks(ROOT / "notebooks", DOCS / "notebooks")
