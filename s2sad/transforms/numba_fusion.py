"""Elementwise fusion on the numba target: a run of NumPy statements on 1-D float64
arrays of one length becomes one loop over their elements.

NumPy's code makes one array per operation; numba compiles each statement as a loop of
its own. A run of two or more elementwise statements is written instead as one loop,
in which each array of the run is a number (``t_1_i``) and only the arrays read after
the run are stored (``s_x[i] = s_x_i``)::

    t_1 = np.tanh(x)                      s_x = np.empty(x.shape[0])
    s_x = x * (2.0 / (1.0 + x * x))  ->   for i in range(x.shape[0]):
    s_x += t_1 ** 3                           x_i = x[i]
                                              t_1_i = np.tanh(x_i)
                                              s_x_i = x_i * np.divide(2.0, 1.0 + x_i * x_i)
                                              s_x_i += np.power(t_1_i, 3)
                                              s_x[i] = s_x_i

Each element is computed by the same operations, in the same order, as NumPy computes
it (no reassociation, no ``fastmath``): the values are NumPy's to rounding (numba's
``tanh`` and ``exp`` are the C library's, NumPy's its own). Division and powers are
NumPy's functions on numbers (``np.divide``: a zero divisor gives ``inf``, as in
NumPy, where numba's ``/`` on numbers raises as Python does), but ``a ** 2``, which
NumPy computes as ``np.square(a)``: ``a * a``, exactly.

The loop is taken only where it is NumPy's result exactly: every array of the run is
a 1-D float64 argument or made from them by the run, all of one length. The kernel
keeps its NumPy form under another name (``kernel_grad_f_plain``), and the wrapper
calls it for other arguments (float32, another length, which NumPy broadcasts or
refuses). A statement of the run changes in place only an array the run made. A sum
of a whole array the run makes (``r = np.sum(t * t)``) joins it: its terms are stored
in the loop and summed after it, as numba sums them. What the run does not know
(another call, a sum along an axis, a loop, a name it cannot type) ends it, and is
left as it was.

numba calls the C library's ``tanh`` or ``exp`` one element at a time (about 20 ns
each); NumPy's loops are vectorized (about 2 ns). So a call of one of the backend's
``fused_numpy`` functions on what the run reads from outside it (``np.tanh(x)``,
``np.exp(-0.5 * x * x)``) is split out: the loop runs over blocks of 65536 elements,
and for each block numba computes the call's argument into an array, NumPy the
function in place (``in_place``, in a ``numba.objmode`` block, on arrays of 256
elements or more), then the loop reads the block's values. These values are NumPy's
exactly (on shorter arrays, numba's own code: the C library's, NumPy's to rounding).
"""

from __future__ import annotations

import ast
import copy

GUARD = "fusable"   # the wrapper's check of the arguments, and its module
GUARD_MODULE = "s2sad.runtime.numba_fused"
IN_PLACE = "in_place"   # (NumPy's function of a block, in it, with no warnings)
_ORDER = "bif"      # bool < int < float: the kind of an element, promoted
BLOCK = 65536       # a split loop's block: 512 KiB of float64 an array, kept in the cache
# (numba's objmode costs some 5 us a block: 8192 spent 0.6 of 4.8 ms on 10^6 elements)
NUMPY_FROM = 256    # the length of arrays from which NumPy computes the split calls


class ElementwiseFusion:
    """Fuse the runs of a kernel (``ast.FunctionDef``) into loops, and make its wrapper
    call it only on arguments the loops are exact for.

    ``kinds``: each parameter's kind (s2sad's descriptors); ``numpy``: the name the
    kernel's module binds to NumPy (``np``); ``backend``: the numba backend, whose
    ``fused_*`` sets name the NumPy functions a loop takes.

    >>> kernel = ast.parse('''
    ... def kernel_grad_f(x):
    ...     t_1 = np.tanh(x)
    ...     s_x = x / (1.0 + x * x)
    ...     s_x -= t_1
    ...     return s_x''').body[0]
    >>> wrapper = ast.parse('def grad_f(x):\\n    return kernel_grad_f(x)').body[0]
    >>> from s2sad.backends.numba_backend import NUMBA
    >>> fused = ElementwiseFusion({"x": ("nd", 1, "f", ())}, "np", NUMBA).run(kernel, wrapper)
    >>> print(ast.unparse(ast.fix_missing_locations(fused.kernel)))
    def kernel_grad_f(x):
        s_x = np.empty(x.shape[0])
        for j in range(0, x.shape[0], 65536):
            k = min(j + 65536, x.shape[0])
            x_j = x[j:k]
            s_x_j = s_x[j:k]
            tanh_1 = np.empty(k - j)
            if x.shape[0] >= 256:
                with numba.objmode():
                    in_place(np.tanh, x_j, tanh_1)
            else:
                np.tanh(x_j, tanh_1)
            for i in range(k - j):
                x_i = x_j[i]
                t_1_i = tanh_1[i]
                s_x_i = np.divide(x_i, 1.0 + x_i * x_i)
                s_x_i -= t_1_i
                s_x_j[i] = s_x_i
        return s_x
    >>> print(ast.unparse(ast.fix_missing_locations(fused.wrapper)))
    def grad_f(x):
        return (kernel_grad_f if fusable(x) else kernel_grad_f_plain)(x)
    >>> fused.plain.name
    'kernel_grad_f_plain'
    """

    def __init__(self, kinds: dict, numpy: str | None, backend):
        self.kinds, self.np = kinds, numpy
        self.helpers, self.in_place = {GUARD}, None   # (what the wrapper's module imports)
        self.unary, self.binary = backend.fused_unary, backend.fused_binary
        self.vectorized = backend.fused_numpy
        self.compare = {name: getattr(ast, op) for name, op in backend.fused_compare.items()}

    def run(self, kernel: ast.FunctionDef, wrapper: ast.FunctionDef) -> "Fused":
        """The fused kernel, its wrapper, and the kernel as it was (``plain``); the same
        kernel and wrapper, and no ``plain``, where no run was fused."""
        params = [a.arg for a in kernel.args.args]
        stored = {n.id for n in ast.walk(kernel) if isinstance(n, ast.Name)
                  and not isinstance(n.ctx, ast.Load)}
        self.order = [p for p in params if p not in stored and _is_vector(self.kinds.get(p))]
        self.bases = set(self.order)
        self.scalars = {p: {"float": "f", "int": "i", "bool": "b"}[self.kinds[p]]
                        for p in params if p not in stored and
                        self.kinds.get(p) in ("float", "int", "bool")}
        if self.np is None or not self.bases:
            return Fused(kernel, wrapper, None, set())
        self.used = {n.id for n in ast.walk(kernel) if isinstance(n, ast.Name)} | \
            set(params) | {kernel.name}
        original = copy.deepcopy(kernel)
        body, fused = self.fuse_body(kernel.body)
        if not fused:
            return Fused(kernel, wrapper, None, set())
        plain = copy.deepcopy(original)
        plain.name = self.fresh(f"{kernel.name}_plain")
        kernel.body = body
        guard = ast.Call(ast.Name(GUARD, ast.Load()),   # (every 1-D float argument: an
                         [ast.Name(p, ast.Load()) for p in self.order], [])  # array read
        # by a loop may be made from any of them, by a statement the loop does not hold)
        for node in ast.walk(wrapper):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id == kernel.name:
                node.func = ast.IfExp(guard, ast.Name(kernel.name, ast.Load()),
                                      ast.Name(plain.name, ast.Load()))
        return Fused(kernel, wrapper, plain, self.helpers)

    def fresh(self, base: str) -> str:
        name = next(f"{base}{'_' * k}" for k in range(len(self.used) + 2)
                    if f"{base}{'_' * k}" not in self.used)
        self.used.add(name)
        return name

    # -- the runs

    def fuse_body(self, body: list) -> tuple[list, bool]:
        """The statements ``body`` with its runs fused, and whether a run was."""
        arrays = {name: "f" for name in self.bases}   # name -> the kind of its elements
        out, fused, k = [], False, 0
        while k < len(body):
            run, kinds = self.run_at(body, k, arrays)
            if len(run) >= 2:
                loop, made = self.loop(run, kinds, body[k + len(run):], arrays)
                if loop is not None:
                    out += loop
                    fused = True
                    for name in {n for s in run for n in _stores(s)}:
                        arrays.pop(name, None)
                    arrays.update(made)
                    k += len(run)
                    continue
            stmt = body[k]
            for name in _stores(stmt):   # (a name bound otherwise: no longer known; an
                if not (isinstance(stmt, ast.AugAssign) and  # array changed in place keeps
                        isinstance(stmt.target, ast.Name)):  # its dtype and shape)
                    arrays.pop(name, None)
                self.scalars.pop(name, None)
            if run:   # (one statement: a loop of numba's own already)
                arrays.update({n: kinds[n] for n in _stores(stmt) if kinds.get(n, "r") != "r"})
            out.append(stmt)
            k += 1
        return out, fused

    def run_at(self, body: list, k: int, arrays: dict) -> tuple[list, dict]:
        """The longest run of elementwise statements from ``body[k]``, and the kind of
        each array it binds."""
        known, made, run = dict(arrays), {}, []
        for stmt in body[k:]:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if made.get(name) == "r":   # (bound again after its sum: the sum is taken
                    break                   # after the loop)
                if name not in known and self.reductions(stmt.value, known) and not any(
                        name in _loads(s) for s in run):
                    made[name] = "r"   # (a sum of the run's elements: summed after it)
                    run.append(stmt)
                    continue
                kind = self.element(stmt.value, known) if not isinstance(
                    stmt.value, ast.Name) else None   # (u = t: one array, two names)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and \
                    stmt.target.id in made and type(stmt.op) in _AUGMENTED:
                name = stmt.target.id   # (only an array of the run's own changes in place)
                kind = self.element(ast.BinOp(ast.Name(name, ast.Load()), stmt.op,
                                              stmt.value), known)
                kind = kind if kind == made[name] else None   # (NumPy casts to its dtype)
            else:
                break
            if kind is None or kind == "s":
                break
            if name in known and name not in made and any(
                    name in _loads(s) for s in run):  # (read before the run binds it)
                break
            known[name] = made[name] = kind
            run.append(stmt)
        return run, made

    def reductions(self, node, known: dict) -> list:
        """The sums in ``node`` (``np.sum(e)``, ``mean_along(e)``: one float array the run
        makes, whole) where the rest of ``node`` is a number the run does not change;
        else none."""
        sums = [n for n in ast.walk(node) if isinstance(n, ast.Call) and not n.keywords and
                len(n.args) == 1 and (self.numpy_function(n.func) == "sum" or
                                      _helper(n, "mean_along") or _helper(n, "sum_along"))]
        if not sums or any(self.element(n.args[0], known) != "f" for n in sums):
            return []
        rest = _Replaced(node, {id(n): ast.Constant(0.0) for n in sums}).result()
        return sums if self.element(rest, known) == "s" else []

    def element(self, node, known: dict) -> str | None:
        """The kind of ``node``'s elements ("b", "i", "f"), "s" for a number the run does
        not change, or None where it is not elementwise."""
        if isinstance(node, ast.Constant):
            value = node.value
            return None if isinstance(value, (str, bytes, complex)) or value is None else \
                "s"
        if isinstance(node, ast.Name):
            return known.get(node.id) or ("s" if node.id in self.scalars else None)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            kind = self.element(node.operand, known)
            return None if kind == "b" else kind   # (-m of a bool array: NumPy raises)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            left, right = self.element(node.left, known), self.element(node.right, known)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Pow) and left not in ("f", "s"):
                return None   # (integers to negative powers: NumPy raises)
            if isinstance(node.op, ast.Pow) and left == "s" and right != "s":
                return None
            if left == right == "s":
                return "s"
            kind = _promote(left, right)
            if isinstance(node.op, ast.Div):
                return "f"
            return None if kind == "b" else kind   # (NumPy's bool + bool is a bool: numba's
            # an int)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                type(node.ops[0]) in _COMPARISONS:
            left = self.element(node.left, known)
            right = self.element(node.comparators[0], known)
            return None if left is None or right is None else \
                "s" if left == right == "s" else "b"
        if isinstance(node, ast.Call) and not node.keywords:
            return self.call(node, known)
        if isinstance(node, ast.Call) and _helper(node, "sum_grad") and len(node.args) == 1 \
                and [k.arg for k in node.keywords] == ["like"] and \
                isinstance(node.keywords[0].value, ast.Name) and \
                known.get(node.keywords[0].value.id) == "f" and \
                self.scalar_kind(node.args[0]) == "f":
            return "f"   # (a float spread over an array of the run's length)
        if self.invariant(node):
            return "s"
        return None

    def call(self, node, known: dict) -> str | None:
        name = self.numpy_function(node.func)
        args = [self.element(a, known) for a in node.args]
        if None in args:
            return None
        if name in self.unary and len(args) == 1:
            if args[0] == "b":   # (np.sin of bools is float16, -m raises)
                return None
            return "s" if args[0] == "s" else (
                args[0] if name in ("negative", "absolute", "abs", "square") else "f")
        if name in self.binary | {"power", "divide", "true_divide", "multiply", "add",
                             "subtract"} and len(args) == 2:
            if args[0] == args[1] == "s":
                return "s"
            if name == "power" and args[0] not in ("f", "s"):
                return None
            kind = _promote(*args)
            if name in ("divide", "true_divide", "arctan2", "hypot"):
                return None if "b" in args else "f"
            return None if kind == "b" else kind
        if name in self.compare and len(args) == 2:
            return "s" if args[0] == args[1] == "s" else "b"
        if name == "where" and len(args) == 3:   # (as `a if c else b`, each made a float)
            branches = [self.scalar_kind(a) if k == "s" else k
                        for a, k in zip(node.args[1:], args[1:])]
            return "f" if "f" in branches and None not in branches and args != ["s"] * 3 \
                else None
        if _helper(node, "zeros_like") and len(node.args) == 1 and args[0] == "f":
            return "f"
        return "s" if self.invariant(node) else None

    def invariant(self, node) -> bool:
        """Is ``node`` a number the run does not change: the size or length of an
        argument the loop is over?"""
        if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1 and \
                isinstance(node.args[0], ast.Name) and node.args[0].id in self.bases:
            return _helper(node, "reduced_size") or _helper(node, "len")
        if isinstance(node, ast.Attribute) and node.attr == "size":
            return isinstance(node.value, ast.Name) and node.value.id in self.bases
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                node.value.attr == "shape" and isinstance(node.slice, ast.Constant):
            return isinstance(node.value.value, ast.Name) and node.value.value.id in self.bases
        return False

    def scalar_kind(self, node) -> str | None:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            return {bool: "b", int: "i", float: "f"}[type(node.value)]
        if isinstance(node, ast.Name):
            return self.scalars.get(node.id)
        return None

    def numpy_function(self, func) -> str | None:
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == self.np:
            return func.attr
        return None

    # -- a run as a loop

    def loop(self, run: list, kinds: dict, after: list, arrays: dict):
        """The statements of ``run`` as one loop (allocations first), and the arrays it
        leaves (name -> kind); None where one it leaves is not float64 (only float
        arrays are allocated)."""
        later = {n for s in after for n in _loads(s)}
        summed = [s for s in run if isinstance(s, ast.Assign) and kinds[s.targets[0].id] == "r"]
        bound = [n for n in _ordered(run) if kinds[n] != "r"]
        kept = [n for n in bound if n in later]
        if any(kinds[n] != "f" for n in kept):
            return None, {}
        outside = [n for n in _ordered_loads(run) if n in arrays and n not in bound]
        length = ast.parse(f"{self.order[0]}.shape[0]", mode="eval").body
        terms = {}   # (each sum's array: its elements made in the loop, summed after it)
        for stmt in summed:
            for call in self.reductions(stmt.value, kinds | arrays):
                terms[id(call)] = self.fresh(f"{stmt.targets[0].id}_terms")
        split, prelude = self.split_calls(run, summed, {n: arrays[n] for n in outside}) \
            if IN_PLACE not in self.helpers else ([], [])   # (one objmode block a kernel:
        # numba 0.6x's LLVM rejects a second, "Instruction does not dominate all uses")
        used = set(self.used)   # (the loop's own names are free again after it)
        index = self.fresh("i")
        element = {n: self.fresh(f"{n}_i") for n in outside + bound}
        start, stop = (self.fresh("j"), self.fresh("k")) if split else (None, None)
        views = {n: self.fresh(f"{n}_j") for n in [*outside, *kept, *terms.values()]} \
            if split else {}   # (each array's block: a view of it)
        values = {id(c): self.fresh(f"{self.numpy_function(c.func)}_{k + 1}")
                  for k, c in enumerate(split)}
        self.used = used
        at = ast.Name(index, ast.Load())
        body, sums = [], []
        for stmt in run:
            if stmt in summed:
                for call in self.reductions(stmt.value, kinds | arrays):
                    body.append(ast.Assign([ast.Subscript(
                        ast.Name(terms[id(call)], ast.Load()), ast.Name(index, ast.Load()),
                        ast.Store())], _Elementwise(element, self).visit(
                            copy.deepcopy(call.args[0]))))
                sums.append(_Replaced(stmt, {id(c): ast.Call(copy.deepcopy(c.func), [ast.Name(
                    terms[id(c)], ast.Load())], []) for c in self.reductions(
                        stmt.value, kinds | arrays)}).result())
                continue
            new = _Replaced(stmt, {id(c): ast.Subscript(ast.Name(
                values[id(c)], ast.Load()), copy.deepcopy(at), ast.Load()) for c in split
                if any(c is n for n in ast.walk(stmt))}).result()
            if isinstance(new, ast.AugAssign) and isinstance(new.op, ast.Div):
                new = ast.Assign([new.target], ast.BinOp(   # (s /= y: np.divide, as below)
                    ast.Name(new.target.id, ast.Load()), ast.Div(), new.value))
            target = new.targets[0] if isinstance(new, ast.Assign) else new.target
            target.id = element[target.id]
            new.value = _Elementwise(element, self).visit(new.value)
            body.append(new)
        body = self.loaded(body, outside, element, index)
        body += [ast.Assign([ast.Subscript(ast.Name(n, ast.Load()),
                                           ast.Name(index, ast.Load()), ast.Store())],
                            ast.Name(element[n], ast.Load())) for n in kept]
        loop = ast.For(ast.Name(index, ast.Store()), ast.Call(
            ast.Name("range", ast.Load()), [length], []), body, [])
        if split:
            loop = self.blocks(loop, split, prelude, values, views, element, (start, stop))
        made = [ast.Assign([ast.Name(n, ast.Store())], ast.Call(ast.Attribute(
            ast.Name(self.np, ast.Load()), "empty", ast.Load()), [copy.deepcopy(length)], []))
            for n in [*terms.values(), *kept]]
        user = next((s.user for s in run if getattr(s, "user", None)), None)
        for stmt in [*made, *ast.walk(loop)]:
            if isinstance(stmt, ast.stmt):
                stmt.user = user
        for stmt, old in zip(sums, summed):
            stmt.user = getattr(old, "user", None)
        return [*made, loop, *sums], {n: "f" for n in kept}


    def loaded(self, body: list, outside: list, element: dict, index: str) -> list:
        """``body`` after the loads of the elements it reads of the arrays ``outside``."""
        loaded = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name)}
        return [ast.Assign([ast.Name(element[n], ast.Store())], ast.Subscript(
            ast.Name(n, ast.Load()), ast.Name(index, ast.Load()), ast.Load()))
            for n in outside if element[n] in loaded] + body

    # -- NumPy's vectorized functions, on blocks

    def split_calls(self, run: list, summed: list, outside: dict) -> tuple[list, list]:
        """The calls of ``run`` that NumPy computes on whole blocks, before the loop, and
        the statements of ``run`` their arguments need (computed before them too, and
        again in the loop). A call of one of the backend's ``fused_numpy`` functions
        (numba calls the C library's, one element at a time) of a float array made
        from arrays the run does not bind, by arithmetic and the run's statements bound
        once that call none of those functions (``np.tanh(x)``, ``np.exp(t_5 * x)``
        where ``t_5 = -x``); not in a sum, nor in a branch of ``np.where`` (NumPy would
        compute what the loop does not)."""
        branches = {id(n) for s in run for w in ast.walk(s) if isinstance(w, ast.Call) and
                    self.numpy_function(w.func) == "where" for n in ast.walk(w)}
        stores = [n for s in run for n in _stores(s)]
        ready, before = dict(outside), {}
        for stmt in run:
            if isinstance(stmt, ast.Assign) and stmt not in summed and \
                    stores.count(stmt.targets[0].id) == 1 and not any(
                        self.numpy_function(c.func) in self.vectorized
                        for c in ast.walk(stmt.value) if isinstance(c, ast.Call)):
                kind = self.element(stmt.value, ready)
                if kind in ("b", "i", "f"):
                    ready[stmt.targets[0].id], before[stmt.targets[0].id] = kind, stmt
        calls = [c for s in run if s not in summed for c in ast.walk(s.value)
                 if isinstance(c, ast.Call) and id(c) not in branches and not c.keywords and
                 self.numpy_function(c.func) in self.vectorized and len(c.args) == 1 and
                 self.element(c.args[0], ready) == "f"]
        needed = {n.id for c in calls for n in ast.walk(c.args[0]) if isinstance(n, ast.Name)}
        for name in reversed(list(before)):   # (what the arguments read, and so on)
            if name in needed:
                needed |= _loads(before[name])
        return calls, [stmt for name, stmt in before.items() if name in needed]

    def blocks(self, loop: ast.For, split: list, prelude: list, values: dict, views: dict,
               element: dict, bounds: tuple) -> ast.For:
        """``loop`` over blocks of ``BLOCK`` elements. For each block: a loop computes the
        arguments of the ``split`` calls (after the statements ``prelude``, which they
        read), each into an array of its own (``values``);
        NumPy's vectorized functions take them, in place; then ``loop`` runs on the
        block's views of the arrays (``views``), reading those arrays. NumPy computes
        them on arrays of ``NUMPY_FROM`` elements or more, in a ``numba.objmode`` block
        (its fixed cost: a few microseconds); numba's own array code on shorter ones.
        The arrays stay in the processor's cache across the three."""
        def name(n):
            return ast.Name(n, ast.Load())
        start, stop = bounds
        index = loop.target.id
        size = ast.BinOp(name(stop), ast.Sub(), name(start))
        made = [ast.Assign([ast.Name(values[id(c)], ast.Store())], ast.Call(ast.Attribute(
            name(self.np), "empty", ast.Load()), [copy.deepcopy(size)], [])) for c in split]
        arguments, calls = [], []
        for stmt in prelude:
            new = copy.deepcopy(stmt)
            new.targets[0].id = element[new.targets[0].id]
            new.value = _Elementwise(element, self).visit(new.value)
            arguments.append(new)
        for c in split:
            argument = c.args[0]
            if isinstance(argument, ast.Name) and argument.id in views:   # (its block)
                source = name(views[argument.id])
            else:
                arguments.append(ast.Assign([ast.Subscript(name(values[id(c)]), name(
                    index), ast.Store())], _Elementwise(element, self).visit(copy.deepcopy(
                        argument))))
                source = name(values[id(c)])
            calls.append(ast.Expr(ast.Call(copy.deepcopy(c.func), [source, name(
                values[id(c)])], [])))
        first = [ast.For(ast.Name(index, ast.Store()), ast.Call(name("range"), [
            copy.deepcopy(size)], []), self.loaded(
            arguments, [n for n in views if n in element], element, index),
            [])] if arguments else []
        loop.iter.args = [copy.deepcopy(size)]
        blocked = ast.Module([*first, loop], [])
        for node in ast.walk(blocked):   # (the arrays' elements, read from their blocks)
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                    node.value.id in views:
                node.value = name(views[node.value.id])
        seen = {n.id for n in ast.walk(blocked) if isinstance(n, ast.Name)} | \
            {c.args[0].id for c in split if isinstance(c.args[0], ast.Name)}
        sliced = [ast.Assign([ast.Name(view, ast.Store())], ast.Subscript(
            name(n), ast.Slice(name(start), name(stop)), ast.Load()))
            for n, view in views.items() if view in seen or n in seen]
        if self.in_place is None:   # (a name none of the kernel's variables has)
            self.in_place = self.fresh(IN_PLACE)
            self.helpers.add(IN_PLACE if self.in_place == IN_PLACE else
                             f"{IN_PLACE} as {self.in_place}")
        numpy = ast.With([ast.withitem(ast.Call(ast.Attribute(
            name("numba"), "objmode", ast.Load()), [], []), None)], [ast.Expr(ast.Call(
                name(self.in_place), [part for c in calls for part in copy.deepcopy(
                    [c.value.func, *c.value.args])], []))])   # (one call: warnings set once)
        return ast.For(ast.Name(start, ast.Store()), ast.Call(name("range"), [
            ast.Constant(0), self.length(), ast.Constant(BLOCK)], []), [
            ast.Assign([ast.Name(stop, ast.Store())], ast.Call(name("min"), [ast.BinOp(
                name(start), ast.Add(), ast.Constant(BLOCK)), self.length()], [])),
            *sliced, *made, *first,
            ast.If(ast.Compare(self.length(), [ast.GtE()], [ast.Constant(NUMPY_FROM)]),
                   [numpy],
                   copy.deepcopy(calls)),
            loop], [])

    def length(self):
        return ast.parse(f"{self.order[0]}.shape[0]", mode="eval").body


class _Elementwise(ast.NodeTransformer):
    """An elementwise expression as the expression of one element: arrays read as their
    element's name, ``/`` and ``**`` as NumPy's functions, ``np.where`` as ``if`` (each
    branch a float64: numba's ``float()`` takes no bool)."""

    def __init__(self, element: dict, fusion: ElementwiseFusion):
        self.element, self.fusion = element, fusion

    def visit_Name(self, node):
        if node.id in self.element:
            return ast.Name(self.element[node.id], ast.Load())
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        ufunc = {ast.Div: "divide", ast.Pow: "power"}.get(type(node.op))
        if ufunc is None:
            return node
        if ufunc == "power" and isinstance(node.left, ast.Name) and \
                isinstance(node.right, ast.Constant) and type(node.right.value) is int and \
                node.right.value == 2:  # (NumPy's `a ** 2` is np.square: a * a, exactly)
            return ast.BinOp(node.left, ast.Mult(), ast.Name(node.left.id, ast.Load()))
        return ast.Call(ast.Attribute(ast.Name(self.fusion.np, ast.Load()), ufunc,
                                      ast.Load()), [node.left, node.right], [])

    def visit_Call(self, node):
        name = self.fusion.numpy_function(node.func)
        if _helper(node, "sum_grad"):
            return self.visit(node.args[0])
        if _helper(node, "zeros_like"):
            return ast.Constant(0.0)
        if self.fusion.invariant(node):
            return node
        self.generic_visit(node)
        if name in self.fusion.compare:
            return ast.Compare(node.args[0], [self.fusion.compare[name]()], [node.args[1]])
        if name == "where":
            test, yes, no = node.args
            return ast.IfExp(test, *(b if isinstance(b, ast.Constant) and type(b.value) is
                                     float else ast.Call(ast.Attribute(ast.Name(
                                         self.fusion.np, ast.Load()), "float64", ast.Load()),
                                         [b], []) for b in (yes, no)))
        return node

    def visit_Subscript(self, node):
        return node   # (an argument's shape: the loop does not change it)

    def visit_Attribute(self, node):
        return node


class _Replaced(ast.NodeTransformer):
    """A copy of ``node`` with some of its nodes replaced (by the ``id`` of the node
    of ``node`` each replaces)."""

    def __init__(self, node, by_id: dict):
        memo: dict = {}
        self.copy = copy.deepcopy(node, memo)
        self.by_id = {id(memo[k]): v for k, v in by_id.items()}

    def visit(self, node):
        return self.by_id[id(node)] if id(node) in self.by_id else super().visit(node)

    def result(self):
        return self.visit(self.copy)


class Fused:
    """What :class:`ElementwiseFusion` made: the kernel, its wrapper, the kernel as it was
    (None where nothing was fused) and the helpers the wrapper calls."""

    def __init__(self, kernel, wrapper, plain, helpers):
        self.kernel, self.wrapper, self.plain, self.helpers = kernel, wrapper, plain, helpers


_ARITHMETIC = {ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow}
_AUGMENTED = {ast.Add, ast.Sub, ast.Mult, ast.Div}
_COMPARISONS = {ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE}


def _is_vector(kind) -> bool:
    return isinstance(kind, tuple) and len(kind) >= 3 and kind[0] == "nd" and \
        kind[1] == 1 and kind[2] == "f"


def _promote(*kinds) -> str:
    found = [k for k in kinds if k != "s"]
    return max(found, key=_ORDER.index) if found else "s"


def _helper(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == name


def _stores(stmt) -> list:
    return [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and
            not isinstance(n.ctx, ast.Load)]


def _loads(stmt) -> set:
    found = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and
             isinstance(n.ctx, ast.Load)}
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        found.add(stmt.target.id)
    return found


def _ordered(run: list) -> list:
    """The names ``run`` binds, in the order it first binds them."""
    return list(dict.fromkeys(n for s in run for n in _stores(s)))


def _ordered_loads(run: list) -> list:
    """The names ``run`` reads before binding them, in the order it first reads them."""
    bound, found = set(), []
    for stmt in run:
        value = stmt.value
        found += [n.id for n in ast.walk(value) if isinstance(n, ast.Name) and
                  isinstance(n.ctx, ast.Load) and n.id not in bound]
        bound.update(_stores(stmt))
    return list(dict.fromkeys(found))
