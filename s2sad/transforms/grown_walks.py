"""A loop over a list that its body lengthens or shortens, written as Python walks it.

Python's list iterator reads ``xs[i]`` while ``i < len(xs)``, with the list as it is at
each step: ``for v in xs: xs.append(v * 2.0)`` sees the items it appends. Loops are
otherwise walked by ``range(len(xs))``, a length read once, so where the body changes the
list's length (``append``, ``extend``, ``insert``, ``pop``, ``remove``, ``clear``,
``xs += ...``, ``del xs[i]``, ``xs[a:b] = ...``) the loop is written as the while loop
that the iterator is::

    for v in xs:                        i_xs = 0
        body                            while i_xs < len(xs):
    else:                                   v = xs[i_xs]
        done                                i_xs += 1
                                            body
                                        else:
                                            done

(the counter moves before the body, so ``continue`` takes the next item); ``for i, v in
enumerate(xs)`` the same, ``(i_xs, xs[i_xs])`` read. Another iterator of the list
(``zip(xs, ys)``, ``reversed(xs)``...) is refused at its line. Only a list the
function makes (every value of the name a list display, a list comprehension or
``list(...)``) is walked so: another kind of value walks by its own rules (a dict
refuses to change size). Each change is then followed, or refused, as anywhere else.

>>> import gast
>>> from s2sad.codegen import unparse
>>> tree = gast.parse("def f(x):\\n    xs = [x]\\n    for v in xs:\\n        if len(xs) < 3:\\n"
...                   "            xs.append(v * 2.0)\\n    return xs").body[0]
>>> print(unparse(GrownWalks(lambda name: True).visit(tree)))
def f(x):
    xs = [x]
    i_xs = 0
    while i_xs < len(xs):
        v = xs[i_xs]
        i_xs += 1
        if len(xs) < 3:
            xs.append(v * 2.0)
    return xs
"""

from __future__ import annotations

import gast

from .. import registry, trees

def _name(name: str, ctx=gast.Load):
    return gast.Name(name, ctx(), None, None)


def changes_a_list(method: str) -> bool:
    """Does the list method of that name change the list (its facts: ``append``...)?"""
    facts = registry.facts(getattr(list, method, None))
    return facts is not None and 0 in facts.mutates


def _resizes(stmt, name: str) -> bool:
    """Does ``stmt`` (or a statement in it) change the length of the list ``name``?"""
    for node in trees.walk(stmt):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                isinstance(node.func.value, gast.Name) and node.func.value.id == name and \
                changes_a_list(node.func.attr):
            return True  # (sort and reverse too: the while loop is Python's walk anyway)
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and \
                node.target.id == name:
            return True
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                node.value.id == name and (isinstance(node.ctx, gast.Del) or isinstance(
                    node.ctx, gast.Store) and isinstance(node.slice, gast.Slice)):
            return True
    return False


class GrownWalks(trees.Transformer):
    """Loops over a list their body resizes as while loops (see the module);
    ``builtin(name)``: does ``name`` stand for Python's builtin there?"""

    def __init__(self, builtin, source=None):
        self.builtin = builtin
        self.source = source  # (a loop over a live iterator of a list resized: refused)
        self.changed = False

    def visit_FunctionDef(self, node):
        if getattr(self, "names", None) is not None:
            return node  # (a function defined inside: walked where it is inlined)
        nodes = trees.walk(node)  # (read by _lists too)
        self.names = {n.id for n in nodes if isinstance(n, gast.Name)}
        self.lists = self._lists(node, nodes)
        return self.generic_visit(node)

    def _lists(self, fdef, nodes: list) -> set:
        """The names every value of which is a list the function makes (``nodes``: its
        walk)."""
        params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs +
                  fdef.args.posonlyargs} | {a.id for a in (fdef.args.vararg,
                                                           fdef.args.kwarg) if a}
        stores: dict = {}
        for n in nodes:
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        made, grown = {}, {}  # xs = [...]; xs += ys (the same list, longer)
        for s in nodes:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], gast.Name) and self._a_list(s.value):
                made[s.targets[0].id] = made.get(s.targets[0].id, 0) + 1
            elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
                grown[s.target.id] = grown.get(s.target.id, 0) + 1
        return {name for name, count in made.items() if name not in params and
                count + grown.get(name, 0) == stores[name]}

    def _a_list(self, value) -> bool:
        return isinstance(value, (gast.List, gast.ListComp)) or \
            isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
            value.func.id == "list" and self.builtin("list")

    def visit_For(self, node):
        self.generic_visit(node)
        xs, first = self._walked(node.iter)
        if xs not in self.lists or not self.builtin("len") or \
                not any(_resizes(s, xs) for s in node.body):
            self._refuse_live_walks(node)
            return node
        counter, n = f"i_{xs}", 0
        while counter in self.names:
            n += 1
            counter = f"i_{xs}_{n}"
        self.names.add(counter)
        self.changed = True
        start = gast.Assign([_name(counter, gast.Store)], gast.Constant(0, None), None)
        test = gast.Compare(_name(counter), [gast.Lt()], [gast.Call(
            _name("len"), [_name(xs)], [])])
        item = gast.Subscript(_name(xs), _name(counter), gast.Load())
        if first is not None:  # (enumerate(xs, first): the count, then the item)
            count = gast.BinOp(_name(counter), gast.Add(), gast.Constant(first, None))
            item = gast.Tuple([count, item], gast.Load())
        read = gast.Assign([node.target], item, None)
        step = gast.AugAssign(_name(counter, gast.Store), gast.Add(), gast.Constant(1, None))
        loop = gast.While(test, [_everywhere(read, node), _everywhere(step, node)] +
                          node.body, node.orelse)
        return [_everywhere(start, node), _everywhere(loop, node)]

    def _walked(self, iterated):
        """``(xs, None)`` for ``xs``; ``(xs, start)`` for ``enumerate(xs)`` and
        ``enumerate(xs, 2)``; else ``(None, None)``."""
        if isinstance(iterated, gast.Name):
            return iterated.id, None
        if isinstance(iterated, gast.Call) and isinstance(iterated.func, gast.Name) and \
                iterated.func.id == "enumerate" and self.builtin("enumerate") and \
                iterated.args and isinstance(iterated.args[0], gast.Name):
            given = iterated.args[1:] + [k.value for k in iterated.keywords
                                         if k.arg == "start"]
            if len(given) + 1 == len(iterated.args) + len(iterated.keywords) and \
                    len(given) <= 1 and all(isinstance(g, gast.Constant) and
                                            type(g.value) is int for g in given):
                return iterated.args[0].id, given[0].value if given else 0
        return None, None

    def _refuse_live_walks(self, node):
        """A loop over an iterator that reads a list of the function's as it goes
        (``zip(xs, ys)``, ``reversed(xs)``, ``map(f, xs)``...) whose body resizes that
        list: Python's iterator sees the change, an index walk would not. Refused."""
        if self.source is None or not isinstance(node.iter, gast.Call):
            return
        func = node.iter.func
        if isinstance(func, gast.Name) and func.id in ("list", "tuple", "sorted") and \
                self.builtin(func.id):
            return  # (a copy, made before the loop: what the body does to xs is not seen)
        for arg in node.iter.args:
            if isinstance(arg, gast.Name) and arg.id in self.lists and \
                    any(_resizes(s, arg.id) for s in node.body):
                raise self.source.syntax_error(
                    f"a loop over an iterator of the list {arg.id!r}, which its body "
                    "lengthens or shortens", node,
                    f"Loop over a copy (`list({arg.id})`), or over `{arg.id}` itself, or "
                    f"by index: `i = 0; while i < len({arg.id}): ...`.")


def _everywhere(tree, where):
    """``tree`` with every node placed at ``where`` (the loop's line)."""
    for item in trees.walk(tree):
        if isinstance(item, (gast.expr, gast.stmt)) and not hasattr(item, "lineno"):
            gast.copy_location(item, where)
    return trees.located(tree, where)
