"""The autograd core: the graph's nodes, the engine that runs backward, and grad mode.

It never imports ``Tensor``: it knows a tensor only by the fields autograd gives it
(``_grad_fn``, ``_output_nr``, ``_requires_grad``, ``_data``, ...). The layers above it are
``tensor.py``, then the operations (``ops/``) and the autograd API (``autograd/``).

Read in this order: ``node.py`` (what a graph is made of), ``engine.py`` (how backward
walks it), ``grad_mode.py`` (when operations are recorded at all).
"""

from __future__ import annotations

