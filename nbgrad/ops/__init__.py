"""Every operation, grouped by kind, each with its derivative next to it.

``arithmetic``, ``activations``, ``reductions``, ``linalg``, ``shape`` (views and
indexing), ``nondifferentiable``, ``conversion``; ``inplace`` holds the machinery that
in-place operations share, and ``methods`` binds everything to ``Tensor``.
"""
