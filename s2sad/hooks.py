"""Hooks: how a lower floor reaches the face without importing it.

A few helpers below the face need a derivative compiled while they run: the adjoint of
a recursive call or of a checkpointed one (the runtime), and the generated code of a
gradient that a differentiated function calls (the inliner). The derivative objects
live in the face (:mod:`s2sad.derivatives`), which imports every floor below it. So
each such need is a named hook here; the face installs a function into it as it loads,
and the lower floor calls the hook:

>>> double = Hook("double", "double(x): twice x.")
>>> double(1.5)
Traceback (most recent call last):
    ...
RuntimeError: s2sad.hooks.double is not installed: import s2sad first
>>> double.install(lambda x: 2 * x)
>>> double(1.5)
3.0

A derivative object stays opaque below the face: it is made by one hook and handed
to another.
"""

from __future__ import annotations


class Hook:
    """A function the face installs and a lower floor calls (see the module's text)."""

    def __init__(self, name: str, doc: str):
        self.name, self.__doc__, self._function = name, doc, None

    def install(self, function) -> None:
        """Make ``function`` what calls of this hook run."""
        self._function = function

    def __call__(self, *args, **kwargs):
        if self._function is None:
            raise RuntimeError(f"s2sad.hooks.{self.name} is not installed: import s2sad first")
        return self._function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<s2sad hook {self.name}>"


make_vjp = Hook("make_vjp", """make_vjp(func, wrt): ``s2sad.vjp(func, wrt=wrt)``, a derivative
object for :data:`call_generated`, :data:`generated_function` and :data:`push_forward`.""")

make_value_vjp = Hook("make_value_vjp", """make_value_vjp(func, wrt): like
:data:`make_vjp`, but its generated code returns ``(value, sensitivities)``: the function's
value and its vjp from one run (an ODE's right-hand side, its value and adjoint at once).
Each array argument's sensitivity comes as computed (no copy into its form), its shape for
the caller to check.""")

make_jvp = Hook("make_jvp", """make_jvp(func, wrt): ``s2sad.jvp(func, wrt=wrt)``.""")

make_grad = Hook("make_grad", """make_grad(func, wrt): ``s2sad.grad(func, wrt=wrt)`` (a
Hessian made inside a function differentiated: ``jvp`` of it).""")

call_generated = Hook("call_generated", """call_generated(derivative, args, *extra): the
generated code of ``derivative`` for the kinds of ``args`` (compiled if new), called with
``args`` and then ``extra`` (a vjp's cotangent, a jvp's tangent). A vjp returns the
sensitivities of its ``wrt`` arguments (a tuple where ``wrt`` is one), a jvp
``(value, tangent)``.""")

call_again = Hook("call_again", """call_again(derivative, args, *extra): as
:data:`call_generated`, for a call the forward sweep ran already (a checkpointed call's
recomputation): its changes to objects' state are not made again, and a function whose
output reads state it changes is refused (each run would be another function).""")

variant_function = Hook("variant_function", """variant_function(derivative, args): the
generated function :data:`call_generated` would call for the kinds of ``args`` (its module
globals read now), to be called again with arguments of the same kinds as
``function(*args, *extra)`` while those globals stay; None where it takes keyword-only
parameters.""")

push_forward = Hook("push_forward", """push_forward(derivative, args, tangents): ``(value,
tangent)`` of the jvp ``derivative`` at ``args`` along ``tangents`` (one per ``wrt``
argument, checked and converted as ``pushforward(*tangents)`` does).""")

generated_function = Hook("generated_function", """generated_function(derivative, args):
the generated function of the vjp ``derivative`` for the kinds of ``args``, as a
derivative of it reads it (every saved value on the stack): a function s2sad
differentiates again.""")

gradient_parameters = Hook("gradient_parameters", """gradient_parameters(value): the
parameter names of ``value`` if it is a gradient s2sad made (``s2sad.grad(f)``, which a
differentiated function may call and the inliner inlines), else None.""")

inline_gradient = Hook("inline_gradient", """inline_gradient(gradient, key): ``(function,
live)``, the generated function of ``gradient`` for the argument descriptions ``key``
(None: for any) and the module globals it reads live (``{name: (namespace, key)}``). A
ValueError where ``gradient`` is being built (a function that calls its own gradient).""")
