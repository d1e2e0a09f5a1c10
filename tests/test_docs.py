"""The documentation: README.md's Quick start and picture, and the generated sections of the
pages in docs/ (the functions with a rule, the constructs refused, the benchmark tables). The
pages' and README's examples run as doctests (pyproject.toml's testpaths); CI builds the site
with warnings as errors (.ci/run)."""

import doctest
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import s2sad
from s2sad.rules.numpy_more import REMOVED_FROM_NUMPY

ROOT = Path(__file__).resolve().parent.parent


def _load_generate():
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generate()
README = (ROOT / "README.md").read_text()


def section(text: str, title: str) -> str:
    """The text of the ``## title`` section of a Markdown page."""
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


# --- README.md ----------------------------------------------------------------------------------


def test_readme_quick_start_runs_in_a_plain_python():
    """Pasted into ``python`` (no doctest, whose ``linecache`` gives typed functions a source),
    the Quick start runs as written: every function it differentiates lives in a file."""
    examples = doctest.DocTestParser().get_examples(section(README, "Quick start"))
    assert len(examples) >= 8
    code = "".join(example.source for example in examples)
    done = subprocess.run([sys.executable, "-"], input=code + "print('quick start ok')\n",
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("quick start ok\n")


def test_readme_quick_start_says_where_functions_must_live():
    assert "must live in a file" in section(README, "Quick start")


def test_readme_picture_is_the_generated_gradient():
    """The picture of one function and its gradient side by side shows what s2sad writes."""
    from examples.quickstart import loss
    picture = section(README, "One function and its gradient")
    left, right = re.findall(r"```python\n(.*?)```", picture, re.DOTALL)
    assert left in (ROOT / "examples" / "quickstart.py").read_text()
    source = s2sad.grad(loss).source_for(np.eye(2), np.array([0.5, -1.0]))
    assert right == source[source.index("def grad_loss"):]


def test_readme_keeps_its_two_first_run_commands():
    lines = README.splitlines()
    assert lines[19] == ("python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
                         "s2sad show examples/f4.py:f4 --at '[1.0, 2.0, 3.0, 4.0]' --annotate "
                         "--no-optimize")
    assert lines[26] == ("python3 -m venv .venv && . .venv/bin/activate && pip install -e "
                         "'.[test]' && python -m pytest -q -n auto")
    ci = (ROOT / ".ci" / "run").read_text()  # (what CI runs: README's command)
    assert ci.count("python -m pytest -q -n auto -p no:cacheprovider") == 2


def test_readme_is_short_and_links_every_page():
    assert 150 <= len(README.splitlines()) <= 200
    pages = {path.name for path in (ROOT / "docs").glob("*.md")} - {"index.md"}
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)[)#]", README))
    assert pages <= linked, pages - linked


def test_the_docs_build_command_is_the_one_ci_runs():
    command = "python -m sphinx -W --keep-going -q -c docs ."
    assert command in README
    assert command in (ROOT / ".ci" / "run").read_text()


# --- the generated sections of docs/ -----------------------------------------------------------


# (docs/supported.md lists SciPy's rules too, which load only where SciPy imports)
_WITH_SCIPY = pytest.mark.skipif(not hasattr(importlib.import_module("s2sad.rules"),
                                             "scipy_special"), reason="SciPy is not installed")


@_WITH_SCIPY
@pytest.mark.parametrize("page", sorted(generate.PAGES), ids=lambda page: page.name)
def test_generated_sections_are_up_to_date(page):
    text = page.read_text()
    assert generate.render(text, generate.PAGES[page]) == text, \
        f"{page.name} is out of date: run python docs/generate.py"


def test_every_generated_section_has_a_page():
    assert sorted(name for names in generate.PAGES.values() for name in names) == \
        sorted(generate.SECTIONS)


@_WITH_SCIPY
def test_supported_page_lists_exactly_the_supported_functions():
    page = (ROOT / "docs" / "supported.md").read_text()
    listed_section = page.split("<!-- generated: functions -->")[1].split(
        "<!-- end generated: functions -->")[0]
    listed = set()
    for line in listed_section.splitlines():
        if line.startswith("* **") and not line.startswith("* **Array methods"):
            listed.update(re.findall(r"`([^`]+)`", line.split("): ", 1)[1]))
    # (and the functions an older NumPy has, s2sad's rule there: the page is every NumPy's)
    supported = set(s2sad.supported()) | set(REMOVED_FROM_NUMPY)
    assert listed == {generate.shown_name(name) for name in supported}
    assert len(listed) == len(supported)


def test_functions_removed_from_numpy_are_supported_where_numpy_has_them():
    """docs/supported.md's "(NumPy < 2.5)" of np.row_stack: the installed NumPy says so."""
    for name, version in REMOVED_FROM_NUMPY.items():
        has = hasattr(np, name.removeprefix("numpy."))
        assert has == (np.lib.NumpyVersion(np.__version__) < version), name
        assert (name in s2sad.supported()) == has, name
        shown = f"`{generate.shown_name(name)}` (NumPy < {version.removesuffix('.0')})"
        assert shown in (ROOT / "docs" / "supported.md").read_text(), shown
