"""The seed's f4: the 3-volume of the surface of a 4-dimensional box, with t_* temporaries."""


def f4(side_lengths):
    t_a, t_b, t_c, t_d = side_lengths
    t_ab = t_a * t_b
    t_cd = t_c * t_d
    t_abc = t_ab * t_c
    t_abd = t_ab * t_d
    t_acd = t_a * t_cd
    t_bcd = t_b * t_cd
    t_s = t_abc + t_abd + t_acd + t_bcd
    ret = 2.0 * t_s
    return ret
