"""Dicts, and lists or tuples of containers, as arguments and as values made inside.

Every gradient is checked against central differences on each leaf of the structure;
the gradient has the argument's structure (a dict stays a dict, a tuple a tuple).
"""

import numpy as np
import pytest

import s2sad

from . import cases_containers as C

RNG = np.random.default_rng(7)


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for key in value for leaf in _leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return list(np.ravel(value))


def _rebuilt(like, leaves):
    """``like`` with its numbers taken in order from the iterator ``leaves``."""
    if isinstance(like, dict):
        return {key: _rebuilt(value, leaves) for key, value in like.items()}
    if isinstance(like, (list, tuple)):
        items = [_rebuilt(item, leaves) for item in like]
        if hasattr(like, "_fields"):  # a namedtuple
            return type(like)(*items)
        return items if isinstance(like, list) else tuple(items)
    if isinstance(like, float):
        return next(leaves)
    return np.array([next(leaves) for _ in range(like.size)]).reshape(like.shape)


def numeric(f, args, index, eps=1e-6):
    flat = np.array(_leaves(args[index]), dtype=float)
    grads = np.zeros_like(flat)
    for j in range(flat.size):
        for sign in (1.0, -1.0):
            moved = flat.copy()
            moved[j] += sign * eps
            changed = list(args)
            changed[index] = _rebuilt(args[index], iter(moved))
            grads[j] += sign * f(*changed) / (2 * eps)
    return grads


def _same_structure(a, b) -> bool:
    if isinstance(b, dict):
        return type(a) is dict and list(a) == list(b) and \
            all(_same_structure(a[k], b[k]) for k in b)
    if isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and \
            all(_same_structure(u, v) for u, v in zip(a, b))
    return np.shape(a) == np.shape(b)


def _params():
    return {"W1": RNG.normal(size=(3, 4)), "b1": RNG.normal(size=4),
            "W2": RNG.normal(size=(4, 2)), "b2": RNG.normal(size=2)}


CASES = [
    (C.dict_of_floats, ({"w": 0.3, "b": 2.0},), 0),
    (C.dict_of_arrays, (_params(), RNG.normal(size=(5, 3))), 0),
    (C.nested_dicts, ({"enc": {"W": RNG.normal(size=3), "s": 0.5}, "dec": {"s": 1.5}},), 0),
    (C.layers_as_pairs, ([(RNG.normal(size=(3, 4)), RNG.normal(size=4)),
                          (RNG.normal(size=(4, 2)), RNG.normal(size=2))],
                         RNG.normal(size=(5, 3))), 0),
    (C.list_of_lists, ([[1.0, 2.0], [3.0]],), 0),
    (C.tuple_of_list_and_float, (([1.0, 2.0], 3.0),), 0),
    (C.loop_over_dict, (_params(),), 0),
    (C.loop_over_keys, (_params(),), 0),
    (C.loop_over_values, (_params(),), 0),
    (C.loop_over_items, (_params(),), 0),
    (C.sum_of_values, (_params(),), 0),
    (C.enumerate_dict, (_params(),), 0),
    (C.get_with_default, ({"a": 0.7, "b": 1.5},), 0),
    (C.dict_display, (0.3, 0.8), 0),
    (C.dict_display, (0.3, 0.8), 1),
    (C.dict_display_loop, (0.3, 0.8), 0),
    (C.dict_display_loop, (0.3, 0.8), 1),
    (C.key_added, (0.3, 0.8), 0),
    (C.key_added, (0.3, 0.8), 1),
    (C.key_overwritten, (0.3, 0.8), 0),
    (C.key_overwritten, (0.3, 0.8), 1),
    (C.key_written_twice, (0.3, 0.8), 0),
    (C.key_written_twice, (0.3, 0.8), 1),
    (C.integer_keys, (0.3, 0.8), 1),
    (C.dict_through_helper, ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)},
                             RNG.normal(size=(4, 3))), 0),
    (C.functional_update, ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)},
                           RNG.normal(size=(4, 3))), 0),
    (C.functional_update, ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)},
                           RNG.normal(size=(4, 3))), 1),
    (C.update_in_a_loop, ({"w": 0.7, "b": 1.1},), 0),
    (C.namedtuple_fields, (C.Params(RNG.normal(size=(3, 2)), RNG.normal(size=2)),
                           RNG.normal(size=(4, 3))), 0),
    (C.namedtuple_fields, (C.Layer(RNG.normal(size=(3, 2)), RNG.normal(size=2)),
                           RNG.normal(size=(4, 3))), 0),
    (C.namedtuple_unpacked, (C.Params(RNG.normal(size=(3, 2)), RNG.normal(size=2)),
                             RNG.normal(size=(4, 3))), 0),
    (C.namedtuple_layers, ([C.Layer(RNG.normal(size=(3, 4)), RNG.normal(size=4)),
                            C.Layer(RNG.normal(size=(4, 2)), RNG.normal(size=2))],
                           RNG.normal(size=(5, 3))), 0),
    (C.dict_copy_updated, ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)},
                           RNG.normal(size=(4, 3))), 0),
    (C.dict_copy_with_keywords, ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)},
                                 RNG.normal(size=(4, 3))), 0),
    (C.dict_copy_method, ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)},
                          RNG.normal(size=(4, 3))), 0),
    (C.dict_display_copied, (0.3, 0.8), 0),
    (C.dict_display_copied, (0.3, 0.8), 1),
    (C.list_copy_method, (0.3, 0.8), 0),
    (C.list_copy_method, (0.3, 0.8), 1),
    (C.whole_list_in_a_loop, ([0.3, -1.2, 0.8],), 0),
    (C.whole_list_in_a_loop, ((0.3, -1.2),), 0),
    (C.whole_list_in_a_while_loop, ([RNG.normal(size=2), RNG.normal(size=2)],), 0),
    (C.whole_list_in_a_branch, ([0.3, -1.2], 1.0), 0),
    (C.whole_list_in_a_branch, ([0.3, -1.2], -1.0), 0),
    (C.namedtuple_in_nested_loops, (C.Params(RNG.normal(size=(3, 2)), RNG.normal(size=2)),
                                    RNG.normal(size=(4, 3))), 0),
]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("f, args, index", CASES,
                         ids=[f"{f.__name__}-{i}-{n}" for n, (f, _, i) in enumerate(CASES)])
def test_gradient_matches_central_differences(f, args, index, optimize):
    gradient = s2sad.grad(f, wrt=index, optimize=optimize)(*args)
    assert _same_structure(gradient, args[index])
    np.testing.assert_allclose(np.array(_leaves(gradient), dtype=float),
                               numeric(f, args, index), rtol=1e-6, atol=1e-8)


def test_a_dict_display_passes_its_gradient_on():
    """Once a silent zero: a value put in a dict display got no gradient at all."""
    assert s2sad.grad(C.dict_display, wrt=(0, 1))(0.3, 0.8) == pytest.approx((1.6, 0.6))


def test_a_key_added_goes_again_in_the_reverse_sweep():
    g = s2sad.grad(C.key_added)
    assert g(0.3, 0.8) == pytest.approx(1.6 + 2 * 0.3 * 0.8 * 0.8)
    assert "restore_item(d, 'c', " in g.source_for(0.3, 0.8)


def test_the_generated_code_reads_a_dict_by_key():
    source = s2sad.grad(C.dict_of_floats, optimize=False).source_for({"w": 0.3, "b": 2.0})
    assert "s_p['w'] +=" in source and "np.add.at" not in source, source
    source = s2sad.grad(C.loop_over_dict).source_for(_params())
    assert "keys_p = ['W1', 'b1', 'W2', 'b2']" in source, source
    # (an array in a dict: a new value; its kind unknown, it may be a list: add_sens)
    assert "s_p[k] = add_sens(s_p[k], " in source, source


def test_a_dict_read_at_keys_written_out_gets_a_variable_per_key():
    """SplitDicts: no zeros for the dict, no copies of new arrays, as for arguments."""
    source = s2sad.grad(C.dict_of_arrays).source_for(_params(), RNG.normal(size=(5, 3)))
    assert "zeros_like_structure" not in source and "s_p_W2 = h.T @ " in source, source
    assert "'W2': fresh_gradient(p['W2'], s_p_W2)" in source, source
    # (the dict's arrays say their axes of length 1: b2's sum is decided, a new array)
    assert "s_p_b2 = s_out.sum(axis=0)" in source, source
    assert "'b2': fresh_gradient(p['b2'], s_p_b2)" in source, source
    p = {"w": 0.3, "b": 2.0}
    source = s2sad.grad(C.dict_of_floats).source_for(p)
    assert "return {'w': float(s_p_w), 'b': float(s_p_b)}" in source, source
    gradient = s2sad.grad(C.dict_of_floats)(p)
    assert gradient == {"w": pytest.approx(1.2), "b": pytest.approx(0.09)}
    assert type(gradient["w"]) is float


def test_a_dict_with_other_keys_gets_its_own_variant():
    g = s2sad.grad(C.loop_over_dict)
    small = {"a": np.array([1.0, 2.0])}
    large = {"a": np.array([1.0, 2.0]), "bb": np.array([3.0])}
    for p in (small, large, small):
        got = g(p)
        assert list(got) == list(p)
        for key in p:  # d/dv sum(v ** 2) * len(key)
            np.testing.assert_allclose(got[key], 2 * p[key] * len(key))


def test_nested_containers_add_item_by_item():
    source = s2sad.grad(C.list_of_lists).source_for([[1.0, 2.0], [3.0]])
    assert "s_x[0] = add_sens(s_x[0], " in source, source


def test_forward_mode_and_hvp_through_dicts():
    p = _params()
    x = RNG.normal(size=(5, 3))
    tangent = {k: RNG.normal(size=v.shape) for k, v in p.items()}
    value, pushforward = s2sad.jvp(C.dict_of_arrays)(p, x)
    gradient = s2sad.grad(C.dict_of_arrays)(p, x)
    assert value == pytest.approx(C.dict_of_arrays(p, x))
    assert pushforward(tangent) == pytest.approx(
        sum(np.sum(gradient[k] * tangent[k]) for k in p))
    _, pushforward = s2sad.jvp(C.dict_display, wrt=(0, 1))(0.3, 0.8)
    assert pushforward(1.0, 0.0) == pytest.approx(1.6)
    w, b = np.array([0.3, 0.6]), np.array([1.0, 2.0])

    def hvp_numeric(v, eps=1e-6):
        def grad_at(t):
            return s2sad.grad(C.nested_dicts)(
                {"enc": {"W": w + t * v, "s": 0.5}, "dec": {"s": 1.5}})["enc"]["W"]
        return (grad_at(eps) - grad_at(-eps)) / (2 * eps)
    got = s2sad.hvp(C.dict_of_floats)({"w": 0.3, "b": 2.0}, {"w": 1.0, "b": 0.0})
    assert got["w"] == pytest.approx(2 * 2.0) and got["b"] == pytest.approx(2 * 0.3)
    np.testing.assert_allclose(hvp_numeric(b), 2 * 0.5 * b, rtol=1e-6)



def test_a_slot_of_a_list_holding_an_argument_may_be_set():
    """`ys = [x, 1.0]; ys[1] = v` changes the list, not x: once refused as an in-place
    update of the argument."""
    assert s2sad.grad(C.list_holding_argument)(0.7) == pytest.approx(3.0)
    assert s2sad.grad(C.dict_holding_argument)(np.array([0.5, 2.0])) == pytest.approx(
        np.array([2.0 * 0.5 + 1.0, 2.0 * 2.0 + 1.0]))


def test_vjp_of_a_function_returning_a_dict():
    x = np.array([0.3, 0.7])
    value, pullback = s2sad.vjp(C.dict_output)(x)
    assert list(value) == ["a", "b"]
    np.testing.assert_allclose(pullback({"a": np.ones(2), "b": np.array([1.0, 0.0])}),
                               2.0 + np.cos(x) * np.array([1.0, 0.0]))


def test_jacobian_of_structures_says_to_use_vjp():
    with pytest.raises(TypeError, match="returned a dict of parts: use s2sad.vjp"):
        s2sad.jacobian(C.dict_output)(np.array([0.3, 0.7]))
    with pytest.raises(TypeError, match="its argument 'p' is a dict of parts"):
        s2sad.jacobian(C.dict_of_floats)({"w": 0.3, "b": 2.0})


SECOND = [C.dict_display, C.dict_display_loop, C.key_added, C.key_overwritten,
          C.key_written_twice, C.integer_keys, C.dict_display_copied, C.list_copy_method]


@pytest.mark.parametrize("f", SECOND, ids=[f.__name__ for f in SECOND])
@pytest.mark.parametrize("i, j", [(0, 0), (0, 1), (1, 1)])
def test_second_derivatives_through_dicts_made_inside(f, i, j, eps=1e-5):
    """The gradient's own code (dict displays, a key added and taken out again) is
    differentiated again: against central differences of the gradient."""
    args = [0.3, 0.8]
    second = s2sad.grad(s2sad.grad(f, wrt=i), wrt=j)(*args)

    def first(t):
        moved = list(args)
        moved[j] += t
        return s2sad.grad(f, wrt=i)(*moved)
    assert second == pytest.approx((first(eps) - first(-eps)) / (2 * eps), rel=1e-6, abs=1e-8)


def test_an_array_in_a_list_gets_a_new_value_not_an_update_in_place():
    """The parts of np.concatenate's sensitivity are views of one broadcast array: `+=` on
    one of them failed (read-only), and on a writeable view would change another's too."""
    x = RNG.normal(size=2)
    gradient = s2sad.grad(C.parts_of_a_list)(x, 3)
    np.testing.assert_allclose(gradient, numeric(C.parts_of_a_list, (x, 3), 0), rtol=1e-6)


def test_a_namedtuple_is_read_by_position_and_given_back_as_itself():
    p = C.Params(np.ones((3, 2)), np.zeros(2))
    x = RNG.normal(size=(4, 3))
    gradient = s2sad.grad(C.namedtuple_fields)(p, x)
    assert type(gradient) is C.Params and gradient.W.shape == (3, 2)
    source = s2sad.grad(C.namedtuple_fields).source_for(p, x)
    assert "p[0]" in source and "p.W" not in source, source
    # a plain tuple of the same arrays is another variant: it has no fields
    with pytest.raises(s2sad.NoDerivativeError, match=r"'p' has no attribute '[Wb]'"):
        s2sad.grad(C.namedtuple_fields)((p.W, p.b), x)


def test_two_dict_arguments_each_split_per_key():
    """The first dict is split into two statements (zeros, and zeros shaped like its nested
    dict): the second's zeros were once looked for at their old place, and another
    statement was replaced (a NameError)."""
    p, q = {"enc": {"W": RNG.normal(size=2)}, "s": 0.5}, {"a": 2.0, "b": 3.0}
    got_p, got_q = s2sad.grad(C.two_dict_arguments, wrt=(0, 1))(p, q)
    assert got_q == {"a": 3.0, "b": 2.0} and got_p["s"] == pytest.approx(np.sum(p["enc"]["W"] ** 2))
    np.testing.assert_allclose(got_p["enc"]["W"], 2.0 * 0.5 * p["enc"]["W"])


def test_a_sum_of_dict_sensitivities_is_zero_at_a_key_neither_has():
    from s2sad.runtime import SensitivityDict, add_sens
    total = add_sens(SensitivityDict(a=1.0), {"a": 2.0, "b": 3.0})
    assert total == {"a": 3.0, "b": 3.0} and total["c"] == 0.0


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_a_namedtuple_built_inside_is_read_by_field(optimize):
    """Params(W * 0.5, b=...), Scaled(p.W, p.b) with a default: built of its fields (each
    one's gradient flows), read by field and by position; forward mode and the Hessian
    too."""
    W, x = RNG.normal(size=(3, 2)), RNG.normal(size=(4, 3))
    gradient = s2sad.grad(C.namedtuple_built, optimize=optimize)(W, x)
    np.testing.assert_allclose(gradient, numeric(C.namedtuple_built, (W, x), 0).reshape(3, 2),
                               rtol=1e-6, atol=1e-8)
    direction = RNG.normal(size=(3, 2))
    _, pushforward = s2sad.jvp(C.namedtuple_built)(W, x)
    np.testing.assert_allclose(pushforward(direction), np.sum(gradient * direction),
                               rtol=1e-6)
    hessian = s2sad.hessian(C.namedtuple_built)(W, x)
    step = 1e-5
    column = (s2sad.grad(C.namedtuple_built)(W + step * direction, x) -
              s2sad.grad(C.namedtuple_built)(W - step * direction, x)) / (2 * step)
    np.testing.assert_allclose(np.tensordot(hessian, direction, 2), column, rtol=1e-5,
                               atol=1e-7)


def test_a_namedtuple_built_with_fields_it_has_not_is_refused_at_its_line():
    W = np.ones((3, 2))
    with pytest.raises(s2sad.DifferentiationError, match="Params.. takes the fields W, b: "
                       "bias is not one more") as info:
        s2sad.grad(C.namedtuple_wrong_field)(W, np.ones(2))
    assert "p = Params(W, bias=x)" in str(info.value)
    with pytest.raises(s2sad.DifferentiationError, match="a value for b needed"):
        s2sad.grad(C.namedtuple_missing_field)(W)


@pytest.mark.parametrize("f, args", [
    (C.inner_step_of_a_namedtuple, (C.Params(RNG.normal(size=(3, 2)), RNG.normal(size=2)),
                                    RNG.normal(size=(4, 3)))),
    (C.inner_step_of_a_dict, ({"enc": {"W": RNG.normal(size=2)}, "s": 0.5},
                              {"a": 2.0, "b": 3.0})),
], ids=["namedtuple", "dict"])
def test_a_gradient_called_inside_on_a_structured_argument(f, args):
    """The inner gradient is inlined as its variant for the kinds of the argument it is
    given (a namedtuple's fields, a dict's keys), which the general one does not know."""
    gradient = s2sad.grad(f)(*args)
    assert _same_structure(gradient, args[0])
    np.testing.assert_allclose(_leaves(gradient), numeric(f, args, 0), rtol=1e-6, atol=1e-8)


def test_a_namedtuples_subclass_is_not_taken_for_its_fields():
    """Its __new__ (or a property) may stand between the values and the fields: p.W is
    not read as p[0], and the call not taken for the fields' values (refused, not wrong)."""
    with pytest.raises(s2sad.NoDerivativeError):
        s2sad.grad(C.subclass_built)(np.ones(2), np.ones(2))
    with pytest.raises(s2sad.NoDerivativeError, match=r"\.W"):
        s2sad.grad(C.namedtuple_fields)(C.Doubling(np.ones((3, 2)), np.ones(2)),
                                        np.ones((4, 3)))


def test_a_namedtuple_rebuilt_in_a_loop_and_an_inner_gradient_of_floats():
    W, b = RNG.normal(size=2), 1.3
    got = s2sad.grad(C.namedtuple_rebuilt_in_a_loop, wrt=(0, 1))(W, b)
    np.testing.assert_allclose(got[0], numeric(C.namedtuple_rebuilt_in_a_loop, (W, b), 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], numeric(C.namedtuple_rebuilt_in_a_loop, (W, b), 1)[0],
                               rtol=1e-6)
    p = [0.4, 0.7]
    np.testing.assert_allclose(s2sad.grad(C.inner_step_of_a_list_of_floats)(p),
                               numeric(C.inner_step_of_a_list_of_floats, (p,), 0), rtol=1e-6)


def test_an_update_through_a_dict_copy_of_an_argument_is_refused():
    """A dict's copy holds the same arrays: writing into one changes the caller's."""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update of 'w', which shares its memory with the argument 'p'"):
        s2sad.grad(C.writes_through_a_dict_copy)({"w": np.ones(2), "b": 0.5})
