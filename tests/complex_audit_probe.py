"""The audit of complex values: every function of s2sad's table (and every stand-in of
s2sad/implementations.py) that NumPy or SciPy calls with complex arrays, given vectors,
general and Hermitian matrices, its value, gradient and tangent against NumPy's value and
central differences (``df/dx - i df/dy``). One JSON line a case; not a test (slow).

    python tests/complex_audit_probe.py [numpy.convolve ...]

A general matrix's change is not Hermitian: the rules of functions that read a Hermitian
matrix (cholesky, eigh) are exact along Hermitian changes only, and show WRONG there.
"""
import importlib, sys, json, tempfile, warnings
import numpy as np
import s2sad
from s2sad import registry, implementations

rng = np.random.default_rng(7)
V0 = [np.array([0.7 + 0.2j, 1.1 - 0.3j, 0.5 + 0.4j]), np.array([0.9 - 0.1j, 0.6 + 0.5j, 1.3 + 0.2j])]
M0 = [np.eye(3) * 2.0 + 0.3 * (rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))) for _ in range(2)]
H0 = np.array([[3.0, 0.5 - 0.2j, 0.1j], [0.5 + 0.2j, 2.5, -0.3], [-0.1j, -0.3, 2.8]])
SIZES = {"v": 3, "m": 9, "h": 3}
TEMPLATES = [("v",), ("m",), ("h",), ("v", "v"), ("m", "v"), ("m", "m"), ("h", "v"), ("h", "h")]

def build(kinds, p):
    args, at = [], 0
    for i, k in enumerate(kinds):
        s = p[at:at + SIZES[k]]; at += SIZES[k]
        args.append(V0[i % 2] + s if k == "v" else M0[i % 2] + s.reshape(3, 3) if k == "m"
                    else H0 + np.outer(s, np.conj(s)))
    return args

def leaves(out):
    if isinstance(out, (tuple, list)):
        r = []
        for o in out:
            sub = leaves(o)
            if sub is None:
                return None
            r += sub
        return r
    if hasattr(out, "_fields"):
        return leaves(tuple(out))
    a = np.asarray(out)
    if a.dtype.kind not in "fc":
        return None
    return [a]

def candidates():
    seen = set()
    for r in registry.registered():
        f = r.func
        mod = getattr(f, "__module__", None) or type(f).__name__
        name = registry.describe_function(f)
        if not (name.startswith("numpy") or name.startswith("scipy")):
            continue
        if name.startswith("scipy.stats") or name.startswith("scipy.integrate"):
            continue
        if id(f) in seen:
            continue
        seen.add(id(f)); yield name, f
    for f in implementations.table():
        if id(f) not in seen:
            seen.add(id(f)); yield registry.describe_function(f), f

def index_expr(out, path=()):
    if isinstance(out, (tuple, list)) or hasattr(out, "_fields"):
        r = []
        for i, o in enumerate(tuple(out)):
            r += index_expr(o, path + (i,))
        return r
    return [(path, np.shape(out))]

def main(selected=None):
    warnings.simplefilter("ignore")
    lines, globs, jobs = ["import numpy as np", ""], {}, []
    n = 0
    for name, f in candidates():
        if selected and name not in selected:
            continue
        for kinds in TEMPLATES:
            if isinstance(f, np.ufunc) and len(kinds) != f.nin or \
                    isinstance(f, np.ufunc) and kinds[0] == "h":
                continue
            npar = sum(SIZES[k] for k in kinds)
            p0 = 0.05 * (rng.normal(size=npar) + 1j * rng.normal(size=npar))
            try:
                with np.errstate(all="ignore"):
                    out = f(*build(kinds, p0))
            except Exception:
                continue
            ls = leaves(out)
            if not ls or any(not np.all(np.isfinite(x)) for x in ls):
                continue
            n += 1
            fn = f"f_{n}"
            globs[f"F_{n}"] = f
            body = [f"def {fn}(p):"]
            at = 0
            names = []
            for i, k in enumerate(kinds):
                s = f"p[{at}:{at + SIZES[k]}]"; at += SIZES[k]
                globs[f"A_{n}_{i}"] = V0[i % 2] if k == "v" else M0[i % 2] if k == "m" else H0
                body.append(f"    a{i} = A_{n}_{i} + " + (s if k == "v" else
                            f"np.reshape({s}, (3, 3))" if k == "m" else f"np.outer({s}, np.conj({s}))"))
                names.append(f"a{i}")
            body.append(f"    out = F_{n}({', '.join(names)})")
            terms = []
            for j, (path, shape) in enumerate(index_expr(out)):
                K = rng.normal(size=shape) + 1j * rng.normal(size=shape)
                globs[f"K_{n}_{j}"] = K
                ref = "out" + "".join(f"[{i}]" for i in path)
                terms.append(f"np.real(np.sum({ref} * K_{n}_{j}))")
            body.append("    return " + " + ".join(terms))
            lines += body + [""]
            jobs.append((fn, name, kinds, p0))
    folder = tempfile.mkdtemp()
    path = f"{folder}/gen_probe.py"
    open(path, "w").write("\n".join(lines))
    sys.path.insert(0, folder)
    if "gen_probe" in sys.modules:
        del sys.modules["gen_probe"]
    mod = importlib.import_module("gen_probe")
    for k, v in globs.items():
        setattr(mod, k, v)
    results = []
    for fn, name, kinds, p0 in jobs:
        f = getattr(mod, fn)
        res = {"name": name, "kinds": "".join(kinds)}
        eps = 1e-6
        with np.errstate(all="ignore"):
            ref_val = f(p0)
            fd = np.array([(f(p0 + eps * e) - f(p0 - eps * e)) / (2 * eps) - 1j *
                           (f(p0 + 1j * eps * e) - f(p0 - 1j * eps * e)) / (2 * eps)
                           for e in np.eye(len(p0))])
            d = rng.normal(size=len(p0)) + 1j * rng.normal(size=len(p0))
            fdj = (f(p0 + eps * d) - f(p0 - eps * d)) / (2 * eps)
        scale = max(1.0, np.max(np.abs(fd)))
        for what in ("grad", "jvp"):
            try:
                if what == "grad":
                    v, g = s2sad.value_and_grad(f)(p0)
                    okv = np.allclose(v, ref_val, rtol=1e-7, atol=1e-9)
                    ok = np.allclose(g, fd, rtol=1e-4, atol=1e-5 * scale)
                    res["value"] = "ok" if okv else f"WRONG {v} vs {ref_val}"
                    res["grad"] = "ok" if ok else "WRONG"
                else:
                    _, push = s2sad.jvp(f)(p0)
                    t = push(d)
                    res["jvp"] = "ok" if np.allclose(t, fdj, rtol=1e-4, atol=1e-5 * scale) else f"WRONG {t} vs {fdj}"
            except Exception as exc:
                kind = type(exc).__name__
                res[what] = f"REFUSED {kind}: {str(exc).splitlines()[0][:150]}"
                if type(exc).__module__ != "s2sad.errors":
                    res[what] = f"INTERNAL {kind}: {str(exc).splitlines()[0][:150]}"
        results.append(res)
        print(json.dumps(res), flush=True)
    return results

if __name__ == "__main__":
    main(set(sys.argv[1:]) or None)
