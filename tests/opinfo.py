"""The one table of nbgrad's operations, after PyTorch's ``OpInfo``
(torch/testing/_internal/common_methods_invocations.py), much smaller.

A row says how to call an operation under either library (``M`` is ``torch`` or
``nbgrad``), which sample inputs to call it on, what its backward node saves, the node's
name and its in-place variant. ``test_ops.py`` turns every row into gradcheck, parity,
saved-tensor, in-place and device tests. Adding an elementwise operation is one block in
nbgrad and one row here.

Samples are built from NumPy values, so the same numbers reach both libraries: ``make``
gives a float leaf (``Leaf``), a ``Sample`` holds the positional and keyword arguments.
Bool and integer NumPy arrays (masks, indices) become tensors that need no gradient;
everything else (numbers, dims, slices) is passed as it is.
"""

import operator
from dataclasses import dataclass, field

import numpy as np

# What a backward node can save, named by what a caller could change in place afterwards:
# the first tensor argument, the other tensor arguments, the result.
SAVES = {"nothing", "input", "other", "inputs", "output", "input+output", "inputs+output"}


@dataclass(frozen=True, eq=False)
class Leaf:
    """A float tensor argument, made a leaf under each library in the test's dtype."""

    values: np.ndarray
    requires_grad: bool = True
    # built transposed, then viewed back: the leaf's memory is not contiguous
    noncontiguous: bool = False

    def build(self, M, dtype, device="cpu"):
        if not self.noncontiguous:
            return M.tensor(self.values, dtype=dtype, device=device, requires_grad=self.requires_grad)
        stored = M.tensor(np.ascontiguousarray(self.values.T), dtype=dtype, device=device)
        return stored.t().detach().requires_grad_(self.requires_grad)


class Make:
    """Sample values, fresh and reproducible: each call draws from the row's own generator."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape, noncontiguous=False):
        return Leaf(self.rng.standard_normal(shape), noncontiguous=noncontiguous)

    def positive(self, *shape, low=0.5, high=2.0):
        return Leaf(self.rng.uniform(low, high, shape))

    def away(self, *shape, margin=0.2):
        """|x| >= margin: no value sits near a kink at 0."""
        v = self.rng.standard_normal(shape)
        return Leaf(np.where(v < 0, v - margin, v + margin))

    def distinct(self, *shape, shift=0.0):
        """Well separated values in random order: no ties for max/min/clamp."""
        n = int(np.prod(shape))
        return Leaf(((self.rng.permutation(n) - n / 2 + 0.5) * 0.37 + shift).reshape(shape))

    def invertible(self, *batch, n=3):
        """Square matrices well away from singular: 2 I plus a little noise."""
        return Leaf(2 * np.eye(n) + 0.3 * self.rng.standard_normal((*batch, n, n)))

    def positive_definite(self, *batch, n=3):
        """Symmetric positive-definite matrices: ``B B^T`` of an invertible ``B``."""
        b = self.invertible(*batch, n=n).values
        return Leaf(b @ np.swapaxes(b, -1, -2))

    @staticmethod
    def values(values, requires_grad=True):
        return Leaf(np.asarray(values, dtype=np.float64), requires_grad)

    def constant(self, *shape):
        return Leaf(self.rng.standard_normal(shape), requires_grad=False)


class Sample:
    """The arguments of one call; ``Leaf`` objects may sit inside lists and tuples."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def leaves(self):
        found = []

        def visit(value):
            if isinstance(value, Leaf):
                found.append(value)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    visit(v)

        for value in (*self.args, *self.kwargs.values()):
            visit(value)
        return found

    def arguments(self, M, tensors):
        """The arguments with each ``Leaf`` replaced by its tensor from ``tensors`` (in
        order) and each bool or integer array by a tensor on the first tensor's device."""
        remaining = iter(tensors)
        device = tensors[0].device if tensors else None

        def fill(value):
            if isinstance(value, Leaf):
                return next(remaining)
            if isinstance(value, np.ndarray):
                return M.tensor(value, device=device)
            if isinstance(value, (list, tuple)) and any(isinstance(v, (Leaf, np.ndarray)) for v in value):
                return type(value)(fill(v) for v in value)
            return value

        args = tuple(fill(v) for v in self.args)
        return args, {k: fill(v) for k, v in self.kwargs.items()}



@dataclass(eq=False)
class OpInfo:
    """One operation (or one variant of it whose node differs) and how to test it."""

    name: str
    samples: object  # make -> list of Sample (a bare Leaf is a one-argument sample)
    grad_fn: str  # the node's name in PyTorch, which nbgrad must match
    saves: str  # one of SAVES
    variant: str = ""
    op: object = None  # (M, *args, **kwargs) -> tensor; default M.<name>, then the method
    function: bool = True  # M.<name>(...) exists in both libraries
    method: bool = True  # tensor.<name>(...) exists in both libraries
    operator: object = None  # e.g. operator.add: the Python operator form
    inplace: str = None  # the in-place method, e.g. "tanh_"
    kinks: object = None  # make -> samples at points where the derivative is a convention
    gradcheck: bool = True
    second_order: bool = True
    dtypes: tuple = ("float32", "float64")
    # where nbgrad disagrees with PyTorch: check -> why ("parity", "saves", "torch_saves",
    # "second_backward"); those tests are strict xfails
    xfail: dict = field(default_factory=dict)
    not_in_torch: str = None  # why PyTorch cannot run this row (an nbgrad extension)
    seed: int = 0
    forms: dict = field(init=False)

    def __post_init__(self):
        assert self.saves in SAVES, f"{self.id}: saves={self.saves!r} is not one of {sorted(SAVES)}"
        self.forms = {}
        if self.op is not None:
            self.forms["op"] = self.op
        if self.op is None and self.function:
            self.forms["function"] = lambda M, *a, **k: getattr(M, self.name)(*a, **k)
        if self.op is None and self.method:
            self.forms["method"] = lambda M, x, *a, **k: getattr(x, self.name)(*a, **k)
        if self.operator is not None:
            self.forms["operator"] = lambda M, *a: self.operator(*a)

    @property
    def id(self):
        return f"{self.name}_{self.variant}" if self.variant else self.name

    @property
    def call(self):
        """The first form: the one gradcheck, saves and device tests use."""
        return next(iter(self.forms.values()))

    def sample_inputs(self, kinks=False):
        source = self.kinks if kinks else self.samples
        made = source(Make(self.seed)) if source else []
        return [s if isinstance(s, Sample) else Sample(s) for s in made]


def getitem(M, x, index):
    return x[index]


def setitem(M, x, index, value):
    """``x[index] = value`` on a copy, so the leaf itself is never written."""
    y = x.clone()
    y[index] = value
    return y


def in_place_on_a_copy(method):
    """``x.clone().<method>(...)``: an in-place-only operation, applied where it may be."""
    return lambda M, x, *args: getattr(x.clone(), method)(*args)


def bool_mask(*rows):
    return np.array(rows, dtype=bool)


S = Sample


def functional(name):
    """The call ``M.nn.functional.<name>(...)``: an operation that is a function there only."""
    return lambda M, *args, **kwargs: getattr(M.nn.functional, name)(*args, **kwargs)
MATMUL_BROADCAST_LEFT = {
    "parity": "nbgrad's matmul of a left operand broadcast over a batch ends in another node than "
              "PyTorch's (UnsafeViewBackward0 / SqueezeBackward4 against CloneBackward0 / "
              "UnsafeViewBackward0)",
    "saves": "PyTorch saves a copy of the broadcast right operand, nbgrad the operand itself: "
             "changing it in place makes nbgrad's backward refuse, PyTorch's not",
    "torch_saves": "as for saves",
}
SAVES_ITS_OUTPUTS = ("PyTorch's node saves its results too; nbgrad's a node of two outputs saves the input only "
                     "and finds them again in backward (a saved output of a two-output node is not supported)")
REMAINDER_X = [[2.3, -1.7, 0.45, 3.1], [-2.6, 1.2, -0.35, 0.8], [4.4, -3.3, 1.9, -0.7]]
REMAINDER_Y = [0.9, -1.3, 2.1, -0.65]
MAX_ROW_TIES = [3.0, 3.0, 1.0, 2.0, 5.0, 5.0]
MIN_COLUMN_TIES = [1.0, 3.0, 1.0, 1.0, 5.0, 1.0]

OPS = [
    # -- arithmetic, broadcasting, numbers on either side ------------------------------
    OpInfo("add", grad_fn="AddBackward0", saves="nothing", operator=operator.add, inplace="add_",
           samples=lambda make: [S(make(3, 4), make(3, 4)), S(make(3, 4), make(4)),
                                 S(make(2, 1, 3), make(4, 1)), S(make(3, 4), make()), S(make(), make()),
                                 S(make(3, 4), 3.0), S(make(3, 1), make(1, 4), alpha=2.5),
                                 S(make(3, 4, noncontiguous=True), make(3, 4))]),
    OpInfo("add", variant="number_left", op=lambda M, a: 3.0 + a, grad_fn="AddBackward0", saves="nothing",
           samples=lambda make: [make(3, 4)]),
    OpInfo("sub", grad_fn="SubBackward0", saves="nothing", operator=operator.sub, inplace="sub_",
           samples=lambda make: [S(make(3, 4), make(3, 1)), S(make(3, 4), make(4), alpha=0.5),
                                 S(make(3, 4), 2.0)]),
    OpInfo("rsub", grad_fn="RsubBackward1", saves="nothing", method=False,
           samples=lambda make: [S(make(3, 4), 2.0)]),
    OpInfo("rsub", variant="operator", op=lambda M, a: 2.0 - a, grad_fn="RsubBackward1", saves="nothing",
           samples=lambda make: [make(3, 4)]),
    OpInfo("mul", grad_fn="MulBackward0", saves="inputs", operator=operator.mul, inplace="mul_",
           samples=lambda make: [S(make(3, 4), make(3, 4)), S(make(2, 3, 1), make(1, 4)), S(make(3, 4), make())]),
    # the number is saved, not the tensor: changing the tensor afterwards is harmless
    OpInfo("mul", variant="number", grad_fn="MulBackward0", saves="nothing", operator=operator.mul,
           inplace="mul_", samples=lambda make: [S(make(3, 4), -1.7), S(make(), 2.0)]),
    OpInfo("mul", variant="same_tensor", op=lambda M, a: a * a, grad_fn="MulBackward0", saves="input",
           samples=lambda make: [make(3, 4)]),
    OpInfo("div", grad_fn="DivBackward0", saves="inputs", operator=operator.truediv, inplace="div_",
           samples=lambda make: [S(make(3, 4), make.away(3, 4)), S(make(3, 4), make.away(4))]),
    OpInfo("div", variant="number", grad_fn="DivBackward0", saves="nothing", operator=operator.truediv,
           inplace="div_", samples=lambda make: [S(make(3, 4), 3.0)]),
    # PyTorch computes number / tensor as tensor.reciprocal() * number
    OpInfo("div", variant="number_left", op=lambda M, a: 2.0 / a, grad_fn="MulBackward0", saves="nothing",
           samples=lambda make: [make.away(3, 4)]),
    # rounded division: a zero gradient (PyTorch's // records no derivative at all)
    OpInfo("div", variant="rounding", grad_fn="DivBackward2", saves="inputs", inplace="div_",
           samples=lambda make: [S(make.values(REMAINDER_X), make.values(REMAINDER_Y), rounding_mode="floor"),
                                 S(make.values(REMAINDER_X), make.values(REMAINDER_Y), rounding_mode="trunc")]),
    OpInfo("div", variant="rounding_number", grad_fn="DivBackward2", saves="nothing", inplace="div_",
           samples=lambda make: [S(make.values(REMAINDER_X), 1.5, rounding_mode="trunc"),
                                 S(make.values(REMAINDER_X), -0.75, rounding_mode="floor")]),
    # remainders, away from the jumps where x / y is a whole number
    *(OpInfo(name, grad_fn=node, saves="inputs", operator=operator.mod if name == "remainder" else None,
             inplace=name + "_",
             samples=lambda make: [S(make.values(REMAINDER_X), make.values(REMAINDER_Y)),
                                   S(make.values(REMAINDER_X[0]), make.values(REMAINDER_X[1]))])
      for name, node in [("remainder", "RemainderBackward1"), ("fmod", "FmodBackward1")]),
    *(OpInfo(name, variant="number", grad_fn=node, saves="nothing",
             operator=operator.mod if name == "remainder" else None, inplace=name + "_",
             samples=lambda make: [S(make.values(REMAINDER_X), 1.5), S(make.values(REMAINDER_X), -0.75)])
      for name, node in [("remainder", "RemainderBackward0"), ("fmod", "FmodBackward0")]),
    OpInfo("neg", grad_fn="NegBackward0", saves="nothing", operator=operator.neg, inplace="neg_",
           samples=lambda make: [make(3, 4), make()]),
    # -- powers ----------------------------------------------------------------------
    OpInfo("pow", grad_fn="PowBackward0", saves="input", operator=operator.pow, inplace="pow_",
           samples=lambda make: [S(make.positive(3, 4), 2.5), S(make(3, 4), 3), S(make(3, 4), 2),
                                 S(make.positive(3, 4), -1.5), S(make(3, 4), 0), S(make.positive(3, 4), 0.5)],
           kinks=lambda make: [S(make.values([0.0, 2.0]), 0), S(make.values([0.0, 4.0]), 0.5)]),
    OpInfo("pow", variant="tensor", grad_fn="PowBackward1", saves="inputs+output", operator=operator.pow,
           inplace="pow_",
           samples=lambda make: [S(make.positive(3, 4), make(3, 4)), S(make.positive(3, 4), make(4)),
                                 S(make.positive(4), make(3, 4)), S(make.positive(3, 1), make(1, 4))],
           kinks=lambda make: [S(make.values([0.0, 0.0, 4.0]), make.values([2.0, 0.0, 0.5]))]),
    OpInfo("pow", variant="number_left", op=lambda M, b, base: base ** b, grad_fn="PowBackward2",
           saves="input+output", xfail={reason: "nbgrad's PowBackward2 saves only the result (its gradient "
                                                 "is result * log(base)), PyTorch's the exponent too"
                                        for reason in ("saves", "torch_saves")},
           samples=lambda make: [S(make(3, 4), 2.0), S(make(3, 4), 0.7)]),
    OpInfo("square", grad_fn="PowBackward0", saves="input", inplace="square_", samples=lambda make: [make(3, 4)]),
    OpInfo("reciprocal", grad_fn="ReciprocalBackward0", saves="output", inplace="reciprocal_",
           samples=lambda make: [make.away(3, 4), make.away(5)]),
    # -- elementwise math ------------------------------------------------------------
    OpInfo("abs", grad_fn="AbsBackward0", saves="input", operator=abs,
           samples=lambda make: [make.away(3, 4)], kinks=lambda make: [make.values([0.0, -1.0, 2.0, 0.0])]),
    OpInfo("exp", grad_fn="ExpBackward0", saves="output", inplace="exp_", samples=lambda make: [make(3, 4), make()]),
    OpInfo("log", grad_fn="LogBackward0", saves="input", inplace="log_", samples=lambda make: [make.positive(3, 4)]),
    OpInfo("sqrt", grad_fn="SqrtBackward0", saves="output", inplace="sqrt_", samples=lambda make: [make.positive(3, 4)],
           kinks=lambda make: [make.values([0.0, 4.0])]),
    OpInfo("sin", grad_fn="SinBackward0", saves="input", inplace="sin_", samples=lambda make: [make(3, 4), make()]),
    OpInfo("cos", grad_fn="CosBackward0", saves="input", inplace="cos_", samples=lambda make: [make(3, 4)]),
    OpInfo("tanh", grad_fn="TanhBackward0", saves="output", inplace="tanh_",
           samples=lambda make: [make(3, 4), make(3, 4, noncontiguous=True)]),
    OpInfo("sigmoid", grad_fn="SigmoidBackward0", saves="output", inplace="sigmoid_",
           # large inputs as well: the formula must not overflow
           samples=lambda make: [make(3, 4), make.values(np.linspace(-20.0, 20.0, 12))]),
    OpInfo("relu", grad_fn="ReluBackward0", saves="output", inplace="relu_",
           samples=lambda make: [make.away(3, 4)], kinks=lambda make: [make.values([0.0, -1.0, 2.0, 0.0])]),
    # (PyTorch's asinh_, acosh_ and atanh_ have no derivative: test_parity_mathops.py tests them)
    *(OpInfo(name, grad_fn=node, saves=saves, samples=samples,
             inplace=None if name in ("asinh", "acosh", "atanh") else name + "_")
      for name, node, saves, samples in [
          ("log1p", "Log1PBackward0", "input", lambda make: [make.positive(3, 4, low=-0.5), make.positive()]),
          ("expm1", "Expm1Backward0", "output", lambda make: [make(3, 4), make()]),
          ("log2", "Log2Backward0", "input", lambda make: [make.positive(3, 4)]),
          ("log10", "Log10Backward0", "input", lambda make: [make.positive(3, 4)]),
          ("exp2", "Exp2Backward0", "output", lambda make: [make(3, 4)]),
          ("rsqrt", "RsqrtBackward0", "output", lambda make: [make.positive(3, 4), make.positive(5)]),
          ("tan", "TanBackward0", "output", lambda make: [make.positive(3, 4, low=-1.2, high=1.2)]),
          ("asin", "AsinBackward0", "input", lambda make: [make.positive(3, 4, low=-0.9, high=0.9)]),
          ("acos", "AcosBackward0", "input", lambda make: [make.positive(3, 4, low=-0.9, high=0.9)]),
          ("atan", "AtanBackward0", "input", lambda make: [make(3, 4), make(3, 4, noncontiguous=True)]),
          ("sinh", "SinhBackward0", "input", lambda make: [make(3, 4), make()]),
          ("cosh", "CoshBackward0", "input", lambda make: [make(3, 4)]),
          ("asinh", "AsinhBackward0", "input", lambda make: [make(3, 4)]),
          ("acosh", "AcoshBackward0", "input", lambda make: [make.positive(3, 4, low=1.2, high=3.0)]),
          ("atanh", "AtanhBackward0", "input", lambda make: [make.positive(3, 4, low=-0.9, high=0.9)]),
          ("erf", "ErfBackward0", "input", lambda make: [make(3, 4), make()]),
          ("erfc", "ErfcBackward0", "input", lambda make: [make(3, 4)]),
          ("erfinv", "ErfinvBackward0", "input", lambda make: [make.positive(3, 4, low=-0.9, high=0.9)]),
          ("frac", "FracBackward0", "nothing", lambda make: [make.values([-1.3, -0.7, 0.2, 1.7, 2.3])]),
      ]),
    *(OpInfo(name, variant="alias", grad_fn=node, saves="input", samples=lambda make: [make.positive(3, 4, low=-0.9, high=0.9)])
      for name, node in [("arcsin", "AsinBackward0"), ("arccos", "AcosBackward0"), ("arctan", "AtanBackward0"),
                         ("arcsinh", "AsinhBackward0"), ("arctanh", "AtanhBackward0")]),
    OpInfo("nan_to_num", grad_fn="NanToNumBackward0", saves="input", inplace="nan_to_num_",
           samples=lambda make: [make(3, 4), S(make(3, 4), nan=1.5, posinf=2.0, neginf=-2.0)],
           kinks=lambda make: [make.values([np.nan, np.inf, -np.inf, 1.0]),
                               S(make.values([np.nan, np.inf, -np.inf, 1.0]), 0.5, 3.0)]),
    # -- two tensors: broadcast, promoted, gradients summed back ----------------------
    OpInfo("atan2", grad_fn="Atan2Backward0", saves="inputs", inplace="atan2_",
           samples=lambda make: [S(make(3, 4), make.away(3, 4)), S(make(3, 4), make.away(4)),
                                 S(make(), make.away(2, 3))]),
    OpInfo("arctan2", grad_fn="Atan2Backward0", saves="inputs", samples=lambda make: [S(make(3, 4), make.away(4))]),
    OpInfo("hypot", grad_fn="HypotBackward0", saves="inputs+output", inplace="hypot_",
           samples=lambda make: [S(make.away(3, 4), make.away(3, 4)), S(make.away(3, 4), make.away(1, 4))]),
    OpInfo("logaddexp", grad_fn="LogaddexpBackward0", saves="inputs",
           samples=lambda make: [S(make(3, 4), make(3, 4)), S(make(3, 4), make(4)),
                                 S(make.values([500.0, -500.0]), make.values([499.0, -501.0]))]),
    OpInfo("xlogy", grad_fn="XlogyBackward0", saves="inputs", inplace="xlogy_",
           samples=lambda make: [S(make(3, 4), make.positive(3, 4)), S(make(3, 4), make.positive(4))],
           kinks=lambda make: [S(make.values([0.0, 0.0, 1.0]), make.values([2.0, 0.5, 3.0]))]),
    OpInfo("xlogy", variant="number_other", grad_fn="XlogyBackward2", saves="input", inplace="xlogy_",
           samples=lambda make: [S(make(3, 4), 2.5)], kinks=lambda make: [S(make.values([0.0, 1.0]), 3.0)]),
    OpInfo("xlogy", variant="number_input", op=lambda M, y: M.xlogy(2.0, y), grad_fn="XlogyBackward1",
           saves="input", samples=lambda make: [make.positive(3, 4)]),
    OpInfo("lerp", grad_fn="LerpBackward0", saves="nothing", inplace="lerp_",
           samples=lambda make: [S(make(3, 4), make(3, 4), 0.3), S(make(3, 4), make(4), 0.8),
                                 S(make(3, 4), make(3, 4), 1.0)]),
    OpInfo("lerp", variant="tensor_weight", grad_fn="LerpBackward1", saves="inputs", inplace="lerp_",
           samples=lambda make: [S(make(3, 4), make(3, 4), make.positive(3, 4, low=0.0, high=1.0)),
                                 S(make(3, 4), make(4), make.positive(3, 1, low=0.0, high=1.0))]),
    OpInfo("copysign", grad_fn="CopysignBackward0", saves="input+output", inplace="copysign_",
           samples=lambda make: [S(make.away(3, 4), make.away(3, 4)), S(make.away(3, 4), make.away(4))],
           kinks=lambda make: [S(make.values([0.0, -0.0, 2.0]), make.values([-1.0, 1.0, -0.0]))]),
    OpInfo("copysign", variant="number", grad_fn="CopysignBackward1", saves="input+output",
           inplace="copysign_", samples=lambda make: [S(make.away(3, 4), -1.5), S(make.away(3, 4), 2)],
           kinks=lambda make: [S(make.values([0.0, -0.0, 2.0]), -1.0)]),
    *(OpInfo(name, grad_fn=node, saves="other", inplace=name + "_",
             samples=lambda make: [S(make(3, 4), make(3, 4), make.away(3, 4)),
                                   S(make(3, 1), make(4), make.away(3, 4), value=0.5),
                                   S(make(), make(2, 3), make.away(3), value=-2)])
      for name, node in [("addcmul", "AddcmulBackward0"), ("addcdiv", "AddcdivBackward0")]),
    OpInfo("logit", grad_fn="LogitBackward0", saves="input", inplace="logit_",
           samples=lambda make: [make.positive(3, 4, low=0.1, high=0.9), S(make.positive(3, 4, low=0.1, high=0.9), 0.2),
                                 S(make.positive(3, 4, low=0.1, high=0.9), eps=-1.0)],
           kinks=lambda make: [S(make.values([0.05, 0.5, 0.95, 1.5]), 0.1)]),
    *(OpInfo(name, grad_fn=node, saves="input", inplace=name + "_",
             samples=lambda make: [S(make.away(3, 4, margin=0.3), 0.1), S(make.distinct(4, 5), -0.25)],
             kinks=lambda make: [S(make.values([0.5, 0.0, 1.0]), 0.5)])
      for name, node in [("clamp_min", "ClampMinBackward0"), ("clamp_max", "ClampMaxBackward0")]),
    *(OpInfo(name, variant="tensor", grad_fn=node, saves="inputs", inplace=name + "_",
             samples=lambda make: [S(make.distinct(3, 4), make.values([-0.1, 0.3, -0.5, 0.05])),
                                   S(make.distinct(3, 4), make.values([[0.1], [-0.3], [0.5]]))],
             kinks=lambda make: [S(make.values([0.5, 1.0, 3.0]), make.values([0.5, 0.0, 3.0]))])
      for name, node in [("clamp_min", "ClampMinBackward1"), ("clamp_max", "ClampMaxBackward1")]),
    # -- the activations of nn.functional (each one node in PyTorch) --------------------
    *(OpInfo(name, variant=variant, grad_fn=node, saves="input", op=functional(name),
             function=False, method=False, second_order=second_order,
             samples=lambda make, options=options: [S(make(3, 4), **options), S(make(), **options),
                                                     S(make(3, 4, noncontiguous=True), **options),
                                                     S(make.values(np.linspace(-30.0, 30.0, 12)), **options)],
             kinks=lambda make, options=options, kinks=kinks: [S(make.values(kinks), **options)] if kinks else [])
      for name, variant, node, options, kinks, second_order in [
          ("leaky_relu", "", "LeakyReluBackward0", {}, [0.0, -1.0, 2.0], True),
          ("leaky_relu", "slope", "LeakyReluBackward0", {"negative_slope": 0.2}, [], True),
          ("gelu", "", "GeluBackward0", {}, [0.0], True),
          ("gelu", "tanh", "GeluBackward0", {"approximate": "tanh"}, [0.0], True),
          ("elu", "", "EluBackward0", {}, [0.0], True),
          ("elu", "alpha", "EluBackward0", {"alpha": 0.5}, [], True),
          ("celu", "", "CeluBackward0", {"alpha": 2.0}, [0.0], True),
          ("silu", "", "SiluBackward0", {}, [], True),
          ("mish", "", "MishBackward0", {}, [], True),
          ("softplus", "", "SoftplusBackward0", {}, [20.0, 0.0], True),
          ("softplus", "beta", "SoftplusBackward0", {"beta": 2.0, "threshold": 3.0}, [1.5], True),
          ("hardtanh", "", "HardtanhBackward0", {}, [-1.0, 1.0, 0.0], True),
          ("relu6", "", "HardtanhBackward0", {}, [0.0, 6.0], True),
          # PyTorch has no derivative of hardsigmoid's backward
          ("hardsigmoid", "", "HardsigmoidBackward0", {}, [-3.0, 3.0], False),
          ("hardswish", "", "HardswishBackward0", {}, [-3.0, 3.0], True),
          ("logsigmoid", "", "LogSigmoidBackward0", {}, [0.0], True),
          ("softshrink", "", "SoftshrinkBackward0", {"lambd": 0.3}, [0.3, -0.3, 0.0], True),
      ]),
    *(OpInfo(name, grad_fn=node, saves="input", method=method, samples=samples, kinks=kinks)
      for name, node, method, samples, kinks in [
          ("selu", "EluBackward0", False, lambda make: [make(3, 4), make()], None),
          ("hardshrink", "HardshrinkBackward0", True, lambda make: [S(make.away(3, 4, margin=0.6)), S(make(3, 4), 1.0)],
           lambda make: [make.values([0.5, -0.5, 0.0])]),
          ("threshold", "ThresholdBackward0", False, lambda make: [S(make(3, 4), 0.3, -2.0)],
           lambda make: [S(make.values([0.3, 1.0, -1.0]), 0.3, 5.0)]),
      ]),
    OpInfo("prelu", grad_fn="PreluKernelBackward0", saves="inputs",
           samples=lambda make: [S(make(2, 3, 4), make(3)), S(make(4, 3), make(3))]),
    # -- normalisation (one node each in PyTorch) -------------------------------------
    OpInfo("batch_norm", grad_fn="NativeBatchNormBackward0", saves="inputs", op=functional("batch_norm"),
           function=False, method=False,
           samples=lambda make: [S(make(4, 3), None, None, make(3), None, True),
                                 S(make(4, 2, noncontiguous=True), None, None, make(2), None, training=True),
                                 S(make(3, 2, 4), None, None, make(2), None, training=True)]),
    OpInfo("batch_norm", variant="eval", grad_fn="NativeBatchNormBackward0", saves="inputs",
           op=functional("batch_norm"), function=False, method=False,
           samples=lambda make: [S(make(4, 3), make.values([0.1, -0.2, 0.3], requires_grad=False),
                                   make.values([0.5, 1.0, 2.0], requires_grad=False), make(3))]),
    OpInfo("layer_norm", grad_fn="NativeLayerNormBackward0", saves="inputs", op=functional("layer_norm"),
           function=False, method=False,
           samples=lambda make: [S(make(3, 4), (4,), make(4), make(4)), S(make(2, 3, 4), [3, 4], make(3, 4), make(3, 4)),
                                 S(make(3, 4, noncontiguous=True), (4,), make(4), make(4))]),
    OpInfo("group_norm", grad_fn="NativeGroupNormBackward0", saves="inputs", op=functional("group_norm"),
           function=False, method=False,
           samples=lambda make: [S(make(2, 4, 3), 2, make(4)), S(make(3, 2), 1, make(2))]),
    # the indices (saved, but not a leaf of the table) come first; the weight is not saved
    OpInfo("embedding", grad_fn="EmbeddingBackward0", saves="nothing", op=functional("embedding"),
           function=False, method=False,
           samples=lambda make: [S(np.array([[0, 3], [3, 4]]), make(5, 3)), S(np.array(2), make(5, 3))]),
    *(OpInfo("pad", variant=mode, grad_fn=node, saves=saves, op=functional("pad"), function=False,
             method=False, samples=lambda make, mode=mode, pads=pads: [S(make(2, 3, 4), p, mode=mode) for p in pads])
      for mode, node, saves, pads in [("constant", "ConstantPadNdBackward0", "nothing", [(1, 2), (-1, 1, 2, 0)]),
                                      ("reflect", "ReflectionPad1DBackward0", "input", [(2, 1)]),
                                      ("replicate", "ReplicationPad2DBackward0", "input", [(1, 2, 3, 0)])]),
    # -- steps: a zero gradient everywhere (and a convention at the steps) -------------
    *(OpInfo(name, grad_fn=node, saves="nothing", samples=lambda make: [make.values([-1.3, -0.7, 0.2, 1.7, 2.3])],
             kinks=lambda make: [make.values([-1.5, -0.5, 0.0, 0.5, 1.0, 1.5, 2.3])])
      for name, node in [("sign", "SignBackward0"), ("floor", "FloorBackward0"), ("ceil", "CeilBackward0"),
                         ("trunc", "TruncBackward0"), ("round", "RoundBackward0")]),
    OpInfo("sgn", grad_fn="SgnBackward0", saves="input+output",
           samples=lambda make: [make.values([-1.3, -0.7, 0.2, 1.7, 2.3])],
           kinks=lambda make: [make.values([-1.5, 0.0, 1.0])]),
    OpInfo("round", variant="decimals", grad_fn="RoundBackward1", saves="nothing", function=False,
           samples=lambda make: [S(make.values([-1.32, 0.27, 1.71]), decimals=1)]),
    # -- clamping and choosing -------------------------------------------------------
    OpInfo("clamp", grad_fn="ClampBackward1", saves="input", inplace="clamp_",
           samples=lambda make: [S(make.away(3, 4, margin=0.3), min=0.1), S(make.away(3, 4, margin=0.3), max=-0.1),
                                 S(make.distinct(4, 5), -0.5, 0.6), S(make.distinct(20), min=-0.4, max=0.45)],
           kinks=lambda make: [S(make.values([0.5, 0.0, 1.0]), min=0.5), S(make.values([0.5, 0.0, 1.0]), max=0.5),
                               S(make.values([-1.0, 1.0, 0.0, 2.0]), -1.0, 1.0),
                               S(make.values([-2.0, 0.0, 2.0]), 1.0, -1.0)]),  # min > max
    OpInfo("clip", grad_fn="ClampBackward1", saves="input", samples=lambda make: [S(make.distinct(20), -0.4, 0.45)]),
    OpInfo("clamp", variant="tensor", grad_fn="ClampBackward0", saves="inputs", inplace="clamp_",
           samples=lambda make: [S(make.distinct(3, 4), min=make.values([-0.1, 0.3, -0.5, 0.05])),
                                 S(make.distinct(3, 4), max=make.values([[0.1], [-0.3], [0.5]])),
                                 S(make.distinct(3, 4), make.values([-0.2, -0.5, 0.05, -1.0]),
                                   make.values([0.3, 0.6, 0.5, 0.1]))],
           kinks=lambda make: [S(make.values([0.5, 1.0, 3.0]), min=make.values([0.5, 0.0, 3.0]))]),
    *(OpInfo(name, grad_fn=node, saves="inputs",
             samples=lambda make: [S(make.distinct(3, 4), make.distinct(3, 4, shift=0.01)),
                                   S(make.distinct(3, 4), make.values([0.03, -0.2, 0.5, 0.1])),
                                   S(make.distinct(3, 4), make.values([[0.03], [-0.2], [0.5]]))],
             kinks=lambda make: [S(make.values([1.0, 2.0, 3.0]), make.values([1.0, 0.0, 3.0])),
                                 S(make.values([[3.0, 1.0, 3.0], [3.0, 2.0, 0.0]]), make.values([3.0, 3.0, 3.0]))])
      for name, node in [("maximum", "MaximumBackward0"), ("minimum", "MinimumBackward0")]),
    OpInfo("maximum", variant="self", op=lambda M, a: M.maximum(a, a), grad_fn="MaximumBackward0", saves="input",
           samples=lambda make: [make.distinct(3, 4)], kinks=lambda make: [make.values([1.0, 2.0, 3.0])]),
    OpInfo("max", variant="binary", grad_fn="MaximumBackward0", saves="inputs",
           samples=lambda make: [S(make.distinct(3, 4), make.distinct(3, 4, shift=0.01))],
           kinks=lambda make: [S(make.values([[3.0, 1.0], [3.0, 2.0]]), make.values([[3.0, 2.0], [3.0, 1.0]]))]),
    # where saves its condition, which the caller cannot pass to backward differently
    OpInfo("where", grad_fn="WhereBackward0", saves="nothing", method=False,
           samples=lambda make: [S(bool_mask([True, False, True, False]), make(3, 4), make(3, 4)),
                                 S(bool_mask([True], [False], [True]), make(3, 4), make(4)),
                                 S(bool_mask([True, False], [False, True]), make(2, 2), 0.5),
                                 S(bool_mask([True], [False], [True]), make(4), 0.5),
                                 S(bool_mask(True, False, True), 1.0, make(3))]),
    # the same tensor in both branches and in the condition: the branch not taken gets zeros
    OpInfo("where", variant="same_tensor", op=lambda M, x: M.where(x > 0, x, x * 0), grad_fn="WhereBackward0",
           saves="nothing", samples=lambda make: [make.away(3, 4)], kinks=lambda make: [make.values([-1.0, 2.0])]),
    OpInfo("where", variant="method", op=lambda M, a, condition, b: a.where(condition, b), grad_fn="WhereBackward0",
           saves="nothing", samples=lambda make: [S(make(3, 4), bool_mask([True, False, False, True]), make(1, 4))]),
    OpInfo("masked_fill", grad_fn="MaskedFillBackward0", saves="nothing", inplace="masked_fill_",
           samples=lambda make: [S(make(3, 4), bool_mask(True, False, False, True), 2.0),
                                 S(make(3, 4), bool_mask([True], [False], [True]), -1.0)]),
    # a 0-d tensor value is in the graph: it gets the sum of the gradient where the mask is on
    OpInfo("masked_fill", variant="tensor_value", grad_fn="MaskedFillBackward1", saves="nothing",
           inplace="masked_fill_",
           samples=lambda make: [S(make(3, 4), bool_mask(True, False, False, True), make.values(2.0)),
                                 S(make(3, 4), bool_mask([True], [False], [True]), make.values(-1.0))]),
    # -- reductions ------------------------------------------------------------------
    OpInfo("sum", grad_fn="SumBackward0", saves="nothing", samples=lambda make: [make(3, 4), make()]),
    OpInfo("sum", variant="dim", grad_fn="SumBackward1", saves="nothing",
           samples=lambda make: [S(make(3, 4), 0), S(make(2, 3, 4), -1), S(make(2, 3, 4), (0, 2)),
                                 S(make(2, 3, 4), 1, keepdim=True), S(make(2, 3, 4), (0, -1), keepdim=True),
                                 S(make(2, 3, 4), dim=1)]),
    OpInfo("mean", grad_fn="MeanBackward0", saves="nothing", samples=lambda make: [make(3, 4)]),
    OpInfo("mean", variant="dim", grad_fn="MeanBackward1", saves="nothing",
           samples=lambda make: [S(make(3, 4), 1), S(make(2, 3, 4), (0, 1)), S(make(2, 3, 4), -1, keepdim=True),
                                 S(make(2, 3, 4), (1, 2), True)]),
    OpInfo("var", grad_fn="VarBackward0", saves="input",
           samples=lambda make: [make(3, 4), S(make(3, 4), correction=0), S(make(3, 4), unbiased=False),
                                 S(make(3, 4), 1), S(make(2, 3, 4), (0, 2), keepdim=True),
                                 S(make(3, 4), 0, correction=0)]),
    OpInfo("std", grad_fn="StdBackward0", saves="input+output",
           samples=lambda make: [make(3, 4), S(make(3, 4), correction=0), S(make(3, 4), 1),
                                 S(make(2, 3, 4), (0, 2), keepdim=True), S(make(3, 4), -1, correction=0)]),
    *(OpInfo(name, grad_fn=node, saves="input+output", samples=lambda make: [make.distinct(3, 4)],
             kinks=lambda make: [make.values([1.0, 3.0, 3.0, 3.0, 2.0]), make.values([1.0, 3.0, 1.0, 2.0])])
      for name, node in [("max", "MaxBackward1"), ("min", "MinBackward1")]),
    # max(dim) saves the indices it chose
    *(OpInfo(name, variant="dim", op=lambda M, a, *args, name=name, **kw: getattr(a, name)(*args, **kw)[0],
             grad_fn=node, saves="nothing",
             samples=lambda make: [S(make.distinct(3, 4), 1), S(make.distinct(3, 4), 0, keepdim=True),
                                   S(make.distinct(2, 3, 4), -1), S(make.distinct(2, 3, 4), dim=1)],
             kinks=lambda make: [S(make.values(np.reshape(MAX_ROW_TIES, (2, 3))), 1),
                                 S(make.values(np.reshape(MIN_COLUMN_TIES, (2, 3))), 0),
                                 S(make.values([[3.0, 1.0, 3.0], [3.0, 2.0, 0.0]]), 1, keepdim=True)])
      for name, node in [("max", "MaxBackward0"), ("min", "MinBackward0")]),
    OpInfo("max", variant="dim_values", op=lambda M, a, dim: M.max(a, dim=dim).values, grad_fn="MaxBackward0",
           saves="nothing", samples=lambda make: [S(make.distinct(2, 3, 4), 1)]),
    *(OpInfo(name, grad_fn=node, saves="input+output",
             samples=lambda make: [make.distinct(3, 4), S(make.distinct(3, 4), 1),
                                   S(make.distinct(2, 3, 4), (0, 2), keepdim=True), S(make.distinct(2, 3, 4), (0, 1))],
             kinks=lambda make: [make.values([1.0, 3.0, 3.0, 3.0, 2.0]), S(make.values(np.reshape(MAX_ROW_TIES, (2, 3))), 1),
                                 S(make.values(np.reshape(MIN_COLUMN_TIES, (2, 3))), 0)])
      for name, node in [("amax", "AmaxBackward0"), ("amin", "AminBackward0")]),
    OpInfo("norm", grad_fn="LinalgVectorNormBackward0", saves="input+output",
           samples=lambda make: [make(3, 4), S(make(3, 4), 2, dim=1), S(make.away(3, 4), p=1),
                                 S(make.away(3, 4), 1, dim=0, keepdim=True), S(make.distinct(3, 4, shift=0.01), p=np.inf),
                                 S(make.distinct(3, 4, shift=0.01), float("inf"), dim=1), S(make.away(3, 4), p=3),
                                 S(make.away(2, 3, 4), 3, dim=(0, 2)), S(make.away(3, 4), p=1.5, dim=-1),
                                 S(make.away(3, 4), p=0.5), S(make.away(3, 4), -1, dim=1),
                                 S(make.distinct(3, 4, shift=0.01), -np.inf, dim=0)],
           kinks=lambda make: [make.values([0.0, 0.0, 0.0]), S(make.values([[0.0, 0.0], [3.0, 4.0]]), dim=1),
                               S(make.values([0.0, -1.0, 2.0]), p=1), S(make.values([-3.0, 3.0, 1.0, 3.0]), p=np.inf),
                               S(make.values([0.0, 0.0]), p=3)]),
    OpInfo("logsumexp", grad_fn="LogsumexpBackward0", saves="input+output",
           samples=lambda make: [S(make(3, 4), 1), S(make(2, 3, 4), (0, 2), keepdim=True),
                                 S(make.values(np.linspace(-300.0, 300.0, 12).reshape(3, 4)), 0)],
           kinks=lambda make: [S(make.values([-np.inf, 0.0, 1.0]), 0)]),
    *(OpInfo(name, grad_fn=node, saves="output",
             samples=lambda make: [S(make(3, 4), 1), S(make(3, 4), dim=0), S(make(2, 3, 4), -1)])
      for name, node in [("softmax", "SoftmaxBackward0"), ("log_softmax", "LogSoftmaxBackward0")]),
    OpInfo("prod", grad_fn="ProdBackward0", saves="input+output",
           samples=lambda make: [make.away(3, 4), make.away(), make.away(2, 0)],
           kinks=lambda make: [make.values([[1.0, 0.0, 3.0], [2.0, 4.0, 5.0]]), make.values([0.0, 2.0, 0.0])]),
    OpInfo("prod", variant="dim", grad_fn="ProdBackward1", saves="input+output",
           samples=lambda make: [S(make.away(3, 4), 1), S(make.away(2, 3, 4), -1, keepdim=True), S(make.away(3, 4), dim=0),
                                 S(make.away(), 0), S(make(3, 4, noncontiguous=True), 1)],
           kinks=lambda make: [S(make.values([[1.0, 0.0, 3.0, 2.0], [0.0, 2.0, 0.0, 5.0], [1.0, 2.0, 3.0, 4.0]]), 1),
                               S(make.values([[1.0, 0.0], [2.0, 3.0], [0.0, 4.0]]), 0, keepdim=True)]),
    OpInfo("nansum", grad_fn="NansumBackward0", saves="input",
           samples=lambda make: [make(3, 4), S(make(2, 3, 4), (0, 2)), S(make(3, 4), 1, keepdim=True)],
           kinks=lambda make: [make.values([[1.0, np.nan], [2.0, 3.0]]), S(make.values([[1.0, np.nan], [np.nan, 3.0]]), 0)]),
    OpInfo("nanmean", grad_fn="DivBackward0", saves="input",
           samples=lambda make: [make(3, 4), S(make(2, 3, 4), (0, 2)), S(make(3, 4), 1, keepdim=True)],
           kinks=lambda make: [make.values([[1.0, np.nan], [2.0, 3.0]]), S(make.values([[1.0, np.nan], [np.nan, 3.0]]), 0)]),
    OpInfo("median", grad_fn="MedianBackward0", saves="input+output", samples=lambda make: [make.distinct(3, 4), make.distinct(5)],
           kinks=lambda make: [make.values([1.0, 2.0, 2.0, 0.5, 2.0])]),
    OpInfo("nanmedian", grad_fn="NanmedianBackward0", saves="input+output", samples=lambda make: [make.distinct(3, 4)],
           kinks=lambda make: [make.values([1.0, np.nan, 2.0, 0.5])]),
    *(OpInfo(name, variant="dim", op=lambda M, a, *args, name=name, **kw: getattr(a, name)(*args, **kw)[0],
             grad_fn=node, saves="nothing",
             samples=lambda make: [S(make.distinct(3, 4), 1), S(make.distinct(3, 5), 0, keepdim=True),
                                   S(make.distinct(2, 3, 4), -1)])
      for name, node in [("median", "MedianBackward1"), ("nanmedian", "NanmedianBackward1")]),
    *(OpInfo(name, variant=str(k), op=lambda M, a, *args, name=name, k=k, **kw: getattr(M, name)(a, *args, **kw)[k],
             grad_fn=node, saves="input", method=False,
             xfail={"torch_saves": SAVES_ITS_OUTPUTS} if (name, k) == ("std_mean", 0) else {},
             samples=lambda make: [make(3, 4), S(make(3, 4), 1), S(make(2, 3, 4), (0, 2), keepdim=True),
                                   S(make(3, 4), 0, correction=0)])
      for name, node in [("var_mean", "VarMeanBackward0"), ("std_mean", "StdMeanBackward0")] for k in (0, 1)),
    *(OpInfo("aminmax", variant=str(k), op=lambda M, a, k=k, **kw: a.aminmax(**kw)[k], grad_fn="AminmaxBackward0",
             saves="input", xfail={"torch_saves": SAVES_ITS_OUTPUTS},
             samples=lambda make: [make.distinct(3, 4), S(make.distinct(3, 4), dim=1),
                                                  S(make.distinct(3, 4), dim=0, keepdim=True)],
             kinks=lambda make: [make.values([1.0, 3.0, 3.0, 1.0])])
      for k in (0, 1)),
    OpInfo("dist", grad_fn="DistBackward0", saves="inputs+output", method=True,
           samples=lambda make: [S(make(3, 4), make(3, 4)), S(make(3, 4), make(4), 1), S(make(3, 4), make(4), 3),
                                 S(make.distinct(3, 4), make.distinct(3, 4, shift=0.01), float("inf"))]),
    OpInfo("cdist", grad_fn="CdistBackward0", saves="inputs+output", method=False,
           samples=lambda make: [S(make(3, 4), make(5, 4)), S(make(2, 3, 4), make(2, 2, 4), 1.0), S(make(3, 2), make(4, 2), 3.0)]),
    # -- scans ---------------------------------------------------------------------------
    OpInfo("cumsum", grad_fn="CumsumBackward0", saves="nothing", inplace="cumsum_",
           samples=lambda make: [S(make(3, 4), 1), S(make(2, 3, 4), -1), S(make(2, 3, 4), dim=0), S(make(), 0),
                                 S(make(3, 4, noncontiguous=True), 0)]),
    OpInfo("cumprod", grad_fn="CumprodBackward0", saves="input+output", inplace="cumprod_",
           samples=lambda make: [S(make.away(3, 4), 1), S(make.away(2, 3, 4), 0), S(make.away(), 0)],
           kinks=lambda make: [S(make.values([[1.0, 0.0, 3.0, 2.0], [0.0, 2.0, 0.0, 5.0]]), 1),
                               S(make.values([[1.0, 0.0], [2.0, 3.0], [0.0, 4.0]]), 0)]),
    *(OpInfo(name, op=lambda M, a, *args, name=name, **kw: getattr(a, name)(*args, **kw)[0],
             grad_fn=node, saves="input",
             samples=lambda make: [S(make.distinct(3, 4), 1), S(make.distinct(2, 3, 4), 0), S(make.distinct(3, 4), -1)],
             kinks=lambda make: [S(make.values([[1.0, 3.0, 3.0, 2.0], [3.0, 1.0, 1.0, 2.0]]), 1)])
      for name, node in [("cummax", "CummaxBackward0"), ("cummin", "CumminBackward0")]),
    OpInfo("logcumsumexp", grad_fn="LogcumsumexpBackward0", saves="input+output",
           samples=lambda make: [S(make(3, 4), 1), S(make(2, 3, 4), 0),
                                 S(make.values(np.linspace(-300.0, 300.0, 12).reshape(3, 4)), 1)]),
    OpInfo("sum_to_size", grad_fn="SumBackward1", saves="nothing", function=False,
           samples=lambda make: [S(make(3, 4), 1, 4)]),
    OpInfo("sum_to_size", variant="fewer_dims", grad_fn="ViewBackward0", saves="nothing", function=False,
           xfail={"parity": "PyTorch sums away leading dimensions, then views (ViewBackward0); "
                            "nbgrad records one SumBackward1"},
           samples=lambda make: [S(make(2, 3, 4), 3, 1), S(make(2, 3, 4), (4,))]),
    # -- linear algebra: matmul's node depends on the operands' dimensions --------------
    OpInfo("mm", grad_fn="MmBackward0", saves="inputs",
           samples=lambda make: [S(make(3, 4), make(4, 2)), S(make(2, 3), make(3, 5))]),
    # the constant's counterpart is not needed: only the constant is saved
    OpInfo("mm", variant="constant", grad_fn="MmBackward0", saves="other",
           samples=lambda make: [S(make(3, 4), make.constant(4, 2))]),
    OpInfo("mv", grad_fn="MvBackward0", saves="inputs", samples=lambda make: [S(make(3, 4), make(4))]),
    OpInfo("bmm", grad_fn="BmmBackward0", saves="inputs", function=False,
           samples=lambda make: [S(make(2, 3, 4), make(2, 4, 5))]),
    OpInfo("dot", grad_fn="DotBackward0", saves="inputs", samples=lambda make: [S(make(5), make(5))]),
    OpInfo("cross", grad_fn="LinalgCrossBackward0", saves="inputs",
           samples=lambda make: [S(make(4, 3), make(4, 3), 1), S(make(3, 4), make(3, 1), dim=0)]),
    OpInfo("cross", variant="linalg", op=lambda M, a, b, **k: M.linalg.cross(a, b, **k),
           grad_fn="LinalgCrossBackward0", saves="inputs",
           samples=lambda make: [S(make(2, 4, 3), make(1, 1, 3)), S(make(3, 5), make(3, 5), dim=0)]),
    OpInfo("det", grad_fn="LinalgDetBackward0", saves="input+output",
           samples=lambda make: [make.invertible(), make.invertible(2), make(4, 4), make.invertible(n=1)]),
    OpInfo("det", variant="linalg", op=lambda M, a: M.linalg.det(a), grad_fn="LinalgDetBackward0",
           saves="input+output", samples=lambda make: [make.invertible(2, 3)]),
    OpInfo("slogdet", op=lambda M, a: M.slogdet(a)[1], grad_fn="LinalgSlogdetBackward0", saves="input",
           samples=lambda make: [make.invertible(), make.invertible(2), make(4, 4)]),
    OpInfo("slogdet", variant="linalg", op=lambda M, a: M.linalg.slogdet(a).logabsdet,
           grad_fn="LinalgSlogdetBackward0", saves="input", samples=lambda make: [make.invertible(3)]),
    OpInfo("inverse", grad_fn="LinalgInvExBackward0", saves="output",
           samples=lambda make: [make.invertible(), make.invertible(2, 2)]),
    OpInfo("inverse", variant="linalg", op=lambda M, a: M.linalg.inv(a), grad_fn="LinalgInvExBackward0",
           saves="output", samples=lambda make: [make.invertible(4)]),
    # symmetrised first, as PyTorch's OpInfo does: cholesky reads one triangle only
    OpInfo("cholesky", op=lambda M, a, **k: M.linalg.cholesky((a + a.transpose(-2, -1)) * 0.5, **k),
           grad_fn="LinalgCholeskyExBackward0", saves="output",
           samples=lambda make: [make.positive_definite(), make.positive_definite(2),
                                 S(make.positive_definite(2, 2), upper=True)]),
    OpInfo("solve", op=lambda M, a, b, **k: M.linalg.solve(a, b, **k), grad_fn="LinalgSolveExBackward0",
           saves="input+output",
           samples=lambda make: [S(make.invertible(), make(3, 2)), S(make.invertible(2), make(3)),
                                 S(make.invertible(2), make(2, 3)), S(make.invertible(), make(2, 3, 4)),
                                 S(make.invertible(), make(4, 3), left=False)]),
    *(OpInfo("matmul", variant=variant, grad_fn=node, saves=saves, operator=operator.matmul, xfail=xfail,
             samples=lambda make, shapes=shapes: [S(make(*a), make(*b)) for a, b in shapes])
      for variant, node, saves, shapes, xfail in [
          ("1d_1d", "DotBackward0", "inputs", [((4,), (4,))], {}),
          ("2d_1d", "MvBackward0", "inputs", [((3, 4), (4,))], {}),
          ("1d_2d", "SqueezeBackward4", "inputs", [((3,), (3, 4))], {}),
          ("2d_2d", "MmBackward0", "inputs", [((3, 4), (4, 2))], {}),
          ("batched", "UnsafeViewBackward0", "inputs", [((2, 3, 4), (2, 4, 2)), ((2, 3, 4), (4, 2)), ((2, 3, 4), (4,))], {}),
          # both operands are broadcast to copies: the copies are saved
          ("batched_broadcast", "UnsafeViewBackward0", "nothing", [((2, 1, 3, 4), (5, 4, 2))], {}),
          # PyTorch copies the broadcast right operand and saves the copy; nbgrad saves it itself
          ("2d_3d", "CloneBackward0", "input", [((3, 4), (2, 4, 2))], MATMUL_BROADCAST_LEFT),
          ("1d_3d", "UnsafeViewBackward0", "input", [((3,), (2, 3, 4))], MATMUL_BROADCAST_LEFT),
          ("batch_of_one_3d", "CloneBackward0", "input", [((1, 3, 4), (2, 4, 2))], MATMUL_BROADCAST_LEFT),
      ]),
    # -- shapes and views ------------------------------------------------------------
    OpInfo("view", grad_fn="ViewBackward0", saves="nothing", function=False,
           samples=lambda make: [S(make(3, 4), 4, 3), S(make(3, 4), -1), S(make(3, 4), (2, 6))]),
    OpInfo("view_as", grad_fn="ViewBackward0", saves="nothing", function=False,
           samples=lambda make: [S(make(3, 4), make.constant(2, 6))]),
    OpInfo("reshape", grad_fn="ViewBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), (2, 6)), S(make(3, 4), (-1,))]),
    # a non-contiguous input cannot be viewed: reshape copies it
    OpInfo("reshape", variant="copy", grad_fn="UnsafeViewBackward0", saves="nothing",
           samples=lambda make: [S(make(4, 3, noncontiguous=True), (-1,)), S(make(4, 3, noncontiguous=True), (2, 6))]),
    OpInfo("flatten", grad_fn="ViewBackward0", saves="nothing",
           samples=lambda make: [make(3, 4), make(2, 3, 4), S(make(2, 3, 4), 1), S(make(2, 3, 4), 0, 1)]),
    OpInfo("flatten", variant="copy", grad_fn="UnsafeViewBackward0", saves="nothing",
           samples=lambda make: [make(4, 3, noncontiguous=True)]),
    OpInfo("squeeze", grad_fn="SqueezeBackward0", saves="nothing",
           samples=lambda make: [make(3, 1, 4), make(3, 1, 4, 1), make(1, 1)]),
    OpInfo("squeeze", variant="dim", grad_fn="SqueezeBackward1", saves="nothing",
           samples=lambda make: [S(make(3, 1, 4), 1), S(make(3, 1, 4), -2), S(make(3, 1, 4), 0)]),  # 0: nothing to do
    OpInfo("squeeze", variant="dims", grad_fn="SqueezeBackward2", saves="nothing",
           samples=lambda make: [S(make(3, 1, 4), (1,)), S(make(1, 3, 1), (0, 2)), S(make(3, 1, 4, 1), (1, 3))]),
    OpInfo("unsqueeze", grad_fn="UnsqueezeBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), 0), S(make(3, 4), 1), S(make(3, 4), -1), S(make(), 0)]),
    OpInfo("select", grad_fn="SelectBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), 0, 1), S(make(2, 3, 4), -1, 2), S(make(3, 4), 1, -1)]),
    OpInfo("t", grad_fn="TBackward0", saves="nothing", samples=lambda make: [make(3, 4), make(3)]),
    OpInfo("T", op=lambda M, a: a.T, grad_fn="PermuteBackward0", saves="nothing", samples=lambda make: [make(3, 4)]),
    OpInfo("transpose", grad_fn="TransposeBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), 0, 1), S(make(2, 3, 4), 0, 2), S(make(2, 3, 4), -1, 0)]),
    OpInfo("permute", grad_fn="PermuteBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), (1, 0)), S(make(2, 3, 4), (2, 0, 1))]),
    OpInfo("expand", grad_fn="ExpandBackward0", saves="nothing", function=False,
           samples=lambda make: [S(make(3, 1), 3, 4), S(make(4), 2, 3, 4), S(make(3, 1), 2, -1, 4), S(make(), (2, 2))]),
    OpInfo("expand_as", grad_fn="ExpandBackward0", saves="nothing", function=False,
           samples=lambda make: [S(make(1, 4), make.constant(3, 4))]),
    OpInfo("contiguous", grad_fn="CloneBackward0", saves="nothing", function=False,
           samples=lambda make: [make(3, 4, noncontiguous=True)]),
    OpInfo("unbind", op=lambda M, a, dim: a.unbind(dim)[1], grad_fn="UnbindBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), 0), S(make(3, 4), 1)]),
    # -- indexing: the node depends on the kind of index -------------------------------
    OpInfo("getitem", variant="select", op=getitem, grad_fn="SelectBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), 1), S(make(3, 4), (-1, 2)), S(make(2, 3, 4), (Ellipsis, 1)),
                                 S(make(2, 3, 4), (0, Ellipsis))]),
    OpInfo("getitem", variant="slice", op=getitem, grad_fn="SliceBackward0", saves="nothing",
           samples=lambda make: [S(make(4, 3), slice(1, 3)), S(make(5, 6), (slice(None, None, 2), slice(1, None, 2))),
                                 S(make(3, 4), (slice(None), slice(1, None)))]),
    OpInfo("getitem", variant="none", op=getitem, grad_fn="UnsqueezeBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), (None, slice(None), None)), S(make(3, 4), None)]),
    OpInfo("getitem", variant="ellipsis", op=getitem, grad_fn="AliasBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), Ellipsis)]),
    # advanced indexing saves the indices
    OpInfo("getitem", variant="advanced", op=getitem, grad_fn="IndexBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), [0, 2, 0, 0]), S(make(4), np.array([1, 1, 3])),
                                 S(make(3, 4), ([0, 2, 2], [1, 1, 3])), S(make(3, 4), bool_mask(True, False, True)),
                                 S(make.values([[0.5, -1.0], [2.0, -0.3]]), bool_mask([True, False], [True, False]))]),
    # the basic parts first, as views, then the arrays on the view
    OpInfo("getitem", variant="advanced_after_slice", op=getitem, grad_fn="IndexBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), (slice(1, None), [0, 0, 3])),
                                 S(make(3, 4), (None, slice(1, None), [2, 0, 2]))]),
    OpInfo("getitem", variant="advanced_after_select", op=getitem, grad_fn="IndexBackward0", saves="nothing",
           samples=lambda make: [S(make(2, 3, 4), (1, slice(None), [1, 0])), S(make(3, 4), (0, [0, 1, 1])),
                                 S(make(2, 3, 4), ([1, 0], 2, [0, 3])), S(make(3, 4), (True, 1, [2]))]),
    # -- joining, copying, converting ------------------------------------------------
    OpInfo("cat", op=lambda M, *tensors, dim=0: M.cat(tensors, dim), grad_fn="CatBackward0", saves="nothing",
           samples=lambda make: [S(make(2, 3), make(4, 3)), S(make(2, 3), make(2, 1), make(2, 2), dim=1),
                                 S(make(2, 3, 1), make(2, 3, 2), dim=-1)]),
    OpInfo("cat", variant="same_tensor", op=lambda M, a: M.cat([a, a * 2, a]), grad_fn="CatBackward0",
           saves="nothing", samples=lambda make: [make(2, 3)]),
    OpInfo("stack", op=lambda M, *tensors, dim=0: M.stack(tensors, dim), grad_fn="StackBackward0", saves="nothing",
           samples=lambda make: [S(make(2, 3), make(2, 3)), S(make(2, 3), make(2, 3), make(2, 3), dim=1),
                                 S(make(2, 3), make(2, 3), dim=-1)]),
    OpInfo("clone", grad_fn="CloneBackward0", saves="nothing", samples=lambda make: [make(3, 4)]),
    # float32 -> float64 copies; a float64 input is returned as it is (no node)
    OpInfo("to", op=lambda M, a, *args, **kwargs: a.to(M.float64, *args, **kwargs), grad_fn="ToCopyBackward0",
           saves="nothing", dtypes=("float32",), samples=lambda make: [make(3, 4), S(make(3, 4), copy=True)]),
    OpInfo("double", grad_fn="ToCopyBackward0", saves="nothing", function=False, dtypes=("float32",),
           samples=lambda make: [make(3, 4)]),
    # -- operations that exist only in place, applied to a copy --------------------------
    OpInfo("fill_", op=in_place_on_a_copy("fill_"), grad_fn="FillBackward2", saves="nothing",
           samples=lambda make: [S(make(3, 4), 2.0)]),
    OpInfo("zero_", op=in_place_on_a_copy("zero_"), grad_fn="ZeroBackward0", saves="nothing",
           samples=lambda make: [make(3, 4)]),
    OpInfo("copy_", op=in_place_on_a_copy("copy_"), grad_fn="CopyBackwards", saves="nothing",
           samples=lambda make: [S(make(3, 4), make(3, 4)), S(make(3, 4), make(4))]),
    OpInfo("setitem", variant="basic", op=setitem, grad_fn="CopySlices", saves="nothing",
           samples=lambda make: [S(make(3, 4), (slice(None), 1), make(3)), S(make(3, 4), (0, slice(None, None, 2)), 3.0),
                                 S(make(2, 2), 0, make(2))]),
    OpInfo("setitem", variant="advanced", op=setitem, grad_fn="IndexPutBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), ([0, 2],), make(2, 4)), S(make(3, 4), bool_mask(True, False, True), make(4)),
                                 S(make(3, 2), [0, 2], 0.5)]),
    # an int first: index_put_ on the select view, so the base gets CopySlices
    OpInfo("setitem", variant="advanced_after_select", op=setitem, grad_fn="CopySlices", saves="nothing",
           samples=lambda make: [S(make(2, 3, 4), (1, slice(None), [1, 0]), make(3, 2)),
                                 S(make(3, 4), (0, [0, 3]), make(2)), S(make(3, 4), (2, [True, False, True, False]), 1.5)]),
    # the value is viewed without its leading 1s (ViewBackward0), and expanded for a copy
    *(OpInfo("setitem", variant=variant, op=setitem, grad_fn=node, saves="nothing",
             samples=lambda make, samples=samples: samples(make))
      for variant, node, samples in [
          ("basic_broadcast_value", "CopySlices", lambda make: [S(make(3, 4), (slice(1, None),), make(4))]),
          ("advanced_broadcast_value", "IndexPutBackward0",
           lambda make: [S(make(3, 4), ([2, 0], [1, 3]), make(1)), S(make(3, 4), np.array([2, 0]), make(1, 4))]),
      ]),
    # -- along a dimension at indices (ops/gather_scatter.py): the indices are saved -----
    OpInfo("gather", grad_fn="GatherBackward0", saves="input",
           samples=lambda make: [S(make(3, 4), 0, np.array([[0, 2, 1, 0], [2, 2, 0, 1]])),
                                 S(make(3, 4), -1, np.array([[3], [0]])), S(make(), 0, np.array(0))]),
    OpInfo("scatter", grad_fn="ScatterBackward0", saves="nothing", inplace="scatter_",
           samples=lambda make: [S(make(3, 4), 0, np.array([[2, 0, 1, 1], [0, 1, 2, 0]]), make(2, 4))]),
    OpInfo("scatter", variant="value", grad_fn="ScatterBackward1", saves="nothing", inplace="scatter_",
           samples=lambda make: [S(make(3, 4), 1, np.array([[0], [3], [1]]), 2.5)]),
    OpInfo("scatter_add", grad_fn="ScatterAddBackward0", saves="nothing", inplace="scatter_add_",
           samples=lambda make: [S(make(3, 4), 0, np.array([[0, 2, 1, 0], [2, 2, 0, 1]]), make(2, 4))]),
    *(OpInfo("scatter_reduce", variant=reduce, grad_fn="ScatterReduceBackward0", saves="inputs+output",
             samples=lambda make, reduce=reduce: [
                 S(make(3, 4), 0, np.array([[0, 0, 1, 2], [0, 2, 1, 2]]), make(2, 4), reduce),
                 S(make(3, 4), 1, np.array([[0, 0], [3, 3], [1, 2]]), make(3, 2), reduce, include_self=False)])
      for reduce in ["sum", "prod", "mean", "amax", "amin"]),
    OpInfo("index_select", grad_fn="IndexSelectBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), 0, np.array([2, 0, 2])), S(make(3, 4), -1, np.array([3, 1])),
                                 S(make(), 0, np.array([0]))]),
    OpInfo("index_add", grad_fn="IndexAddBackward0", saves="other", inplace="index_add_",
           samples=lambda make: [S(make(3, 4), 0, np.array([1, 1]), make(2, 4)),
                                 S(make(3, 4), 1, np.array([3, 0]), make(3, 2), alpha=-2.5)]),
    OpInfo("index_copy", grad_fn="IndexCopyBackward0", saves="other", inplace="index_copy_",
           samples=lambda make: [S(make(3, 4), 0, np.array([2, 0]), make(2, 4))]),
    OpInfo("index_fill", grad_fn="IndexFillBackward0", saves="nothing", inplace="index_fill_",
           samples=lambda make: [S(make(3, 4), 1, np.array([0, 2]), -1.0)]),
    OpInfo("index_fill", variant="tensor_value", grad_fn="IndexFillBackward1", saves="nothing",
           inplace="index_fill_", samples=lambda make: [S(make(3, 4), 0, np.array([1, 1, 2]), make())]),
    OpInfo("masked_select", grad_fn="MaskedSelectBackward0", saves="input",
           samples=lambda make: [S(make(3, 2), bool_mask([True, False], [False, False], [True, True])),
                                 S(make(1, 2), bool_mask([True, False], [True, True]))]),
    OpInfo("masked_scatter", grad_fn="MaskedScatterBackward0", saves="nothing", inplace="masked_scatter_",
           samples=lambda make: [S(make(3, 2), bool_mask([True, False], [False, False], [True, True]), make(2, 2)),
                                 S(make(2, 3), bool_mask(True, False, True), make(7))]),
    OpInfo("take", grad_fn="TakeBackward0", saves="input",
           samples=lambda make: [S(make(3, 4), np.array([[0, -1], [11, 0]]))]),
    # -- pieces (ops/pieces.py): views; the op is one piece, here -----------------------
    OpInfo("split", op=lambda M, a, *args: a.split(*args)[1], grad_fn="SplitBackward0", saves="nothing",
           samples=lambda make: [S(make(5, 3), 2), S(make(5, 3), 2, 1)]),
    OpInfo("split", variant="sizes", op=lambda M, a, *args: M.split(a, *args)[0],
           grad_fn="SplitWithSizesBackward0", saves="nothing", samples=lambda make: [S(make(5, 3), [1, 4])]),
    # -- rearranging (ops/rearrange.py) ---------------------------------------------------
    OpInfo("flip", grad_fn="FlipBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), (0,)), S(make(2, 3, 4), (0, -1)), S(make(), [0])]),
    OpInfo("roll", grad_fn="RollBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), 1), S(make(2, 3, 4), (1, -2), (0, 2)), S(make(3, 4), 5, 1)]),
    OpInfo("rot90", grad_fn="Rot90Backward0", saves="nothing",
           samples=lambda make: [S(make(3, 4)), S(make(2, 3, 4), -3, [2, 0])]),
    OpInfo("repeat", grad_fn="RepeatBackward0", saves="nothing", function=False,
           samples=lambda make: [S(make(3, 4), 2, 1), S(make(3, 4), 2, 1, 3), S(make(), 2)]),
    OpInfo("tile", grad_fn="RepeatBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4), (2,)), S(make(3, 4), (2, 1, 1))]),
    OpInfo("tril", grad_fn="TrilBackward0", saves="nothing", inplace="tril_",
           samples=lambda make: [S(make(3, 4)), S(make(2, 3, 4), -1), S(make(4, 3), 1)]),
    OpInfo("triu", grad_fn="TriuBackward0", saves="nothing", inplace="triu_",
           samples=lambda make: [S(make(3, 4)), S(make(2, 3, 4), 1)]),
    OpInfo("diagonal", grad_fn="DiagonalBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4)), S(make(3, 4), -1, 1, 0), S(make(2, 3, 4), 1, -1, 0)]),
    OpInfo("diag_embed", grad_fn="DiagEmbedBackward0", saves="nothing",
           samples=lambda make: [S(make(3, 4)), S(make(3), -1), S(make(3, 4), 1, 0, 2)]),
    OpInfo("diag", grad_fn="DiagonalBackward0_copy", saves="nothing",
           samples=lambda make: [S(make(3, 4)), S(make(4, 3), -1)]),
    OpInfo("diag", variant="vector", grad_fn="DiagEmbedBackward0", saves="nothing",
           samples=lambda make: [S(make(3)), S(make(3), 2)]),
    # -- sorting (ops/sorting.py): the indices are saved -------------------------------
    OpInfo("sort", op=lambda M, a, *args, **kw: a.sort(*args, **kw).values, grad_fn="SortBackward0",
           saves="nothing", samples=lambda make: [S(make(3, 4)), S(make(3, 4), 0, True), S(make(), 0)]),
    OpInfo("sort", variant="stable", op=lambda M, a, **kw: M.sort(a, **kw).values, grad_fn="SortBackward1",
           saves="nothing", samples=lambda make: [S(make(3, 4), stable=True, dim=0)]),
    OpInfo("topk", op=lambda M, a, *args, **kw: a.topk(*args, **kw).values, grad_fn="TopkBackward0",
           saves="nothing", samples=lambda make: [S(make.distinct(3, 4), 2), S(make.distinct(3, 4), 2, 0, False)]),
    OpInfo("kthvalue", op=lambda M, a, *args, **kw: a.kthvalue(*args, **kw).values, grad_fn="KthvalueBackward0",
           saves="nothing", samples=lambda make: [S(make.distinct(3, 4), 2), S(make.distinct(3, 4), 3, 0, True)]),
    # -- convolution and pooling (each through nn.functional: no Tensor method) ----------
    # without a bias: the node saves input and weight, not the bias (tests/test_conv.py has it)
    OpInfo("conv2d", grad_fn="ConvolutionBackward0", saves="inputs",
           op=lambda M, x, w, b=None, **k: M.nn.functional.conv2d(x, w, b, **k),
           samples=lambda make: [S(make(2, 4, 5, 4), make(6, 2, 3, 2), stride=(2, 1),
                                   padding=1, groups=2),
                                 S(make(1, 2, 4, 4), make(3, 2, 2, 2),
                                   dilation=2, padding="same")]),
    OpInfo("conv1d", grad_fn="ConvolutionBackward0", saves="inputs",
           op=lambda M, x, w, b=None, **k: M.nn.functional.conv1d(x, w, b, **k),
           samples=lambda make: [S(make(2, 3, 7), make(4, 3, 3), stride=2, padding=1)]),
    OpInfo("unfold", grad_fn="Im2ColBackward0", saves="nothing",
           op=lambda M, x, **k: M.nn.functional.unfold(x, **k),
           samples=lambda make: [S(make(2, 3, 5, 4), kernel_size=(2, 3), padding=1, stride=2)]),
    OpInfo("fold", grad_fn="Col2ImBackward0", saves="nothing",
           op=lambda M, x, **k: M.nn.functional.fold(x, **k),
           samples=lambda make: [S(make(2, 8, 20), output_size=(4, 5), kernel_size=2,
                                   padding=(1, 0))]),
    OpInfo("max_pool2d", grad_fn="MaxPool2DWithIndicesBackward0", saves="input",
           op=lambda M, x, *a, **k: M.nn.functional.max_pool2d(x, *a, **k),
           samples=lambda make: [S(make.distinct(2, 3, 7, 6), 3, 2, 1, ceil_mode=True),
                                 S(make.distinct(3, 5, 5), 2, dilation=2)]),
    OpInfo("avg_pool2d", grad_fn="AvgPool2DBackward0", saves="input",
           op=lambda M, x, *a, **k: M.nn.functional.avg_pool2d(x, *a, **k),
           samples=lambda make: [S(make(2, 3, 7, 6), 3, 2, 1, ceil_mode=True,
                                   count_include_pad=False),
                                 S(make(3, 5, 5), 2, divisor_override=3)]),
    OpInfo("adaptive_avg_pool2d", grad_fn="AdaptiveAvgPool2DBackward0", saves="input",
           op=lambda M, x, size: M.nn.functional.adaptive_avg_pool2d(x, size),
           samples=lambda make: [S(make(2, 3, 7, 6), (3, 4)), S(make(3, 5, 5), (None, 2))]),
    OpInfo("adaptive_max_pool2d", grad_fn="AdaptiveMaxPool2DBackward0", saves="input",
           op=lambda M, x, size: M.nn.functional.adaptive_max_pool2d(x, size),
           samples=lambda make: [S(make.distinct(2, 3, 7, 6), (3, 4)),
                                 S(make.distinct(3, 5, 5), 2)]),
]


# pytest names each test after its row: two rows with one id would hide each other
DUPLICATE_IDS = sorted({row.id for row in OPS if [r.id for r in OPS].count(row.id) > 1})
assert not DUPLICATE_IDS, f"rows share an id: {DUPLICATE_IDS}"


def structure(fn, depth=4):
    """A graph node as (class name, ((next structure, output_nr), ...))."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple((structure(f, depth - 1), nr) for f, nr in fn.next_functions))
