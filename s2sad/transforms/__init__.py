"""One pass per module; each module's docstring shows the pass on a small example."""
