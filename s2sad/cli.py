"""The command line: ``s2sad show FILE.py:FUNC`` prints the generated gradient source."""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from pathlib import Path

from . import __version__
from .api import grad
from .errors import S2sadError


def _load(spec: str):
    if ":" not in spec:
        raise SystemExit(f"s2sad: expected FILE.py:FUNCTION, got {spec!r}")
    path, name = spec.rsplit(":", 1)
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"s2sad: no such file: {path}")
    module_name = f"_s2sad_cli_{file.stem}"
    module_spec = importlib.util.spec_from_file_location(module_name, file)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(file.resolve().parent))
    try:
        module_spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    func = getattr(module, name, None)
    if func is None:
        functions = sorted(k for k, v in vars(module).items()
                           if callable(v) and getattr(v, "__module__", None) == module_name)
        raise SystemExit(f"s2sad: {path} has no function {name!r}"
                         + (f"; it defines: {', '.join(functions)}" if functions else ""))
    return func


def _parse_at(text: str):
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise SystemExit(f"s2sad: --at must be a Python literal, e.g. '(1.0, [2.0, 3.0])': "
                         f"{exc}") from None
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="s2sad", description="Source-to-source reverse-mode automatic differentiation "
        "for Python and NumPy.")
    parser.add_argument("--version", action="version", version=f"s2sad {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show", help="print the generated gradient source of a function",
                               description="Print the generated gradient source of FUNC.")
    show.add_argument("target", metavar="FILE.py:FUNC")
    show.add_argument("--wrt", action="append", metavar="NAME",
                      help="argument to differentiate with respect to (repeatable; default: "
                           "the first)")
    show.add_argument("--at", metavar="ARGS",
                      help="example arguments as a Python literal (a tuple for several), to "
                           "specialize the source to their kinds: '[1.0, 2.0, 3.0, 4.0]'")
    show.add_argument("--annotate", action="store_true",
                      help="precede each adjoint block with the user's line it comes from")
    show.add_argument("--no-optimize", action="store_true",
                      help="keep zero-initialized accumulators and all forward work")
    args = parser.parse_args(argv)

    try:
        func = _load(args.target)
        wrt = tuple(args.wrt) if args.wrt and len(args.wrt) > 1 else \
            (args.wrt[0] if args.wrt else 0)
        gradient = grad(func, wrt, optimize=not args.no_optimize, annotate=args.annotate)
        if args.at is not None:
            at = _parse_at(args.at)
            n_params = len(gradient._params)
            call_args = at if isinstance(at, tuple) and n_params > 1 else (at,)
            text = gradient.source_for(*call_args)
        else:
            text = gradient.source
    except S2sadError as exc:
        print(f"s2sad: {exc}", file=sys.stderr)
        return 1
    except TypeError as exc:
        print(f"s2sad: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
