"""Sphinx configuration of the documentation site (the `docs` extra of pyproject.toml).

Build it from the checkout's root, with warnings as errors (README.md, "Documentation")::

    python -m sphinx -W --keep-going -c docs . docs/_build/html

The source folder is the checkout's root, so that the pages of ``docs/`` and the teaching
notebooks of ``examples/`` are one site; ``include_patterns`` picks exactly those. The
notebooks are rendered with the outputs they are stored with (``python docs/generate.py
--notebooks`` runs them again): nothing is executed while the site builds.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # autodoc imports this checkout's s2sad

import s2sad  # noqa: E402

project = "s2sad"
author = "The s2sad contributors"
copyright = "The s2sad contributors, MIT license"
release = s2sad.__version__
version = release

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]

root_doc = "docs/index"
include_patterns = ["docs/*.md", "examples/*.ipynb"]
exclude_patterns = [".ci", ".git", ".venv", "**/_build", "benchmarks", "s2sad", "tests",
                    "README.md", "CHANGELOG.md"]
html_extra_path = ["_extra"]  # index.html at the site's root: a link to docs/index.html

# The notebooks as stored, outputs included: not run while the site builds.
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# Another page of the nav, "Reading the generated code", is written apart; until it is
# there, its toctree entry is left out without failing the build.
suppress_warnings = []
if not (ROOT / "docs" / "reading-generated-code.md").exists():
    suppress_warnings.append("toc.not_readable")

autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = f"s2sad {release}"
pygments_style = "friendly"
