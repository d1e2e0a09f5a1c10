"""The command line: ``s2sad show`` prints a generated gradient, ``s2sad check`` tests one.

Exit status: 0 when all went well, 1 when ``check`` finds the gradient and the
finite differences disagree, 2 on bad input (no such file or function,
unsupported syntax, bad ``--at``...), with a message on standard error that
says where.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import math
import os
import sys
import traceback
from pathlib import Path

import numpy as np

import s2sad

from . import __version__
from .api import GradientFunction
from .backends import TARGETS
from .display import ansi_source, paint, use_color
from .errors import NonScalarOutputError, NoSourceError, S2sadError
from .runtime import output_seed

BAD_INPUT = 2
MISMATCH = 1

EPILOG = """\
examples (from a checkout of s2sad):
  s2sad show examples/f4.py:f4
  s2sad show examples/f4.py:f4 --at '[1.0, 2.0, 3.0, 4.0]' --annotate --no-optimize
  s2sad show examples/eager.py:regression_loss --wrt w,b --at '0.5, 0.2, np.arange(3.0), np.ones(3)'
  s2sad show examples/eager.py:control_flow --stages
  s2sad show examples/mlp.py:loss --target cupy
  s2sad show examples/eager.py:cube --order 2 --at 1.0
  s2sad show examples/eager.py:cube --mode forward --at 1.0
  s2sad check examples/f4.py:f4 --at '[1.0, 2.0, 3.0, 4.0]'
  s2sad check examples/eager.py:control_flow --at 0.3
  python -m s2sad ...   (the same, without the console script)

FUNC is a function defined at the top level of FILE.py (or of an importable
module, found from the current directory too: package.module:FUNC), or a
method: Class.method (of an object made with Class()) or obj.method (of an
object the module makes). --at takes the arguments as a Python literal, a
tuple for several, or an expression with np./math. (np.ones(3)); integers in
the differentiated arguments are read as floats. Without --at, show prints
the general variant; with it, the variant specialized to those arguments.

Output is coloured on a terminal unless NO_COLOR is set. Exit status: 0 when
all went well, 1 when check finds a mismatch, 2 on bad input.
"""


class CliError(Exception):
    """Bad input: printed as ``s2sad: message`` with exit status 2."""


# --- reading the user's function and arguments ------------------------------------------


def load_function(spec: str):
    """The function named by ``FILE.py:FUNC`` or ``package.module:FUNC``; ``FUNC`` may be
    ``Class.method`` (bound to an object made with ``Class()``) or ``obj.method``."""
    if ":" not in spec:
        raise CliError(f"expected FILE.py:FUNC, got {spec!r}")
    path, name = spec.rsplit(":", 1)
    file = Path(path)
    if file.is_file():
        module = _import_file(file)
        where = path
    elif path.endswith(".py") or os.sep in path or "/" in path:
        raise CliError(f"no such file: {path}")
    else:
        module = _import_module(path)
        where = f"module {path}"
    first, *rest = name.split(".")
    func = getattr(module, first, None)
    if func is None or not rest and not callable(func):
        functions = sorted(k for k, v in vars(module).items()
                           if inspect.isfunction(v) and v.__module__ == module.__name__)
        what = "no function" if func is None else "nothing callable named"
        raise CliError(f"{where} has {what} {first!r}"
                       + (f"; it defines: {', '.join(functions)}" if functions else ""))
    for depth, part in enumerate(rest, 1):
        owner, func = func, getattr(func, part, None)
        if func is None:
            raise CliError(f"{where}: {'.'.join([first, *rest[:depth - 1]])} has no "
                           f"attribute {part!r}")
    if rest and inspect.isclass(owner) and inspect.isfunction(func) and \
            not isinstance(inspect.getattr_static(owner, rest[-1]), staticmethod):
        func = getattr(_instance(owner, name, where), rest[-1])  # (a method: bound)
    if not callable(func):
        raise CliError(f"{where}: {name} is a {type(func).__name__}, not a function")
    return func


def _instance(cls, name: str, where: str):
    """An object of ``cls`` made with ``cls()``, for ``Class.method``."""
    try:
        return cls()
    except Exception as exc:  # noqa: BLE001 (whatever the user's class raised)
        raise CliError(f"{where}: {name} is a method, and {cls.__name__}() cannot make an "
                       f"object to call it on ({type(exc).__name__}: {exc}); name an object "
                       f"the module makes instead (FILE.py:obj.{name.split('.')[-1]})") \
            from None


def _import_module(path: str):
    """The module ``path`` (``package.module``), found from the current directory too, as
    ``python -m`` finds it (the ``s2sad`` script's own ``sys.path`` does not have it)."""
    added = os.getcwd() not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(path)
    except ImportError as exc:
        raise CliError(f"no such file or module: {path} ({exc})") from None
    except Exception as exc:  # noqa: BLE001 (whatever the user's module raised at import)
        raise CliError(f"cannot import {path}{user_traceback(exc)}") from None
    finally:
        if added:
            sys.path.remove(os.getcwd())


def _import_file(file: Path):
    module_name = f"_s2sad_cli_{file.stem}"
    module_spec = importlib.util.spec_from_file_location(module_name, file)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(file.resolve().parent))  # its own imports of neighbouring modules
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise CliError(f"cannot import {file}\n" + "".join(
            traceback.format_exception_only(type(exc), exc)).rstrip()) from None
    except Exception as exc:  # noqa: BLE001 (whatever the user's module raised at import)
        raise CliError(f"cannot import {file}{user_traceback(exc)}") from None
    finally:
        sys.path.pop(0)
    return module


def user_traceback(exc: BaseException) -> str:
    """``exc`` with the frames of the user's code only (not s2sad's, not importlib's), on
    the lines after the message it ends (which therefore needs no colon)."""
    package = str(Path(__file__).resolve().parent)
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith(package) and not f.filename.startswith("<frozen")]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    return "\n" + "".join(lines).rstrip()


def parse_at(text: str):
    """The value of ``--at``: a Python literal, or an expression over ``np`` and ``math``.

    >>> parse_at("[1.0, 2.0]")
    [1.0, 2.0]
    >>> parse_at("np.ones(2), 3.0")
    (array([1., 1.]), 3.0)
    """
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    names = {"np": np, "numpy": np, "math": math, "__builtins__": {
        "float": float, "int": int, "range": range, "list": list, "tuple": tuple, "dict": dict,
        "abs": abs, "len": len, "min": min, "max": max, "sum": sum, "True": True,
        "False": False, "None": None}}
    try:
        return eval(compile(text, "--at", "eval"), names)  # the user's own input, like FILE.py
    except SyntaxError as exc:
        caret = " " * max((exc.offset or 1) - 1, 0) + "^"
        raise CliError(f"--at must be a Python literal, e.g. '(1.0, [2.0, 3.0])', or an "
                       f"expression such as 'np.ones(3)': {exc.msg}\n  {text}\n  {caret}") from None
    except Exception as exc:  # noqa: BLE001 (whatever evaluating --at raised)
        raise CliError(f"--at must be a Python literal, e.g. '(1.0, [2.0, 3.0])', or an "
                       f"expression such as 'np.ones(3)': {type(exc).__name__}: {exc}\n"
                       f"  {text}") from None


def call_arguments(func, at, wrt_names: list[str]) -> tuple:
    """``--at`` as the positional arguments of ``func``, the differentiated ones as floats.
    A tuple is the arguments, one each, whatever the number of parameters: a function of
    one tuple is given ``'((1.0, 2.0),)'``."""
    params = list(inspect.signature(func).parameters)
    args = at if isinstance(at, tuple) else (at,)
    try:
        bound = inspect.signature(func).bind(*args)
    except TypeError as exc:
        several = "give several as a tuple: --at '(1.0, 2.0)'"
        if len(args) > 1 and len(params) == 1:
            several = (f"to pass one tuple as {params[0]}, write it inside a tuple of one: "
                       f"--at '({args!r},)'")
        raise CliError(f"--at gives {len(args)} value{'s' if len(args) != 1 else ''} but "
                       f"{func.__name__}({', '.join(params)}) cannot take them ({exc}); "
                       f"{several}") from None
    bound.apply_defaults()
    return tuple(_floats(bound.arguments[p]) if p in wrt_names else bound.arguments[p]
                 for p in params)


def _call(function, func, values):
    """``function`` called with ``values`` (one per parameter of ``func``, as
    :func:`call_arguments` gives them): the keyword-only ones by keyword."""
    params = list(inspect.signature(func).parameters.values())
    positional = [v for p, v in zip(params, values) if p.kind is not p.KEYWORD_ONLY]
    keywords = {p.name: v for p, v in zip(params, values) if p.kind is p.KEYWORD_ONLY}
    return function(*positional, **keywords)


def _floats(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_floats(v) for v in value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value.astype(np.float64)
    return value


def wrt_option(values: list[str] | None):
    """``--wrt`` (repeatable, or comma-separated; names or indices) as ``grad``'s ``wrt``."""
    items = [item.strip() for value in (values or []) for item in value.split(",")
             if item.strip()]
    items = [int(item) if item.lstrip("-").isdigit() else item for item in items]
    if not items:
        return 0
    return tuple(items) if len(items) > 1 else items[0]


def wrt_names(func, wrt) -> list[str]:
    params = list(inspect.signature(func).parameters)
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    return [params[item] if isinstance(item, int) and -len(params) <= item < len(params)
            else item for item in items]


# --- building the derivative ---------------------------------------------------------------


def derivative(func, args: argparse.Namespace):
    """The derivative ``show``'s options ask for: a gradient (nested ``--order`` times) or,
    with ``--mode forward``, a Jacobian-vector product."""
    wrt = wrt_option(args.wrt)
    options = {"optimize": not args.no_optimize, "annotate": getattr(args, "annotate", False),
               "target": args.target}
    mode = getattr(args, "mode", "reverse")
    order = getattr(args, "order", 1)
    if order < 1:
        raise CliError(f"--order must be 1 or more, got {order}")
    if order > 1 and isinstance(wrt, tuple):
        raise CliError("--order needs a single --wrt: the gradient with respect to several "
                       "arguments is a tuple, not a scalar")
    # reverse: grad nested `order` times; forward: jvp of grad nested `order - 1` times
    derivative_function = func
    args.levels = [func]  # (each derivative that the next one differentiates, for --at)
    for _ in range(order if mode == "reverse" else order - 1):
        try:
            derivative_function = s2sad.grad(derivative_function, wrt, **options)
            args.levels.append(derivative_function)
        except NoSourceError:
            if isinstance(derivative_function, GradientFunction):
                raise CliError(f"--order {order} is not available yet: this version of s2sad "
                               "cannot differentiate a gradient (higher-order derivatives are "
                               "planned)") from None
            raise
    if mode == "forward":
        jvp = getattr(s2sad, "jvp", None)
        if jvp is None:
            raise CliError("--mode forward is not available yet: this version of s2sad has no "
                           "s2sad.jvp (forward mode is planned)")
        accepted = inspect.signature(jvp).parameters
        derivative_function = jvp(derivative_function, wrt,
                                  **{k: v for k, v in options.items() if k in accepted})
    return derivative_function


# --- the commands -----------------------------------------------------------------------------


GENERAL = ("# The general variant, for arguments of any kind; --at gives the one specialized "
           "to example arguments.\n")


def show(args: argparse.Namespace) -> int:
    func = load_function(args.function)
    call_args = None
    if args.at is not None:
        names = wrt_names(func, wrt_option(args.wrt))
        call_args = call_arguments(func, parse_at(args.at), names)
    fn = derivative(func, args)
    if call_args is not None:
        refuse_non_scalar(args.levels, func, call_args)
    color = use_color(sys.stdout) if args.color == "auto" else args.color == "always"
    if args.stages:
        if not hasattr(fn, "stages"):
            raise CliError("--stages is available for reverse mode only")
        stages = fn.stages() if call_args is None else _call(fn.stages, func, call_args)
        before, unchanged = None, []
        for name, text in stages:
            if text == before:  # (a pass that changed nothing: named at the end)
                unchanged.append(name)
                continue
            before = text
            sys.stdout.write(paint(f"# ---- after {name} ----", "bold cyan", color) + "\n")
            sys.stdout.write((ansi_source(text) if color else text).rstrip("\n") + "\n\n")
        if unchanged:
            sys.stdout.write(paint(f"# (these passes changed nothing: {', '.join(unchanged)})",
                                   "bold cyan", color) + "\n")
        return 0
    text = fn.source if call_args is None else _call(fn.source_for, func, call_args)
    if call_args is None:
        text = GENERAL + text
    sys.stdout.write(ansi_source(text) if color else text)
    return 0


def refuse_non_scalar(levels: list, func, call_args: tuple) -> None:
    """Refuse, as the API does when it is called, a gradient of a function (or of a
    gradient, for ``--order 2``) whose value at ``call_args`` is not a scalar: the
    API's :class:`NonScalarOutputError`, located at the ``return``. ``levels``: the
    function, then each gradient that the next differentiates. An error of the
    function itself is left to the command (``show`` shows the source anyway)."""
    for level, differentiated in zip(levels, levels[1:]):
        try:
            value = _call(level, func, _copy(call_args))
        except S2sadError:
            raise
        except Exception:  # noqa: BLE001 (the function's own error: not this check's)
            return
        try:
            output_seed(value)
        except NonScalarOutputError:
            _call(differentiated, func, _copy(call_args))  # (its own error, located)
            raise


def check(args: argparse.Namespace) -> int:
    func = load_function(args.function)
    wrt = wrt_option(args.wrt)
    names = wrt_names(func, wrt)
    call_args = call_arguments(func, parse_at(args.at), names)
    color = use_color(sys.stdout) if args.color == "auto" else args.color == "always"
    value_and_grad = s2sad.value_and_grad(func, wrt, optimize=not args.no_optimize,
                                          target="numpy")

    def at_point(values, where="near"):
        try:
            return float(np.asarray(_call(func, func, _copy(values))))
        except Exception as exc:  # noqa: BLE001 (whatever the user's function raised)
            raise CliError(f"{func.__name__} failed {where} --at {args.at}"
                           f"{user_traceback(exc)}") from None

    refuse_non_scalar([func, value_and_grad], func, call_args)  # (before a float() of it)
    at_point(call_args, "at")  # the function's own errors first, with its own traceback
    try:
        value, gradient = _call(value_and_grad, func, _copy(call_args))
    except S2sadError:
        raise
    except Exception as exc:  # noqa: BLE001 (whatever the generated code raised)
        raise CliError(f"the generated gradient of {func.__name__} failed at --at {args.at}, "
                       f"though {func.__name__} itself runs there{user_traceback(exc)}") \
            from None
    gradients = gradient if isinstance(wrt, tuple) else (gradient,)
    params = list(inspect.signature(func).parameters)

    worst, worst_label = 0.0, None
    print(f"{paint('value:', 'bold', color)}     {_show(value)}")
    for name, grad_value in zip(names, gradients, strict=True):
        index = params.index(name)
        labels, estimate = finite_differences(at_point, call_args, index, name, args.eps)
        _, computed = _flatten(grad_value, name)
        label = f"gradient wrt {name}:" if len(names) > 1 else "gradient:"
        print(f"{paint(label, 'bold', color)}  {_show(grad_value)}")
        if len(computed) != len(estimate):
            raise CliError(f"the gradient wrt {name} has {len(computed)} entries but the "
                           f"argument has {len(estimate)}")
        for lab, g, fd in zip(labels, computed, estimate, strict=True):
            error = abs(g - fd) / max(1.0, abs(fd))
            if not error <= worst:  # also catches NaN
                worst, worst_label = error, lab
    verdict = worst <= args.tol
    where = f" (at {worst_label})" if worst_label is not None and worst > 0 else ""
    outcome = paint("ok", "bold green", color) if verdict else paint("MISMATCH", "bold red", color)
    print(f"{paint('largest difference from central finite differences:', 'bold', color)} "
          f"{worst:.3g}{where}, tolerance {args.tol:g}: {outcome}")
    return 0 if verdict else MISMATCH


def finite_differences(at_point, call_args: tuple, index: int, name: str, eps: float):
    """``(labels, central differences)`` of ``at_point`` wrt every float in ``call_args[index]``.

    The step is ``eps * max(1, |x|)``; the arithmetic is float64 whatever the argument's dtype.
    """
    labels, base = _flatten(call_args[index], name)
    estimate = np.zeros(len(base))
    for i, x in enumerate(base):
        h = eps * max(1.0, abs(x))
        values = []
        for step in (h, -h):
            moved = list(base)
            moved[i] = x + step
            point = list(call_args)
            point[index] = _unflatten(call_args[index], iter(moved))
            values.append(at_point(tuple(point)))
        estimate[i] = (values[0] - values[1]) / (2 * h)
    return labels, estimate


def _flatten(value, label: str) -> tuple[list[str], list[float]]:
    """The float entries of an argument or gradient, with a name for each."""
    labels, values = [], []

    def walk(v, lab):
        if isinstance(v, (list, tuple)):
            for i, item in enumerate(v):
                walk(item, f"{lab}[{i}]")
        elif isinstance(v, dict):
            for k, item in v.items():
                walk(item, f"{lab}[{k!r}]")
        elif isinstance(v, np.ndarray) and v.ndim > 0:
            for idx in np.ndindex(v.shape):
                labels.append(f"{lab}[{', '.join(map(str, idx))}]")
                values.append(float(v[idx]))
        else:
            labels.append(lab)
            values.append(float(v))
    walk(value, label)
    return labels, values


def _unflatten(like, values):
    if isinstance(like, list):
        return [_unflatten(v, values) for v in like]
    if isinstance(like, tuple):
        return tuple(_unflatten(v, values) for v in like)
    if isinstance(like, dict):
        return {k: _unflatten(v, values) for k, v in like.items()}
    if isinstance(like, np.ndarray):
        return np.array([next(values) for _ in range(like.size)],
                        dtype=np.float64).reshape(like.shape)
    return float(next(values))


def _copy(values):
    """Fresh copies of the arguments, so a function that modifies its own copy changes nothing."""
    if isinstance(values, np.ndarray):
        return values.copy()
    if isinstance(values, list):
        return [_copy(v) for v in values]
    if isinstance(values, tuple):
        return tuple(_copy(v) for v in values)
    if isinstance(values, dict):
        return {k: _copy(v) for k, v in values.items()}
    return values


def _show(value) -> str:
    """A value as plain Python would print it (no ``np.float64(...)`` wrappers)."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=8, separator=", ")
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, list):
        return "[" + ", ".join(map(_show, value)) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_show, value)) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


# --- the parser -------------------------------------------------------------------------------


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("function", metavar="FILE.py:FUNC",
                        help="the function to differentiate, e.g. examples/f4.py:f4 (or a "
                             "method: FILE.py:Class.method, FILE.py:obj.method)")
    parser.add_argument("--wrt", action="append", metavar="ARG",
                        help="argument to differentiate with respect to, by name or index "
                             "(repeatable, or comma-separated; default: the first)")
    parser.add_argument("--no-optimize", action="store_true",
                        help="keep zero-initialized accumulators and all forward work")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the output (default: auto, on a terminal without NO_COLOR)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="s2sad", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Source-to-source automatic differentiation for Python and NumPy: "
                    "print the generated gradient of a function, or check it against "
                    "finite differences.")
    parser.add_argument("--version", action="version", version=f"s2sad {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show_parser = commands.add_parser(
        "show", help="print the generated gradient source of a function",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Print the source s2sad generates for the derivative of FUNC.")
    _common(show_parser)
    show_parser.add_argument("--target", choices=TARGETS, default="auto",
                             help="array library of the generated code (default: auto, NumPy "
                                  "unless the arguments are CuPy or Dask arrays); cupy and dask "
                                  "need neither a GPU nor the library to show the source; "
                                  "numba prints the kernel numba compiles (with --at)")
    show_parser.add_argument("--at", metavar="ARGS",
                             help="example arguments, to specialize the source to their kinds: "
                                  "'[1.0, 2.0, 3.0, 4.0]', '(np.ones(3), 2.0)'")
    show_parser.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                             help="reverse (a gradient, default) or forward (a Jacobian-vector "
                                  "product, with s2sad.jvp)")
    show_parser.add_argument("--order", type=int, default=1, metavar="N",
                             help="differentiate N times: s2sad.grad nested N times (with "
                                  "--mode forward, s2sad.jvp of it nested N-1 times); shows the "
                                  "outermost")
    show_parser.add_argument("--annotate", action="store_true",
                             help="precede each adjoint block with the user's line it comes from")
    show_parser.add_argument("--stages", action="store_true",
                             help="print the source after each compiler pass that changed it")
    show_parser.set_defaults(run=show)

    check_parser = commands.add_parser(
        "check", help="compare the gradient with central finite differences at a point",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Compute FUNC's value and gradient at --at, and the largest difference "
                    "between the gradient and central finite differences, relative to "
                    "max(1, |difference quotient|). Exit status 1 when it exceeds --tol.")
    _common(check_parser)
    check_parser.add_argument("--at", metavar="ARGS", required=True,
                              help="the point, e.g. '[1.0, 2.0, 3.0, 4.0]' or "
                                   "'(np.ones(3), 2.0)'")
    check_parser.add_argument("--eps", type=float, default=1e-6,
                              help="finite-difference step, times max(1, |x|) (default 1e-6)")
    check_parser.add_argument("--tol", type=float, default=1e-5,
                              help="largest acceptable difference (default 1e-5)")
    check_parser.set_defaults(run=check)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (CliError, S2sadError) as exc:
        message = str(exc)
    except (TypeError, ValueError) as exc:  # s2sad's argument checks (integers, a bad wrt...)
        message = f"{type(exc).__name__}: {exc}"
    color = use_color(sys.stderr)
    print(f"{paint('s2sad:', 'bold red', color)} {message}", file=sys.stderr)
    return BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
