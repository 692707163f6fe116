"""Losses and the vector helpers of nn.functional against PyTorch: values, gradients of
input and target, grad_fn names, reductions, weights, errors and warnings; gradcheck."""

import numpy as np
import pytest
from parity import check, check_error, check_warning

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck

KL_MEAN = pytest.mark.filterwarnings("ignore:reduction. .mean. divides the total loss")  # (tested below)
REDUCTIONS = ["mean", "sum", "none"]


def _pair(M, rng_seed, shape=(3, 4), target_grad=True, low=None):
    rng = np.random.default_rng(rng_seed)
    if low is None:
        x, t = rng.normal(size=shape) * 2, rng.normal(size=shape) * 2
    else:
        x, t = rng.uniform(low, 1 - low, shape), rng.uniform(0, 1, shape)
    return (M.tensor(x, dtype=M.float32, requires_grad=True),
            M.tensor(t, dtype=M.float32, requires_grad=target_grad))


LOSSES = [
    ("l1_loss", {}), ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}), ("huber_loss", {"delta": 2.5}),
    ("binary_cross_entropy", {}), ("kl_div", {"log_target": True}),
]


@KL_MEAN
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,options", LOSSES, ids=[f"{n}{o}" for n, o in LOSSES])
def test_loss_matches_torch(name, options, reduction):
    probabilities = name == "binary_cross_entropy"
    for shape in [(3, 4), (), (0, 2), (5,)]:
        def program(M, shape=shape):
            x, t = _pair(M, 0, shape, low=0.05 if probabilities else None)
            y = getattr(M.nn.functional, name)(x, t, reduction=reduction, **options)
            y.backward(M.ones_like(y) * 0.7)
            return y, x.grad, t.grad, type(y.grad_fn).__name__
        check(program)


@KL_MEAN
@pytest.mark.parametrize("name,options", LOSSES, ids=[f"{n}{o}" for n, o in LOSSES])
def test_loss_gradcheck(name, options):
    rng = np.random.default_rng(1)
    if name == "binary_cross_entropy":
        x, t = rng.uniform(0.1, 0.9, (3, 2)), rng.uniform(0, 1, (3, 2))
    else:
        x, t = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    a, b = ng.tensor(x, requires_grad=True), ng.tensor(t, requires_grad=True)
    for reduction in REDUCTIONS:
        assert gradcheck(lambda a, b, reduction=reduction: getattr(F, name)(a, b, reduction=reduction,
                                                                            **options), (a, b))


@pytest.mark.parametrize("layer,args,function", [
    ("L1Loss", (), "l1_loss"), ("SmoothL1Loss", (None, None, "sum", 0.3), "smooth_l1_loss"),
    ("HuberLoss", ("none", 0.4), "huber_loss"), ("BCELoss", (), "binary_cross_entropy"),
    ("KLDivLoss", (None, None, "batchmean"), "kl_div"), ("KLDivLoss", (None, None, "sum", True), "kl_div"),
])
def test_loss_layers(layer, args, function):
    def program(M):
        x, t = _pair(M, 2, low=0.1 if function == "binary_cross_entropy" else None)
        module = getattr(M.nn, layer)(*args)
        y = module(x, t)
        y.sum().backward()
        return repr(module), y, x.grad, t.grad, type(y.grad_fn).__name__
    check(program)


def test_weighted_losses():
    def program(M):
        x, t = _pair(M, 3)
        w = M.tensor(np.random.default_rng(4).uniform(0, 2, (3, 4)), dtype=M.float32)
        p = x.detach().sigmoid().requires_grad_()
        out = [M.nn.functional.l1_loss(x, t, weight=w), M.nn.functional.huber_loss(x, t, weight=w),
               M.nn.functional.l1_loss(x, t, weight=w, reduction="sum"),
               M.nn.functional.huber_loss(x, t, weight=w, reduction="none"),
               M.nn.functional.binary_cross_entropy(p, t.detach().sigmoid(), weight=w[0]),
               M.nn.BCELoss(weight=w)(p, t.detach().sigmoid())]
        sum(o.sum() for o in out).backward()
        return out, x.grad, t.grad, p.grad
    check(program)
    check_error(lambda M: M.nn.functional.l1_loss(M.ones(3), M.ones(3), weight=M.ones(2)))
    check_error(lambda M: M.nn.functional.huber_loss(M.ones(3), M.ones(3), weight=M.ones(2)))
    check_error(lambda M: M.nn.functional.binary_cross_entropy(M.ones(3) / 2, M.ones(3),
                                                               weight=M.ones(2)))


def test_broadcast_target_warns_and_broadcasts():
    for name in ("l1_loss", "smooth_l1_loss", "huber_loss"):
        def program(M, name=name):
            x = M.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
            y = getattr(M.nn.functional, name)(x, M.tensor([[0.0], [1.0]]))
            y.backward()
            return y, x.grad
        check_warning(program)


def test_binary_cross_entropy_edges():
    def program(M):
        x = M.tensor([0.0, 1.0, 0.5, 1e-30], requires_grad=True)
        t = M.tensor([0.0, 1.0, 1.0, 1.0])
        y = M.nn.functional.binary_cross_entropy(x, t, reduction="none")
        y.sum().backward()
        return y, x.grad
    check(program)
    check(lambda M: M.nn.functional.binary_cross_entropy(M.tensor([0.0, 1.0]), M.tensor([1.0, 0.0])))
    check_error(lambda M: M.nn.functional.binary_cross_entropy(M.tensor([1.5]), M.tensor([1.0])))
    check_error(lambda M: M.nn.functional.binary_cross_entropy(M.tensor([-0.5]), M.tensor([1.0])))
    check_error(lambda M: M.nn.functional.binary_cross_entropy(M.tensor([0.5]), M.tensor([[1.0]])))


def test_bad_options():
    check_error(lambda M: M.nn.functional.smooth_l1_loss(M.ones(2), M.ones(2), beta=-1.0))
    check_error(lambda M: M.nn.functional.huber_loss(M.ones(2), M.ones(2), delta=0.0))
    check_error(lambda M: M.nn.functional.huber_loss(M.tensor([1]), M.tensor([2])))
    check_error(lambda M: M.nn.functional.l1_loss(M.ones(2), M.ones(2), reduction="avg"))
    check_error(lambda M: M.nn.functional.kl_div(M.ones(2), M.ones(2), reduction="avg"))


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none"])
def test_kl_div(reduction):
    def program(M):
        rng = np.random.default_rng(5)
        x = M.tensor(rng.normal(size=(3, 4)), dtype=M.float32).log_softmax(1).detach().requires_grad_()
        t = M.tensor(rng.dirichlet(np.ones(4), 3), dtype=M.float32)
        t[0, 1] = 0.0  # 0 log 0 = 0
        t.requires_grad_()
        y = M.nn.functional.kl_div(x, t, reduction=reduction)
        y.backward(M.ones_like(y))
        return y, x.grad, type(y.grad_fn).__name__
    check(program)
    check(lambda M: M.nn.functional.kl_div(M.tensor(-1.0), M.tensor(0.5), reduction="batchmean"))


def test_kl_div_mean_warns():
    check_warning(lambda M: M.nn.functional.kl_div(M.zeros(2, 2), M.ones(2, 2) / 2))


# -- one_hot, pad, normalize, cosine_similarity, pairwise_distance ----------------------------
def test_one_hot():
    check(lambda M: M.nn.functional.one_hot(M.tensor([[1, 0], [3, 3]])))
    check(lambda M: M.nn.functional.one_hot(M.tensor([1, 0]), 5))
    check(lambda M: M.nn.functional.one_hot(M.tensor(2), 3))
    check(lambda M: M.nn.functional.one_hot(M.tensor([], dtype=M.int64), 3))
    for bad in (lambda M: M.nn.functional.one_hot(M.tensor([1.0])),
                lambda M: M.nn.functional.one_hot(M.tensor([-1])),
                lambda M: M.nn.functional.one_hot(M.tensor([3]), 2),
                lambda M: M.nn.functional.one_hot(M.tensor([], dtype=M.int64)),
                lambda M: M.nn.functional.one_hot(M.tensor([1], dtype=M.int32))):
        check_error(bad)


PADS = [((1, 2), "constant", {}), ((1, 2), "constant", {"value": -1.5}), ((-1, 2, 0, 1), "constant", {}),
        ((2, 1), "reflect", {}), ((1, 2, 2, 0), "reflect", {}), ((3, 0), "replicate", {}),
        ((1, 1, 2, 2), "replicate", {}), ((1, 2), "circular", {}), ((1, 1, 1, 2), "circular", {}),
        ((1, 1, 1, 1, 1, 1), "replicate", {})]


@pytest.mark.parametrize("pad,mode,options", PADS, ids=[f"{m}{p}{o}" for p, m, o in PADS])
def test_pad(pad, mode, options):
    shape = (2, 3, 4, 5) if len(pad) == 6 else (2, 3, 4)
    x = np.random.default_rng(6).normal(size=shape)

    def program(M):
        a = M.tensor(x, dtype=M.float32, requires_grad=True)
        y = M.nn.functional.pad(a, pad, mode=mode, **options)
        y.backward(M.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)),
                            dtype=M.float32))
        return y, a.grad, type(y.grad_fn).__name__ if mode != "circular" else ""
    check(program)
    t = ng.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: F.pad(a, pad, mode=mode, **options), (t,))


def test_pad_errors_and_edges():
    check(lambda M: M.nn.functional.pad(M.ones(2, 3, dtype=M.int64), (1, 1), value=7))
    check(lambda M: M.nn.functional.pad(M.ones(0, 3), (1, 1, 1, 0)))
    check(lambda M: M.nn.functional.pad(M.ones(0, 2, 3), (1, 1), mode="reflect"))
    for bad in (lambda M: M.nn.functional.pad(M.ones(3), (1,)),
                lambda M: M.nn.functional.pad(M.ones(3), (1, 2, 3, 4)),
                lambda M: M.nn.functional.pad(M.ones(1, 3), (1, 1), mode="reflect", value=1.0),
                lambda M: M.nn.functional.pad(M.ones(1, 3), (3, 3), mode="reflect"),
                lambda M: M.nn.functional.pad(M.ones(1, 3), (4, 1), mode="circular"),
                lambda M: M.nn.functional.pad(M.ones(3), (1, 1), mode="foo"),
                lambda M: M.nn.functional.pad(M.ones(2, 3, 4), (1, 1, 1, 1, 1, 1), mode="reflect"),
                lambda M: M.nn.functional.pad(M.ones(2, 0), (1, 1), mode="replicate"),
                lambda M: M.nn.functional.pad(M.ones(3), (-5, 1))):
        check_error(bad)


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize(p, dim):
    x = np.random.default_rng(7).normal(size=(3, 4))
    x[1] = 0.0  # a zero vector stays zero

    def program(M):
        a = M.tensor(x, dtype=M.float32, requires_grad=True)
        y = M.nn.functional.normalize(a, p=p, dim=dim)
        y.backward(M.tensor(np.cos(np.arange(12.0)).reshape(3, 4), dtype=M.float32))
        return y, a.grad, type(y.grad_fn).__name__
    check(program)
    t = ng.tensor(np.random.default_rng(8).normal(size=(3, 4)), requires_grad=True)
    assert gradcheck(lambda a: F.normalize(a, p=p, dim=dim), (t,))
    check(lambda M: M.nn.functional.normalize(M.tensor(x, dtype=M.float32), dim=dim,
                                              out=M.zeros(3, 4)))


@pytest.mark.parametrize("dim,shapes", [(1, ((3, 4), (3, 4))), (0, ((3, 4), (3, 1))),
                                        (-1, ((2, 3, 4), (4,))), (0, ((5,), (5,)))])
def test_cosine_similarity_and_pairwise_distance(dim, shapes):
    rng = np.random.default_rng(9)
    a_values, b_values = (rng.normal(size=s) for s in shapes)

    def program(M):
        a = M.tensor(a_values, dtype=M.float32, requires_grad=True)
        b = M.tensor(b_values, dtype=M.float32, requires_grad=True)
        c = M.nn.functional.cosine_similarity(a, b, dim=dim)
        d = M.nn.functional.pairwise_distance(a, b)
        (c.sum() + d.sum() * 0.5).backward()
        return c, d, a.grad, b.grad, type(c.grad_fn).__name__
    check(program)
    a, b = ng.tensor(a_values, requires_grad=True), ng.tensor(b_values, requires_grad=True)
    assert gradcheck(lambda a, b: F.cosine_similarity(a, b, dim=dim), (a, b))
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b, keepdim=True), (a, b))


def test_cosine_similarity_edges():
    check(lambda M: M.nn.functional.cosine_similarity(M.zeros(2, 3), M.ones(2, 3)))
    check(lambda M: M.nn.functional.cosine_similarity(M.tensor([[1, 2]]), M.tensor([[1.0, 0.0]])))
    check_error(lambda M: M.nn.functional.cosine_similarity(M.tensor([[1, 2]]), M.tensor([[1, 0]])))
    check(lambda M: M.nn.functional.pairwise_distance(M.ones(2, 3), M.zeros(2, 3), p=1.0))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_and_cosine_embedding(reduction):
    rng = np.random.default_rng(10)
    values = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))

    def program(M):
        a, b = (M.tensor(v, dtype=M.float32, requires_grad=True) for v in values)
        y = M.tensor([1.0, -1.0, 1.0, -1.0])
        ranking = M.nn.MarginRankingLoss(0.3, reduction=reduction)(a[:, 0], b[:, 0], y)
        embedding = M.nn.CosineEmbeddingLoss(0.1, reduction=reduction)(a, b, y.long())
        single = M.nn.functional.cosine_embedding_loss(a[0], b[0], M.tensor(-1), margin=-1.0)
        (ranking.sum() + embedding.sum() + single).backward()
        return ranking, embedding, single, a.grad, b.grad
    check(program)
    a, b = (ng.tensor(v, requires_grad=True) for v in values)
    assert gradcheck(lambda a, b: F.cosine_embedding_loss(a, b, ng.tensor([1, -1, 1, -1]),
                                                          reduction=reduction), (a, b))
    check_error(lambda M: M.nn.functional.margin_ranking_loss(M.ones(3), M.ones(3), M.ones(1, 3)))


def test_distance_layers():
    rng = np.random.default_rng(11)
    values = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))

    def program(M):
        a, b = (M.tensor(v, dtype=M.float32, requires_grad=True) for v in values)
        cos, dist = M.nn.CosineSimilarity(dim=0), M.nn.PairwiseDistance(p=1.0, keepdim=True)
        out = cos(a, b), dist(a, b)
        (out[0].sum() + out[1].sum()).backward()
        return repr(cos), repr(dist), out, a.grad, b.grad
    check(program)
