"""Recurrent layers against PyTorch: ``RNN``, ``LSTM``, ``GRU`` and their cells.

The same weights (drawn here, loaded into both libraries through ``load_state_dict``, so
that PyTorch accepts nbgrad's keys and shapes strictly) give the same outputs, final
states and gradients of every parameter, of the input and of the initial state, over
random layouts (layers, directions, batch_first, bias, lengths, batch sizes, given or
zero initial states, unbatched and non-contiguous inputs). The checks of arguments and
shapes raise PyTorch's errors; ``gradcheck`` confirms the gradients in float64 on its own.
"""

import itertools

import numpy as np
import pytest

from parity import check, check_error, check_no_warning, check_warning, grad_of, torch

import nbgrad as ng
from nbgrad.autograd import gradcheck

# name in nn, constructor keywords that select the kind, state tensors per layer
KINDS = {
    "rnn_tanh": ("RNN", {}, 1),
    "rnn_relu": ("RNN", {"nonlinearity": "relu"}, 1),
    "lstm": ("LSTM", {}, 2),
    "gru": ("GRU", {}, 1),
}
CELLS = {
    "rnn_tanh": ("RNNCell", {}, 1),
    "rnn_relu": ("RNNCell", {"nonlinearity": "relu"}, 1),
    "lstm": ("LSTMCell", {}, 2),
    "gru": ("GRUCell", {}, 1),
}


def random_weights(module, rng):
    """Values for every parameter of ``module`` (any library), by name."""
    return {name: rng.uniform(-0.6, 0.6, tuple(p.shape)) for name, p in module.state_dict().items()}


def loaded(M, cls, weights, dtype, **kwargs):
    module = getattr(M.nn, cls)(dtype=dtype, **kwargs)
    module.load_state_dict({k: M.tensor(v, dtype=dtype) for k, v in weights.items()})
    return module


def state_leaves(M, values, dtype):
    """The initial state as leaves: one tensor, or the pair ``(h_0, c_0)``."""
    tensors = tuple(M.tensor(v, dtype=dtype, requires_grad=True) for v in values)
    return tensors[0] if len(tensors) == 1 else tensors


def as_tuple(state):
    return state if isinstance(state, tuple) else (state,)


def run_and_backward(module, x, hx, seed):
    """Forward, then backward of a random linear function of the output and final states
    (the same coefficients in both libraries: drawn from ``seed`` for the shapes seen)."""
    out, final = module(x) if hx is None else module(x, hx)
    M = torch if isinstance(out, torch.Tensor) else ng
    rng = np.random.default_rng(seed)
    loss = 0
    for t in (out, *as_tuple(final)):
        loss = loss + (t * M.tensor(rng.uniform(-1, 1, tuple(t.shape)), dtype=t.dtype)).sum()
    loss.backward()
    return out, final


# -- forward and backward, random layouts -------------------------------------------------
def layer_program(kind, num_layers, bidirectional, batch_first, bias, seed, dtype_name="float32"):
    """A layer of ``kind`` in that layout, with random sizes, input and initial state."""
    cls, kwargs, n_states = KINDS[kind]
    rng = np.random.default_rng(seed)
    length, batch = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    input_size, hidden = int(rng.integers(1, 5)), int(rng.integers(1, 6))
    unbatched = rng.random() < 0.2
    non_contiguous = not unbatched and rng.random() < 0.3
    with_state = rng.random() < 0.6
    kwargs = dict(kwargs, input_size=input_size, hidden_size=hidden, num_layers=num_layers,
                  bidirectional=bidirectional, batch_first=batch_first, bias=bias)
    weights = random_weights(getattr(ng.nn, cls)(**kwargs), rng)
    shape = (batch, length) if batch_first else (length, batch)
    x = rng.normal(size=((length,) if unbatched else shape) + (input_size,))
    layers = num_layers * (2 if bidirectional else 1)
    states = [rng.normal(size=(layers,) + (() if unbatched else (batch,)) + (hidden,))
              for _ in range(n_states)]

    def program(M):
        dtype = getattr(M, dtype_name)
        module = loaded(M, cls, weights, dtype, **kwargs)
        if non_contiguous:  # the same values, laid out the other way round and transposed
            base = M.tensor(np.ascontiguousarray(x.transpose(1, 0, 2)), dtype=dtype,
                            requires_grad=True)
            inp = base.transpose(0, 1)
        else:
            base = inp = M.tensor(x, dtype=dtype, requires_grad=True)
        hx = state_leaves(M, states, dtype) if with_state else None
        out, final = run_and_backward(module, inp, hx, seed)
        return (out, final, grad_of(base),
                [grad_of(h) for h in as_tuple(hx)] if with_state else None,
                {name: grad_of(p) for name, p in module.named_parameters()})

    return program


LAYOUTS = list(itertools.product([1, 2], [False, True], [False, True], [True, False]))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
def test_layer_matches_torch(kind, layout):
    seed = 100 * list(KINDS).index(kind) + layout
    check(layer_program(kind, *LAYOUTS[layout], seed), atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_layer_matches_torch_in_float64(kind, seed):
    rng = np.random.default_rng(1000 + seed)
    layout = LAYOUTS[rng.integers(len(LAYOUTS))]
    check(layer_program(kind, *layout, seed, "float64"), rtol=1e-10, atol=1e-12)
