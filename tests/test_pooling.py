"""Pooling against PyTorch: ``F.max_pool1d/2d`` (and their indices), ``F.avg_pool1d/2d``,
the adaptive pools, and their layers.

Values, indices, ``grad_fn`` names and input gradients are compared with PyTorch's over
randomised windows (kernel, stride, padding, dilation, ``ceil_mode``,
``count_include_pad``); ties, NaN and ``-inf``; integer dtypes; gradients by
``gradcheck`` in float64 and second derivatives against PyTorch's; PyTorch's errors.
"""

import numpy as np
import pytest
from parity import check, check_error, grad_of, torch

import nbgrad as ng
from nbgrad import nn


def program_of(function, x, *args, seed=0, **kwargs):
    """``program(M)``: the result (and indices), its grad_fn name and the input's gradient."""
    def program(M):
        xt = M.tensor(x, requires_grad=True)
        result = getattr(M.nn.functional, function)(xt, *args, **kwargs)
        out = result[0] if isinstance(result, tuple) else result
        grad = np.random.default_rng(seed).standard_normal(tuple(out.shape)).astype(x.dtype)
        out.backward(M.tensor(grad))
        extra = [result[1]] if isinstance(result, tuple) else []
        return [out.detach(), *extra, type(out.grad_fn).__name__, grad_of(xt)]
    return program


def pool_case(seed, dims, dilation=True):
    """A random valid pool: the input and keyword arguments."""
    rng = np.random.default_rng(seed)
    kernel = tuple(int(k) for k in rng.integers(1, 5, dims))
    dil = tuple(int(d) for d in rng.integers(1, 3, dims)) if dilation else (1,) * dims
    padding = tuple(int(rng.integers(0, k // 2 + 1)) for k in kernel)
    stride = tuple(int(s) for s in rng.integers(1, 4, dims))
    size = tuple(int((k - 1) * d + 1 + rng.integers(0, 7)) for k, d in zip(kernel, dil))
    batch = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) if rng.random() < 0.8 else (2,)
    x = rng.standard_normal((*batch, *size)).astype(np.float32)
    kwargs = {"kernel_size": kernel, "stride": stride, "padding": padding,
              "ceil_mode": bool(rng.random() < 0.5)}
    if dilation:
        kwargs["dilation"] = dil
    if rng.random() < 0.2:
        kwargs.pop("stride")  # the default: the kernel
    return x, kwargs


@pytest.mark.parametrize("seed", range(30))
def test_max_pool2d_matches_torch(seed):
    x, kwargs = pool_case(seed, 2)
    check(program_of("max_pool2d", x, return_indices=True, **kwargs))


@pytest.mark.parametrize("seed", range(15))
def test_max_pool1d_matches_torch(seed):
    x, kwargs = pool_case(seed, 1)
    check(program_of("max_pool1d", x, return_indices=True, **kwargs))


@pytest.mark.parametrize("seed", range(30))
def test_avg_pool2d_matches_torch(seed):
    x, kwargs = pool_case(seed, 2, dilation=False)
    rng = np.random.default_rng(seed)
    kwargs["count_include_pad"] = bool(rng.random() < 0.5)
    if rng.random() < 0.2:
        kwargs["divisor_override"] = int(rng.integers(1, 5))
    check(program_of("avg_pool2d", x, **kwargs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(15))
def test_avg_pool1d_matches_torch(seed):
    x, kwargs = pool_case(seed, 1, dilation=False)
    kwargs["count_include_pad"] = seed % 2 == 0
    check(program_of("avg_pool1d", x, **kwargs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("output_size", [(3, 4), (1, 1), 1, 5, (None, 2), (9, 2), (7, 6)])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 7, 6)])
def test_adaptive_pools_2d_match_torch(output_size, shape):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    check(program_of("adaptive_avg_pool2d", x, output_size), rtol=1e-5, atol=1e-6)
    check(program_of("adaptive_max_pool2d", x, output_size, return_indices=True))


@pytest.mark.parametrize("output_size", [1, 3, 4, 7, 10])
@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 7)])
def test_adaptive_pools_1d_match_torch(output_size, shape):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    check(program_of("adaptive_avg_pool1d", x, output_size), rtol=1e-5, atol=1e-6)
    check(program_of("adaptive_max_pool1d", x, output_size, return_indices=True))


def test_ties_nan_and_minus_inf_pick_torchs_element():
    nan, inf = float("nan"), float("inf")
    planes = [
        np.ones((1, 1, 4, 4), np.float32),  # ties: the first maximum
        np.array([[[[nan, 1, nan, 2], [2, nan, 3, 3], [0, 0, 0, 0], [nan, 0, 0, nan]]]],
                 np.float32),  # NaN is the maximum: the last NaN
        np.full((1, 1, 3, 3), -inf, np.float32),  # with padding: the first element inside
    ]
    for x in planes:
        check(program_of("max_pool2d", x, 3, 1, 1, return_indices=True))
        check(program_of("max_pool2d", x, 2, return_indices=True))
        check(program_of("adaptive_max_pool2d", x, 2, return_indices=True))


def test_overlapping_windows_add_their_gradients():
    x = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6) % 5
    check(program_of("max_pool2d", x, 3, 1, return_indices=True))
    check(program_of("avg_pool2d", x, 3, 1, 1))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64, np.float16])
def test_max_pool_keeps_the_dtype(dtype):
    x = (np.arange(2 * 3 * 5 * 4) * 7 % 11 - 5).reshape(2, 3, 5, 4).astype(dtype)
    check(lambda M: list(M.nn.functional.max_pool2d(M.tensor(x), 2, 1, 1, return_indices=True)))


def test_avg_pool_of_integers_divides_as_torch():
    x = (np.arange(2 * 3 * 5 * 4) * 7 % 11 - 5).reshape(2, 3, 5, 4).astype(np.int64)
    check(lambda M: M.nn.functional.avg_pool2d(M.tensor(x), 2, 1, 1))
    check(lambda M: M.nn.functional.avg_pool2d(M.tensor(x), 3, 2, 1, count_include_pad=False))


def test_non_contiguous_input_and_empty_batch():
    x = np.random.default_rng(3).standard_normal((7, 6, 2, 3)).astype(np.float32)

    def program(M):
        xt = M.tensor(x, requires_grad=True)
        t = xt.permute(2, 3, 0, 1)
        outs = [M.nn.functional.max_pool2d(t, 2), M.nn.functional.avg_pool2d(t, 3, 2, 1),
                M.nn.functional.adaptive_avg_pool2d(t, (2, 4)),
                M.nn.functional.adaptive_max_pool2d(t, 3)]
        sum(o.sum() for o in outs).backward()
        empty = M.zeros(0, 2, 4, 4, requires_grad=True)
        e = M.nn.functional.max_pool2d(empty, 2) + M.nn.functional.avg_pool2d(empty, 2)
        e.sum().backward()
        return [*[o.detach() for o in outs], grad_of(xt), e.detach(), grad_of(empty)]
    check(program, rtol=1e-5, atol=1e-5)


GRADCHECK = {
    "max_pool2d": lambda t: nn.functional.max_pool2d(t, 3, 2, 1, dilation=(1, 2), ceil_mode=True),
    "max_pool1d": lambda t: nn.functional.max_pool1d(t[0], 2, 1),
    "avg_pool2d": lambda t: nn.functional.avg_pool2d(t, 3, 2, 1, ceil_mode=True,
                                                     count_include_pad=False),
    "avg_pool1d": lambda t: nn.functional.avg_pool1d(t[0], 3, 2, 1),
    "adaptive_avg_pool2d": lambda t: nn.functional.adaptive_avg_pool2d(t, (4, 3)),
    "adaptive_max_pool2d": lambda t: nn.functional.adaptive_max_pool2d(t, (4, 3)),
    "adaptive_avg_pool1d": lambda t: nn.functional.adaptive_avg_pool1d(t[0], 4),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck_float64(name):
    # distinct values, far apart, so that no finite difference changes which is the maximum
    values = np.random.default_rng(5).permutation(2 * 3 * 7 * 5).reshape(2, 3, 7, 5) / 10.0
    x = ng.tensor(values, requires_grad=True)
    assert ng.autograd.gradcheck(GRADCHECK[name], (x,))


@pytest.mark.parametrize("function,args,kwargs", [
    ("max_pool2d", (3, 2, 1), {}),
    ("avg_pool2d", (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    ("adaptive_avg_pool2d", ((4, 3),), {}),
    ("adaptive_max_pool2d", ((4, 3),), {}),
])
def test_double_backward_matches_torch(function, args, kwargs):
    values = np.random.default_rng(6).permutation(2 * 3 * 7 * 5).reshape(2, 3, 7, 5) / 10.0

    def program(M):
        x = M.tensor(values, requires_grad=True)
        out = getattr(M.nn.functional, function)(x, *args, **kwargs)
        grad_out = M.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)),
                            requires_grad=True)
        (first,) = M.autograd.grad(out, x, grad_out, create_graph=True)
        (second,) = M.autograd.grad((first * first).sum(), grad_out)
        return [first.detach(), second]
    check(program, rtol=1e-10, atol=1e-10)


X = np.ones((2, 3, 7, 6), np.float32)

ERRORS = {
    "max 2-d input": lambda M: M.nn.functional.max_pool2d(M.tensor(X[0, 0]), 2),
    "max pad too large": lambda M: M.nn.functional.max_pool2d(M.tensor(X), 3, padding=2),
    "max pad over half the kernel": lambda M: M.nn.functional.max_pool2d(
        M.tensor(X), 4, padding=3, dilation=2),
    "max output too small": lambda M: M.nn.functional.max_pool2d(M.tensor(X), 8),
    "max zero kernel": lambda M: M.nn.functional.max_pool2d(M.tensor(X), 0, 1),
    "max zero stride": lambda M: M.nn.functional.max_pool2d(M.tensor(X), 2, 0),
    "max negative stride": lambda M: M.nn.functional.max_pool2d(M.tensor(X), 2, -1),
    "max zero dilation": lambda M: M.nn.functional.max_pool2d(M.tensor(X), 2, dilation=0),
    "max negative padding": lambda M: M.nn.functional.max_pool2d(M.tensor(X), 2, padding=-1),
    "max kernel of 3": lambda M: M.nn.functional.max_pool2d(M.tensor(X), (2, 2, 2)),
    "max bool": lambda M: M.nn.functional.max_pool2d(M.tensor(X).bool(), 2),
    "max empty channels": lambda M: M.nn.functional.max_pool2d(M.ones(2, 0, 4, 4), 2),
    "max1d 4-d input": lambda M: M.nn.functional.max_pool1d(M.tensor(X), 2),
    "max1d stride of 2": lambda M: M.nn.functional.max_pool1d(M.tensor(X[0]), 2, (1, 1)),
    "avg pad too large": lambda M: M.nn.functional.avg_pool2d(M.tensor(X), 3, padding=2),
    "avg zero divisor": lambda M: M.nn.functional.avg_pool2d(M.tensor(X), 3,
                                                             divisor_override=0),
    "avg kernel of 3": lambda M: M.nn.functional.avg_pool2d(M.tensor(X), (2, 2, 2)),
    "avg bool": lambda M: M.nn.functional.avg_pool2d(M.tensor(X).bool(), 2),
    "avg empty height": lambda M: M.nn.functional.avg_pool2d(M.ones(2, 3, 0, 4), 2),
    "avg1d 4-d input": lambda M: M.nn.functional.avg_pool1d(M.tensor(X), 3),
    "adaptive avg sizes": lambda M: M.nn.functional.adaptive_avg_pool2d(M.tensor(X), (1, 2, 3)),
    "adaptive avg negative": lambda M: M.nn.functional.adaptive_avg_pool2d(M.tensor(X), -1),
    "adaptive avg empty": lambda M: M.nn.functional.adaptive_avg_pool2d(M.ones(2, 3, 0, 4), 2),
    "adaptive avg long": lambda M: M.nn.functional.adaptive_avg_pool2d(M.tensor(X).long(), 2),
    "adaptive avg1d 4-d": lambda M: M.nn.functional.adaptive_avg_pool1d(M.tensor(X), 4),
    "adaptive max 2-d": lambda M: M.nn.functional.adaptive_max_pool2d(M.tensor(X[0, 0]), 2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_torchs(name):
    check_error(ERRORS[name])


# -- the layers --------------------------------------------------------------------------------
LAYERS = [
    ("MaxPool2d", (2,), {}),
    ("MaxPool2d", ((3, 2),), {"stride": 1, "padding": (1, 0), "dilation": (1, 2),
                              "ceil_mode": True}),
    ("MaxPool2d", (3, 2, 1), {"return_indices": True}),
    ("MaxPool1d", (3, 2, 1, 2, True, True), {}),
    ("AvgPool2d", (2,), {}),
    ("AvgPool2d", (3, 2, 1, True, False, 3), {}),
    ("AvgPool1d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("AdaptiveAvgPool2d", ((2, 3),), {}),
    ("AdaptiveAvgPool2d", ((None, 3),), {}),
    ("AdaptiveAvgPool1d", (3,), {}),
    ("AdaptiveMaxPool2d", (2,), {"return_indices": True}),
    ("AdaptiveMaxPool1d", (4,), {}),
]


@pytest.mark.parametrize("name,args,kwargs", LAYERS)
def test_layers_match_torch(name, args, kwargs):
    shape = (2, 3, 7, 6) if name.endswith("2d") else (2, 3, 9)
    x = np.random.default_rng(len(args)).standard_normal(shape).astype(np.float32)

    def program(M):
        layer = getattr(M.nn, name)(*args, **kwargs)
        xt = M.tensor(x, requires_grad=True)
        result = layer(xt)
        out = result[0] if isinstance(result, tuple) else result
        (out * out).sum().backward()
        attributes = {k: v for k, v in vars(layer).items() if not k.startswith("_")}
        return [repr(layer), attributes, result if isinstance(result, tuple) else out.detach(),
                grad_of(xt)]
    check(program, rtol=1e-5, atol=1e-6)


def test_layers_have_no_parameters():
    for name, args, kwargs in LAYERS:
        assert list(getattr(nn, name)(*args, **kwargs).parameters()) == []
    assert torch is not None
