"""Convolution against PyTorch: ``F.conv1d``/``conv2d``, ``F.unfold``/``fold`` and the
``nn.Conv1d``/``Conv2d`` layers.

Forward values and the gradients of input, weight and bias are compared with PyTorch's
from the same numbers over a randomised grid of shapes, strides, paddings, dilations and
groups (float32 to 1e-5); gradients by ``gradcheck`` in float64; second derivatives
against PyTorch's; PyTorch's errors, type and message.
"""

import math

import numpy as np
import pytest
from parity import assert_same, check, check_error, grad_of, torch

import nbgrad as ng
from nbgrad import nn


def conv_case(seed, dims):
    """A random valid convolution: shapes and keyword arguments."""
    rng = np.random.default_rng(seed)
    groups = int(rng.choice([1, 1, 2, 3]))
    cin, cout = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 4))
    kernel = tuple(int(k) for k in rng.integers(1, 4, dims))
    stride = tuple(int(s) for s in rng.integers(1, 4, dims))
    dilation = tuple(int(d) for d in rng.integers(1, 3, dims))
    padding = tuple(int(p) for p in rng.integers(0, 3, dims))
    size = tuple(int(d * (k - 1) + 1 + rng.integers(0, 6)) for k, d in zip(kernel, dilation))
    n = int(rng.integers(1, 4))
    kwargs = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    if rng.random() < 0.3:  # the int forms too
        kwargs = {k: (v[0] if isinstance(v, tuple) else v) for k, v in kwargs.items()}
        kernel, size = (kernel[0],) * dims, (max(size),) * dims
    shapes = [(n, cin, *size), (cout, cin // groups, *kernel), (cout,)]
    return shapes, kwargs


def arrays(shapes, seed, dtype=np.float32):
    rng = np.random.default_rng(seed + 1000)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def forward_backward(function, values, seed=0, **kwargs):
    """``program(M)``: the result, its grad_fn name and every input's gradient."""
    def program(M):
        leaves = [M.tensor(v, requires_grad=True) for v in values]
        out = getattr(M.nn.functional, function)(*leaves, **kwargs)
        grad = np.random.default_rng(seed).standard_normal(tuple(out.shape)).astype(
            values[0].dtype)
        out.backward(M.tensor(grad))
        return [out.detach(), type(out.grad_fn).__name__, *[grad_of(t) for t in leaves]]
    return program


@pytest.mark.parametrize("seed", range(30))
def test_conv2d_forward_and_backward_match_torch(seed):
    shapes, kwargs = conv_case(seed, 2)
    check(forward_backward("conv2d", arrays(shapes, seed), seed, **kwargs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", range(20))
def test_conv1d_forward_and_backward_match_torch(seed):
    shapes, kwargs = conv_case(seed, 1)
    check(forward_backward("conv1d", arrays(shapes, seed), seed, **kwargs), rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")  # PyTorch's own
@pytest.mark.parametrize("padding", ["same", "valid"])
@pytest.mark.parametrize("kernel,dilation", [(3, 1), (4, 1), (2, 3), (3, 3)])
def test_padding_strings(padding, kernel, dilation):
    values = arrays([(2, 3, 9, 8), (4, 3, kernel, kernel), (4,)], kernel)
    check(forward_backward("conv2d", values, padding=padding, dilation=dilation), rtol=1e-5,
          atol=1e-5)
    values = arrays([(2, 3, 9), (4, 3, kernel), (4,)], kernel)
    check(forward_backward("conv1d", values, padding=padding, dilation=dilation), rtol=1e-5,
          atol=1e-5)


@pytest.mark.parametrize("function,shapes", [
    ("conv2d", [(3, 6, 5), (4, 3, 3, 2), (4,)]),
    ("conv1d", [(3, 6), (4, 3, 2), (4,)]),
])
def test_unbatched_input_is_squeezed_as_in_torch(function, shapes):
    check(forward_backward(function, arrays(shapes, 3), padding=1), rtol=1e-5, atol=1e-5)


def test_without_bias_the_node_still_has_three_edges():
    def program(M):
        x = M.randn(2, 3, 5, 5, requires_grad=True)
        w = M.randn(4, 3, 3, 3, requires_grad=True)
        fn = M.nn.functional.conv2d(x, w).grad_fn
        return [type(fn).__name__, len(fn.next_functions), fn.next_functions[2][0] is None]
    check(program)


def test_non_contiguous_input_and_weight():
    x, w = arrays([(6, 5, 2, 3), (3, 2, 4, 2)], 5)

    def program(M):
        xt = M.tensor(x, requires_grad=True)
        wt = M.tensor(w, requires_grad=True)
        out = M.nn.functional.conv2d(xt.permute(2, 3, 0, 1), wt.transpose(0, 1), stride=(1, 2),
                                     padding=(1, 0))
        (out * out).sum().backward()
        return [out.detach(), out.is_contiguous(), grad_of(xt), grad_of(wt)]
    check(program, rtol=1e-5, atol=1e-4)


def test_dtypes_float64_and_integers_keep_their_dtype():
    for dtype in (np.float64, np.int32, np.int64):
        x = (np.arange(2 * 3 * 5 * 4) % 7 - 3).reshape(2, 3, 5, 4).astype(dtype)
        w = (np.arange(4 * 3 * 2 * 2) % 5 - 2).reshape(4, 3, 2, 2).astype(dtype)
        check(lambda M, x=x, w=w: M.nn.functional.conv2d(M.tensor(x), M.tensor(w), stride=2,
                                                         padding=1))


def test_empty_batch():
    def program(M):
        x = M.zeros(0, 3, 5, 5, requires_grad=True)
        w = M.ones(4, 3, 3, 3, requires_grad=True)
        out = M.nn.functional.conv2d(x, w, padding=1)
        out.sum().backward()
        return [out.detach(), grad_of(x), grad_of(w)]
    check(program)


@pytest.mark.parametrize("function,shapes,kwargs", [
    ("conv2d", [(2, 4, 5, 4), (6, 2, 3, 2), (6,)], {"stride": (2, 1), "padding": 1, "dilation": (1, 2),
                                                        "groups": 2}),
    ("conv1d", [(2, 3, 7), (2, 3, 3), (2,)], {"stride": 2, "padding": 2, "dilation": 2}),
])
def test_gradcheck_float64(function, shapes, kwargs):
    leaves = [ng.tensor(v, requires_grad=True) for v in arrays(shapes, 7, np.float64)]
    fn = getattr(nn.functional, function)
    assert ng.autograd.gradcheck(lambda *t: fn(*t, **kwargs), tuple(leaves))


def test_unfold_and_fold_gradcheck_float64():
    x = ng.tensor(arrays([(2, 2, 5, 4)], 8, np.float64)[0], requires_grad=True)
    assert ng.autograd.gradcheck(
        lambda t: nn.functional.unfold(t, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), (x,))
    cols = ng.tensor(arrays([(2, 8, 21)], 9, np.float64)[0], requires_grad=True)
    assert ng.autograd.gradcheck(
        lambda t: nn.functional.fold(t, (5, 6), 2, padding=1, stride=(2, 1)), (cols,))


def second_order(function, values, **kwargs):
    """``program(M)``: the gradients of the squared first gradients (double backward)."""
    def program(M):
        leaves = [M.tensor(v, requires_grad=True) for v in values]
        out = getattr(M.nn.functional, function)(*leaves, **kwargs)
        grad_out = M.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)),
                            requires_grad=True)
        firsts = M.autograd.grad(out, leaves, grad_out, create_graph=True)
        total = sum((g * g).sum() for g in firsts)
        seconds = M.autograd.grad(total, leaves + [grad_out], allow_unused=True)
        return [M.zeros(()) if s is None else s for s in seconds]
    return program


@pytest.mark.parametrize("function,shapes,kwargs", [
    ("conv2d", [(2, 4, 5, 4), (6, 2, 3, 2), (6,)], {"stride": 2, "padding": 1, "groups": 2}),
    ("conv1d", [(2, 3, 7), (2, 3, 3), (2,)], {"padding": "same", "dilation": 2}),
])
def test_double_backward_matches_torch(function, shapes, kwargs):
    values = arrays(shapes, 11, np.float64)
    expected = second_order(function, values, **kwargs)(torch)
    got = second_order(function, values, **kwargs)(ng)
    for t, n in zip(expected[:-1], got[:-1]):
        np.testing.assert_allclose(n.numpy(), t.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[-1].numpy(), expected[-1].numpy(), rtol=1e-10, atol=1e-10)


def test_fast_path_and_formula_agree_on_groups_and_strides():
    """``fast_apply`` (batch-last arrays) and ``apply`` (unfold, fold, matmul) are two
    writings of one formula."""
    x, w, b = (ng.tensor(v, requires_grad=True)
               for v in arrays([(3, 6, 7, 5), (4, 3, 3, 2), (4,)], 12, np.float64))
    out = nn.functional.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
    grad = ng.tensor(np.random.default_rng(0).standard_normal(tuple(out.shape)))
    fast = ng.autograd.grad(out, (x, w, b), grad, retain_graph=True)
    formula = ng.autograd.grad(out, (x, w, b), grad, create_graph=True)
    for a, f in zip(fast, formula):
        np.testing.assert_allclose(a.numpy(), f.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("function,shapes,kwargs", [
    ("unfold", [(2, 3, 6, 5)], {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": 2}),
    ("unfold", [(3, 4, 4)], {"kernel_size": 2}),
    ("fold", [(2, 12, 20)], {"output_size": (4, 5), "kernel_size": 2, "padding": (1, 0)}),
    ("fold", [(12, 12)], {"output_size": (5, 6), "kernel_size": (2, 3), "dilation": (2, 1)}),
])
def test_unfold_and_fold_match_torch(function, shapes, kwargs):
    check(forward_backward(function, arrays(shapes, 13), **kwargs), rtol=1e-5, atol=1e-5)


X4, W4 = np.ones((2, 4, 5, 5), np.float32), np.ones((6, 4, 3, 3), np.float32)

ERRORS = {
    "input 2-d": lambda M: M.nn.functional.conv2d(M.tensor(X4[0, 0]), M.tensor(W4)),
    "conv1d input 4-d": lambda M: M.nn.functional.conv1d(M.tensor(X4), M.tensor(W4[:, :, 0])),
    "channels": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4[:, :2])),
    "kernel too large": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.ones(6, 4, 7, 7)),
    "dilated kernel too large": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4),
                                                                dilation=3),
    "stride of 3 values": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4),
                                                           stride=(1, 1, 1)),
    "padding of 3 values": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4),
                                                            padding=(1, 2, 3)),
    "weight of other dims": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4[..., 0])),
    "zero stride": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), stride=0),
    "negative padding": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), padding=-1),
    "zero dilation": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), dilation=0),
    "zero groups": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), groups=0),
    "groups and channels": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), groups=3),
    "groups and weight": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.ones(5, 2, 3, 3),
                                                          groups=2),
    "bias size": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), M.ones(5)),
    "bias 2-d": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), M.ones(6, 1)),
    "weight dtype": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4).double()),
    "bias dtype": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4),
                                                   M.ones(6, dtype=M.float64)),
    "same and stride": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4),
                                                        padding="same", stride=2),
    "unknown padding string": lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4),
                                                               padding="full"),
    "unfold of 5-d": lambda M: M.nn.functional.unfold(M.ones(3, 4, 5, 6, 7), 2),
    "unfold kernel too large": lambda M: M.nn.functional.unfold(M.ones(2, 3, 4, 4), 5),
    "unfold zero kernel": lambda M: M.nn.functional.unfold(M.ones(2, 3, 4, 4), 0),
    "unfold negative padding": lambda M: M.nn.functional.unfold(M.ones(2, 3, 4, 4), 2,
                                                                padding=-1),
    "fold of 4-d": lambda M: M.nn.functional.fold(M.ones(2, 3, 4, 5), (4, 5), 2),
    "fold blocks": lambda M: M.nn.functional.fold(M.ones(12, 20), (5, 6), (2, 3), (2, 1)),
    "fold channels": lambda M: M.nn.functional.fold(M.ones(2, 7, 20), (5, 6), 2),
    "layer groups": lambda M: M.nn.Conv2d(4, 6, 3, groups=4),
    "layer zero groups": lambda M: M.nn.Conv2d(4, 6, 3, groups=0),
    "layer in channels": lambda M: M.nn.Conv2d(3, 6, 3, groups=2),
    "layer same and stride": lambda M: M.nn.Conv2d(4, 6, 3, padding="same", stride=2),
    "layer reflect too wide": lambda M: M.nn.Conv2d(4, 6, 3, padding=5,
                                                    padding_mode="reflect")(M.tensor(X4)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_torchs(name):
    check_error(ERRORS[name])


def test_type_errors_for_what_is_not_a_tensor():
    check_error(lambda M: M.nn.functional.conv2d(M.tensor(X4), 3), key="")
    check_error(lambda M: M.nn.functional.conv2d(M.tensor(X4), M.tensor(W4), padding=1.5), key="")


def test_unknown_padding_mode_is_a_value_error():
    check_error(lambda M: M.nn.Conv2d(4, 6, 3, padding_mode="mirror"),
                key="padding_mode must be one of")


# -- the layers --------------------------------------------------------------------------------
LAYERS = [
    ("Conv2d", (4, 6, 3), {}),
    ("Conv2d", (4, 6, (3, 2)), {"stride": 2, "padding": (1, 0), "dilation": (2, 1), "groups": 2,
                                    "bias": False}),
    ("Conv2d", (4, 6, 3), {"padding": "same", "dilation": 2, "padding_mode": "reflect"}),
    ("Conv2d", (4, 6, 4), {"padding": "same", "padding_mode": "circular"}),
    ("Conv2d", (4, 6, 3), {"padding": 2, "padding_mode": "replicate"}),
    ("Conv2d", (4, 6, 3), {"padding": "valid"}),
    ("Conv1d", (4, 6, 3), {"stride": 2, "padding": 1, "padding_mode": "circular"}),
    ("Conv1d", (4, 2, 5), {"padding": "same", "groups": 2, "padding_mode": "reflect"}),
]


@pytest.mark.parametrize("name,args,kwargs", LAYERS)
def test_layers_match_torch_from_the_same_weights(name, args, kwargs):
    rng = np.random.default_rng(len(str(kwargs)))
    layer = getattr(torch.nn, name)(*args, **kwargs)
    weights = [p.detach().numpy().copy() for p in layer.parameters()]
    x = rng.standard_normal((2, 4, 7, 6)[:3 if name == "Conv1d" else 4]).astype(np.float32)

    def program(M):
        module = getattr(M.nn, name)(*args, **kwargs)
        with M.no_grad():
            for p, w in zip(module.parameters(), weights):
                p.copy_(M.tensor(w))
        xt = M.tensor(x, requires_grad=True)
        out = module(xt)
        (out * out).sum().backward()
        return [repr(module), out.detach(), grad_of(xt),
                *[grad_of(p) for p in module.parameters()],
                [(k, tuple(v.shape)) for k, v in module.state_dict().items()]]
    check(program, rtol=1e-5, atol=1e-4)


def test_layer_attributes_are_torchs():
    def program(M):
        layer = M.nn.Conv2d(4, 6, 3, stride=(2, 1), padding=1, groups=2)
        return [layer.in_channels, layer.out_channels, layer.kernel_size, layer.stride,
                layer.padding, layer.dilation, layer.groups, layer.padding_mode,
                layer.transposed, layer.output_padding, tuple(layer.weight.shape),
                tuple(layer.bias.shape)]
    check(program)


@pytest.mark.parametrize("name,args", [("Conv2d", (6, 8, (3, 2))), ("Conv1d", (4, 6, 5))])
def test_init_is_torchs_uniform(name, args):
    """kaiming_uniform_(a=sqrt(5)) for the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for
    the bias: both on [-1/sqrt(fan_in), 1/sqrt(fan_in)], spread as a uniform is."""
    ng.manual_seed(0)
    layer = getattr(nn, name)(*args, groups=2)
    fan_in = args[0] // 2 * math.prod(layer.kernel_size)
    bound = 1 / math.sqrt(fan_in)
    for p in (layer.weight, layer.bias):
        values = p.detach().numpy()
        assert np.abs(values).max() <= bound
    w = layer.weight.detach().numpy()
    assert abs(w.std() - bound / math.sqrt(3)) < 0.15 * bound
    assert layer.weight.requires_grad and layer.weight.is_leaf


def test_a_small_cnn_trains_as_torchs():
    """Two SGD steps of conv-relu-pool-linear from the same weights: the same losses."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 3, 8)
    net = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                              torch.nn.Linear(64, 3))
    weights = [p.detach().numpy().copy() for p in net.parameters()]

    def program(M):
        model = M.nn.Sequential(M.nn.Conv2d(1, 4, 3, padding=1), M.nn.ReLU(), M.nn.MaxPool2d(2),
                                M.nn.Flatten(), M.nn.Linear(64, 3))
        with M.no_grad():
            for p, w in zip(model.parameters(), weights):
                p.copy_(M.tensor(w))
        opt = M.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for _ in range(3):
            loss = M.nn.functional.cross_entropy(model(M.tensor(x)), M.tensor(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return [losses, *[p.detach() for p in model.parameters()]]
    expected, got = program(torch), program(ng)
    assert_same(expected, got, rtol=1e-5, atol=1e-5)
