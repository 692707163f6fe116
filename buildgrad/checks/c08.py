"""Chapter 08's checks: ``Module`` finds its parameters, ``Linear``, ``cross_entropy`` and
``SGD.step`` with momentum, each compared with nbgrad on the same numbers."""

import numpy as np

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad import nn, optim

from buildgrad.checks import close, expect, fail, task_checks


def _arrays(tensors):
    return [np.array(t.detach().numpy()) for t in tensors]


def module_parameters(ns):
    """``Module.__setattr__`` files Parameters and Modules; ``parameters()`` lists them."""
    Tensor, Parameter, Module = ns["Tensor"], ns["Parameter"], ns["Module"]
    rng = np.random.default_rng(8)
    a0, b0 = rng.normal(size=(3,)), rng.normal(size=(2, 2))
    w0, c0 = rng.normal(size=(4, 3)), rng.normal(size=(4,))

    def build(P, M, T):
        class Inner(M):
            def __init__(self):
                super().__init__()
                self.weight, self.bias = P(w0), P(c0)

        class Net(M):
            def __init__(self):
                super().__init__()
                self.a = P(a0)
                self.inner = Inner()
                self.b = P(b0)
                self.constant = T(np.ones(5))  # a plain tensor: not a parameter
                self.name = "net"              # nor is anything else
        return Net()

    mine = build(Parameter, Module, Tensor)
    theirs = build(lambda a: nn.Parameter(ng.tensor(a)), nn.Module, ng.tensor)
    expect(mine.a is not None and isinstance(mine.a, Parameter) and mine.name == "net",
           "__setattr__ must still set the attribute itself (object.__setattr__), after filing it",
           "net.a the Parameter and net.name == 'net'",
           f"net.a = {getattr(mine, 'a', None)!r}, net.name = {getattr(mine, 'name', None)!r}")
    got = list(mine.parameters())
    expected = _arrays(theirs.parameters())
    expect(len(got) == len(expected),
           "parameters() lists the module's own Parameters, then every submodule's (recursively), "
           "and nothing that is not a Parameter",
           f"{len(expected)} parameters, shapes {[e.shape for e in expected]}",
           f"{len(got)}: {[tuple(np.shape(p.numpy())) for p in got]}")
    for p, e in zip(got, expected):
        expect(isinstance(p, Parameter) and p.numpy().shape == e.shape and np.allclose(p.numpy(), e),
               "the order is PyTorch's: own parameters in assignment order (a, b), "
               "then each submodule's (inner.weight, inner.bias)",
               [e.shape for e in expected], [tuple(np.shape(q.numpy())) for q in got])
    expect(got[0] is mine.a, "parameters() must yield the Parameter objects themselves, not copies",
           "the same object as net.a", "another object")
    # re-assigning keeps the place; a second call gives the list again
    mine.a = Parameter(a0 * 2)
    again = list(mine.parameters())
    expect(len(again) == len(got) and again[0] is mine.a,
           "assigning a new Parameter to the same name replaces the old one in place "
           "(a dict keyed by name), and parameters() can be called again",
           "4 parameters, the first the new net.a", f"{len(again)} parameters")


def linear_forward(ns):
    """``Linear.forward`` is ``x W^T + b``, and its gradients are nbgrad's."""
    Tensor, Parameter, Linear = ns["Tensor"], ns["Parameter"], ns["Linear"]
    rng = np.random.default_rng(80)
    for n, i, o in [(5, 3, 4), (1, 2, 2), (7, 16, 3)]:
        W, b, x = rng.normal(size=(o, i)), rng.normal(size=o), rng.normal(size=(n, i))
        layer = Linear.__new__(Linear)  # without __init__: this check needs no __setattr__
        object.__setattr__(layer, "weight", Parameter(W))
        object.__setattr__(layer, "bias", Parameter(b))
        xt = Tensor(x, requires_grad=True)
        out = layer.forward(xt)
        wn, bn = ng.tensor(W, requires_grad=True), ng.tensor(b, requires_grad=True)
        xn = ng.tensor(x, requires_grad=True)
        ref = F.linear(xn, wn, bn)
        close(out.numpy(), ref.detach().numpy(),
              "y = x W^T + b: the weight is (out_features, in_features), so transpose it "
              "(x.mm(self.weight.t())), then add the bias (broadcast over the rows)")
        g = rng.normal(size=(n, o))
        (out * Tensor(g)).sum().backward()
        (ref * ng.tensor(g)).sum().backward()
        for name, mine, theirs in [("weight", layer.weight, wn), ("bias", layer.bias, bn), ("x", xt, xn)]:
            expect(mine.grad is not None,
                   f"no gradient reached {name}: build the output with your Tensor's operations "
                   "(mm, t, +) so that backward can run through them", "a gradient", "None")
            close(mine.grad.numpy(), theirs.grad.numpy(),
                  f"the gradient of {name} differs from nbgrad's: use the Tensor operations, "
                  "not NumPy on .numpy(), so the graph is recorded")


def cross_entropy_pieces(ns):
    """``log_softmax``, ``nll_loss`` and their backward nodes, against nbgrad."""
    Tensor, tensor = ns["Tensor"], ns["tensor"]
    log_softmax, nll_loss, cross_entropy = ns["log_softmax"], ns["nll_loss"], ns["cross_entropy"]
    rng = np.random.default_rng(800)
    for n, c, scale in [(4, 3, 1.0), (1, 2, 1.0), (6, 5, 3.0), (3, 4, 1000.0)]:
        z = rng.normal(size=(n, c)) * scale
        t = rng.integers(0, c, n)
        w = rng.normal(size=(n, c))
        zt = Tensor(z, requires_grad=True)
        zn = ng.tensor(z, requires_grad=True)
        mine = log_softmax(zt)
        theirs = F.log_softmax(zn, dim=1)
        expect(np.all(np.isfinite(mine.numpy())),
               "log_softmax overflowed: subtract each row's maximum before exp "
               f"(here the scores are about {scale:g} in size)", "finite values", mine.numpy())
        close(mine.numpy(), theirs.detach().numpy(),
              "log_softmax(z)[n, c] = z[n, c] - log(sum over c' of exp(z[n, c'])), over dim 1 (each row)")
        (mine * Tensor(w)).sum().backward()
        (theirs * ng.tensor(w)).sum().backward()
        expect(zt.grad is not None, "log_softmax must record its node: record(LogSoftmaxBackward0, out, "
               "(x,), saved=(out,))", "a gradient for the scores", "None")
        close(zt.grad.numpy(), zn.grad.numpy(),
              "LogSoftmaxBackward0: grad - softmax * (grad summed over each row), "
              "with softmax = exp(the saved output)")

        zt, zn = Tensor(z, requires_grad=True), ng.tensor(z, requires_grad=True)
        lp, lpn = log_softmax(zt), F.log_softmax(zn, dim=1)
        loss, loss_n = nll_loss(lp, tensor(t)), F.nll_loss(lpn, ng.tensor(t))
        close(loss.numpy(), loss_n.detach().numpy(),
              "nll_loss is the MEAN over the rows of -log_probabilities[n, target[n]] "
              "(pick one entry per row with integer indexing, not a sum)")
        expect(np.shape(loss.numpy()) == (), "nll_loss returns a scalar tensor (shape ())",
               "()", np.shape(loss.numpy()))
        (loss * 3.0).backward()
        (loss_n * 3.0).backward()
        close(zt.grad.numpy(), zn.grad.numpy(),
              "NllLossBackward0: zeros of the input's shape, with -grad / N at [n, target[n]]: "
              "multiply by the incoming grad (here 3) and divide by the number of rows")

        zt, zn = Tensor(z, requires_grad=True), ng.tensor(z, requires_grad=True)
        loss, loss_n = cross_entropy(zt, tensor(t)), F.cross_entropy(zn, ng.tensor(t))
        loss.backward()
        loss_n.backward()
        close(loss.numpy(), loss_n.detach().numpy(), "cross_entropy = nll_loss(log_softmax(logits), target)")
        close(zt.grad.numpy(), zn.grad.numpy(),
              "the gradient of cross_entropy is (softmax(z) - one_hot(target)) / N")


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
        for step in range(6):
            for index, (p, q) in enumerate(zip(mine, theirs)):
                if index == 1 and step == 2:  # no gradient this step: skipped, buffer untouched
                    p.grad, q.grad = None, None
                    continue
                g = rng.normal(size=shapes[index])
                p.grad, q.grad = Tensor(g), ng.tensor(g)
            before = [p.numpy().copy() for p in mine]
            version = [p._version for p in mine]
            opt.step()
            opt_n.step()
            for index, (p, q) in enumerate(zip(mine, theirs)):
                hint = (f"lr={lr}, momentum={momentum}, after step {step + 1}, parameter {index}: "
                        "PyTorch's rule is b = g at the first step, then b = momentum * b + g, "
                        "and p -= lr * b (plain p -= lr * g when momentum is 0); a parameter "
                        "whose .grad is None is skipped and its buffer left as it was")
                close(p.numpy(), q.detach().numpy(), hint)
                expect(p.is_leaf and p.grad_fn is None and p.requires_grad,
                       "update under no_grad(): the parameter must stay a leaf that requires grad",
                       "a leaf, grad_fn None", f"is_leaf={p.is_leaf}, grad_fn={p.grad_fn}")
                if index == 1 and step == 2:
                    close(p.numpy(), before[index], "a parameter without .grad must not move")
                else:
                    expect(p._version > version[index],
                           "change the parameter in place (p.sub_(...)) so its version counter "
                           "moves, as PyTorch's step does; do not replace p or its array",
                           f"version > {version[index]}", p._version)
    p = Parameter(np.ones(2))
    try:
        SGD([p], lr=0.1).step()  # no gradient at all
    except Exception as error:
        fail("step() before any backward must do nothing (every .grad is None)", "no error",
             f"{type(error).__name__}: {error}")


CHECKS = task_checks(globals(), [module_parameters, linear_forward, cross_entropy_pieces, sgd_step])
