"""Chapter 08's checks: ``Module`` finds its parameters, ``Linear``, ``cross_entropy`` and
``SGD.step`` with momentum, each compared with nbgrad on the same numbers; and chapter 08's
network trained on the learner's package, loss for loss with nbgrad."""

import numpy as np

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad import nn, optim

from buildgrad.checks import close, expect, fail, task_checks


def _same(got, expected, rtol=1e-6, atol=1e-8):
    got, expected = np.asarray(got), np.asarray(expected)
    return got.shape == expected.shape and np.allclose(got, expected, rtol=rtol, atol=atol)


def _diagnose(got, expected, hint, candidates=()):
    """Fail unless ``got`` is ``expected``; name the mistake whose result ``got`` is, if it
    is one of ``candidates`` ((what that mistake gives, its hint), ...), else ``hint``."""
    if _same(got, expected):
        return
    for result, named in candidates:
        if result is not None and _same(got, result):
            hint = named
            break
    fail(hint, np.array2string(np.asarray(expected), precision=6),
         np.array2string(np.asarray(got), precision=6))


def _error(action):
    """What ``action()`` raises, as 'Kind: message' (None when it raises nothing)."""
    try:
        action()
    except RecursionError:
        return "RecursionError: maximum recursion depth exceeded"
    except NotImplementedError:
        raise
    except Exception as raised:
        return f"{type(raised).__name__}: {raised}"
    return None


# Task 1 ---------------------------------------------------------------------------------

def module_parameters(ns):
    """``Module.__setattr__`` files Parameters and Modules by name, with PyTorch's rule for a
    name filed as a parameter (a Parameter or None, else TypeError), and still sets the
    attribute; ``parameters()`` yields every parameter of the tree once, in PyTorch's order."""
    Tensor, Parameter, Module = ns["Tensor"], ns["Parameter"], ns["Module"]
    rng = np.random.default_rng(8)
    a0, b0, s0 = rng.normal(size=(3,)), rng.normal(size=(2, 2)), rng.normal(size=(1,))
    w0, c0, e0 = rng.normal(size=(4, 3)), rng.normal(size=(4,)), rng.normal(size=(2,))

    def build(P, M, T):
        class Deepest(M):                      # a submodule's submodule
            def __init__(self, start):
                super().__init__()
                self.scale = P(start)

        class Inner(M):
            def __init__(self):
                super().__init__()
                self.weight = P(w0)
                self.deep = Deepest(s0)
                self.bias = P(c0)

        class Net(M):
            def __init__(self):
                super().__init__()
                self.a = P(a0)
                self.inner = Inner()
                self.b = P(b0)
                self.last = Deepest(e0)        # a second submodule, after inner's whole subtree
                self.constant = T(np.ones(5))  # a plain tensor: not a parameter
                self.name = "net"              # nor is anything else
        return Net()

    holder = []
    error = _error(lambda: holder.append(build(Parameter, Module, Tensor)))
    if error and error.startswith("RecursionError"):
        fail("`self.<name> = value` inside __setattr__ calls __setattr__ again, for ever: set "
             "the attribute with object.__setattr__(self, name, value)", "a module", error)
    expect(error is None, "__setattr__ raised while a module was being built (only a name "
           "already filed as a parameter may refuse a value)", "net = Net() builds", error)
    mine = holder[0]
    attributes = vars(mine)
    expect(all(n in attributes for n in ("a", "inner", "b", "last", "constant", "name")),
           "__setattr__ must still set the attribute itself (object.__setattr__(self, name, "
           "value)), whatever it files: every value assigned must be readable as net.<name>",
           "net.a, net.inner, net.b, net.last, net.constant, net.name",
           f"only {sorted(n for n in attributes if not n.startswith('_'))}")
    expect(mine.name == "net" and isinstance(mine.a, Parameter),
           "__setattr__ must set the attribute to the value given (object.__setattr__)",
           "net.name == 'net'", f"net.name = {mine.name!r}")
    parameters, modules = attributes.get("_parameters"), attributes.get("_modules")
    expect(isinstance(parameters, dict) and isinstance(modules, dict),
           "keep the two dicts that __init__ made (self._parameters, self._modules): file into "
           "them, do not replace them", "two dicts", f"{parameters!r}, {modules!r}")
    expect("constant" not in parameters,
           "a plain Tensor is not a Parameter: file only isinstance(value, Parameter) (a "
           "Parameter is a Tensor too, so testing for Tensor files both)",
           "_parameters without 'constant'", list(parameters))
    expect(list(parameters) != ["b"],
           "file into the dict that __init__ made (a new entry per name): replacing the whole "
           "of self._parameters keeps only the last parameter assigned",
           "_parameters: ['a', 'b']", f"_parameters: {list(parameters)}")
    expect(list(parameters) == ["a", "b"] and parameters["a"] is mine.a and parameters["b"] is mine.b,
           "a Parameter assigned to a module is filed in self._parameters under its name (the "
           "Parameter itself), in the order assigned",
           "_parameters: ['a', 'b']", f"_parameters: {list(parameters)}")
    expect(list(modules) == ["inner", "last"] and modules["inner"] is mine.inner,
           "a Module assigned to a module is filed in self._modules under its name (Sequential "
           "and parameters() read it); nothing else goes there",
           "_modules: ['inner', 'last']", f"_modules: {list(modules)}")

    def named(module):
        """What ``module.parameters()`` yields, each named by its place in ``mine``."""
        names = {id(mine.a): "a", id(mine.b): "b", id(mine.inner.weight): "inner.weight",
                 id(mine.inner.bias): "inner.bias", id(mine.inner.deep.scale): "inner.deep.scale",
                 id(mine.last.scale): "last.scale", id(None): "None"}
        listed = []
        error = _error(lambda: listed.extend(module.parameters()))
        expect(error is None, "parameters() must yield the parameters (a generator: yield / "
               "yield from), or return something iterable", "the parameters", error)
        return [names.get(id(p), f"another object ({type(p).__name__})") for p in listed], listed

    expected = ["a", "b", "inner.weight", "inner.bias", "inner.deep.scale", "last.scale"]
    theirs = build(lambda a: nn.Parameter(ng.tensor(a)), nn.Module, ng.tensor)
    expect([n for n, _ in theirs.named_parameters()] == expected, "(the check itself is wrong)",
           expected, [n for n, _ in theirs.named_parameters()])
    got, _ = named(mine)
    if got != expected:
        own, below = expected[:2], expected[2:]
        if sorted(got) == sorted(expected):
            hint = ("the order is PyTorch's: the module's own parameters first, in the order "
                    "assigned (a, b), then each submodule in turn, depth first: inner's own, "
                    "then inner.deep's, and only then last's")
            if got.index("last.scale") < got.index("inner.weight") and got[:2] == own:
                hint = ("the submodules come in the order they were assigned: inner's "
                        "parameters before last's (a stack pops the submodule pushed last first)")
            elif got.index("last.scale") < got.index("inner.deep.scale") and got[:2] == own:
                hint = ("depth first, as PyTorch: a submodule's whole subtree (inner, then "
                        "inner.deep) comes before the next submodule (last), not level by level")
        elif any(n.startswith("another object") for n in got):
            hint = ("parameters() must yield the Parameter objects themselves (the optimizer "
                    "changes them in place), not copies, tensors made from them or submodules")
        elif not any(n in got for n in own):
            hint = "the module's own parameters (those in self._parameters) are missing"
        elif "inner.deep.scale" not in got and ("inner.weight" in got or "inner.bias" in got):
            hint = ("a submodule's submodule was missed: every depth of the tree, not only the "
                    "submodules' own parameters")
        elif not any(n in got for n in below):
            hint = ("the submodules' parameters are missing: after the module's own, every "
                    "parameter of each module in self._modules, at every depth")
        else:
            hint = "each parameter must be listed exactly once"
        fail(hint, expected, got)
    # assigning again keeps the place; a second call lists them again
    mine.a = Parameter(a0 * 2)
    again = list(mine.parameters())
    expect(len(again) == len(expected) and again[0] is mine.a,
           "assigning a new Parameter to a name already filed replaces the old one in its "
           "place (a dict keyed by name), and parameters() can be called again",
           "6 parameters, the first the new net.a",
           f"{len(again)} parameters, the first {'the new net.a' if again and again[0] is mine.a else 'another'}")

    # a name filed as a parameter takes a Parameter or None; anything else is refused, and
    # the refusal changes nothing
    kept = mine.a
    for value in (Tensor(np.ones(3)), mine.last):
        said = f"cannot assign '{type(value).__name__}' as parameter 'a' (Parameter or None expected)"
        error = _error(lambda: setattr(mine, "a", value))
        expect(error is not None and error.startswith("TypeError"),
               "a name filed as a parameter takes only a Parameter or None: anything else (here "
               f"a {type(value).__name__}) raises TypeError, as PyTorch does",
               f"TypeError: {said}", error or "no error")
        expect(error == f"TypeError: {said}",
               "the TypeError names the value's class and the parameter, as PyTorch's does",
               f"TypeError: {said}", error)
        expect(mine.a is kept and parameters.get("a") is kept and list(modules) == ["inner", "last"],
               "a refused assignment changes nothing: raise before filing or setting anything "
               "(net.a and _parameters['a'] stay the Parameter they were)",
               "net.a and _parameters['a'] unchanged",
               f"net.a is {type(mine.a).__name__}, _parameters['a'] is "
               f"{type(parameters.get('a')).__name__}, _modules: {list(modules)}")
    error = _error(lambda: setattr(mine, "b", None))
    expect(error is None,
           "None may be assigned to a name filed as a parameter (PyTorch files None in its "
           "place: that is how a layer goes without a bias)", "no error", error)
    expect(mine.b is None and list(parameters) == ["a", "b"] and parameters["b"] is None,
           "assigning None to a name filed as a parameter files None in its place (the entry "
           "stays, set to None: the old Parameter is no longer the model's), and net.b reads None",
           "net.b None, _parameters: ['a', 'b'] with 'b' None",
           f"net.b is {type(mine.b).__name__}, _parameters: "
           f"{ {k: type(v).__name__ for k, v in parameters.items()} }")
    mine.note = None
    expect("note" not in parameters and "note" not in modules and mine.note is None,
           "None is filed only under a name already filed as a parameter: elsewhere it is a "
           "plain attribute", "_parameters: ['a', 'b']", f"_parameters: {list(parameters)}")
    theirs.a, theirs.b = nn.Parameter(ng.tensor(a0 * 2)), None
    expected = [n for n, _ in theirs.named_parameters()]
    got, listed = named(mine)
    expect(got == expected, "parameters() yields Parameters only: it skips a name set to None"
           if "None" in got else "parameters() after net.a = Parameter(...) and net.b = None",
           expected, got)

    # a Parameter shared by two submodules (tied weights) is yielded once, where first met
    def tied(P, M):
        shared = P(w0)

        class Holder(M):
            def __init__(self, own):
                super().__init__()
                self.weight = shared
                self.own = P(own)

        class Twins(M):
            def __init__(self):
                super().__init__()
                self.first, self.second = Holder(a0), Holder(c0)
        return Twins()

    twins, theirs = tied(Parameter, Module), tied(lambda a: nn.Parameter(ng.tensor(a)), nn.Module)
    names = {id(twins.first.weight): "shared", id(twins.first.own): "first.own",
             id(twins.second.own): "second.own"}
    listed = []
    error = _error(lambda: listed.extend(twins.parameters()))
    expect(error is None, "parameters() raised on a model whose two submodules share a Parameter",
           "the parameters", error)
    got = [names.get(id(p), f"another object ({type(p).__name__})") for p in listed]
    expected = ["shared", "first.own", "second.own"]
    expect(len(list(theirs.parameters())) == 3, "(the check itself is wrong)", 3,
           len(list(theirs.parameters())))
    expect(got == expected,
           "a Parameter shared by two submodules (tied weights) is yielded once, where it is "
           "first met, as PyTorch's parameters() does (else the optimizer would step it twice): "
           "remember what the whole walk has yielded, not only one submodule's call"
           if got.count("shared") > 1 else "parameters() on two submodules sharing a Parameter",
           expected, got)


# Task 2 ---------------------------------------------------------------------------------

def linear_forward(ns):
    """``Linear.forward`` is ``x W^T + b``, and its gradients are nbgrad's."""
    Tensor, Parameter, Linear = ns["Tensor"], ns["Parameter"], ns["Linear"]
    rng = np.random.default_rng(80)
    transpose = ("the weight is (out_features, in_features), as in PyTorch: the product is x "
                 "times the TRANSPOSED weight")
    for n, i, o in [(3, 2, 2), (5, 3, 4), (1, 2, 2), (7, 16, 3)]:
        W, b, x = rng.normal(size=(o, i)), rng.normal(size=o), rng.normal(size=(n, i))
        layer = Linear.__new__(Linear)  # without __init__: this check needs no __setattr__
        object.__setattr__(layer, "weight", Parameter(W))
        object.__setattr__(layer, "bias", Parameter(b))
        xt = Tensor(x, requires_grad=True)
        holder = []
        error = _error(lambda: holder.append(layer.forward(xt)))
        expect(error is None, transpose if i != o else "forward raised",
               f"an output of shape ({n}, {o})", error)
        out = holder[0]
        expect(out.grad_fn is not None,
               "no gradient reached weight, bias or x: the output was not recorded; compute it "
               "with your Tensor's operations, not with NumPy on the arrays", "a grad_fn", "None")
        wn, bn = ng.tensor(W, requires_grad=True), ng.tensor(b, requires_grad=True)
        xn = ng.tensor(x, requires_grad=True)
        ref = F.linear(xn, wn, bn)
        got = np.asarray(out.numpy())
        _diagnose(got, ref.detach().numpy(),
                  "y = x W^T + b, one row of outputs per row of x",
                  [(x @ W.T, "the bias is missing: y = x W^T + b"),
                   (x @ W + b if i == o else None, transpose),
                   (x @ W.T + b[:, None] if n == o else None,
                    "the bias is added to each row (one entry per output feature)")])
        g = rng.normal(size=(n, o))
        (out * Tensor(g)).sum().backward()
        (ref * ng.tensor(g)).sum().backward()
        for name, mine, theirs in [("weight", layer.weight, wn), ("bias", layer.bias, bn), ("x", xt, xn)]:
            expect(mine.grad is not None,
                   f"no gradient reached {name}: compute the output with your Tensor's "
                   "operations, not with NumPy on the arrays, so that backward can run through "
                   "them", "a gradient", "None")
            close(mine.grad.numpy(), theirs.grad.numpy(),
                  f"the gradient of {name} differs from nbgrad's: compute the output with your "
                  "Tensor's operations, so that the graph is recorded")


# Task 3 ---------------------------------------------------------------------------------

def _log_softmax(z):
    shifted = z - z.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def cross_entropy_pieces(ns):
    """``log_softmax``, ``nll_loss`` and their backward nodes, against nbgrad."""
    with np.errstate(all="ignore"):  # the mistakes' results, some of them inf, are computed too
        _cross_entropy_pieces(ns)


def _cross_entropy_pieces(ns):
    Tensor, tensor = ns["Tensor"], ns["tensor"]
    log_softmax, nll_loss, cross_entropy = ns["log_softmax"], ns["nll_loss"], ns["cross_entropy"]
    rng = np.random.default_rng(800)
    cases = [rng.normal(size=(4, 3)), rng.normal(size=(1, 2)), 3 * rng.normal(size=(6, 5)),
             rng.normal(size=(3, 3)),
             # rows far apart, scores far from 0: exp overflows, or a row underflows
             np.array([[1000., 0., -5.], [-1000., -1001., -1003.]])]
    for z in cases:
        n, c = z.shape
        t = rng.integers(0, c, n)
        w = rng.normal(size=(n, c))
        zt = Tensor(z, requires_grad=True)
        zn = ng.tensor(z, requires_grad=True)
        holder = []
        error = _error(lambda: holder.append(log_softmax(zt)))
        expect(error is None, "log_softmax raised", "log probabilities", error)
        mine, theirs = holder[0], F.log_softmax(zn, dim=1)
        got = np.asarray(mine.numpy())
        expect(got.shape == z.shape and np.all(np.isfinite(got)),
               "log_softmax gave inf or nan: subtract EACH ROW's own maximum before exp "
               "(without a shift exp(1000) overflows; with the whole array's maximum, a row far "
               "below it underflows to log(0))", "finite values", got)
        _diagnose(got, theirs.detach().numpy(),
                  "log_softmax(z)[n, c] = z[n, c] - log(sum over c' of exp(z[n, c'])): each "
                  "row on its own (dim 1)")
        expect(mine.grad_fn is not None,
               "log_softmax must record its node (record(LogSoftmaxBackward0, ...)), so that "
               "backward reaches the scores", "a grad_fn", "None")
        (theirs * ng.tensor(w)).sum().backward()
        error = _error(lambda: (mine * Tensor(w)).sum().backward())
        expect(error is None, "LogSoftmaxBackward0 raised: the row sums of the incoming gradient "
               "must be a column (keepdims=True), so that they broadcast over each row",
               "a gradient", error)
        s = np.exp(_log_softmax(z))
        _diagnose(zt.grad.numpy(), zn.grad.numpy(),
                  "LogSoftmaxBackward0: grad - softmax * (the incoming grad summed over each "
                  "row), with softmax = exp(the saved output)",
                  [(w - np.exp(z) * w.sum(axis=1, keepdims=True),
                    "the softmax came from exp of the INPUT: save the output of log_softmax "
                    "(its backward reads the softmax as exp of what was saved)"),
                   (w - s * w.sum(), "sum the incoming gradient over each ROW (axis 1, kept as a "
                    "column), not over the whole array"),
                   (w - s * w.sum(axis=1)[None, :] if n == c else None,
                    "the row sums of the incoming gradient must be a column (keepdims=True), so "
                    "that each row subtracts its own sum"),
                   (w * (1 - s), "every score of a row moves every output of that row: the "
                    "gradient is grad - softmax * (grad summed over the row), not grad * (1 - "
                    "softmax)"),
                   (w - _log_softmax(z) * w.sum(axis=1, keepdims=True),
                    "the softmax is exp(the saved output): the saved tensor is the LOG softmax")])

        zt, zn = Tensor(z, requires_grad=True), ng.tensor(z, requires_grad=True)
        lp, lpn = log_softmax(zt), F.log_softmax(zn, dim=1)
        holder = []
        error = _error(lambda: holder.append(nll_loss(lp, tensor(t))))
        expect(error is None, "nll_loss raised", "a loss", error)
        loss, loss_n = holder[0], F.nll_loss(lpn, ng.tensor(t))
        ell = _log_softmax(z)
        expect(np.shape(loss.numpy()) == (),
               "nll_loss returns a scalar tensor (shape ()): one entry per row, averaged",
               "()", np.shape(loss.numpy()))
        _diagnose(loss.numpy(), loss_n.detach().numpy(),
                  "nll_loss(l, t) = -(1/N) * sum over the rows n of l[n, t[n]]",
                  [(-ell[np.arange(n), t].sum() if n > 1 else None,
                    "nll_loss is the MEAN over the rows, not the sum"),
                   (ell[np.arange(n), t].mean(), "nll_loss is MINUS the mean log-probability"),
                   (-ell[:, t].mean() if n > 1 else None,
                    "pick ONE entry per row, l[n, t[n]] (integer indexing with the row numbers "
                    "and the targets together), not whole columns")])
        expect(loss.grad_fn is not None,
               "nll_loss must record its node (record(NllLossBackward0, ...)), so that backward "
               "reaches the log probabilities", "a grad_fn", "None")
        edges = len(loss.grad_fn.next_functions)
        expect(edges == 1,
               "the target is data, not an input of the node: NllLossBackward0 has one edge, "
               "to the log probabilities (PyTorch's next_functions has one entry), and no "
               "gradient flows to the class indices", "1 edge", f"{edges} edges")
        (loss_n * 3.0).backward()
        error = _error(lambda: (loss * 3.0).backward())
        expect(error is None, "NllLossBackward0 raised", "a gradient", error)
        onehot = np.zeros((n, c))
        onehot[np.arange(n), t] = 1.0
        G = -3.0 * onehot / n        # dL/dl
        _diagnose(zt.grad.numpy(), zn.grad.numpy(),
                  "NllLossBackward0: zeros of the input's shape, with -grad / N at each "
                  "[n, t[n]]",
                  [(_through_log_softmax(ell, -onehot / n),
                    "multiply by the incoming grad (here 3: the loss was multiplied by 3)"),
                   (_through_log_softmax(ell, -3.0 * onehot) if n > 1 else None,
                    "divide by N, the number of rows: the loss is a mean"),
                   (_through_log_softmax(ell, -G), "the gradient is MINUS grad / N"),
                   (_through_log_softmax(ell, -3.0 * np.isin(np.arange(c), t)[None, :].repeat(n, 0) / n)
                    if n > 1 else None,
                    "put -grad / N at ONE entry per row, [n, t[n]], not in whole columns")])

        zt, zn = Tensor(z, requires_grad=True), ng.tensor(z, requires_grad=True)
        loss, loss_n = cross_entropy(zt, tensor(t)), F.cross_entropy(zn, ng.tensor(t))
        loss.backward()
        loss_n.backward()
        close(loss.numpy(), loss_n.detach().numpy(), "cross_entropy = nll_loss(log_softmax(logits), target)")
        close(zt.grad.numpy(), zn.grad.numpy(),
              "the gradient of cross_entropy is (softmax(z) - one_hot(target)) / N")


def _through_log_softmax(ell, G):
    """dL/dz for dL/dl = ``G``, through log_softmax's backward (output ``ell``)."""
    return G - np.exp(ell) * G.sum(axis=1, keepdims=True)


# Task 4 ---------------------------------------------------------------------------------

RULE = ("PyTorch's rule is b = g at the first step, then b = momentum * b + g, and p -= lr * b "
        "(plain p -= lr * g when momentum is 0); a parameter whose .grad is None is skipped "
        "and its buffer left as it was")


def _step(opt, what):
    """Run ``opt.step()``; a raised error fails with the hint for its usual cause."""
    error = _error(opt.step)
    if error is None:
        return
    if "leaf Variable" in error or "in-place" in error:
        fail("change the parameters under `with no_grad():` (chapter 05: an in-place change of "
             "a leaf that requires grad is an error while recording)", "no error", error)
    if "NoneType" in error:
        fail("skip a parameter whose .grad is None (it had no gradient this step)", "no error", error)
    fail(f"step() raised ({what})", "no error", error)


def sgd_step(ns):
    """``SGD.step`` follows PyTorch's rule (momentum, first step, skipped parameters)."""
    Tensor, Parameter, SGD = ns["Tensor"], ns["Parameter"], ns["SGD"]
    for lr, momentum in [(0.1, 0.0), (0.05, 0.9), (0.3, 0.5)]:
        rng = np.random.default_rng(8000)
        shapes = [(3,), (2, 3), (1,)]
        start = [rng.normal(size=s) for s in shapes]
        mine = [Parameter(a) for a in start]
        theirs = [nn.Parameter(ng.tensor(a)) for a in start]
        opt = SGD(mine, lr=lr, momentum=momentum)
        opt_n = optim.SGD(theirs, lr=lr, momentum=momentum)
        buffers = [None] * len(shapes)
        for step in range(6):
            grads = [None] * len(shapes)
            for index, (p, q) in enumerate(zip(mine, theirs)):
                if index == 1 and step == 2:  # no gradient this step: skipped, buffer untouched
                    p.grad, q.grad = None, None
                    continue
                grads[index] = rng.normal(size=shapes[index])
                p.grad, q.grad = Tensor(grads[index]), ng.tensor(grads[index])
            before = [np.array(p.numpy()) for p in mine]
            version = [p._version for p in mine]
            _step(opt, f"lr={lr}, momentum={momentum}, step {step + 1}")
            opt_n.step()
            for index, (p, q) in enumerate(zip(mine, theirs)):
                g, was = grads[index], before[index]
                where = f"lr={lr}, momentum={momentum}, step {step + 1}, parameter {index}: "
                expect(p.is_leaf and p.grad_fn is None and p.requires_grad,
                       "update under no_grad(): the parameter must stay a leaf that requires grad",
                       "a leaf, grad_fn None", f"is_leaf={p.is_leaf}, grad_fn={p.grad_fn}")
                if g is None:
                    close(p.numpy(), was, where + "a parameter whose .grad is None must not move")
                    continue
                buffer = buffers[index]
                candidates = [(was, "the parameter did not move: change it in place, p.sub_(...), "
                               "inside the loop over the parameters (rebinding a name changes "
                               "nothing)")]
                if momentum and buffer is not None:
                    candidates += [(was - lr * g, "with momentum the step is p -= lr * b, where b "
                                    "is the buffer kept from the parameter's previous step (b = "
                                    "momentum * b + g, stored again in self.buffers): here p moved "
                                    "by lr * g alone"),
                                   (was - lr * (buffer + g), "the buffer is multiplied by momentum "
                                    "before the gradient is added: b = momentum * b + g")]
                b = g if not momentum else (g if buffer is None else momentum * buffer + g)
                candidates.append((was + lr * b, "the step goes against the gradient: p -= lr * b"))
                _diagnose(p.numpy(), q.detach().numpy(), where + RULE, candidates)
                expect(p._version > version[index],
                       "change the parameter in place (p.sub_(...)) so its version counter "
                       "moves, as PyTorch's step does; do not replace p or its array",
                       f"version > {version[index]}", p._version)
                if momentum:
                    buffers[index] = b
    # the first buffer is a copy: a .grad zeroed in place later (zero_grad(set_to_none=False),
    # or a backward that accumulates in place) must not change it
    mine, theirs = Parameter(np.ones(3)), nn.Parameter(ng.ones(3, dtype=ng.float64))
    opt, opt_n = SGD([mine], lr=0.1, momentum=0.9), optim.SGD([theirs], lr=0.1, momentum=0.9)
    for step, g in enumerate([np.array([1., 2., 3.]), np.array([0.5, -1., 2.])]):
        mine.grad, theirs.grad = Tensor(g.copy()), ng.tensor(g.copy())
        _step(opt, "momentum 0.9")
        opt_n.step()
        mine.grad.array[...] = 0.0     # in place, as zero_grad(set_to_none=False) does
        with ng.no_grad():
            theirs.grad.zero_()
        close(mine.numpy(), theirs.detach().numpy(),
              "the first buffer must be a COPY of the gradient: here .grad was zeroed in place "
              "after the step (as zero_grad(set_to_none=False) does) and your buffer, the same "
              "array, was zeroed with it")
    p = Parameter(np.ones(2))
    error = _error(SGD([p], lr=0.1).step)  # no gradient at all
    expect(error is None, "step() before any backward must do nothing (every .grad is None): "
           "skip a parameter whose .grad is None", "no error", error)


# The training run -------------------------------------------------------------------------

STEPS, LR, MOMENTUM = 300, 0.3, 0.9


def chapter_08_start():
    """Chapter 08's data and initial weights, made as its section 4 makes them: the two moons
    (200 float32 points, int64 labels) and, for each ``Linear`` of sizes 2, 16, 16, 2, a weight
    and a bias drawn uniformly in +-1/sqrt(in_features), in ``parameters()`` order."""
    rng = np.random.default_rng(0)
    angle = rng.uniform(0.0, np.pi, 200)
    upper = np.stack([np.cos(angle[:100]), np.sin(angle[:100])], axis=1)
    lower = np.stack([1.0 - np.cos(angle[100:]), 0.5 - np.sin(angle[100:])], axis=1)
    X = (np.concatenate([upper, lower]) + 0.2 * rng.standard_normal((200, 2))).astype(np.float32)
    y = np.repeat([0, 1], 100)
    rng = np.random.default_rng(0)
    weights = []
    for fan_in, fan_out in [(2, 16), (16, 16), (16, 2)]:
        bound = 1 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return X, y, weights


def nbgrad_losses(dtype=np.float64):
    """Chapter 08's run on nbgrad: 300 full-batch steps of SGD with momentum 0.9 from the
    chapter's initial weights, each step's loss before its update."""
    X_np, y_np, weights = chapter_08_start()
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2))
    model = model.double() if dtype == np.float64 else model
    with ng.no_grad():
        for p, array in zip(model.parameters(), weights):
            p.copy_(ng.tensor(array.astype(dtype)))
    X, y = ng.tensor(X_np.astype(dtype)), ng.tensor(y_np)
    optimizer = optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses)


def same_losses(losses, reference, rtol=1e-6):
    """Your run's losses are nbgrad's, step by step, within ``rtol`` relative."""
    losses = np.asarray(losses, dtype=np.float64)
    expect(losses.shape == reference.shape,
           f"one loss per step: {len(reference)} floats (loss.item() after each step)",
           f"{len(reference)} losses", f"{losses.shape}")
    off = ~np.isclose(losses, reference, rtol=rtol, atol=0.0)
    if not off.any():
        return
    first = int(np.argmax(off))
    if first == 0:
        hint = ("the first loss already differs: the forward pass (Linear, Tanh, log_softmax, "
                "nll_loss) or the initial weights (copied in parameters() order)")
    else:
        hint = (f"the losses agree until step {first + 1}, then drift: the update or the "
                "gradients it uses (SGD.step with momentum, zero_grad between steps, the "
                "backward nodes)")
    fail(hint, f"step {first + 1}: {reference[first]:.9f} (nbgrad), within {rtol:g} relative",
         f"{losses[first]:.9f}")


def trains_like_nbgrad(ns):
    """Chapter 08's network trained on the package: its 300 losses are nbgrad's."""
    Sequential, Linear, Tanh = ns["Sequential"], ns["Linear"], ns["Tanh"]
    X_np, y_np, weights = chapter_08_start()
    model = Sequential(Linear(2, 16), Tanh(), Linear(16, 16), Tanh(), Linear(16, 2))
    for p, array in zip(model.parameters(), weights):
        p.array = array.astype(np.float64)
    X, y = ns["tensor"](X_np.astype(np.float64)), ns["tensor"](y_np)
    optimizer = ns["SGD"](model.parameters(), lr=LR, momentum=MOMENTUM)
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = ns["cross_entropy"](model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    same_losses(losses, nbgrad_losses())


CHECKS = task_checks(globals(), [module_parameters, linear_forward, cross_entropy_pieces, sgd_step,
                                 trains_like_nbgrad])
