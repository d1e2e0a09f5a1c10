"""SciPy's rules load once SciPy is imported, not with s2sad (``registry.optional``).

Each check runs in a fresh interpreter: the test process has SciPy imported already.
"""

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("scipy")


def run(script: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_s2sad_imports_no_scipy_and_a_scipy_call_finds_its_rule():
    out = run("""
        import sys
        import numpy as np
        import s2sad
        from s2sad import registry
        assert not [m for m in sys.modules if m.split(".")[0] in ("scipy", "dask", "numba")]
        import scipy.special
        rule = registry.lookup(scipy.special.erf)   # (loaded at this first read of the table)
        assert rule is not None and rule.builtin
        assert "scipy.stats" not in sys.modules  # (only the library imported loads)
        print("ok")
    """)
    assert out.strip() == "ok"


def test_a_scipy_function_in_a_file_is_differentiated_after_a_lazy_load(tmp_path):
    (tmp_path / "loss.py").write_text(textwrap.dedent("""
        import numpy as np
        from scipy import special

        def f(x):
            return np.sum(special.erf(x) * special.gammaln(x + 2.0))
    """))
    out = run(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np
        import s2sad
        import loss
        x = np.array([0.3, 1.2])
        g = s2sad.grad(loss.f)(x)
        h = 1e-6
        fd = [(loss.f(x + h * e) - loss.f(x - h * e)) / (2 * h) for e in np.eye(2)]
        assert np.allclose(g, fd, rtol=1e-6), (g, fd)
        print("ok")
    """)
    assert out.strip() == "ok"


def test_the_users_rule_for_a_scipy_function_replaces_s2sads_even_before_it_loads():
    out = run("""
        import numpy as np
        import scipy.special
        import s2sad
        from s2sad import registry

        @s2sad.defvjp(scipy.special.expit)   # (the first write: s2sad's rules load first)
        def expit_vjp(g, ans, x):
            return 7.0 * g
        rule = registry.lookup(scipy.special.expit)
        assert rule.adjoint is expit_vjp and not rule.builtin
        assert registry.lookup(scipy.special.erf).builtin
        print("ok")
    """)
    assert out.strip() == "ok"


def test_a_rule_module_imported_directly_fills_s2sads_own_table():
    out = run("""
        import s2sad
        import s2sad.rules.scipy_signal          # (as doctest collection imports it)
        import scipy.signal
        from s2sad import registry
        assert registry.lookup(scipy.signal.convolve).builtin
        names = s2sad.supported()                # (every installed library's rules)
        assert "scipy.special.erf" in names and "scipy.fft.fft" in names
        print("ok")
    """)
    assert out.strip() == "ok"
