"""What a build is asked for, as one frozen object.

>>> Options(optimize=False).mode, Options(mode="forward").reverse
('reverse', False)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    """How to build a derivative.

    ``optimize``: run the optimizing passes. ``annotate``: comments tying each adjoint
    block to the user's line. ``with_value``: return the function's value too.
    ``as_tuple``: one gradient per argument, as a tuple. ``target``: the backend.
    ``debug_nans``: stop at the first statement making a NaN or an infinity. ``mode``:
    ``"reverse"`` (an adjoint) or ``"forward"`` (tangents). ``seed``: the output's
    sensitivity is an argument (``vjp``). ``has_aux``: the function returns ``(value,
    aux)``. ``keep_stages``: keep the source after each pass. ``nestable``: the code will
    be differentiated again, so a loop's saved values stay on a stack. ``runtime``: a vjp
    for s2sad's runtime (an ODE's adjoint), which takes each array sensitivity as computed
    and checks its shape itself: no copy into the argument's form.
    """
    optimize: bool = True
    annotate: bool = False
    with_value: bool = False
    as_tuple: bool = False
    target: object = "numpy"  # a backend (s2sad.backends), or its name
    debug_nans: bool = False
    mode: str = "reverse"
    seed: bool = False
    has_aux: bool = False
    keep_stages: bool = False
    nestable: bool = False
    runtime: bool = False

    @property
    def reverse(self) -> bool:
        """Is it an adjoint (reverse mode), not tangents?"""
        return self.mode != "forward"
