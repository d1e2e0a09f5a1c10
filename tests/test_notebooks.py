"""Documentation that runs: the notebooks in examples/ (executed in a real Jupyter kernel) and
how a gradient displays in Jupyter (the pages of docs/: tests/test_docs.py)."""

import functools
import importlib.util
import re
import sys
from pathlib import Path

import pytest

import s2sad
from s2sad.display import diff_source, html_source, side_by_side

ROOT = Path(__file__).resolve().parent.parent


def _load_generate():
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generate()


@functools.cache
def executed(name: str):
    """The notebook examples/NAME.ipynb, run from top to bottom (once per test session)."""
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    return generate.execute_notebook(ROOT / "examples" / f"{name}.ipynb", timeout=300)


def outputs(nb, mime: str):
    """``(cell source, output data)`` for every output of the notebook with that MIME type."""
    return [(cell.source, out["data"][mime]) for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if mime in out.get("data", {})]


def text_of(html: str) -> str:
    import html as html_module
    return html_module.unescape(re.sub(r"<[^>]+>", "", html))


# --- the notebooks ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", [path.stem for path in generate.notebooks()])
def test_notebook_runs_without_errors(name):
    nb = executed(name)  # a failing cell (an assert included) raises CellExecutionError
    assert all(out.get("output_type") != "error" for cell in nb.cells
               for out in cell.get("outputs", []))


def test_there_are_five_teaching_notebooks():
    assert [path.stem for path in generate.notebooks()] == [
        "01_reverse_mode_by_hand", "02_tape_vs_source_transformation",
        "03_tensorflow_eager_examples", "04_training", "05_gpu_cupy"]


def test_a_gradient_is_displayed_as_its_highlighted_source():
    pytest.importorskip("pygments")
    nb = executed("01_reverse_mode_by_hand")
    shown = [html for source, html in outputs(nb, "text/html") if source.endswith("\ndf4")]
    assert len(shown) == 1
    assert "def grad_f4(side_lengths):" in text_of(shown[0])
    assert "style=" in shown[0] and "<span" in shown[0]  # coloured by Pygments
    plain = [text for source, text in outputs(nb, "text/plain") if source.endswith("\ndf4")]
    assert plain == ["<s2sad gradient grad_f4 wrt side_lengths>"]


def test_notebook_one_shows_every_compiler_stage():
    nb = executed("01_reverse_mode_by_hand")
    titles = {text_of(html).split("\n")[0].split(":")[0].strip()
              for _, html in outputs(nb, "text/html")}
    from examples.f4 import f4
    for name, _ in s2sad.grad(f4).stages([1.0, 2.0, 3.0, 4.0]):
        assert any(title.startswith(f"after {name}") for title in titles), (name, titles)


def test_notebook_one_explains_every_pass_it_lists():
    """Each pass name the stages list shows is explained in a Markdown cell, in bold."""
    nb = executed("01_reverse_mode_by_hand")
    explained = set(re.findall(r"^\* \*\*(\w+)\*\*:", "\n".join(
        cell.source for cell in nb.cells if cell.cell_type == "markdown"), re.MULTILINE))
    listed = [source for source, _ in outputs(nb, "text/plain") if ".stages(" in source]
    assert listed, "notebook 01 no longer lists the stages"
    from examples.f4 import f4
    names = {name for name, _ in s2sad.grad(f4, annotate=True).stages([1.0, 2.0, 3.0, 4.0])}
    assert names - explained == set()


def test_notebooks_have_no_fallback_for_what_works():
    """Notebooks 03 and 05 once fell back where s2sad could not yet differentiate a gradient
    or write CuPy source; both work, so the notebooks run them outright."""
    for name in ("03_tensorflow_eager_examples", "05_gpu_cupy"):
        text = "\n".join(cell.source for cell in executed(name).cells)
        for fallback in ("this version of s2sad", "cannot generate", "falls back", "yet"):
            assert fallback not in text, (name, fallback)


def test_training_notebook_plots_a_loss_curve():
    nb = executed("04_training")
    assert len(outputs(nb, "image/png")) == 1


# --- display.py ---------------------------------------------------------------------------------


def test_html_source_highlights_and_escapes():
    pytest.importorskip("pygments")
    html = html_source("if a < b:\n    c = 1  # note\n", title="a <title>")
    assert "a &lt;title&gt;" in html
    assert "&lt;" in html and "<span" in html
    assert text_of(html).count("c = 1") == 1
    diff = html_source(diff_source("x = 1\n", "x = 2\n"), language="diff")
    assert "-x = 1" in text_of(diff) and "+x = 2" in text_of(diff)
    assert diff_source("same\n", "same\n") == ""


def test_html_source_without_pygments(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)  # import pygments now fails
    html = html_source("a < b\n")
    assert html.startswith("<pre") and "a &lt; b" in html and "<span" not in html


@pytest.mark.parametrize("pygments", [True, False], ids=["pygments", "without pygments"])
def test_html_source_sets_a_monospace_font_on_its_pre(pygments, monkeypatch):
    """The code keeps a monospace font where a page's own styles set <pre> in its text's
    font (a notebook rendered to HTML, the documentation site)."""
    if pygments:
        pytest.importorskip("pygments")
    else:
        monkeypatch.setitem(sys.modules, "pygments", None)
    for html in (html_source("x = 1\n"), html_source("x = 1\n", title="t"),
                 side_by_side(("a", "x = 1"), ("b", "y = 2"))):
        pres = re.findall(r"<pre[^>]*>", html)
        assert pres and all("font-family:" in pre and "monospace" in pre and
                            "white-space: pre" in pre for pre in pres), pres


def test_diff_source_keeps_line_breaks_of_sources_without_a_last_one():
    diff = diff_source("a = 0\nx = 1", "a = 0\nx = 2")
    assert diff.splitlines() == ["--- before", "+++ after", "@@ -1,2 +1,2 @@", " a = 0",
                                 "-x = 1", "+x = 2"]
    assert diff.endswith("\n")
    assert diff_source("x = 1", "x = 1\n") == ""  # (only the last line break differs)
    shown = text_of(html_source(diff, language="diff")) if "pygments" in sys.modules else diff
    assert "-x = 1\n+x = 2" in shown


def test_side_by_side_puts_columns_in_one_row():
    html = side_by_side(("left", "x = 1"), ("right", "y = 2"), ("third", "z = 3"))
    assert html.count("<tr>") == 1 and html.count("<td") == 3
    assert text_of(html).index("left") < text_of(html).index("right")


def test_repr_html_of_a_gradient_function():
    from examples.f4 import f4
    gradient = s2sad.grad(f4)
    gradient([1.0, 2.0, 3.0, 4.0])
    assert text_of(gradient._repr_html_()).strip() == gradient.source.strip()
