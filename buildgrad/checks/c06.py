"""Chapter 06's checks: ``abs`` and ``relu`` with PyTorch's subgradient 0 at the corner
(and relu's selection of an ``inf`` or ``NaN`` gradient), ``max`` sharing its gradient among
ties, and ``Function.apply`` (its node, edges, ``needs_input_grad``, forward under
``no_grad``, an input returned as it is), each compared with nbgrad or with finite
differences. Each hint names the mistake that usually causes it (``tests/mistakes/c06.py``)."""

import numpy as np

import nbgrad as ng

from buildgrad.checks import close, expect, finite_difference, task_checks


def _op(ns, name):
    """The learner's ``abs``/``max``/...: the function where the namespace has it (the
    exercise, the chapter's own module), else the ``Tensor`` method (later chapters do not
    export names that would hide Python's builtins)."""
    function = ns.get(name)
    return function if callable(function) else getattr(ns["Tensor"], name)


def _value(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") and t.requires_grad else t.numpy())


def _grad(t, hint):
    expect(t.grad is not None, hint, "a gradient in x.grad", "x.grad is None")
    return np.asarray(t.grad.numpy())


def _with_zeros(rng, shape):
    """Random values with exact zeros among them: the corner is where the choice shows."""
    data = rng.normal(size=shape)
    data[rng.random(shape) < 0.35] = 0.0
    return data


ABS_AWAY = ("Away from 0, |x| has slope -1 or +1, and the chain rule multiplies it by the gradient "
            "that arrived: the result is grad times the sign of the saved input.")
ABS_CORNER = ("At x = 0 PyTorch picks the subgradient 0 for |x| (and np.sign(0) is 0): not +1 or -1, "
              "and not the NaN of dividing by |x|.")
RELU_NEGATIVE = ("Where x is negative relu's gradient is 0. Its output there is 0, not negative: "
                 "relu's output is never negative, so a test like output >= 0 holds everywhere. "
                 "The gradient passes only where the output is positive.")
RELU_POSITIVE = ("Where relu's output is positive it passes the gradient that arrived as it is: "
                 "the chain rule passes grad on, it does not replace it by 1.")
RELU_CORNER = ("At x = 0 relu's gradient is 0 (PyTorch's subgradient, of the interval [0, 1]): "
               "not 1, and not the 0.5 of finite differences.")
RELU_SELECT = ("Where relu's output is 0 the gradient is 0 whatever arrives, even inf or NaN, as in "
               "PyTorch: select (np.where), do not multiply by a 0/1 mask (0 * inf is NaN).")
RELU_NAN = ("Where relu's output is NaN (relu of NaN) PyTorch passes the gradient: it gives 0 only "
            "where the output is <= 0, and NaN <= 0 is False (NaN > 0 is False too).")


def abs_relu(ns):
    """``AbsBackward0`` and ``ReluBackward0``: the derivative away from 0, 0 at 0, and
    relu's selection (an inf or NaN gradient stays out where the output is 0, a NaN output
    passes the gradient)."""
    tensor = ns["tensor"]
    rng = np.random.default_rng(6)
    for name in ("abs", "relu"):
        mine_op = _op(ns, name)
        for shape in [(5,), (3, 4), (2, 3, 2)]:
            data = _with_zeros(rng, shape)
            upstream = rng.normal(size=shape)
            x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
            y, y_ng = mine_op(x), getattr(x_ng, name)()
            close(_value(y), _value(y_ng), f"The forward of {name} is wrong.")
            expect(y.grad_fn is not None and y.grad_fn.name() == y_ng.grad_fn.name(),
                   f"{name} must record its node, named as PyTorch names it.",
                   y_ng.grad_fn.name(), None if y.grad_fn is None else y.grad_fn.name())
            with np.errstate(divide="ignore", invalid="ignore"):
                (y * tensor(upstream)).sum().backward()
            (y_ng * ng.tensor(upstream)).sum().backward()
            missing = f"{name}'s backward must return a gradient for its input (a tuple of one array)."
            mine, theirs = _grad(x, missing), _grad(x_ng, missing)
            # where each choice shows: below 0, above 0 (honest derivatives), at the corner
            if name == "abs":
                regions = [(data != 0, ABS_AWAY), (data == 0, ABS_CORNER)]
            else:
                regions = [(data < 0, RELU_NEGATIVE), (data > 0, RELU_POSITIVE), (data == 0, RELU_CORNER)]
            for where, hint in regions:
                close(mine[where], theirs[where], hint)
            away = data != 0
            f = np.abs if name == "abs" else (lambda v: np.maximum(v, 0.0))
            numeric = finite_difference(lambda v: float(np.sum(upstream * f(v))), data)
            close(mine[away], numeric[away], f"Away from 0 the gradient of {name} is its derivative: finite differences disagree.",
                  rtol=1e-5, atol=1e-6)

    def relu_grad(values, arriving):
        x, x_ng = tensor(np.array(values), requires_grad=True), ng.tensor(values, requires_grad=True)
        with np.errstate(invalid="ignore"):
            _op(ns, "relu")(x).backward(tensor(np.array(arriving)))
            x_ng.relu().backward(ng.tensor(arriving))
        return _grad(x, RELU_SELECT), _grad(x_ng, RELU_SELECT)

    # a gradient of inf or NaN arriving where relu's output is 0: PyTorch *selects* 0
    # (threshold_backward), it does not multiply (0 * inf would be NaN)
    close(*relu_grad([-1.0, 0.0, 2.0], [np.inf, np.nan, 3.0]), RELU_SELECT)
    # relu(NaN) is NaN, and threshold_backward (output <= 0 ? 0 : grad) passes its gradient
    close(*relu_grad([np.nan, 1.0, -1.0], [5.0, 2.0, 4.0]), RELU_NAN)


MAX_SUM = ("The shares must add up to the gradient that arrived: each of k tied maxima gets "
           "grad / k (not grad each, and not 1 / k without the gradient).")
MAX_SHARE = ("Every element equal to the maximum gets the same share, not only the first one (that "
             "is max(dim=)'s rule, not max()'s); the others get 0.")


def max_ties(ns):
    """``MaxBackward1``: the whole-tensor max shares the gradient evenly among ties."""
    tensor = ns["tensor"]
    mine_max = _op(ns, "max")
    rng = np.random.default_rng(16)
    for shape in [(6,), (3, 4), (2, 2, 3), (1,)]:
        for _ in range(3):
            data = rng.integers(0, 4, size=shape).astype(np.float64)  # small integers: ties
            scale = float(rng.normal())
            x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
            y, y_ng = mine_max(x), x_ng.max()
            close(_value(y), _value(y_ng), "The forward of max() is the largest element.")
            expect(y.grad_fn is not None and y.grad_fn.name() == y_ng.grad_fn.name(),
                   "max() must record its node, named as PyTorch names it.",
                   y_ng.grad_fn.name(), None if y.grad_fn is None else y.grad_fn.name())
            (y * scale).backward()
            (y_ng * scale).backward()
            close(_grad(x, MAX_SUM).sum(), scale, MAX_SUM)
            close(_grad(x, MAX_SHARE), _grad(x_ng, MAX_SHARE), MAX_SHARE)


def _functions(Function, round_op):
    """The same Functions on the learner's package and on nbgrad."""
    class RoundSTE(Function):
        @staticmethod
        def forward(ctx, x):
            return round_op(x)

        @staticmethod
        def backward(ctx, grad):
            return grad           # straight through: the identity's derivative

    class ScaledCube(Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x * x * x * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x * ctx.scale, None   # no gradient for the scale

    class Same(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Probe(Function):
        """Looks around inside its own forward."""
        @staticmethod
        def forward(ctx, x):
            ctx.seen_needs_input_grad = getattr(ctx, "needs_input_grad", None)
            doubled = x * 2
            ctx.inner_recorded = doubled.grad_fn is not None
            return doubled

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return RoundSTE, ScaledCube, Same, Probe


NODE = ("apply must make the result's grad_fn a new node of the Function's own node class "
        "(cls.node_class, named <Name>Backward), which is also the ctx forward receives.")
EDGES = ("The node has one edge per argument, in order: the gradient edge of a tensor "
         "(gradient_edge(a)), and (None, 0) for anything else, a number included.")
NEEDS = ("ctx.needs_input_grad says, per argument, whether it is a tensor that requires grad "
         "(a number, or a tensor that does not require grad: False).")
NEEDS_FIRST = ("ctx.needs_input_grad must be set before forward runs: forward may read it, "
               "as PyTorch's does.")
NO_GRAD_INSIDE = ("forward runs with grad mode off (under no_grad()): the operations inside it "
                  "leave no nodes of their own, the Function's node stands for all of them.")
SAME = ("When forward returns an input as it is, apply must wrap it in a new tensor (else "
        "the leaf x itself would get a grad_fn).")
NOTHING = "With no input that requires grad, apply records nothing (grad_fn stays None)."
NO_GRAD = "Under no_grad() apply records nothing (check GradMode.enabled)."


def function_apply(ns):
    """``Function.apply``: one node of the class's own kind, an edge per argument,
    ``needs_input_grad``, forward under no_grad, an input returned as it is, and nothing
    recorded without grad."""
    tensor, Function = ns["tensor"], ns["Function"]
    rng = np.random.default_rng(26)
    RoundSTE, ScaledCube, Same, Probe = _functions(Function, _op(ns, "round"))
    RoundSTE_ng, ScaledCube_ng, _, Probe_ng = _functions(ng.autograd.Function, lambda t: t.round())
    for _ in range(3):
        data = rng.normal(scale=2.0, size=(2, 3))
        upstream = rng.normal(size=(2, 3))
        x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
        y, y_ng = RoundSTE.apply(x), RoundSTE_ng.apply(x_ng)
        close(_value(y), _value(y_ng), "apply must return what your forward(ctx, *args) returns.")
        expect(y.grad_fn is not None and y.grad_fn.name() == y_ng.grad_fn.name(), NODE,
               y_ng.grad_fn.name(), None if y.grad_fn is None else y.grad_fn.name())
        expect(len(y.grad_fn.next_functions) == 1 and y.grad_fn.next_functions[0][0] is not None,
               EDGES, "one edge, to x's AccumulateGrad", y.grad_fn.next_functions)
        (y * tensor(upstream)).sum().backward()
        (y_ng * ng.tensor(upstream)).sum().backward()
        hint = ("The straight-through estimator's backward returns grad as it is: x.grad must "
                "be the gradient that arrived (the node's backward calls the Function's).")
        close(_grad(x, hint), _grad(x_ng, hint), hint)

    # inside forward: ctx.needs_input_grad is there, and nothing is recorded op by op
    data = rng.normal(size=4)
    x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
    y, y_ng = Probe.apply(x), Probe_ng.apply(x_ng)
    seen = getattr(y.grad_fn, "seen_needs_input_grad", None)
    expect(seen == y_ng.grad_fn.seen_needs_input_grad, NEEDS_FIRST, "(True,) inside forward", seen)
    expect(y.grad_fn.inner_recorded == y_ng.grad_fn.inner_recorded, NO_GRAD_INSIDE,
           "x * 2 inside forward: grad_fn None", "x * 2 inside forward has a grad_fn")

    # a Function that saves its input, with a number, then a constant tensor, as its scale
    for scale in (0.5, tensor(np.array(0.5))):
        x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
        y = ScaledCube.apply(x, scale)
        y_ng = ScaledCube_ng.apply(x_ng, scale if isinstance(scale, float) else ng.tensor(0.5))
        edges = y.grad_fn.next_functions
        expect(len(edges) == 2 and edges[1][0] is None and edges[0][0] is not None, EDGES,
               "(x's AccumulateGrad, 0), (None, 0)", edges)
        expect(y.grad_fn.needs_input_grad == (True, False), NEEDS,
               (True, False), getattr(y.grad_fn, "needs_input_grad", None))
        y.sum().backward()
        y_ng.sum().backward()
        hint = "ctx is the node: what forward saves with ctx.save_for_backward, backward reads."
        close(_grad(x, hint), _grad(x_ng, hint), hint)
        close(_grad(x, hint), finite_difference(lambda v: float(np.sum(0.5 * v ** 3)), data), hint,
              rtol=1e-5, atol=1e-6)

    # forward returned its input: the result is a new tensor, with the Function's node
    x = tensor(data, requires_grad=True)
    y = Same.apply(x)
    expect(y is not x and y.grad_fn is not None and x.grad_fn is None, SAME,
           "a new tensor with grad_fn, x still a leaf", f"y is x: {y is x}, x.grad_fn: {x.grad_fn}")
    y.sum().backward()
    close(_grad(x, "Same"), np.full(4, 2.0), "Same's backward doubles the gradient.")

    # nothing to record: no input requires grad, or grad mode is off
    x = tensor(data)
    expect(RoundSTE.apply(x).grad_fn is None, NOTHING, None, RoundSTE.apply(x).grad_fn)
    x = tensor(data, requires_grad=True)
    with ns["no_grad"]():
        y = RoundSTE.apply(x)
    expect(y.grad_fn is None and not y.requires_grad, NO_GRAD, "grad_fn None", y.grad_fn)


CHECKS = task_checks(globals(), [abs_relu, max_ties, function_apply])
