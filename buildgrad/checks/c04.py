"""Chapter 04's checks: saved tensors, freed by backward unless ``retain_graph=True``,
and ``backward(gradient=...)``. nbgrad is the referee: its messages, its gradients."""

import gc
import weakref

import numpy as np
import nbgrad as ng

from buildgrad.checks import close, expect, fail, nbgrad_message, raises, task_checks

SECOND = "Trying to backward through the graph a second time"
MISMATCH = "Mismatch in shape"


def _second_backward_message():
    """nbgrad's (PyTorch's) message for a second backward, up to nbgrad's own hint."""
    y = (ng.tensor([1.0, 2.0], requires_grad=True) ** 2).sum()
    y.backward()
    return nbgrad_message(y.backward).split(" Specify retain_graph")[0]


def _leaves(make, arrays):
    return [make(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]


def _ng_tensor(array, requires_grad=False):
    return ng.tensor(array, dtype=ng.float64, requires_grad=requires_grad)


# programs written once, run on the learner's tensors and on nbgrad's
PROGRAMS = [
    ("(x * w).tanh() * x.exp()", lambda x, w: (x * w).tanh() * x.exp()),
    ("(x * x + w).sin() / w.cos()", lambda x, w: (x * x + w).sin() / (w.cos() + 2)),
    ("x.exp() * w - (x * w) ** 2", lambda x, w: x.exp() * w - (x * w) ** 2),
]


def _grads(leaves):
    return [None if t.grad is None else np.asarray(t.grad.numpy()) for t in leaves]


def saved_tensor(ns):
    """Task 1: ``SavedTensor.unpack`` gives the tensor back, ``release`` lets it go, and
    unpacking afterwards raises PyTorch's second-backward error."""
    SavedTensor, tensor = ns["SavedTensor"], ns["tensor"]
    message = _second_backward_message()
    rng = np.random.default_rng(4)
    for _ in range(3):
        a = tensor(rng.normal(size=3), requires_grad=True)
        y = a * 2.0
        saved = SavedTensor(a, y.grad_fn)
        expect(saved.unpack() is a, "unpack() must return the very tensor that was saved "
               "(an input is kept as itself)", "the input tensor", saved.unpack())
        expect(saved.unpack() is a, "unpack() may be called more than once before release()",
               "the input tensor again", saved.unpack())
        out = SavedTensor(y, y.grad_fn)  # an output: kept as a new tensor over its array
        close(out.unpack().numpy(), y.numpy(), "unpack() of a saved output must give "
              "its values (the array the output holds)")
        saved.release()
        raises(saved.unpack, RuntimeError, message,
               "after release(), unpack() must raise RuntimeError with PyTorch's message "
               "(SECOND_BACKWARD): a freed saved tensor cannot be read")
        raises(saved.unpack, RuntimeError, SECOND,
               "unpack() must keep raising after release(), every time")
    # release must drop the reference, so that the memory can come back
    b = tensor(rng.normal(size=1000))
    alive = weakref.ref(b)
    saved = SavedTensor(b, (tensor(1.0, requires_grad=True) * 1.0).grad_fn)
    del b
    gc.collect()
    expect(alive() is not None, "a SavedTensor must hold its tensor until release()",
           "the tensor alive", "collected")
    saved.release()
    gc.collect()
    expect(alive() is None, "release() must drop the SavedTensor's reference to the tensor "
           "(set it to None), not just mark it as freed: freeing is about memory",
           "the tensor collected after release()", "still alive")


def node_saved(ns):
    """Task 2: ``Node.save`` wraps each tensor in a ``SavedTensor``, ``saved`` unpacks them
    in order, ``release`` frees them all; a node that saved nothing keeps ``saved == ()``."""
    tensor = ns["tensor"]
    rng = np.random.default_rng(5)
    for _ in range(3):
        a = tensor(rng.normal(size=3), requires_grad=True)
        b = tensor(rng.normal(size=3), requires_grad=True)
        node = (a * b).grad_fn
        saved = node.saved
        expect(isinstance(saved, tuple) and len(saved) == 2,
               "saved must be a tuple of the unpacked tensors, one per tensor given to save()",
               "a tuple of 2 tensors", saved)
        expect(saved[0] is a and saved[1] is b,
               "saved must give back the tensors in the order save() got them (a, b)",
               "(a, b)", saved)
        out = a.exp()
        close(out.grad_fn.saved[0].numpy(), np.exp(a.numpy()),
              "exp saves its output: saved[0] must hold exp(a)")
        expect(out.grad_fn.saved[0] is not out, "save() must wrap each tensor in "
               "SavedTensor(tensor, self): an output is then kept as a new tensor over its "
               "array (holding the output itself would be a cycle output -> node -> output)",
               "a new tensor", "the output itself")
        node.release()
        raises(lambda: node.saved, RuntimeError, SECOND,
               "after release(), reading node.saved must raise the second-backward error "
               "(saved unpacks every SavedTensor)")
        empty = (a + b).grad_fn  # saves no tensor
        expect(empty.saved == (), "a node that saved nothing must have saved == ()",
               "()", empty.saved)
        empty.release()
        expect(empty.saved == (), "release() of a node that saved nothing must leave "
               "saved == () (nothing to free, nothing to raise)", "()", empty.saved)
    # release frees the memory: the node was the only holder of b
    a = tensor(rng.normal(size=3), requires_grad=True)
    b = tensor(rng.normal(size=3))
    node, alive = (a * b).grad_fn, weakref.ref(b)
    del b
    gc.collect()
    expect(alive() is not None, "save() must keep the tensors until release()",
           "the saved tensor alive", "collected")
    node.release()
    gc.collect()
    expect(alive() is None, "release() must release every SavedTensor of the node",
           "the saved tensor collected", "still alive")
    # backward still reads the saved tensors correctly
    x, w = _leaves(tensor, rng.normal(size=(2, 4)))
    X, W = _leaves(_ng_tensor, [x.numpy(), w.numpy()])
    (x * w * x).sum().backward()
    (X * W * X).sum().backward()
    for mine, ref, name in zip(_grads([x, w]), _grads([X, W]), "xw"):
        close(mine, ref, f"backward reads node.saved: {name}.grad of sum(x * w * x) must "
              "equal nbgrad's (save must keep the tensors, saved return them in order)")


def backward_options(ns):
    """Task 3: the engine frees each node after running it unless ``retain_graph=True``;
    ``backward(gradient=g)`` starts from ``g`` and checks its shape."""
    tensor = ns["tensor"]
    message = _second_backward_message()
    rng = np.random.default_rng(6)
    for text, program in PROGRAMS:
        arrays = rng.normal(size=(2, 4))
        x, w = _leaves(tensor, arrays)
        X, W = _leaves(_ng_tensor, arrays)
        y, Y = program(x, w).sum(), program(X, W).sum()
        y.backward()
        Y.backward()
        raises(y.backward, RuntimeError, message,
               f"sum({text}): a second backward() must raise PyTorch's error: release() "
               "each node right after it has run (in Node.__call__), unless retain_graph")
        # retain_graph=True: the graph can be walked again, and .grad adds up
        x, w = _leaves(tensor, arrays)
        X, W = _leaves(_ng_tensor, arrays)
        y, Y = program(x, w).sum(), program(X, W).sum()
        for call in range(3):
            retain = call < 2
            try:
                y.backward(retain_graph=retain)
            except RuntimeError as error:
                fail(f"sum({text}): backward(retain_graph=True) must keep the saved tensors "
                     "for the next backward (do not release() when GraphTask.retain_graph)",
                     f"call {call + 1} to work", f"RuntimeError: {error}")
            Y.backward(retain_graph=retain)
            for mine, ref, name in zip(_grads([x, w]), _grads([X, W]), "xw"):
                close(mine, ref, f"sum({text}): after {call + 1} backward calls {name}.grad "
                      "must equal nbgrad's: each call adds into .grad")
        raises(y.backward, RuntimeError, SECOND,
               f"sum({text}): the last backward (without retain_graph) must free the graph")
        # gradient=: the vector-Jacobian product, for a non-scalar output
        x, w = _leaves(tensor, arrays)
        X, W = _leaves(_ng_tensor, arrays)
        v = rng.normal(size=4)
        program(x, w).backward(gradient=tensor(v))
        program(X, W).backward(gradient=_ng_tensor(v))
        for mine, ref, name in zip(_grads([x, w]), _grads([X, W]), "xw"):
            close(mine, ref, f"{text}: backward(gradient=v) must start from v (the "
                  f"vector-Jacobian product); {name}.grad must equal nbgrad's")
        y = program(x, w)
        raises(lambda: y.backward(tensor(np.ones(3))), RuntimeError, MISMATCH,
               "backward(gradient=g) must check that g has the output's shape and raise "
               "RuntimeError 'Mismatch in shape: grad_output[0] has a shape of ...'")
        raises(lambda: y.backward(tensor(np.ones((4, 1)))), RuntimeError, MISMATCH,
               "backward(gradient=g): shape (4, 1) is not shape (4,): compare shapes exactly")
    # a matrix output, with gradient=
    a = tensor(rng.normal(size=(3, 2)), requires_grad=True)
    b = tensor(rng.normal(size=(2, 4)), requires_grad=True)
    A, B = _leaves(_ng_tensor, [a.numpy(), b.numpy()])
    g = rng.normal(size=(3, 4))
    (a.mm(b)).tanh().backward(tensor(g))
    (A.mm(B)).tanh().backward(_ng_tensor(g))
    for mine, ref, name in zip(_grads([a, b]), _grads([A, B]), "ab"):
        close(mine, ref, f"tanh(a @ b).backward(g): {name}.grad must equal nbgrad's")
    # nodes that saved nothing can be walked again, as in PyTorch
    arrays = rng.normal(size=(2, 3))
    x, w = _leaves(tensor, arrays)
    X, W = _leaves(_ng_tensor, arrays)
    for y, Y in [((x + w).sum(), (X + W).sum()), ((x - w + 1).mean(), (X - W + 1).mean())]:
        for call in range(2):
            try:
                y.backward()
            except RuntimeError as error:
                fail("a graph whose nodes saved nothing (+, -, sum, mean) can be walked "
                     "again without retain_graph, as in PyTorch: raise only when a freed "
                     "saved tensor is read (SavedTensor.unpack), never because backward "
                     "ran before", f"call {call + 1} to work", f"RuntimeError: {error}")
            Y.backward()
    for mine, ref, name in zip(_grads([x, w]), _grads([X, W]), "xw"):
        close(mine, ref, f"{name}.grad after backward twice through +, -, sum and mean "
              "must equal nbgrad's")
    # retain_graph holds for one call only
    x, w = _leaves(tensor, rng.normal(size=(2, 3)))
    kept = (x * w).sum()
    kept.backward(retain_graph=True)
    other = (x * w).sum()
    other.backward()
    raises(other.backward, RuntimeError, SECOND,
           "retain_graph=True must hold for that backward call only: put the old value of "
           "GraphTask.retain_graph back when backward ends (try/finally)")
    kept.backward()
    raises(kept.backward, RuntimeError, SECOND,
           "backward() without retain_graph must free a graph kept by an earlier call")
    # an error inside backward must not leave retain_graph set
    x = tensor(rng.normal(size=3), requires_grad=True)
    bad = (x * x).sum()
    try:
        bad.backward(tensor(np.ones(2)), retain_graph=True)
    except RuntimeError:
        pass
    y = (x * x).sum()
    y.backward()
    raises(y.backward, RuntimeError, SECOND,
           "a backward that failed must not leave retain_graph on for the next one")


CHECKS = task_checks(globals(), [saved_tensor, node_saved, backward_options])
