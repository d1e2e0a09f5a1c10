"""GPU benchmarks: s2sad on CuPy against PyTorch autograd on the same GPU.

``python -m benchmarks.gpu.run`` (see README.md here). Nothing here is imported by
s2sad or its tests, and nothing here imports CuPy or PyTorch until it runs.
"""
