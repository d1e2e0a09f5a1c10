"""Derivative rules, one small function per primitive. Importing this package fills the table."""

from . import math, numpy, numpy_linalg, numpy_shape, operators  # noqa: F401
