"""Derivative rules, one small function per primitive. Importing this package fills the table."""

from . import math, numpy, operators  # noqa: F401
