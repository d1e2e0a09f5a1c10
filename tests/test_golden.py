"""Golden tests: the generated source, byte for byte."""

import textwrap

import numpy as np

import s2sad
from examples.f4 import f4

SEED_GRAD_F4_REVERSE = '''
    # Analyzing the line: "ret = 2.0 * t_s"
    s_s += 2.0
    # Analyzing the line: "t_s = t_abc + t_abd + t_acd + t_bcd"
    s_abc += s_s
    s_abd += s_s
    s_acd += s_s
    s_bcd += s_s
    # Analyzing the line: "t_bcd = t_b * t_cd"
    s_b += t_cd * s_bcd
    s_cd += t_b * s_bcd
    # Analyzing the line: "t_acd = t_a * t_cd"
    s_a += t_cd * s_acd
    s_cd += t_a * s_acd
    # Analyzing the line: "t_abd = t_ab * t_d"
    s_ab += t_d * s_abd
    s_d += t_ab * s_abd
    # Analyzing the line: "t_abc = t_ab * t_c"
    s_ab += t_c * s_abc
    s_c += t_ab * s_abc
    # Analyzing the line: "t_cd = t_c * t_d"
    s_c += t_d * s_cd
    s_d += t_c * s_cd
    # Analyzing the line: "t_ab = t_a * t_b"
    s_a += t_b * s_ab
    s_b += t_a * s_ab
'''

SEED_FORWARD = '''
    t_a, t_b, t_c, t_d = side_lengths
    t_ab = t_a * t_b
    t_cd = t_c * t_d
    t_abc = t_ab * t_c
    t_abd = t_ab * t_d
    t_acd = t_a * t_cd
    t_bcd = t_b * t_cd
    t_s = t_abc + t_abd + t_acd + t_bcd
    ret = 2.0 * t_s
'''


def test_f4_unoptimized_annotated_is_the_seeds_grad_f4():
    df4 = s2sad.grad(f4, optimize=False, annotate=True)
    assert df4([1.0, 2.0, 3.0, 4.0]) == [52.0, 38.0, 28.0, 22.0]
    expected = (
        "from s2sad.runtime import as_gradient\n\n"
        "def grad_f4(side_lengths):\n"
        "    s_a, s_b, s_c, s_d, s_ab, s_cd, s_abc, s_abd, s_acd, s_bcd, s_s = [0.0] * 11"
        + SEED_FORWARD.rstrip("\n")
        + SEED_GRAD_F4_REVERSE.rstrip("\n")
        + '\n    # Analyzing the line: "t_a, t_b, t_c, t_d = side_lengths"'
        "\n    s_side_lengths = [s_a, s_b, s_c, s_d]"
        "\n    return as_gradient(side_lengths, s_side_lengths)\n")
    assert df4.source == expected


def test_f4_on_a_vector_has_the_same_reverse_sweep():
    df4 = s2sad.grad(f4, optimize=False, annotate=True)
    text = df4.source_for(np.array([1.0, 2.0, 3.0, 4.0]))
    assert SEED_GRAD_F4_REVERSE in text
    np.testing.assert_array_equal(df4(np.array([1.0, 2.0, 3.0, 4.0])), [52.0, 38.0, 28.0, 22.0])


def test_f4_optimized_assigns_first_and_drops_unused_work():
    df4 = s2sad.grad(f4)
    assert df4([1.0, 2.0, 3.0, 4.0]) == [52.0, 38.0, 28.0, 22.0]
    assert df4.source == textwrap.dedent('''\
        def grad_f4(side_lengths):
            t_a, t_b, t_c, t_d = side_lengths
            t_ab = t_a * t_b
            t_cd = t_c * t_d
            s_s = 2.0
            s_abc = s_s
            s_abd = s_s
            s_acd = s_s
            s_bcd = s_s
            s_b = t_cd * s_bcd
            s_cd = t_b * s_bcd
            s_a = t_cd * s_acd
            s_cd += t_a * s_acd
            s_ab = t_d * s_abd
            s_d = t_ab * s_abd
            s_ab += t_c * s_abc
            s_c = t_ab * s_abc
            s_c += t_d * s_cd
            s_d += t_c * s_cd
            s_a += t_b * s_ab
            s_b += t_a * s_ab
            s_side_lengths = [s_a, s_b, s_c, s_d]
            return s_side_lengths
        ''')


def test_value_and_grad_keeps_the_value():
    value, gradient = s2sad.value_and_grad(f4)([1.0, 2.0, 3.0, 4.0])
    assert value == f4([1.0, 2.0, 3.0, 4.0])
    assert gradient == [52.0, 38.0, 28.0, 22.0]
    assert "ret = 2.0 * t_s" in s2sad.value_and_grad(f4).source


def test_generated_source_is_deterministic_across_processes():
    import subprocess
    import sys
    code = ("import s2sad, numpy as np; from examples.f4 import f4; "
            "print(s2sad.grad(f4, annotate=True).source_for(np.ones(4)))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout for _ in range(2)}
    assert len(outputs) == 1


def test_scalar_while_reverse_sweep_reads_the_originals_not_copies():
    """Copy propagation: the rules' copies of sensitivities (`s_5 = s_y`, `s_4 = s_5`) are
    read through to the original, and the loop's reverse sweep is what a person writes."""
    from benchmarks.workloads.while_loop import grad_while_loop_hand, while_loop
    dw = s2sad.grad(while_loop, wrt=(0, 1))
    np.testing.assert_allclose(dw(0.01, 0.0), grad_while_loop_hand(0.01, 0.0), rtol=1e-12)
    reverse = dw.source_for(0.01, 0.0).split("for y in reversed(y_saved):\n")[1]
    assert reverse == (
        "        s_a += t_3 * s_y\n"
        "        t_3 = t_3_saved.pop()\n"
        "        s_1 = 0.5 * (a * s_y)\n"
        "        s_y = s_y + s_1 * cos(y)\n"
        "    s_b = s_y\n"
        "    return (float(s_a), float(s_b))\n")


def test_product_loop_reverse_sweep_is_the_hand_written_one():
    """A list of floats gets `[0.0] * len(x)`; the update of `s_p` sinks below the read of
    its old value, so no copy of it is kept; `x[i]`, read into a temporary in both sweeps,
    goes back into its one use in each; each pass's `p` is saved at index `i` of a list."""
    from benchmarks.workloads.speelpenning import grad_speelpenning_hand, speelpenning_loop
    x = [1.0 + 0.1 * k for k in range(6)]
    dp = s2sad.grad(speelpenning_loop)
    np.testing.assert_allclose(dp(x), grad_speelpenning_hand(x)[0], rtol=1e-12)
    source = dp.source_for(x)
    assert source.split("s_x = ")[1] == (
        "[0.0] * len(x)\n"
        "    s_p = 1.0\n"
        "    for i in reversed(range(t_1)):\n"
        "        p = p_saved[i]\n"
        "        s_x[i] = p * s_p\n"
        "        s_p = x[i] * s_p\n"
        "    return s_x\n"), source
    assert "    p_saved = [None] * t_1\n    for i in range(t_1):\n" \
           "        p_saved[i] = p\n        p = p * x[i]\n" in source
