"""What the shape-op and sorting parity tests share: run one program forward and backward
under a library, so that values, dtypes, ``grad_fn`` names and gradients compare at once."""

import numpy as np
from parity import ng, torch


def weights_for(M, out):
    """Fixed weights shaped like ``out``, the same under both libraries, so that the
    gradient of ``(out * weights).sum()`` tells every element's gradient apart."""
    rng = np.random.default_rng(list(out.shape) + [7])
    return M.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype)


def node_name(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


def run(M, arrays, fn):
    """``fn(M, *leaves)`` on leaves made of ``arrays`` (the floating ones require grad),
    then backward through every floating output. Returns the outputs, their ``grad_fn``
    names and the leaves' gradients."""
    leaves = [M.tensor(a, requires_grad=np.asarray(a).dtype.kind == "f") for a in arrays]
    out = fn(M, *leaves)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    floating = [o for o in outs if o.requires_grad]
    if floating:
        loss = sum((o * weights_for(M, o)).sum() for o in floating)
        loss.backward()
    return outs, [node_name(o) for o in outs], [t.grad for t in leaves]


def gradchecks(arrays, fn):
    """``gradcheck`` of ``fn`` (float64) at ``arrays``, differentiating every floating one."""
    leaves = [ng.tensor(np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else a,
                        requires_grad=np.asarray(a).dtype.kind == "f") for a in arrays]

    def floating_outputs(*inputs):
        out = fn(ng, *inputs)
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        return tuple(o for o in outs if o.dtype.is_floating_point)

    return ng.autograd.gradcheck(floating_outputs, leaves)


__all__ = ["gradchecks", "node_name", "run", "torch", "weights_for"]
