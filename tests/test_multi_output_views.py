"""Changing an output of ``unbind`` (or a row met while iterating) in place, as PyTorch allows it.

PyTorch's rule: a piece of a multi-output view may be changed in place when it is outside
any graph (its tensor needs no gradient, or it was made under ``no_grad`` and is changed
there). A piece that is in a graph may not: the one node behind all the pieces cannot be
rewritten for one of them. Every combination below runs on both libraries; the results,
or the errors' messages, must be the same.
"""

import itertools
import zlib

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: the parity tests need `pip install torch==2.13.0`"
)

import nbgrad as ng  # noqa: E402

INPLACE = {
    "add_": lambda piece: piece.add_(1),
    "iadd": lambda piece: piece.__iadd__(2),
    "mul_": lambda piece: piece.mul_(3),
    "zero_": lambda piece: piece.zero_(),
    "fill_": lambda piece: piece.fill_(5),
    "setitem": lambda piece: piece.__setitem__(0, 7.0),  # through a view of the piece
}
SOURCES = {
    "leaf_without_grad": lambda M, shape: M.arange(float(np.prod(shape))).reshape(shape),
    "leaf_with_grad": lambda M, shape: M.ones(shape, requires_grad=True),
    "non_leaf": lambda M, shape: (M.ones(shape, requires_grad=True) * 2),
}
GRAD_MODES = {  # where the pieces are made, where they are changed
    "made_and_changed_with_grad": (True, True),
    "made_and_changed_under_no_grad": (False, False),
    "made_with_grad_changed_under_no_grad": (True, False),
    "made_under_no_grad_changed_with_grad": (False, True),
}


def run(M, source, grad_modes, change, shape, dim, index):
    made_with_grad, changed_with_grad = grad_modes
    base = SOURCES[source](M, shape)
    with M.set_grad_enabled(made_with_grad):
        pieces = base.unbind(dim)
    try:
        with M.set_grad_enabled(changed_with_grad):
            INPLACE[change](pieces[index])
    except RuntimeError as error:
        return "error", str(error).splitlines()[0]
    return "values", base.detach().numpy().tolist(), [p.detach().numpy().tolist() for p in pieces]


CASES = list(itertools.product(SOURCES, GRAD_MODES, INPLACE))


@pytest.mark.parametrize("source, grad_modes, change", CASES)
def test_changing_an_unbound_piece_in_place(source, grad_modes, change):
    rng = np.random.default_rng(zlib.crc32(f"{source} {grad_modes} {change}".encode()))
    ndim = int(rng.integers(2, 4))  # pieces of at least one dimension, for piece[0]
    shape = tuple(int(s) for s in rng.integers(1, 4, size=ndim))
    dim = int(rng.integers(-ndim, ndim))
    index = int(rng.integers(0, shape[dim]))
    args = (source, GRAD_MODES[grad_modes], change, shape, dim, index)
    assert run(ng, *args) == run(torch, *args), f"shape {shape}, dim {dim}, piece {index}"


@pytest.mark.parametrize("M", [torch, ng], ids=["torch", "nbgrad"])
def test_rows_met_while_iterating_can_be_changed_in_place(M):
    x = M.zeros(2, 3)
    for row in x:
        row += 1
    assert x.numpy().tolist() == [[1.0] * 3] * 2
    assert M.ones(3, 2).unbind(0)[1].add_(1).tolist() == [2.0, 2.0]


def test_a_piece_in_a_graph_names_its_own_output_number():
    pieces = (ng.ones(4, 2, requires_grad=True) * 1).unbind(0)
    with pytest.raises(RuntimeError, match="^Output 2 of Unbind is a view and is being modified"):
        pieces[2].add_(1)
