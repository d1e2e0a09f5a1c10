"""Changes to an object's state that a recursion makes again, found with the call graph's
strongly connected components (Tarjan's algorithm).

A call that recurses stays a call (:mod:`s2sad.runtime.recursion`): the forward sweep runs
it in plain Python, and the derivative runs the levels below each call again. So a change
to an object's state (``self.n += 1``, a ``side_effect``) is made more than once where the
recursion runs its code again: in a function of a cycle of the call graph, or in one such
a function calls. A change in the differentiated function that the recursion never reaches
back to runs once, as in Python (``model.step(x)`` beside a call of a recursive helper).

The call graph is the one the inlining walks (:class:`~.normalize.Normalize`): an edge
from each function to each one it inlines or calls recursively, through a function value
given as an argument too (``walk(a, n, step)``, ``step`` calling ``walk``).

>>> graph = {"f": ["even", "h"], "even": ["odd"], "odd": ["even"], "h": []}
>>> strongly_connected(graph)
[['odd', 'even'], ['h'], ['f']]
>>> sorted(in_cycles(graph))
['even', 'odd']
"""

from __future__ import annotations

import gast

from .. import trees
from ..codegen import unparse
from ..errors import DifferentiationError
from ..runtime import side_effect


def strongly_connected(graph: dict) -> list[list]:
    """The strongly connected components of ``graph`` (vertex -> the vertices it calls),
    each a list of vertices, callees' before their callers' (Tarjan, 1972; a loop, not
    Python's recursion, so a deep graph is no deeper a stack).

    >>> strongly_connected({1: [2], 2: [1, 3], 3: [3]})
    [[3], [2, 1]]
    """
    index: dict = {}  # vertex -> the order it was found in
    low: dict = {}  # vertex -> the lowest index it reaches back to on the stack
    stack, on_stack, found = [], set(), []
    vertices = list(graph) + [w for ws in graph.values() for w in ws]
    for root in vertices:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(graph.get(root, ())))]
        while work:
            vertex, callees = work[-1]
            for callee in callees:
                if callee not in index:
                    index[callee] = low[callee] = len(index)
                    stack.append(callee)
                    on_stack.add(callee)
                    work.append((callee, iter(graph.get(callee, ()))))
                    break
                if callee in on_stack:
                    low[vertex] = min(low[vertex], index[callee])
            else:  # (every callee seen: the vertex is done)
                work.pop()
                if work:
                    caller = work[-1][0]
                    low[caller] = min(low[caller], low[vertex])
                if low[vertex] == index[vertex]:  # (the root of a component)
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == vertex:
                            break
                    found.append(component)
    return found


def in_cycles(graph: dict) -> set:
    """The vertices of ``graph`` on a cycle: of a component of two or more, or calling
    themselves.

    >>> sorted(in_cycles({"f": ["g"], "g": ["g"]}))
    ['g']
    """
    return {vertex for component in strongly_connected(graph) for vertex in component
            if len(component) > 1 or vertex in graph.get(vertex, ())}


def shown(key) -> str:
    """How a function of the call graph is named in a message (a key of the inlining: a
    function, ``(method, object path)``, or a nested ``def``'s node)."""
    func = key[0] if isinstance(key, tuple) else key
    if isinstance(func, gast.FunctionDef):
        return getattr(func, "shown_name", func.name)
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", str(func))


def refuse_changes_in_recursion(tree, source, graph: dict, emitted: list) -> None:
    """A change to state (an object's, ``side_effect``; a module's or a closure's,
    :func:`~.attributes.shared_changes`) made by a statement of ``tree`` that was
    ``emitted`` (with the inlining's stack of functions it was made under) in a function
    on a cycle of ``graph``, or in one such a function calls: the derivative makes it
    again. Refused at the first such change's line.

    >>> from s2sad.source import FunctionSource
    >>> text = "def f(m, x):\\n    side_effect(1, m, '.n|=')\\n    return f(m, x)\\n"
    >>> tree = gast.parse(text).body[0]
    >>> src = FunctionSource(None, tree, "demo.py", text.splitlines(True), {})
    >>> src.extra["side_effect"] = side_effect
    >>> change = tree.body[0]
    >>> refuse_changes_in_recursion(tree, src, {"f": ["g"]}, [(change, ("f",))])  # (once)
    >>> recursive = {"f": ["f"]}
    >>> refuse_changes_in_recursion(tree, src, recursive, [(change, ("f",))])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    s2sad.errors.DifferentiationError: ...in a recursive function (f(), or a function it calls)...
    """
    cyclic = in_cycles(graph) if graph else set()
    if not cyclic:
        return
    again = [(stmt, next(key for key in stack if key in cyclic))
             for stmt, stack in emitted if cyclic.intersection(stack)]
    if not again:
        return
    from .attributes import shared_changes
    effects = {alias for alias, value in (getattr(source, "extra", None) or {}).items()
               if value is side_effect}
    shared = {id(change[0]) for change in shared_changes(tree, source)[0]}
    local = trees.assigned_names(tree) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
    for stmt, recurring in again:
        drawn = None
        if id(stmt) in shared:
            whose = "a change to a module's or a closure's state"
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
                isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in effects:
            whose = "a change to an object's state"
        else:
            parts = [stmt] if not isinstance(stmt, (gast.If, gast.For, gast.While)) else \
                [stmt.test] if hasattr(stmt, "test") else [stmt.iter]
            drawn = next((call for part in parts for call in trees.walk(part)
                          if isinstance(call, gast.Call) and _draws(call, source, local)),
                         None)
            if drawn is None:
                continue
            whose = f"a draw from hidden state ({unparse(drawn.func).strip()}(...))"
        raise source.error(
            DifferentiationError, f"{whose} in a recursive function "
            f"({shown(recurring)}(), or a function it calls): s2sad runs a recursive call "
            "in plain Python, and its derivative runs the levels below each call again, so "
            f"the {'draw' if drawn is not None else 'change'} would be made more than once",
            stmt, "Draw the numbers before the recursion and pass them as an argument "
            "(noise = np.random.normal(size=n)), or write the recursion as a loop."
            if drawn is not None else "Return the new state instead (return y, n + 1), "
            "or write the recursion as a loop.")


def _draws(call, source, local: set) -> bool:
    """Does ``call`` draw from hidden state a run cannot replay: a function whose facts
    say so (``np.random.normal()``, ``random.random()``), or ``next(it)``?"""
    import builtins

    from .. import registry
    from .attributes import _peek
    path, func = [], call.func
    while isinstance(func, gast.Attribute):
        path.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or func.id in local:
        return False
    try:
        callee = _peek(source, func.id)
    except KeyError:
        callee = getattr(builtins, func.id, None)
    try:
        for attr in reversed(path):
            callee = getattr(callee, attr)
    except Exception:  # (no such attribute, a property that raises: not known)
        return False
    facts = registry.facts(callee)
    return callee is builtins.next or facts is not None and bool(facts.hidden_state)


def _recursion_helpers(extra: dict) -> set:
    """The names of :mod:`s2sad.runtime.recursion`'s helpers in the generated code."""
    from ..runtime import recursion
    return {alias for alias, value in extra.items()
            if getattr(value, "__module__", None) == recursion.__name__ and callable(value)}


def refuse_changes_read_by_recursion(tree, source, kinds: dict | None = None,
                                     shared: list = ()) -> None:
    """A change to an object's state after a recursive call (or in a loop around both)
    that may read it: given the object, or something holding one, or through the globals
    of its function (:class:`~.attributes._Reach`). The derivative runs the call again
    once the function has run, and it would read the state as changed: refused at the
    change's line. A change before the call is seen by both runs alike. ``shared``: the
    statements that change a module's or a closure's state (``LOG.append(v)``,
    :func:`~.attributes.module_state`), refused alike.

    >>> from s2sad.runtime.recursion import recursive_call
    >>> from s2sad.source import FunctionSource
    >>> text = ("def f(m, x):\\n    t = recursive_call(g, (m, x))\\n"
    ...         "    side_effect(1, m, '.n|=')\\n    return x\\n")
    >>> tree = gast.parse(text).body[0]
    >>> src = FunctionSource(None, tree, "demo.py", text.splitlines(True), {})
    >>> src.extra.update(side_effect=side_effect, recursive_call=recursive_call, g=len)
    >>> src.descriptors = {"m": None, "x": "float"}
    >>> refuse_changes_read_by_recursion(tree, src)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    s2sad.errors.DifferentiationError: a change to an object's state after a recursive call ...
    """
    from .attributes import _free_value, _Reach
    extra = getattr(source, "extra", None) or {}
    effects = {alias for alias, value in extra.items() if value is side_effect}
    recursions = _recursion_helpers(extra)
    shared_ids = {id(stmt) for stmt in shared}
    if not (effects or shared_ids) or not recursions:
        return
    calls, changes = [], []  # (call, order, loops); (statement, order, loops)

    for stmt, loops in trees.statements_in_order(tree.body):
        for node in (n for part in trees.header(stmt) for n in trees.walk(part)):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                    node.func.id in recursions:
                calls.append((node, len(calls) + len(changes), loops))
        if id(stmt) in shared_ids or isinstance(stmt, gast.Expr) and \
                isinstance(stmt.value, gast.Call) and \
                isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in effects:
            changes.append((stmt, len(calls) + len(changes), loops))
    later = [(stmt, [call for call, at, call_loops in calls
                     if at < order or set(loops) & set(call_loops)])
             for stmt, order, loops in changes]
    later = [(stmt, before) for stmt, before in later if before]
    if not later:
        return
    reach = _Reach(tree, source, effects, kinds)
    for stmt, before in later:
        reading = next((call for call in before if reach(call)), None)
        if reading is None:
            continue
        func = reading.args[0] if reading.args else None
        value = _free_value(source, func.id) if isinstance(func, gast.Name) else None
        name = getattr(value, "__qualname__", None) if callable(value) else None
        called = f" of {name}()" if name else ""
        whose = "a module's or a closure's" if id(stmt) in shared_ids else "an object's"
        raise source.error(
            DifferentiationError, f"a change to {whose} state after a recursive "
            f"call{called} that can read that state: the derivative runs the call again "
            "once the function has run, and the call would read the state as changed", stmt,
            "Make the change before the recursive call, or give the recursive function "
            "the numbers it reads (levels(model.w, x, n)) rather than the object.")
