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


def _unpack_after_release(unpack, message):
    """``unpack()`` of a released SavedTensor must raise PyTorch's RuntimeError."""
    try:
        unpack()
    except RuntimeError as raised:
        expect(message in str(raised), "unpack() after release() must raise RuntimeError with "
               "PyTorch's message, SECOND_BACKWARD, not a message of your own",
               f"RuntimeError: {message}...", f"RuntimeError: {raised}")
        return
    except AttributeError as raised:
        fail("release() must set the reference to None, not delete the attribute: unpack() "
             "then fails with an AttributeError instead of raising RuntimeError(SECOND_BACKWARD)",
             "RuntimeError(SECOND_BACKWARD)", f"AttributeError: {raised}")
    except Exception as raised:  # the wrong kind of error
        fail("after release(), unpack() must raise RuntimeError(SECOND_BACKWARD): a freed saved "
             "tensor cannot be read", "RuntimeError(SECOND_BACKWARD)",
             f"{type(raised).__name__}: {raised}")
    fail("after release(), unpack() must raise RuntimeError(SECOND_BACKWARD): a freed saved "
         "tensor cannot be read (test whether the reference is None)",
         "RuntimeError(SECOND_BACKWARD)", "no error")


def saved_tensor(ns):
    """Task 1: ``SavedTensor.unpack`` gives the tensor back, ``release`` lets it go (the
    memory, not the tensor), and unpacking afterwards raises PyTorch's second-backward error."""
    SavedTensor, tensor = ns["SavedTensor"], ns["tensor"]
    message = _second_backward_message()
    rng = np.random.default_rng(4)
    for round_ in range(3):
        values = rng.normal(size=3)
        a = tensor(values, requires_grad=True)
        y = a * 2.0
        saved = SavedTensor(a, y.grad_fn)
        expect(saved.unpack() is a, "unpack() must return the very tensor that was saved "
               "(an input is kept as itself), not a copy or its array", "the input tensor",
               saved.unpack())
        expect(saved.unpack() is a, "unpack() may be called more than once before release()",
               "the input tensor again", saved.unpack())
        out = SavedTensor(y, y.grad_fn)  # an output: kept as a new tensor over its array
        close(out.unpack().numpy(), y.numpy(), "unpack() of a saved output must give "
              "its values (the array the output holds)")
        saved.release()
        intact = isinstance(a.array, np.ndarray) and np.array_equal(a.array, values.astype(a.array.dtype))
        expect(intact, "release() must drop the SavedTensor's reference only, never change the "
               "tensor itself: an input is the user's tensor (x), still in use",
               np.array2string(values, precision=6), getattr(a, "array", None))
        if round_ == 0:
            # release must drop the reference, so that the memory can come back
            b = tensor(rng.normal(size=1000))
            alive = weakref.ref(b)
            kept = SavedTensor(b, (tensor(1.0, requires_grad=True) * 1.0).grad_fn)
            del b
            gc.collect()
            expect(alive() is not None, "a SavedTensor must hold its tensor until release()",
                   "the tensor alive", "collected")
            kept.release()
            gc.collect()
            expect(alive() is None, "release() must drop the SavedTensor's reference to the "
                   "tensor (set it to None), not just mark it as freed: freeing is about memory",
                   "the tensor collected after release()", "still alive")
        _unpack_after_release(saved.unpack, message)
        raises(saved.unpack, RuntimeError, SECOND,
               "unpack() must keep raising after release(), every time")


def node_saved(ns):
    """Task 2: ``Node.save`` wraps each tensor in a ``SavedTensor`` for this node, ``saved``
    unpacks them in order, ``release`` frees them all; a node that saved nothing keeps
    ``saved == ()``."""
    SavedTensor, tensor = ns["SavedTensor"], ns["tensor"]
    rng = np.random.default_rng(5)
    for _ in range(3):
        a = tensor(rng.normal(size=3), requires_grad=True)
        b = tensor(rng.normal(size=3), requires_grad=True)
        node = (a * b).grad_fn
        kept = node.__dict__.get("_saved", ())
        expect(isinstance(kept, tuple), "save() must keep a tuple in self._saved (a generator "
               "is used up by its first reading; chapter 05 indexes the tuple)", "a tuple",
               type(kept).__name__)
        expect(len(kept) == 2 and all(isinstance(s, SavedTensor) for s in kept),
               "save() must keep in self._saved one SavedTensor(t, self) per tensor it is given",
               "(SavedTensor, SavedTensor)", kept)
        saved = node.saved
        if isinstance(saved, (tuple, list)) and any(isinstance(s, SavedTensor) for s in saved):
            fail("saved must unpack each SavedTensor (its unpack()), giving back the tensors",
                 "(a, b)", saved)
        expect(isinstance(saved, tuple) and len(saved) == 2,
               "saved must be a tuple of the unpacked tensors, one per tensor given to save()",
               "a tuple of 2 tensors", saved)
        if saved[0] is b and saved[1] is a:
            fail("saved must give back the tensors in the order save() got them (a, b)",
                 "(a, b)", "(b, a)")
        expect(saved[0] is a and saved[1] is b, "an input must come back as itself: make each "
               "SavedTensor for the node that saves, SavedTensor(t, self) (for any other node "
               "an input is taken for that node's output, and copied)", "(a, b)", saved)
        again = node.saved
        expect(isinstance(again, tuple) and len(again) == 2 and again[0] is a,
               "saved must give the tensors every time it is read", "(a, b) again", again)
        out = a.exp()
        close(out.grad_fn.saved[0].numpy(), np.exp(a.numpy()),
              "exp saves its output: saved[0] must hold exp(a)")
        expect(out.grad_fn.saved[0] is not out, "save() must wrap each tensor in "
               "SavedTensor(tensor, self): an output is then kept as a new tensor over its "
               "array (holding the output itself would be a cycle output -> node -> output)",
               "a new tensor", "the output itself")
        node.release()
        try:
            after = node.saved
        except RuntimeError as raised:
            expect(SECOND in str(raised), "after release(), reading node.saved must raise the "
                   "second-backward error", SECOND, f"RuntimeError: {raised}")
        except Exception as raised:
            fail("release() must release each SavedTensor and keep the tuple of them: reading "
                 "saved then raises PyTorch's RuntimeError", f"RuntimeError: {SECOND}",
                 f"{type(raised).__name__}: {raised}")
        else:
            if isinstance(after, tuple) and len(after) == 0:
                fail("release() must release each SavedTensor, not empty the tuple: a freed node "
                     "must say so when read, not look like one that saved nothing",
                     f"RuntimeError: {SECOND}", "saved == ()")
            fail("after release(), reading node.saved must raise the second-backward error "
                 "(saved unpacks every SavedTensor)", f"RuntimeError: {SECOND}", after)
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


def _first_backward(action, text):
    """The first backward through a fresh graph: it must run."""
    try:
        action()
    except RuntimeError as raised:
        if SECOND not in str(raised):
            raise
        fail(f"{text}: the first backward raised the second-backward error: release a node "
             "after it has run, not before (its own backward reads what it saved)",
             "no error", f"RuntimeError: {raised}")
    except TypeError as raised:
        if "NoneType" not in str(raised):
            raise
        fail(f"{text}: Node.__call__ must return the gradients the node computed (the engine "
             "sends them on along next_functions)", "a tuple of gradients",
             f"TypeError: {raised}")


def _nested(ns, rng, inner_fails):
    """backward(retain_graph=True) of y, during which a hook on m runs a backward of another
    graph (which raises when ``inner_fails``): y's graph must be kept all the same."""
    tensor = ns["tensor"]
    x = tensor(rng.normal(size=3), requires_grad=True)
    m = x * x
    y = (m.exp() * m).sum()
    other = (x * 2.0).sum()
    if inner_fails:
        other.backward()  # the nested backward will find this graph freed, and raise

    def hook(grad):
        try:
            other.backward()  # a nested backward, without retain_graph
        except RuntimeError:
            pass

    m.register_hook(hook)
    y.backward(retain_graph=True)
    try:
        y.backward()
    except RuntimeError as raised:
        fail("a backward started inside another one (here by a hook) has its own retain_graph: "
             "when it ends, the outer one's must hold again. Put back the value "
             "GraphTask.retain_graph had before the call (not False)" + (
                 ", even when the nested backward raises (in a finally)" if inner_fails else ""),
             "y's graph kept by y.backward(retain_graph=True)", f"RuntimeError: {raised}")


def backward_options(ns):
    """Task 3: the engine frees each node after running it unless ``retain_graph=True``;
    ``backward(gradient=g)`` starts from ``g`` and checks its shape; the option holds for
    one call, however it ends, and a nested backward does not change the outer one's."""
    tensor = ns["tensor"]
    message = _second_backward_message()
    rng = np.random.default_rng(6)
    for text, program in PROGRAMS:
        arrays = rng.normal(size=(2, 4))
        x, w = _leaves(tensor, arrays)
        X, W = _leaves(_ng_tensor, arrays)
        y, Y = program(x, w).sum(), program(X, W).sum()
        _first_backward(y.backward, f"sum({text})")
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
               f"sum({text}): retain_graph=True must hold for that backward call only: the "
               "last backward, without it, must free the graph")
        # gradient=: the vector-Jacobian product, for a non-scalar output
        x, w = _leaves(tensor, arrays)
        X, W = _leaves(_ng_tensor, arrays)
        v = rng.normal(size=4)
        try:
            program(x, w).backward(gradient=tensor(v))
        except RuntimeError as error:
            fail(f"{text}: backward(gradient=v) must start from v (hand it on to the earlier "
                 "backward)", "x.grad and w.grad: the vector-Jacobian product",
                 f"RuntimeError: {error}")
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
           "retain_graph=True must hold for that backward call only: a later backward() "
           "without it must free its graph")
    kept.backward()
    raises(kept.backward, RuntimeError, SECOND,
           "backward() without retain_graph must free a graph kept by an earlier call")
    # ... however the call ends: a backward that raises leaves the option as it found it
    GraphTask = ns["GraphTask"]
    x = tensor(rng.normal(size=3), requires_grad=True)
    m = x * x

    def refuse(grad):
        raise ValueError("a hook that fails")

    m.register_hook(refuse)
    try:
        m.sum().backward(retain_graph=True)
    except ValueError:
        pass
    expect(GraphTask.retain_graph is False, "when backward ends, even by raising, "
           "GraphTask.retain_graph must be back to the value it had before the call (put it "
           "back in a finally)", "False (as before the call)", GraphTask.retain_graph)
    # a nested backward (started by a hook) does not change the outer one's option
    _nested(ns, rng, inner_fails=False)
    _nested(ns, rng, inner_fails=True)


CHECKS = task_checks(globals(), [saved_tensor, node_saved, backward_options])
