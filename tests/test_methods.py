"""The methods of the user's objects are inlined: ``self.act(z)`` in a method, an object
passed in, a module's object; a method or object given again builds the gradient again."""

import numpy as np
import pytest

import s2sad
from s2sad.errors import NoDerivativeError
from tests import cases_methods as C

rng = np.random.default_rng(11)
W, X = rng.normal(size=3), rng.normal(size=(4, 3))


def numeric(f, w, h=1e-6):
    g = np.zeros_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e.flat[i] = h
        g.flat[i] = (f(w + e) - f(w - e)) / (2 * h)
    return g


def loss_gradient(model, factor=1.0):
    return factor * numeric(lambda v: model.loss(v, X), W)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_a_bound_methods_calls_of_other_methods_are_inlined(optimize):
    model = C.Model(0.7)
    g = s2sad.grad(model.loss, optimize=optimize)
    np.testing.assert_allclose(g(W, X), loss_gradient(model), rtol=1e-6, atol=1e-8)
    text = g.source_for(W, X)
    assert "np.tanh(" in text and ".act(" not in text and ".predict(" not in text


def test_an_object_passed_in_and_a_modules_object():
    model = C.Model(0.7)
    np.testing.assert_allclose(s2sad.grad(C.loss_of, wrt=1)(model, W, X),
                               loss_gradient(model, 2.0), rtol=1e-6, atol=1e-8)
    for f in (C.module_model_loss, C.passes_module_model):
        np.testing.assert_allclose(s2sad.grad(f)(W, X), loss_gradient(C.model),
                                   rtol=1e-6, atol=1e-8)
    expected = sum(numeric(lambda v: np.sum(model.act(X @ v * (i + 1))), W) for i in range(3))
    np.testing.assert_allclose(s2sad.grad(C.calls_in_loop, wrt=1)(model, W, X), expected,
                               rtol=1e-6, atol=1e-8)


def test_objects_of_another_class_get_their_own_gradient():
    g = s2sad.grad(C.loss_of, wrt=1)
    model, cubic = C.Model(0.7), C.Cubic(0.7)
    for obj in (model, cubic, model):
        np.testing.assert_allclose(g(obj, W, X), loss_gradient(obj, 2.0), rtol=1e-6,
                                   atol=1e-8)


def test_objects_without_a_dict_of_their_own():
    x = np.abs(rng.normal(size=3)) + 0.5
    for power in (2.0, 3.0):
        obj = C.Slotted(power)
        np.testing.assert_allclose(s2sad.grad(C.lifted, wrt=1)(obj, x),
                                   power * x ** (power - 1), rtol=1e-12)


def test_a_method_given_again_builds_the_gradient_again():
    model = C.Model(0.7)
    g = s2sad.grad(C.loss_of, wrt=1)
    g(model, W, X)
    old = C.Model.act
    try:
        C.Model.act = C.sine_act
        np.testing.assert_allclose(g(model, W, X), loss_gradient(model, 2.0), rtol=1e-6,
                                   atol=1e-8)
    finally:
        C.Model.act = old
    np.testing.assert_allclose(g(model, W, X), loss_gradient(model, 2.0), rtol=1e-6, atol=1e-8)


def test_an_attribute_of_the_objects_own_hiding_a_method_is_not_taken_for_it():
    model = C.Model(0.7)
    g = s2sad.grad(C.loss_of, wrt=1)
    g(model, W, X)
    model.act = np.cos  # (its own attribute: model.act(z) is np.cos(z) now)
    try:
        for _ in range(2):  # (built for np.cos, then through the entry)
            np.testing.assert_allclose(g(model, W, X), loss_gradient(model, 2.0), rtol=1e-6,
                                       atol=1e-8)
        model.act = np.spacing  # (a function without a rule: refused at its call)
        with pytest.raises(NoDerivativeError, match="act"):
            g(model, W, X)
    finally:
        del model.act
    np.testing.assert_allclose(g(model, W, X), loss_gradient(model, 2.0), rtol=1e-6, atol=1e-8)


def test_a_modules_object_given_again_or_changed_builds_the_gradient_again():
    g = s2sad.grad(C.module_model_loss)
    old = C.model
    try:
        g(W, X)
        C.model = C.Cubic(0.3)
        np.testing.assert_allclose(g(W, X), loss_gradient(C.model), rtol=1e-6, atol=1e-8)
        for act in (np.cos, np.sin):  # (its own attribute hides the method: read as it is)
            C.model.act = act
            np.testing.assert_allclose(g(W, X), loss_gradient(C.model), rtol=1e-6, atol=1e-8)
    finally:
        C.model = old
    np.testing.assert_allclose(g(W, X), loss_gradient(C.model), rtol=1e-6, atol=1e-8)


def test_higher_derivatives_through_methods():
    model = C.Model(0.7)
    hessian = s2sad.hessian(model.loss)(W, X)
    step = 1e-5
    columns = [(s2sad.grad(model.loss)(W + step * e, X) -
                s2sad.grad(model.loss)(W - step * e, X)) / (2 * step) for e in np.eye(3)]
    np.testing.assert_allclose(hessian, np.array(columns).T, rtol=1e-5, atol=1e-7)


def test_a_recursive_method_is_kept_as_a_call():
    obj = C.Recursive()
    for n in (0, 1, 4):
        assert s2sad.grad(obj.loss)(1.5, n) == pytest.approx(n * 1.5 ** (n - 1) + 1.0)
    assert "recursive_call(power, " in s2sad.grad(obj.loss).source_for(1.5, 4)


def test_a_method_that_counts_its_calls_counts_once_per_gradient_call():
    obj = C.Counting()  # (self.calls += 1: a change to its state, in the forward sweep)
    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(s2sad.grad(obj.loss)(x), 1.0 - np.tanh(x) ** 2)
    assert obj.calls == 1


def test_a_modules_object_given_to_a_helper_given_again_builds_the_gradient_again():
    g = s2sad.grad(C.module_model_through_a_helper)
    old = C.model
    try:
        g(W, X)
        C.model = C.Cubic(0.3)  # (its class's act is another)
        np.testing.assert_allclose(g(W, X), loss_gradient(C.model), rtol=1e-6, atol=1e-8)
    finally:
        C.model = old


def test_an_objects_class_or_dict_replaced_builds_the_gradient_again():
    g = s2sad.grad(C.module_model_loss)
    old = C.model
    try:
        C.model = C.Model(0.5)
        g(W, X)
        C.model.__class__ = C.Cubic
        np.testing.assert_allclose(g(W, X), loss_gradient(C.model), rtol=1e-6, atol=1e-8)
        C.model.__dict__ = {"scale": 0.5, "act": np.cos}
        np.testing.assert_allclose(g(W, X), loss_gradient(C.model), rtol=1e-6, atol=1e-8)
    finally:
        C.model = old


def test_a_class_attribute_that_is_not_a_def_given_another_builds_the_gradient_again():
    g = s2sad.grad(C.module_activated_loss)
    np.testing.assert_allclose(g(W), 1.0 - np.tanh(W) ** 2)
    try:
        C.Activated.act = np.sin
        np.testing.assert_allclose(g(W), np.cos(W))
        C.activated.act = np.cos
        np.testing.assert_allclose(g(W), -np.sin(W))
    finally:
        C.Activated.act = np.tanh
        del C.activated.act
    np.testing.assert_allclose(g(W), 1.0 - np.tanh(W) ** 2)


def test_a_class_defined_again_builds_the_gradient_again():
    g = s2sad.grad(C.class_penalty)
    np.testing.assert_allclose(g(W), 2 * W)
    old = C.Penalty
    try:
        C.Penalty = C.QuarticPenalty  # (a notebook cell defining the class again)
        np.testing.assert_allclose(g(W), 4 * W ** 3)
    finally:
        C.Penalty = old


def test_second_derivatives_follow_a_method_defined_again():
    model = C.Model(0.7)
    outer = s2sad.hessian(model.loss)
    outer(W, X)
    old = C.Model.act
    try:
        C.Model.act = C.sine_act
        s2sad.grad(model.loss)(W, X)  # (the inner gradient built again first)
        step = 1e-5
        columns = [(s2sad.grad(model.loss)(W + step * e, X) -
                    s2sad.grad(model.loss)(W - step * e, X)) / (2 * step) for e in np.eye(3)]
        np.testing.assert_allclose(outer(W, X), np.array(columns).T, rtol=1e-5, atol=1e-7)
    finally:
        C.Model.act = old


def test_a_method_with_a_rule_of_its_own_is_called_with_it():
    @s2sad.defvjp(C.Ruled.cube)
    def cube_vjp(g, ans, x):
        return 3.0 * g * x ** 2
    try:
        np.testing.assert_allclose(s2sad.grad(C.Ruled().loss)(W), 3 * W ** 2)
        assert "cube(w)" in s2sad.grad(C.Ruled().loss).source_for(W)
    finally:
        from s2sad import registry
        registry._RULES.pop(C.Ruled.cube)
        registry.changed()


def test_private_attributes_lambdas_and_super():
    np.testing.assert_allclose(s2sad.grad(C.Private(0.5).loss)(W),
                               0.5 * (1.0 - np.tanh(0.5 * W) ** 2))
    obj = C.WithLambda(0.7)
    np.testing.assert_allclose(s2sad.grad(obj.loss)(W, X),
                               numeric(lambda v: obj.loss(v, X), W), rtol=1e-6, atol=1e-8)
    derived = C.Derived(0.7)  # (super().act(z): the base class's method, inlined)
    np.testing.assert_allclose(s2sad.grad(derived.loss)(W, X),
                               numeric(lambda v: derived.loss(v, X), W), rtol=1e-6, atol=1e-8)


def test_objects_in_attributes_and_objects_called():
    """self.second.forward(x), self.first(x) (its class's __call__), net.second.forward(x),
    dense(x): the objects of a user's class held by an argument or a module are inlined."""
    stack = C.Stack()
    expected = numeric(lambda v: C.stack_loss(stack, v), W)
    g = s2sad.grad(C.stack_loss, wrt=1)
    np.testing.assert_allclose(g(stack, W), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(stack.loss)(W), numeric(stack.loss, W), rtol=1e-6,
                               atol=1e-8)
    text = g.source_for(stack, W)
    assert "np.tanh(" in text and ".forward(" not in text and "first(" not in text
    stack.first = C.Sine(0.5)  # (a member of another class: built for it)
    np.testing.assert_allclose(g(stack, W), numeric(lambda v: C.stack_loss(stack, v), W),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(C.module_net_loss)(W), numeric(C.module_net_loss, W),
                               rtol=1e-6, atol=1e-8)


def test_a_modules_objects_member_given_another_builds_the_gradient_again():
    g = s2sad.grad(C.module_net_loss)
    g(W)
    old = C.net.second
    try:
        C.net.second = C.Sine(0.9)
        np.testing.assert_allclose(g(W), numeric(C.module_net_loss, W), rtol=1e-6, atol=1e-8)
    finally:
        C.net.second = old


def test_a_property_is_not_taken_for_the_objects_own_attribute():
    obj = C.WithProperty()  # (its __dict__ holds a Dense; the property gives a Sine)
    with pytest.raises(NoDerivativeError, match="layer"):
        s2sad.grad(obj.loss)(W)


def test_members_are_what_python_reads_not_the_dict():
    """A class that finds attributes its own way, a property given to the class after the
    first call: the member in __dict__ is not what self.act gives; never taken for it."""
    with pytest.raises(NoDerivativeError):
        s2sad.grad(C.Rerouted().loss)(W)
    obj = C.Holder()
    g = s2sad.grad(obj.loss)
    np.testing.assert_allclose(g(W), 1.0 - np.tanh(W) ** 2)
    try:
        C.Holder.act = property(lambda self: C.Sin())
        with pytest.raises(NoDerivativeError):
            g(W)
    finally:
        del C.Holder.act
    np.testing.assert_allclose(g(W), 1.0 - np.tanh(W) ** 2)


def test_back_pointers_are_not_followed_and_shared_members_are_read_from_each_holder():
    from s2sad.transforms.kinds import describe
    chain = C.Chain()
    desc = describe(chain)
    assert [name for name, _ in desc[3]] == ["shared", "first", "second"]
    assert [name for name, _ in desc[3][1][1][3]] == ["act", "shared"]  # (not owner)
    np.testing.assert_allclose(s2sad.grad(chain.loss)(W), 2 * (1.0 - np.tanh(W) ** 2))


def test_an_optional_member_left_out_is_decided_while_inlining():
    g = s2sad.grad(C.optional_loss, wrt=1)
    for layer in (C.Optional(), C.Optional(C.Tanh()), C.Optional(None, C.Sin()),
                  C.Optional(C.Sin(), C.Tanh()), C.Optional()):
        np.testing.assert_allclose(g(layer, W), numeric(lambda v: C.optional_loss(layer, v), W),
                                   rtol=1e-6, atol=1e-8)
    text = g.source_for(C.Optional(C.Tanh()), W)
    assert " if " not in text and "np.tanh(" in text
    layer = C.Optional()
    g(layer, W)
    layer.act = C.Tanh()  # (given one after the first call: built for it)
    np.testing.assert_allclose(g(layer, W), numeric(lambda v: C.optional_loss(layer, v), W),
                               rtol=1e-6, atol=1e-8)


def test_a_callable_object_is_named_by_its_class_in_messages():
    from s2sad import registry
    assert registry.describe_function(C.Tanh()) == "tests.cases_methods.Tanh object"


def sequence_gradient(f, args, wrt):
    def at(v):
        given = list(args)
        given[wrt] = v
        return f(*given)
    return numeric(at, args[wrt])


def _layers():
    return [C.Dense(0.5), C.Sine(1.5), C.Dense(0.7)]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_loops_over_lists_of_layers_are_written_out_layer_by_layer(optimize):
    """for layer in self.layers (and in a list or tuple passed in, a module's list, with
    enumerate, reversed, in a generator, self.layers[-1](x), lists in lists): each item's
    class's methods inlined, checked against finite differences."""
    model = C.Sequential(*_layers())
    cases = [(C.sequential_loss, (model, W), 1), (C.layers_loss, (model.layers, W), 1),
             (C.layers_loss, (tuple(model.layers), W), 1), (C.module_layers_loss, (W,), 0),
             (model.backwards, (W,), 0), (model.weighted, (W,), 0), (model.summed, (W,), 0),
             (model.ends, (W,), 0), (C.Blocks(), (W,), 0)]
    for f, args, wrt in cases:
        g = s2sad.grad(f, wrt=wrt, optimize=optimize)
        np.testing.assert_allclose(g(*args), sequence_gradient(f, args, wrt), rtol=1e-6,
                                   atol=1e-8)
        text = g.source_for(*args)
        assert "np.tanh(" in text and "layer(" not in text and ".forward(" not in text, text


def test_a_list_of_layers_is_written_out_readably():
    text = s2sad.grad(C.layers_loss, wrt=1).source_for([C.Dense(0.5), C.Sine(1.5)], W)
    assert "    layer = layers[0]\n" in text and "    layer = layers[1]\n" in text, text
    assert text.index("np.tanh(") < text.index("layer = layers[1]") < text.index("np.sin(")


def test_a_list_of_layers_changed_builds_the_gradient_again():
    """Layers added, removed, replaced by another class's, or given an attribute hiding a
    method, in a list passed in, an argument's list, a module's list or a module's object's
    list: each call's gradient is the one of the layers it has."""
    model = C.Sequential(*_layers())
    g, g_list = s2sad.grad(C.sequential_loss, wrt=1), s2sad.grad(C.layers_loss, wrt=1)
    g_module, g_backwards = s2sad.grad(C.module_layers_loss), s2sad.grad(model.backwards)

    def check():
        for grad, f, args, wrt in [(g, C.sequential_loss, (model, W), 1),
                                   (g_list, C.layers_loss, (model.layers, W), 1),
                                   (g_module, C.module_layers_loss, (W,), 0),
                                   (g_backwards, model.backwards, (W,), 0)]:
            for _ in range(2):  # (the first call builds, the second goes through the entry)
                np.testing.assert_allclose(grad(*args), sequence_gradient(f, args, wrt),
                                           rtol=1e-6, atol=1e-8)
    saved_module, saved_sequential = list(C.LAYERS), list(C.sequential.layers)
    try:
        check()
        for change in [lambda layers: layers.append(C.Sine(0.9)),
                       lambda layers: layers.pop(0),
                       lambda layers: layers.__setitem__(0, C.Sine(0.4)),
                       lambda layers: layers.__setitem__(1, C.Dense(1.1)),
                       lambda layers: layers.reverse()]:
            for layers in (model.layers, C.LAYERS, C.sequential.layers):
                change(layers)
            check()
        C.sequential.layers = [C.Dense(0.3)]  # (the module's object given another list)
        check()
        g_backwards(W)
        model.layers[-1].forward = np.cos  # (its own attribute hides the class's method:
        for _ in range(2):                  # np.cos is called, not the method)
            np.testing.assert_allclose(g_backwards(W), sequence_gradient(
                model.backwards, (W,), 0), rtol=1e-6, atol=1e-8)
        del model.layers[-1].forward
        check()
    finally:
        C.LAYERS[:] = saved_module
        C.sequential.layers = saved_sequential


def test_a_loop_over_layers_that_may_stop_early_is_refused_with_advice():
    with pytest.raises(NoDerivativeError, match="no break or continue") as info:
        s2sad.grad(C.stops_early, wrt=1)(_layers(), W)
    assert "x = layer(x)" in str(info.value)


def test_enumerate_with_a_start_and_loops_that_only_read_attributes():
    model = C.Sequential(*_layers())
    for f in (C.numbered, C.weight_decay):
        np.testing.assert_allclose(s2sad.grad(f, wrt=1)(model, W),
                                   sequence_gradient(f, (model, W), 1), rtol=1e-6, atol=1e-8)
    text = s2sad.grad(C.weight_decay, wrt=1).source_for(model, W)
    assert text.count("for ") == 2, text  # (layer.scale read in a loop, kept a loop)


def test_the_loops_variable_given_another_object_is_not_taken_for_the_last_layer():
    with pytest.raises(NoDerivativeError, match="layer"):
        s2sad.grad(C.rebinds_after, wrt=1)(C.Sequential(*_layers()), W)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_one_layer_the_parameter_given_a_value_once(optimize):
    """One layer: the loop written out gives the function's parameter one new value, in
    straight-line code; its first value (the caller's) is saved for the reverse sweep."""
    for f, args, wrt in [(C.layers_loss, ([C.Dense(0.4)], W), 1),
                         (C.sequential_loss, (C.Sequential(C.Sequential(C.Dense(0.4))), W), 1),
                         (C.parameter_in_a_folded_branch, (W,), 0)]:
        np.testing.assert_allclose(s2sad.grad(f, wrt=wrt, optimize=optimize)(*args),
                                   sequence_gradient(f, args, wrt), rtol=1e-6, atol=1e-8)


def test_the_item_a_loops_variable_holds_after_a_branch_or_in_a_loop_is_not_guessed():
    """After an if whose branches walk different lists, or at the top of a loop's body,
    which layer the variable holds depends on the path: never inlined as one of them."""
    a, b = [C.Dense(0.5), C.Dense(0.7)], [C.Sine(1.5), C.Sine(0.9)]
    for f, args in [(C.branches, (a, b, W, 1.0)), (C.loops_again, (a, b, W, 2))]:
        with pytest.raises(NoDerivativeError, match="layer"):
            s2sad.grad(f, wrt=2)(*args)


def test_a_list_of_layers_given_a_name_and_sliced():
    model = C.Sequential(*_layers())
    g = s2sad.grad(C.aliased, wrt=1)
    for _ in range(2):
        np.testing.assert_allclose(g(model, W), sequence_gradient(C.aliased, (model, W), 1),
                                   rtol=1e-6, atol=1e-8)
    model.layers.append(C.Sine(0.3))
    np.testing.assert_allclose(g(model, W), sequence_gradient(C.aliased, (model, W), 1),
                               rtol=1e-6, atol=1e-8)


def test_layers_zipped_with_their_weights():
    layers = [C.Scale(0.5), C.Scale(1.5), C.Scale(-0.7)]
    weights = [np.array([0.3, -0.2, 0.5]), np.array([1.1, 0.4, -0.6]),
               np.array([0.2, 0.9, 0.1])]
    g = s2sad.grad(C.zipped_layers, wrt=(1, 2))
    got_w, got_x = g(layers, weights, W)
    np.testing.assert_allclose(got_x, sequence_gradient(C.zipped_layers, (layers, weights, W),
                                                        2), rtol=1e-6, atol=1e-8)
    for i in range(3):
        def at(v, i=i):
            moved = list(weights)
            moved[i] = v
            return C.zipped_layers(layers, moved, W)
        np.testing.assert_allclose(got_w[i], numeric(at, weights[i]), rtol=1e-6, atol=1e-8)
    text = g.source_for(layers, weights, W)  # (layers alike: a loop, zip's shortest)
    assert "for i_1 in range(min(len(layers), len(weights))):" in text, text
    got_w, got_x = g(layers, weights[:2], W)
    np.testing.assert_allclose(got_x, sequence_gradient(
        C.zipped_layers, (layers, weights[:2], W), 2), rtol=1e-6, atol=1e-8)
    layers[1] = C.Shifted(0.8)  # (not alike: written out, as long as the objects)
    assert "w = weights[2]" in g.source_for(layers, weights, W)
    with pytest.raises(IndexError):  # (fewer weights than layers: not zip's early stop)
        g(layers, weights[:2], W)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
def test_a_list_of_alike_layers_stays_a_loop(optimize):
    """Layers of one class with the same members (40 of them: more than are written out):
    the loop stays a loop, its variable known as every layer; the entry tests every
    layer's class and that none hides the method; blocks of alike layers nest."""
    model = C.Sequential(*[C.Dense(0.1 + 0.02 * i) for i in range(40)])
    g = s2sad.grad(C.sequential_loss, wrt=1, optimize=optimize)
    back = s2sad.grad(model.backwards, optimize=optimize)

    def check():
        for grad, f, args, wrt in [(g, C.sequential_loss, (model, W), 1),
                                   (back, model.backwards, (W,), 0)]:
            for _ in range(2):
                np.testing.assert_allclose(grad(*args), sequence_gradient(f, args, wrt),
                                           rtol=1e-6, atol=1e-8)
    check()
    text = g.source_for(model, W)
    assert text.count("for ") == 2 and "np.tanh(" in text and "layer(" not in text, text
    model.layers.append(C.Dense(0.3))
    check()
    model.layers[7] = C.Sine(0.5)  # (one of another class: written out? 42 > 32: refused)
    with pytest.raises(NoDerivativeError, match="layer"):
        g(model, W)
    model.layers[7] = C.Dense(0.5)
    check()
    model.layers[5].forward = np.cos  # (hides the method for that one: not taken for it)
    with pytest.raises(NoDerivativeError, match="forward"):
        back(W)
    del model.layers[5].forward
    check()
    blocks = C.Sequential(*[C.Sequential(C.Dense(0.5), C.Dense(0.3)) for _ in range(3)])
    nested = s2sad.grad(C.sequential_loss, wrt=1, optimize=optimize)
    for _ in range(2):
        np.testing.assert_allclose(nested(blocks, W), sequence_gradient(
            C.sequential_loss, (blocks, W), 1), rtol=1e-6, atol=1e-8)
    blocks.layers[2].layers[1] = C.Sine(0.4)  # (an inner layer of another class)
    np.testing.assert_allclose(nested(blocks, W), sequence_gradient(
        C.sequential_loss, (blocks, W), 1), rtol=1e-6, atol=1e-8)


def test_alike_layers_a_parameter_named_all_the_variable_after_the_loop_and_a_start():
    for f, n in [(C.loss_with_all, 3), (C.used_after_the_loop, 3), (C.used_after_the_loop, 40),
                 (C.numbered_from_one, 40)]:
        model = C.Sequential(*[C.Dense(0.3 + 0.01 * i) for i in range(n)])
        g = s2sad.grad(f, wrt=1)
        for change in (None, C.Sine(0.9)):
            if change is not None:
                if n > 32:
                    continue
                model.layers[1] = change  # (the entry, not the parameter named all, tests it)
            for _ in range(2):
                np.testing.assert_allclose(g(model, W), sequence_gradient(f, (model, W), 1),
                                           rtol=1e-6, atol=1e-8)


def test_an_attribute_the_build_saw_gone_sends_the_call_to_the_general_path():
    """The entry tests every layer's act member; one layer's deleted: not an AttributeError
    from the entry, but the general path, which builds for what the layers are now (where
    `hasattr(self, "act")` is not decided while inlining: refused, at its line)."""
    model = C.Sequential(*[C.MaybeActivated(0.5 + 0.1 * i, C.Tanh()) for i in range(3)])
    g = s2sad.grad(C.sequential_loss, wrt=1)
    for _ in range(2):
        np.testing.assert_allclose(g(model, W), sequence_gradient(
            C.sequential_loss, (model, W), 1), rtol=1e-6, atol=1e-8)
    del model.layers[1].act
    with pytest.raises(NoDerivativeError, match=r"layer\.act\(\)"):
        g(model, W)


def test_a_block_of_blocks_of_one_class_is_inlined_level_by_level():
    """Sequential(Sequential(...), ...): the inner one's __call__ runs for another object
    than the outer's, so it is inlined, not taken for recursion; a method calling itself
    on its own object still is recursion."""
    blocks = C.Sequential(C.Sequential(C.Dense(0.5), C.Sine(0.3)), C.Sequential(C.Dense(0.8)))
    g = s2sad.grad(C.sequential_loss, wrt=1)
    np.testing.assert_allclose(g(blocks, W), sequence_gradient(C.sequential_loss, (blocks, W),
                                                               1), rtol=1e-6, atol=1e-8)
    text = g.source_for(blocks, W)
    assert "recursive_call" not in text and "np.sin(" in text, text
    assert "recursive_call(power, " in s2sad.grad(C.Recursive().loss).source_for(1.5, 4)


def test_a_long_chain_of_objects_of_one_class_is_inlined_three_levels_then_recursive():
    g = s2sad.grad(C.chain_loss)
    np.testing.assert_allclose(g(W), numeric(C.chain_loss, W), rtol=1e-6, atol=1e-8)
    text = g.source_for(W)
    assert text.count("np.tanh(") == 4 and "recursive_call(" in text, text
