"""Collection from the checkout's root: the rule modules of an optional dependency (SciPy)
are left out of the doctests where it does not import."""

collect_ignore = []
try:
    import scipy.special  # noqa: F401
except ImportError:
    collect_ignore.append("s2sad/rules/scipy_special.py")
    collect_ignore.append("s2sad/rules/scipy_signal.py")
    collect_ignore.append("s2sad/rules/scipy_array_api.py")
