"""Regenerate the parts of the documentation that are computed, never typed by hand.

    python docs/generate.py               rewrite the pages' generated sections
    python docs/generate.py --check       exit 1 if a page is out of date (the tests do this)
    python docs/generate.py --notebooks   re-run examples/*.ipynb in place, keeping their outputs

The generated sections sit between ``<!-- generated: NAME -->`` and
``<!-- end generated: NAME -->`` lines. ``docs/supported.md`` has the functions with a
derivative rule (from ``s2sad.registry``, the table behind ``s2sad.supported()``), the array
methods the compiler rewrites into NumPy calls and the constructs it refuses (from the
validation pass's table); ``docs/benchmarks.md`` has the tables of the latest benchmark run
(``benchmarks/results/results.md``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"

if str(ROOT) not in sys.path:  # run from a checkout that is not installed
    sys.path.insert(0, str(ROOT))


# --- generated sections ---------------------------------------------------------------------


def shown_name(rule_name: str) -> str:
    """How the pages write a function of the rule table: ``np.sin``, ``math.exp``, ``len``."""
    module, _, short = rule_name.rpartition(".")
    if module == "numpy" or module.startswith("numpy."):
        return "np" + rule_name[len("numpy"):]
    if module.startswith("s2sad."):
        return f"s2sad.{short}"  # the public name: s2sad.stop_gradient, not s2sad.rules.numpy...
    return rule_name


def _removed() -> dict:
    """NumPy's functions with a rule where NumPy has them -> the NumPy that removed them
    (``np.row_stack``: 2.5). The page lists them on every NumPy, saying so."""
    from s2sad.rules.numpy_more import REMOVED_FROM_NUMPY
    return REMOVED_FROM_NUMPY


def _names(names) -> str:
    notes = {shown_name(name): f" (NumPy < {version.removesuffix('.0')})"
             for name, version in _removed().items()}
    return ", ".join(f"`{name}`{notes.get(name, '')}"
                     for name in sorted(names, key=lambda n: (n.lower(), n)))


GROUPS = {  # a group's title in docs/supported.md -> which rule names it lists
    "NumPy": lambda name: name.startswith("numpy.") and not name.startswith(
        ("numpy.linalg.", "numpy.fft.")),
    "NumPy linear algebra": lambda name: name.startswith("numpy.linalg."),
    "NumPy FFT": lambda name: name.startswith("numpy.fft."),
    "`math`": lambda name: name.startswith("math."),
    "`cmath` (complex numbers)": lambda name: name.startswith("cmath."),
    "SciPy (`scipy.special`, where SciPy is installed)": lambda name: name.startswith(
        "scipy.special."),
    "SciPy (`scipy.integrate`, where SciPy is installed: the continuous adjoint method)":
        lambda name: name.startswith("scipy.integrate."),
    "SciPy (`scipy.stats`, where SciPy is installed)": lambda name: name.startswith(
        "scipy.stats."),
    "SciPy linear algebra (`scipy.linalg`, where SciPy is installed)": lambda name:
        name.startswith("scipy.linalg."),
    "SciPy (`scipy.fft`, where SciPy is installed)": lambda name: name.startswith(
        "scipy.fft."),
    "SciPy (`scipy.signal`, where SciPy is installed)": lambda name: name.startswith(
        "scipy.signal."),
    "Python builtins": lambda name: "." not in name,
    "s2sad": lambda name: name.startswith("s2sad."),
}


def functions_section() -> str:
    """Every function with a derivative rule (or a zero derivative), grouped by module."""
    from s2sad import implementations, registry
    from s2sad.transforms.desugar import array_members

    rules = [rule for rule in registry.registered()  # (a library's private helpers: not
             if not any(part.startswith("_") for part in rule.name.split(".")[:-1])]  # listed)
    scipy_written = [n for n in implementations.names() if n.startswith("scipy.")]
    with_rule = [rule.name for rule in rules if rule.differentiable] + scipy_written
    with_rule += sorted(set(_removed()) - set(with_rule))  # (the same list on every NumPy)
    zero = [rule.name for rule in rules if not rule.differentiable]
    lines = [(f"{len(with_rule)} functions with a derivative rule, and {len(zero)} whose "
              "derivative is zero (integer, boolean or shape results: they may be used freely, "
              "gradients do not flow through them)."), ""]
    listed = set()
    for title, belongs in GROUPS.items():
        names = [name for name in with_rule if belongs(name)]
        listed.update(names)
        if names:
            lines.append(f"* **{title}** ({len(names)}): {_names(map(shown_name, names))}")
    others = [name for name in with_rule if name not in listed]
    if others:
        lines.append(f"* **Others** ({len(others)}): {_names(map(shown_name, others))}")
    lines.append(f"* **Zero derivative** ({len(zero)}): {_names(map(shown_name, zero))}")
    written = [n for n in implementations.names() if n not in scipy_written]
    lines.append(f"* **Written with the functions above** ({len(written)}), inlined from "
                 f"`s2sad/implementations.py` (their derivatives of every order follow): "
                 f"{_names(map(shown_name, written))}")
    methods = sorted(set(array_members()) | {"item"})
    attributes = _names("." + a for a in array_members(called=False))
    lines.append(f"* **Array methods and attributes**, rewritten into the functions above: "
                 f"{_names('.' + m + '()' for m in methods)}, {attributes}")
    return "\n".join(lines)


def refused_section() -> str:
    """The constructs the validation pass refuses, with what to do instead."""
    from s2sad.transforms import validate

    rows = ["| refused | what to do instead |", "|---|---|"]
    seen = set()
    for table in (validate._STATEMENTS, validate._EXPRESSIONS, validate._VALUES):
        for what, hint in table.values():
            if what not in seen:
                seen.add(what)
                rows.append(f"| {what} | {hint} |")
    return "\n".join(rows)


RESULTS = ROOT / "benchmarks" / "results" / "results.md"


def benchmarks_section() -> str:
    """The tables of the benchmark run committed in ``benchmarks/results/results.md`` (the
    latest: ``python -m benchmarks.run`` writes it), with their footnotes."""
    lines = RESULTS.read_text().splitlines()
    tables, block = [], []
    for line in lines + [""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            tables.append("\n".join(block))
            block = []

    def line_starting(prefix: str) -> str:
        return next(line for line in lines if line.startswith(prefix))
    ratios, absolute, build, scaling, checkpoint = tables[:5]
    return "\n\n".join([
        ratios, line_starting("¹ "), line_starting("² "),
        "Absolute times:", absolute,
        "First call and build (the first call less a steady-state call; target < 50 ms), "
        "and peak memory:", build,
        "Build time of straight-line functions of N statements:", scaling,
        line_starting("Roughly linear growth"),
        "Checkpointing a long loop (2,000 steps, `examples/checkpoint.py`):", checkpoint,
        line_starting("Memory saved"), *_target_sections(lines)])


# the sections of the run on the other targets and tight loops: (heading's start, title)
_TARGET_SECTIONS = (("## s2sad's gradient compiled by numba", "The numba target"),
                    ("## Tight scalar loops", "Tight scalar loops in pure Python"),
                    ("## s2sad on Dask", "The Dask target"))


def _target_sections(lines: list) -> list:
    """Each target section's table and its line of targets met (or the line saying why it
    did not run), under its title."""
    parts = []
    for start, title in _TARGET_SECTIONS:
        at = next((i for i, line in enumerate(lines) if line.startswith(start)), None)
        if at is None:
            continue
        end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        body = lines[at + 1:end]
        table = [line for line in body if line.startswith("|")]
        said = [line for line in body if line.startswith(("Within ", "Skipped", "Not run"))]
        parts += [f"{title}:", *(["\n".join(table)] if table else []), *said]
    return parts


GPU_RESULTS = ROOT / "benchmarks" / "results" / "gpu"


def gpu_section() -> str:
    """The tables of the GPU run committed in ``benchmarks/results/gpu/`` (``python -m
    benchmarks.gpu.run`` on a machine with an NVIDIA GPU writes them), float64 then
    float32, each under the device and versions it was measured with."""
    parts = []
    for name, title in (("results.md", "float64"), ("results-float32.md", "float32")):
        path = GPU_RESULTS / name
        if not path.exists():
            continue
        lines = path.read_text().splitlines()
        facts = [line for line in lines if line.startswith("- device") or
                 line.startswith("- CUDA")]
        table = [line for line in lines if line.startswith("|")]
        notes = [line for line in lines if line.startswith("Note: ")]
        parts += [f"**{title}** ({'; '.join(f[2:] for f in facts)}), milliseconds per "
                  "gradient call, first call in parentheses:", "\n".join(table)]
        if notes:  # (a note runs on over the lines after it, to a blank line)
            at = lines.index(notes[0])
            end = next((i for i in range(at, len(lines)) if not lines[i].strip()), len(lines))
            parts.append(" ".join(lines[at:end]))
    return "\n\n".join(parts) if parts else "No GPU run is committed."


# README's table of the numba target: these columns of results.md's, renamed
_NUMBA_COLUMNS = (("workload", "workload"), ("hand (Python)", "hand-written, Python"),
                  ("hand (numba)", "hand-written, numba"), ("s2sad (numba)", "s2sad, numba"),
                  ("JAX jit(grad)", "JAX jit(grad)"),
                  ("s2sad numba / hand numba", "s2sad / hand, numba"),
                  ("s2sad numba / JAX", "s2sad numba / JAX"))


def numba_section() -> str:
    """README's table of the numba target (``target="numba"``): a few columns of the one in
    ``benchmarks/results/results.md`` (time per gradient call), and its line of targets."""
    lines = RESULTS.read_text().splitlines()
    at = next(i for i, line in enumerate(lines)
              if line.startswith(_TARGET_SECTIONS[0][0]))
    table = [line for line in lines[at + 1:] if line.startswith("|")]
    end = next(i for i, line in enumerate(lines[at + 1:]) if line.startswith("## "))
    table = [line for line in lines[at + 1:at + 1 + end] if line.startswith("|")]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in table]
    header = rows[0]
    keep = [header.index(name) for name, _ in _NUMBA_COLUMNS]
    out = ["| " + " | ".join(title for _, title in _NUMBA_COLUMNS) + " |",
           "|---" * len(keep) + "|"]
    out += ["| " + " | ".join(row[i] for i in keep) + " |" for row in rows[2:]]
    said = [line for line in lines[at + 1:at + 1 + end]
            if line.startswith(("Within ", "Faster than JAX"))]
    return "\n\n".join(["\n".join(out), *said])


SECTIONS = {"functions": functions_section, "refused": refused_section,
            "benchmarks": benchmarks_section, "gpu": gpu_section, "numba": numba_section}
PAGES = {  # the page -> the generated sections it holds
    DOCS / "supported.md": ("functions", "refused"),
    DOCS / "benchmarks.md": ("benchmarks", "gpu"),
    ROOT / "README.md": ("numba",),
}


def render(text: str, names=tuple(SECTIONS), page: str = "the page") -> str:
    """``text`` (a page) with each generated section of ``names`` brought up to date."""
    for name in names:
        make = SECTIONS[name]
        pattern = re.compile(rf"(<!-- generated: {name} -->\n).*?(<!-- end generated: {name} -->)",
                             re.DOTALL)
        if not pattern.search(text):
            raise SystemExit(f"{page} has no generated section {name!r}")
        section = make() + "\n"
        text = pattern.sub(lambda m, section=section: m.group(1) + section + m.group(2), text)
    return text


# --- notebooks --------------------------------------------------------------------------------


def notebooks() -> list[Path]:
    return sorted(EXAMPLES.glob("*.ipynb"))


def execute_notebook(path: Path, timeout: int = 600):
    """Run a notebook in a fresh Jupyter kernel, in its own folder; the executed notebook.

    Raises ``nbclient.exceptions.CellExecutionError`` at the first cell that fails. The
    kernel finds this checkout's s2sad even when it is not installed.
    """
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(ROOT)) if p)
    env.setdefault("MPLBACKEND", "Agg")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="report whether the pages are up to date, change nothing")
    parser.add_argument("--notebooks", action="store_true",
                        help="also re-run every notebook in examples/ and save its outputs")
    args = parser.parse_args(argv)
    stale = []
    for page, names in PAGES.items():
        name = page.relative_to(ROOT).as_posix()
        current = page.read_text()
        updated = render(current, names, name)
        if updated == current:
            continue
        stale.append(name)
        if not args.check:
            page.write_text(updated)
            print(f"{name}: generated sections rewritten")
    if args.check:
        for name in stale:
            print(f"{name} is out of date: run python docs/generate.py")
        if not stale:
            print("the generated sections are up to date")
        return 1 if stale else 0
    if args.notebooks:
        import nbformat
        for path in notebooks():
            print(f"running {path.relative_to(ROOT)}", flush=True)
            nbformat.write(execute_notebook(path), path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
