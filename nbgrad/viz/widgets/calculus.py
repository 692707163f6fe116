"""The two derivatives every widget compares: autograd's, and finite differences'."""

from __future__ import annotations

import numpy as np

import nbgrad as ng


def autograd_derivative(f, xs):
    """df/dx at every point of ``xs`` by one backward pass (the points are independent)."""
    x = ng.tensor(np.asarray(xs, dtype=np.float64), requires_grad=True)
    f(x).sum().backward()
    return x.grad.numpy()


def finite_difference(f, xs, h=1e-5):
    """The central difference (f(x + h) - f(x - h)) / 2h, computed without autograd."""
    xs = np.asarray(xs, dtype=np.float64)
    with ng.no_grad():
        plus = f(ng.tensor(xs + h)).numpy()
        minus = f(ng.tensor(xs - h)).numpy()
    return (plus - minus) / (2 * h)
