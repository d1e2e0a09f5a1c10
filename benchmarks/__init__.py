"""The s2sad benchmark suite (issue 7): ``python -m benchmarks.run``.

Nothing here is imported by s2sad or its tests. See docs/benchmarks.md.
"""
