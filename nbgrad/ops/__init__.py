"""Every operation, each one block: its backward node(s), then its function, declared with
``@op`` (``declare.py``), which makes it a ``Tensor`` method, an operator and an export.

``arithmetic`` (+ - * / and powers), ``pointwise`` (exp, log, sin, ...), ``selection``
(clamp, maximum, where, ...), ``activations``, ``reductions``, ``linalg``, ``shape`` (views),
``indexing``, ``conversion``, ``conv`` (convolution, unfold, fold), ``pooling``
and ``adaptive`` (the pools), ``nondifferentiable`` and ``assignment`` (the operations that
exist only in place). Their shared parts: ``operands`` (checking and promoting what a user
passes), ``elementwise`` (the unary and binary skeletons), ``views`` (the view mechanism),
``windows`` (the sliding windows of convolution and pooling), ``inplace`` (in-place changes
and the graph rewriting they need) and ``methods`` (binding
to ``Tensor``).
"""

from __future__ import annotations

