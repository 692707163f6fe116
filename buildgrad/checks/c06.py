"""Chapter 06's checks: ``abs`` and ``relu`` with PyTorch's subgradient 0 at the corner,
``max`` sharing its gradient among ties, and ``Function.apply`` (a straight-through
estimator, a saved tensor, non-tensor arguments), each compared with nbgrad or with finite
differences."""

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


def abs_relu(ns):
    """``AbsBackward0`` and ``ReluBackward0``: the derivative away from 0, 0 at 0."""
    tensor = ns["tensor"]
    rng = np.random.default_rng(6)
    for name, hint in [
        ("abs", "d|x|/dx is sign(x): -1, +1, and 0 at x = 0 (PyTorch's subgradient; "
                "np.sign(0) is 0). Did you return the input's sign from the saved input?"),
        ("relu", "relu passes the gradient where the OUTPUT is positive and gives 0 elsewhere, "
                 "x = 0 included (a subgradient in [0, 1]); select with np.where, not x >= 0.")]:
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
            (y * tensor(upstream)).sum().backward()
            (y_ng * ng.tensor(upstream)).sum().backward()
            close(_grad(x, hint), _grad(x_ng, hint), hint)
            away = data != 0   # away from the corner both are honest derivatives
            f = np.abs if name == "abs" else (lambda v: np.maximum(v, 0.0))
            numeric = finite_difference(lambda v: float(np.sum(upstream * f(v))), data)
            close(_grad(x, hint)[away], numeric[away], hint + " (finite differences away from 0)",
                  rtol=1e-5, atol=1e-6)

    # A gradient of inf or NaN arriving where relu's output is 0: PyTorch *selects* 0
    # (threshold_backward), it does not multiply (0 * inf would be NaN).
    x = tensor(np.array([-1.0, 0.0, 2.0]), requires_grad=True)
    with np.errstate(invalid="ignore"):
        y = _op(ns, "relu")(x)
        y.backward(tensor(np.array([np.inf, np.nan, 3.0])))
    close(_grad(x, "relu"), np.array([0.0, 0.0, 3.0]),
          "Where relu's output is not positive the gradient is 0 whatever arrives, even inf or "
          "NaN, as in PyTorch: select with np.where(result > 0, grad, 0), do not multiply by a mask.")


def max_ties(ns):
    """``MaxBackward1``: the whole-tensor max shares the gradient evenly among ties."""
    tensor = ns["tensor"]
    mine_max = _op(ns, "max")
    hint = ("The gradient of max() goes to the elements equal to the maximum, shared evenly "
            "among them when several tie (grad / number of ties); the others get 0.")
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
            close(_grad(x, hint), _grad(x_ng, hint), hint)
            close(_grad(x, hint).sum(), scale, hint + " (the shares must add up to the gradient "
                                                      "that arrived)")


def _ste_classes(Function, round_op):
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
            return grad * 3 * x * x * ctx.scale, None   # no gradient for the number

    class Same(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return RoundSTE, ScaledCube, Same


def function_apply(ns):
    """``Function.apply``: the straight-through estimator and a Function that saves a tensor."""
    tensor, Function = ns["tensor"], ns["Function"]
    rng = np.random.default_rng(26)
    RoundSTE, ScaledCube, Same = _ste_classes(Function, _op(ns, "round"))
    RoundSTE_ng, ScaledCube_ng, Same_ng = _ste_classes(ng.autograd.Function, lambda t: t.round())
    for _ in range(3):
        data = rng.normal(scale=2.0, size=(2, 3))
        upstream = rng.normal(size=(2, 3))
        x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
        y, y_ng = RoundSTE.apply(x), RoundSTE_ng.apply(x_ng)
        close(_value(y), _value(y_ng),
              "apply must return what your forward(ctx, *args) returns (run it under no_grad).")
        expect(y.grad_fn is not None and y.grad_fn.name() == y_ng.grad_fn.name(),
               "apply must make the Function's node (cls.node_class, built with the inputs' "
               "gradient edges) the result's grad_fn.",
               y_ng.grad_fn.name(), None if y.grad_fn is None else y.grad_fn.name())
        expect(len(y.grad_fn.next_functions) == 1 and y.grad_fn.next_functions[0][0] is not None,
               "The node's next_functions are the inputs' gradient edges (gradient_edge(a)).",
               "one edge, to x's AccumulateGrad", y.grad_fn.next_functions)
        (y * tensor(upstream)).sum().backward()
        (y_ng * ng.tensor(upstream)).sum().backward()
        hint = ("The straight-through estimator's backward returns grad as it is: x.grad must "
                "be the gradient that arrived (your node must call the Function's backward).")
        close(_grad(x, hint), _grad(x_ng, hint), hint)

    # a Function that saves its input, with a number among its arguments
    data = rng.normal(size=4)
    x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
    y, y_ng = ScaledCube.apply(x, 0.5), ScaledCube_ng.apply(x_ng, 0.5)
    expect(y.grad_fn.next_functions[1][0] is None,
           "A non-tensor argument gets the edge (None, 0): no gradient goes there.",
           "(None, 0) for the number 0.5", y.grad_fn.next_functions[1])
    expect(y.grad_fn.needs_input_grad == (True, False),
           "ctx.needs_input_grad says, per argument, whether it is a tensor that requires grad.",
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
    expect(y is not x and y.grad_fn is not None and x.grad_fn is None,
           "When forward returns an input as it is, apply must wrap it in a new tensor (else "
           "the leaf x itself would get a grad_fn).",
           "a new tensor with grad_fn, x still a leaf", f"y is x: {y is x}, x.grad_fn: {x.grad_fn}")
    y.sum().backward()
    close(_grad(x, "Same"), np.full(4, 2.0), "Same's backward doubles the gradient.")

    # nothing to record: no input requires grad, or grad mode is off
    x = tensor(data)
    expect(RoundSTE.apply(x).grad_fn is None,
           "With no input that requires grad, apply records nothing (grad_fn stays None).",
           None, RoundSTE.apply(x).grad_fn)
    x = tensor(data, requires_grad=True)
    with ns["no_grad"]():
        y = RoundSTE.apply(x)
    expect(y.grad_fn is None and not y.requires_grad,
           "Under no_grad() apply records nothing (check GradMode.enabled).",
           "grad_fn None", y.grad_fn)


CHECKS = task_checks(globals(), [abs_relu, max_ties, function_apply])
