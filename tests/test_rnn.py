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
import nbgrad.nn.utils.rnn  # binds ng.nn.utils.rnn, as importing torch binds its own
from nbgrad.autograd import gradcheck, gradgradcheck

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


def test_empty_batch_matches_torch():
    def program(M):
        module = loaded(M, "LSTM", WEIGHTS_3_4, M.float32, input_size=3, hidden_size=4)
        x = M.zeros(5, 0, 3, requires_grad=True)
        out, (h, c) = module(x)
        (out.sum() + h.sum() + c.sum()).backward()
        return out, h, c, x.grad, module.weight_ih_l0.grad

    check(program)


WEIGHTS_3_4 = random_weights(ng.nn.LSTM(3, 4), np.random.default_rng(7))


# -- cells --------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", CELLS)
@pytest.mark.parametrize("seed", range(8))
def test_cell_matches_torch(kind, seed):
    cls, kwargs, n_states = CELLS[kind]
    rng = np.random.default_rng(seed)
    batch, input_size, hidden = int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 6))
    unbatched, with_state, bias = rng.random() < 0.3, rng.random() < 0.6, bool(seed % 2)
    kwargs = dict(kwargs, input_size=input_size, hidden_size=hidden, bias=bias)
    weights = random_weights(getattr(ng.nn, cls)(**kwargs), rng)
    lead = () if unbatched else (batch,)
    x = rng.normal(size=lead + (input_size,))
    states = [rng.normal(size=lead + (hidden,)) for _ in range(n_states)]

    def program(M):
        cell = loaded(M, cls, weights, M.float32, **kwargs)
        inp = M.tensor(x, dtype=M.float32, requires_grad=True)
        hx = state_leaves(M, states, M.float32) if with_state else None
        new = cell(inp) if hx is None else cell(inp, hx)
        rng = np.random.default_rng(seed)
        loss = sum((t * M.tensor(rng.uniform(-1, 1, tuple(t.shape)), dtype=t.dtype)).sum()
                   for t in as_tuple(new))
        loss.backward()
        return (new, grad_of(inp), [grad_of(h) for h in as_tuple(hx)] if with_state else None,
                {name: grad_of(p) for name, p in cell.named_parameters()})

    check(program, atol=1e-5)


def test_cells_unrolled_equal_the_layer():
    """A layer is its cell applied step after step, with the same weights (nbgrad alone)."""
    rng = np.random.default_rng(3)
    for kind, (cls, kwargs, _) in KINDS.items():
        layer = getattr(ng.nn, cls)(3, 4, **kwargs)
        cell = getattr(ng.nn, CELLS[kind][0])(3, 4, **CELLS[kind][1])
        cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
        x = ng.tensor(rng.normal(size=(5, 2, 3)), dtype=ng.float32)
        out, _ = layer(x)
        state = None
        for t in range(5):
            state = cell(x[t]) if state is None else cell(x[t], state)
            h = state[0] if isinstance(state, tuple) else state
            np.testing.assert_allclose(out[t].detach().numpy(), h.detach().numpy(), rtol=1e-6,
                                       atol=1e-6, err_msg=kind)


# -- gradcheck (float64, nbgrad alone) ----------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_layer_gradcheck(kind):
    cls, kwargs, n_states = KINDS[kind]
    ng.manual_seed(0)
    layer = getattr(ng.nn, cls)(2, 2, num_layers=2, bidirectional=True, dtype=ng.float64, **kwargs)
    x = ng.randn(3, 2, 2, dtype=ng.float64, requires_grad=True)
    states = tuple(ng.randn(4, 2, 2, dtype=ng.float64, requires_grad=True) for _ in range(n_states))

    def f(x, *inputs):
        out, final = layer(x, states[0] if n_states == 1 else states)
        return (out, *as_tuple(final))

    assert gradcheck(f, (x, *states, *layer.parameters()))


def test_lstm_layer_second_derivatives():
    """The LSTM layer's fused step (``ThnnFusedLstmCellBackward0``) differentiates twice."""
    ng.manual_seed(2)
    layer = ng.nn.LSTM(2, 2, dtype=ng.float64)
    x = ng.randn(3, 2, 2, dtype=ng.float64, requires_grad=True)
    h0, c0 = (ng.randn(1, 2, 2, dtype=ng.float64, requires_grad=True) for _ in range(2))

    def f(x, h0, c0, *weights):
        out, (_, c_n) = layer(x, (h0, c0))
        return out, c_n

    assert gradgradcheck(f, (x, h0, c0, *layer.parameters()))


@pytest.mark.parametrize("kind", CELLS)
def test_cell_gradcheck(kind):
    cls, kwargs, n_states = CELLS[kind]
    ng.manual_seed(1)
    cell = getattr(ng.nn, cls)(2, 3, dtype=ng.float64, **kwargs)
    x = ng.randn(2, 2, dtype=ng.float64, requires_grad=True)
    states = tuple(ng.randn(2, 3, dtype=ng.float64, requires_grad=True) for _ in range(n_states))

    def f(x, *inputs):
        return cell(x, states[0] if n_states == 1 else states)

    assert gradcheck(f, (x, *states, *cell.parameters()))


# -- parameters: names, shapes, order, initialisation, state_dict round trip ---------------
CONFIGS = [
    ("RNN", (10, 20), {}),
    ("RNN", (10, 20, 2, "relu", False, True, 0.5, True), {}),
    ("LSTM", (10, 20), {"num_layers": 2, "batch_first": True}),
    ("LSTM", (3, 5), {"num_layers": 3, "bias": False, "bidirectional": True, "dropout": 0.25}),
    ("GRU", (10, 20), {"bias": False}),
    ("GRU", (4, 6, 2), {"bidirectional": True}),
    ("RNNCell", (3, 4, False, "relu"), {}),
    ("RNNCell", (3, 4), {"nonlinearity": "tanh"}),
    ("LSTMCell", (3, 4), {"bias": False}),
    ("GRUCell", (3, 4), {}),
]


@pytest.mark.parametrize("cls,args,kwargs", CONFIGS)
def test_parameters_and_repr_are_torch_s(cls, args, kwargs):
    def program(M):
        module = getattr(M.nn, cls)(*args, **kwargs)
        return (repr(module), [(name, tuple(p.shape)) for name, p in module.named_parameters()],
                [(name, tuple(t.shape)) for name, t in module.state_dict().items()])

    check(program)


@pytest.mark.parametrize("cls,args,kwargs", [c for c in CONFIGS if "Cell" not in c[0]])
def test_all_weights_are_torch_s(cls, args, kwargs):
    check(lambda M: [[tuple(p.shape) for p in group]
                     for group in getattr(M.nn, cls)(*args, **kwargs).all_weights])


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"])
def test_initialisation_is_uniform_within_one_over_sqrt_hidden(cls):
    ng.manual_seed(0)
    module = getattr(ng.nn, cls)(30, 64)
    bound = 1 / np.sqrt(64)
    values = np.concatenate([p.detach().numpy().ravel() for p in module.parameters()])
    assert np.abs(values).max() <= bound
    assert np.abs(values).max() > 0.99 * bound  # spread over the whole interval
    assert abs(values.mean()) < 0.01 and abs(values.std() - bound / np.sqrt(3)) < 0.01
    before = module.weight_hh_l0 if hasattr(module, "weight_hh_l0") else module.weight_hh
    old = before.detach().numpy().copy()
    module.reset_parameters()
    assert not np.array_equal(old, before.detach().numpy())


@pytest.mark.parametrize("cls,args,kwargs", [c for c in CONFIGS if "Cell" not in c[0]])
def test_state_dict_round_trip_through_torch(cls, args, kwargs):
    """torch's weights into nbgrad and back give torch's outputs again, in eval mode."""
    t_module = getattr(torch.nn, cls)(*args, **kwargs).eval()
    n_module = getattr(ng.nn, cls)(*args, **kwargs).eval()
    n_module.load_state_dict({k: ng.tensor(v.numpy()) for k, v in t_module.state_dict().items()})
    back = getattr(torch.nn, cls)(*args, **kwargs).eval()
    back.load_state_dict({k: torch.tensor(v.numpy()) for k, v in n_module.state_dict().items()})
    x = np.random.default_rng(0).normal(size=(4, 2, args[0])).astype(np.float32)
    t_out = t_module(torch.tensor(x))[0].detach().numpy()
    np.testing.assert_allclose(n_module(ng.tensor(x))[0].detach().numpy(), t_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(back(torch.tensor(x))[0].detach().numpy(), t_out)


def test_dtype_and_to_apply_to_every_parameter():
    lstm = ng.nn.LSTM(2, 3, 2, dtype=ng.float64)
    assert {p.dtype for p in lstm.parameters()} == {ng.float64}
    lstm.float()
    out, (h, c) = lstm(ng.randn(4, 1, 2))
    assert out.dtype == h.dtype == c.dtype == ng.float32
    assert [p.dtype for p in lstm.all_weights[0]] == [ng.float32] * 4
    lstm.flatten_parameters()  # a no-op, kept for code that calls it


# -- errors: PyTorch's type and message ---------------------------------------------------
def _layer_call(cls, x_shape, hx_shapes=None, dtype="float32", hx_dtype="float32", **kwargs):
    def program(M):
        module = getattr(M.nn, cls)(10, 20, **kwargs)
        x = M.zeros(*x_shape, dtype=getattr(M, dtype))
        if hx_shapes is None:
            return module(x)
        hx = [M.zeros(*s, dtype=getattr(M, hx_dtype)) for s in hx_shapes]
        return module(x, hx[0] if cls != "LSTM" else tuple(hx))

    return program


LAYER_ERRORS = {
    "input size": _layer_call("RNN", (5, 3, 5)),
    "input size, batch_first": _layer_call("GRU", (3, 5, 7), batch_first=True),
    "hidden size": _layer_call("RNN", (5, 3, 10), [(1, 2, 20)]),
    "hidden size, 2 layers": _layer_call("GRU", (5, 3, 10), [(1, 3, 20)], num_layers=2),
    "hidden size, bidirectional": _layer_call("RNN", (5, 3, 10), [(1, 3, 20)], bidirectional=True),
    "hidden size, batch_first": _layer_call("GRU", (3, 5, 10), [(1, 5, 20)], batch_first=True),
    "lstm h_0 size": _layer_call("LSTM", (5, 3, 10), [(1, 3, 21), (1, 3, 20)]),
    "lstm c_0 size": _layer_call("LSTM", (5, 3, 10), [(1, 3, 20), (2, 3, 20)]),
    "lstm three states": _layer_call("LSTM", (5, 3, 10), [(1, 3, 20)] * 3),
    "lstm one state": _layer_call("LSTM", (5, 3, 10), [(1, 3, 20)]),
    "rnn 1-D input": _layer_call("RNN", (10,)),
    "gru 4-D input": _layer_call("GRU", (1, 5, 3, 10)),
    "lstm 1-D input": _layer_call("LSTM", (10,)),
    "batched input, 2-D hx": _layer_call("RNN", (5, 3, 10), [(3, 20)]),
    "unbatched input, 3-D hx": _layer_call("GRU", (5, 10), [(1, 1, 20)]),
    "lstm batched input, 2-D states": _layer_call("LSTM", (5, 3, 10), [(3, 20), (3, 20)]),
    "lstm unbatched input, 3-D states": _layer_call("LSTM", (5, 10), [(1, 1, 20), (1, 20)]),
    "unbatched hidden size": _layer_call("RNN", (5, 10), [(2, 20)]),
    "input dtype": _layer_call("LSTM", (5, 3, 10), dtype="float64"),
    "integer input": _layer_call("RNN", (5, 3, 10), dtype="int64"),
    "state dtype": _layer_call("RNN", (5, 3, 10), [(1, 3, 20)], hx_dtype="float64"),
    "empty sequence": _layer_call("LSTM", (0, 3, 10)),
    "empty sequence, batch_first": _layer_call("RNN", (3, 0, 10), batch_first=True),
}


@pytest.mark.parametrize("case", LAYER_ERRORS)
def test_layer_errors_are_torch_s(case):
    check_error(LAYER_ERRORS[case])


def _cell_call(cls, x_shape, hx_shapes=None, **kwargs):
    def program(M):
        cell = getattr(M.nn, cls)(10, 20, **kwargs)
        x = M.zeros(x_shape)
        if hx_shapes is None:
            return cell(x)
        hx = [M.zeros(*s) for s in hx_shapes]
        return cell(x, hx[0] if cls != "LSTMCell" else tuple(hx))

    return program


CELL_ERRORS = {
    "input size": _cell_call("RNNCell", (3, 5)),
    "input size, unbatched": _cell_call("GRUCell", (5,)),
    "batch size": _cell_call("GRUCell", (3, 10), [(2, 20)]),
    "hidden size": _cell_call("RNNCell", (3, 10), [(3, 21)]),
    "lstm h size": _cell_call("LSTMCell", (3, 10), [(3, 21), (3, 20)]),
    "lstm c size": _cell_call("LSTMCell", (3, 10), [(3, 20), (3, 21)]),
    "lstm c batch": _cell_call("LSTMCell", (3, 10), [(3, 20), (2, 20)]),
    "lstm three states": _cell_call("LSTMCell", (3, 10), [(3, 20)] * 3),
    "unbatched input, batched hx": _cell_call("GRUCell", (10,), [(3, 20)]),
    "3-D input": _cell_call("RNNCell", (1, 3, 10)),
    "3-D hidden": _cell_call("GRUCell", (3, 10), [(1, 3, 20)]),
    "lstm 3-D c": _cell_call("LSTMCell", (3, 10), [(3, 20), (1, 3, 20)]),
    "lstm 0-D input": _cell_call("LSTMCell", ()),
    "unknown nonlinearity": _cell_call("RNNCell", (3, 10), nonlinearity="sigmoid"),
}


@pytest.mark.parametrize("case", CELL_ERRORS)
def test_cell_errors_are_torch_s(case):
    check_error(CELL_ERRORS[case])


CONSTRUCTOR_ERRORS = {
    "input_size 0": ("LSTM", (0, 3), {}),
    "input_size float": ("GRU", (2.0, 3), {}),
    "hidden_size 0": ("RNN", (2, 0), {}),
    "hidden_size float": ("LSTM", (2, 3.0), {}),
    "num_layers 0": ("GRU", (2, 3), {"num_layers": 0}),
    "bias not bool": ("RNN", (2, 3), {"bias": 1}),
    "batch_first not bool": ("LSTM", (2, 3), {"batch_first": None}),
    "dropout above 1": ("GRU", (2, 3), {"dropout": 1.5}),
    "dropout negative": ("RNN", (2, 3), {"dropout": -0.1}),
    "dropout bool": ("LSTM", (2, 3), {"dropout": True}),
    "proj_size negative": ("LSTM", (2, 3), {"proj_size": -1}),
    "proj_size too large": ("LSTM", (2, 3), {"proj_size": 3}),
    "nonlinearity": ("RNN", (2, 3), {"nonlinearity": "sigmoid"}),
    "nonlinearity positional": ("RNN", (2, 3, 1, "gelu"), {}),
}


@pytest.mark.parametrize("case", CONSTRUCTOR_ERRORS)
def test_constructor_errors_are_torch_s(case):
    cls, args, kwargs = CONSTRUCTOR_ERRORS[case]
    check_error(lambda M: getattr(M.nn, cls)(*args, **kwargs))


def test_lstm_projections_say_they_are_not_implemented():
    with pytest.raises(NotImplementedError, match="nbgrad does not implement LSTM's proj_size"):
        ng.nn.LSTM(4, 8, proj_size=2)


# -- dropout between layers ---------------------------------------------------------------
def test_dropout_with_one_layer_warns_as_torch():
    check_warning(lambda M: M.nn.GRU(2, 3, dropout=0.5))
    check_no_warning(lambda M: M.nn.LSTM(2, 3, num_layers=2, dropout=0.5))


@pytest.mark.parametrize("kind", KINDS)
def test_dropout_one_zeroes_what_the_next_layer_reads(kind):
    """In training, ``dropout=1`` feeds zeros to every layer after the first (a deterministic
    case of dropout, so it is compared with torch, gradients included)."""
    cls, kwargs, _ = KINDS[kind]
    kwargs = dict(kwargs, input_size=3, hidden_size=4, num_layers=2, dropout=1.0)
    weights = random_weights(getattr(ng.nn, cls)(**kwargs), np.random.default_rng(5))
    x = np.random.default_rng(6).normal(size=(3, 2, 3))

    def program(M):
        module = loaded(M, cls, weights, M.float32, **kwargs)
        inp = M.tensor(x, dtype=M.float32, requires_grad=True)
        out, final = run_and_backward(module, inp, None, 0)
        return out, final, inp.grad, {name: grad_of(p) for name, p in module.named_parameters()}

    check(program, atol=1e-5)


def identity_relu_rnn(p):
    """Two ReLU layers that copy their (non-negative) input: the second layer's output is
    then exactly the dropout of the first layer's."""
    rnn = ng.nn.RNN(50, 50, num_layers=2, nonlinearity="relu", dropout=p, dtype=ng.float64)
    with ng.no_grad():
        for name, param in rnn.named_parameters():
            param.copy_(ng.eye(50, dtype=ng.float64) if "weight_ih" in name else param * 0)
    return rnn


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_zeroes_a_fraction_p_and_scales_the_rest(p):
    ng.manual_seed(0)
    rnn = identity_relu_rnn(p)
    x = ng.rand(40, 20, 50, dtype=ng.float64) + 0.5
    out, h_n = rnn(x)
    ratio = (out / x).detach().numpy()
    dropped = ratio == 0
    assert abs(dropped.mean() - p) < 0.01
    np.testing.assert_allclose(ratio[~dropped], 1 / (1 - p))
    np.testing.assert_array_equal(h_n[0].detach().numpy(), x[-1].detach().numpy())  # layer 1: none
    again, _ = rnn(x)
    assert not np.array_equal(again.detach().numpy(), out.detach().numpy())  # a new mask each call
    rnn.eval()
    np.testing.assert_array_equal(rnn(x)[0].detach().numpy(), x.detach().numpy())  # none in eval


# -- the state carried across iterations (truncated backpropagation through time) ---------
@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("detach", [False, True])
def test_carrying_the_state_needs_detach(cls, detach):
    """Without ``detach`` the second backward runs into the first chunk's freed graph."""
    weights = random_weights(getattr(ng.nn, cls)(3, 4), np.random.default_rng(8))
    x = np.random.default_rng(9).normal(size=(6, 2, 3))

    def program(M):
        module = loaded(M, cls, weights, M.float32, input_size=3, hidden_size=4)
        inputs = M.tensor(x, dtype=M.float32)
        state = None
        for chunk in (inputs[:3], inputs[3:]):
            if detach and state is not None:
                state = tuple(s.detach() for s in state) if cls == "LSTM" else state.detach()
            out, state = module(chunk) if state is None else module(chunk, state)
            loss = (out ** 2).mean()
            loss.backward()
        return loss, grad_of(module.weight_hh_l0)

    if detach:
        check(program)
    else:
        check_error(program)


# -- the graph ----------------------------------------------------------------------------
@pytest.mark.parametrize("cls,kwargs", [("RNN", {}), ("GRU", {}), ("RNN", {"bidirectional": True}),
                                        ("GRU", {"num_layers": 2, "bidirectional": True})])
def test_layer_grad_fn_names_where_torch_composes_too(cls, kwargs):
    """On the CPU PyTorch builds RNN and GRU from operations as well, and the last ones
    match (its LSTM is one fused ``MkldnnRnnLayerBackward0`` node, and batch_first adds a
    ``TransposeBackward1``: those differ)."""
    def program(M):
        out, h_n = getattr(M.nn, cls)(3, 4, **kwargs)(M.randn(5, 2, 3))
        return type(out.grad_fn).__name__, type(h_n.grad_fn).__name__

    check(program)


@pytest.mark.parametrize("cls", ["RNNCell", "GRUCell", "LSTMCell"])
def test_cell_grad_fn_names_are_torch_s(cls):
    def program(M):
        out = getattr(M.nn, cls)(3, 4)(M.randn(2, 3))
        return [type(t.grad_fn).__name__ for t in as_tuple(out)]

    check(program)


# -- nn.utils.rnn.pad_sequence ------------------------------------------------------------
def pad_program(lengths, trailing=(2,), dtypes=None, **kwargs):
    rng = np.random.default_rng(len(lengths))
    values = [rng.normal(size=(n, *trailing)) for n in lengths]
    dtypes = dtypes or ["float32"] * len(values)

    def program(M):
        seqs = [M.tensor(v, dtype=getattr(M, d), requires_grad=True) for v, d in zip(values, dtypes)]
        out = M.nn.utils.rnn.pad_sequence(seqs, **kwargs)
        coefficients = np.random.default_rng(0).uniform(size=tuple(out.shape))
        (out * M.tensor(coefficients, dtype=out.dtype)).sum().backward()
        return out, type(out.grad_fn).__name__, [grad_of(s) for s in seqs]

    return program


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"padding_value": -1.5},
                                    {"padding_side": "left"},
                                    {"batch_first": True, "padding_side": "left"}])
@pytest.mark.parametrize("lengths", [(3, 1, 2), (1,), (2, 2), (0, 2)])
def test_pad_sequence_matches_torch(lengths, kwargs):
    check(pad_program(lengths, **kwargs))


def test_pad_sequence_trailing_shapes_and_dtypes_match_torch():
    check(pad_program((2, 3), trailing=(2, 3)))
    check(pad_program((2, 3), trailing=()))
    check(pad_program((2, 1), dtypes=["float64", "float32"]))  # the first sequence's dtype


PAD_ERRORS = {
    "empty list": lambda M: M.nn.utils.rnn.pad_sequence([]),
    "not iterable": lambda M: M.nn.utils.rnn.pad_sequence(3),
    "padding side": lambda M: M.nn.utils.rnn.pad_sequence([M.zeros(2)], padding_side="up"),
    "trailing sizes": lambda M: M.nn.utils.rnn.pad_sequence([M.zeros(2, 3), M.zeros(2, 4)]),
}


@pytest.mark.parametrize("case", PAD_ERRORS)
def test_pad_sequence_errors_are_torch_s(case):
    check_error(PAD_ERRORS[case])


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_input_projection_is_one_product_per_layer_and_direction(cls):
    """Only ``h W_hh^T`` is computed step by step: ``x W_ih^T`` is one product for the whole
    sequence, per layer and direction."""
    length, layers, directions = 6, 2, 2
    out, _ = getattr(ng.nn, cls)(3, 4, num_layers=layers, bidirectional=True)(ng.randn(length, 2, 3))
    seen, stack_, products = set(), [out.grad_fn], 0
    while stack_:
        node = stack_.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        products += type(node).__name__ in ("AddmmBackward0", "MmBackward0", "MatmulBackward0")
        stack_.extend(fn for fn, _ in node.next_functions)
    assert products == layers * directions * (length + 1)


def test_a_small_sequence_model_trains_as_in_torch():
    """An LSTM + Linear predicting the next value of a sine wave, 20 Adam steps from the
    same weights: the losses follow PyTorch's."""
    weights = random_weights(ng.nn.LSTM(1, 8, batch_first=True), np.random.default_rng(11))
    head = np.random.default_rng(12).uniform(-0.3, 0.3, (1, 8))
    wave = np.sin(np.linspace(0, 6 * np.pi, 41))
    x, y = wave[:-1].reshape(2, 20, 1), wave[1:].reshape(2, 20, 1)

    def program(M):
        lstm = loaded(M, "LSTM", weights, M.float32, input_size=1, hidden_size=8, batch_first=True)
        fc = M.nn.Linear(8, 1, bias=False)
        with M.no_grad():
            fc.weight.copy_(M.tensor(head, dtype=M.float32))
        opt = M.optim.Adam([*lstm.parameters(), *fc.parameters()], lr=0.02)
        inputs, targets = M.tensor(x, dtype=M.float32), M.tensor(y, dtype=M.float32)
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = M.nn.functional.mse_loss(fc(lstm(inputs)[0]), targets)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    _, n_losses = check(program, rtol=1e-3, atol=1e-5)
    assert n_losses[-1] < 0.5 * n_losses[0]
