"""The tree primitives every pass relies on (s2sad/trees.py): a name is a leaf to them,
but for a parameter's annotation, which walks, visitors and transformers still reach."""

import gast
import numpy as np

import s2sad
from s2sad import trees

SOURCE = '''def f(x: np.ndarray, w: float = 2.0):
    return x * w'''


def _function():
    return gast.parse(SOURCE).body[0]


def test_walk_reaches_a_parameter_annotation():
    found = trees.walk(_function())
    assert any(isinstance(n, gast.Attribute) and n.attr == "ndarray" for n in found)
    assert sum(isinstance(n, gast.Name) and n.id == "np" for n in found) == 1


def test_visitor_and_transformer_reach_a_parameter_annotation():
    class Attributes(trees.Visitor):  # no visit_Name: names are skipped, but for annotations
        def __init__(self):
            self.seen = []

        def visit_Attribute(self, node):
            self.seen.append(node.attr)

    visitor = Attributes()
    visitor.visit(_function())
    assert visitor.seen == ["ndarray"]

    class Retype(trees.Transformer):
        def visit_Attribute(self, node):
            return gast.Name("Array", gast.Load(), None, None)

    fn = Retype().visit(_function())
    assert fn.args.args[0].annotation.id == "Array"
    assert fn.args.args[1].annotation.id == "float"  # (an unchanged name is kept as it is)


def test_clone_copies_nodes_and_shares_only_contexts():
    fn = _function()
    other = trees.clone(fn)
    assert gast.dump(other) == gast.dump(fn)
    old, new = trees.walk(fn), trees.walk(other)
    assert not {id(n) for n in old} & {id(n) for n in new}
    assert other.args.args[0].ctx is fn.args.args[0].ctx


def test_gradient_of_an_annotated_function():
    def f(x: np.ndarray, w: float = 2.0) -> float:
        y: np.ndarray = np.sin(x) * w
        return np.sum(y ** 2)

    x = np.array([0.3, -0.7])
    g = s2sad.grad(f)
    np.testing.assert_allclose(g(x), 8.0 * np.sin(x) * np.cos(x), rtol=1e-12)
    assert "def grad_f(x: np.ndarray, w: float):" in g.source_for(x)


def _product(x, y):
    return np.sum(np.sin(x) * y + x * x)


def test_inlining_a_rule_never_changes_the_rule_s_own_tree():
    """Rules are inlined by a Copier: each statement gets new nodes, and the parsed rule,
    shared by every gradient in the process, stays as it was."""
    from s2sad import registry
    rules = [registry.lookup(f) for f in (np.multiply, np.add, np.sin, np.sum)]
    before = [gast.dump(gast.Module(r.parsed()[0] + [gast.Expr(r.parsed()[1])], []))
              for r in rules]
    x, y = np.array([0.5, 1.5]), np.array([2.0, -1.0])
    for _ in range(2):  # (the second time inlines from the same parsed rules)
        gx, gy = s2sad.grad(_product, wrt=(0, 1))(x, y)
        np.testing.assert_allclose(gx, np.cos(x) * y + 2 * x)
        np.testing.assert_allclose(gy, np.sin(x))
    after = [gast.dump(gast.Module(r.parsed()[0] + [gast.Expr(r.parsed()[1])], []))
             for r in rules]
    assert after == before


def test_a_copier_copies_every_node_it_does_not_rewrite():
    class Same(trees.Copier):
        pass
    tree = gast.parse("y = f(x[1:2], -2.0) + z").body[0]
    new = Same().visit(tree)
    assert gast.dump(new) == gast.dump(tree)
    shared = (gast.expr_context, gast.operator, gast.unaryop)  # fieldless, never changed
    old_nodes = {id(n) for n in gast.walk(tree) if not isinstance(n, shared)}
    assert not old_nodes & {id(n) for n in gast.walk(new)}
    assert new.value.op is tree.value.op
