"""Chapter 10's checks: ``saved_tensors_hooks`` makes the innermost pair current and every
block restores the one before (even when it raises); a saved tensor goes through the pair
current when it was saved (packed once with grad mode off, unpacked at each use, no version
check, freed by backward); ``checkpoint`` records and saves nothing of its segment and gives
the plain program's gradients, each compared with nbgrad."""

import numpy as np

import nbgrad as ng

from buildgrad.checks import Namespace, close, expect, fail, nbgrad_message, raises, task_checks


def _array(t):
    return t.array if hasattr(t, "array") else t.detach().numpy()


def hooks(ns):
    """``saved_tensors_hooks``: a stack of pairs, restored by each block, even one that raises."""
    mine = Namespace(ns)
    current = mine.current_hooks
    outer, inner = (lambda t: t, lambda p: p), (lambda t: ("inner", t), lambda p: p[1])
    expect(current() is None, "Outside every block no pair is current: a block that ended "
           "earlier left its pair behind (pop it in __exit__).", None, current())
    block = mine.saved_tensors_hooks(*outer)
    expect(current() is None, "Making saved_tensors_hooks(pack, unpack) must change nothing: "
           "the pair becomes current in __enter__, when the with block starts.", None, current())
    # what is current at each moment is noted first and judged after the blocks, so that a
    # wrong __exit__ can neither swallow nor replace the check's own message
    seen = {}
    try:
        with block as entered:
            seen["entered"], seen["outer"] = entered, current()
            with mine.saved_tensors_hooks(*inner):
                seen["inner"] = current()
            seen["after inner"] = current()
            try:
                with mine.saved_tensors_hooks(*inner):
                    raise KeyError("the block's own error")
            except KeyError:
                seen["raised"] = True
            else:
                seen["raised"] = False
            seen["after raise"] = current()
        seen["after"] = current()
    except Exception as error:  # noqa: BLE001 - the learner's __exit__ failed: judged below
        seen["exit error"] = error
    expect(seen["entered"] is None, "`with saved_tensors_hooks(...) as h` gives None, as "
           "PyTorch's does: __enter__ returns nothing.", None, seen["entered"])
    expect(seen["outer"] == outer, "Inside the block its (pack_hook, unpack_hook) pair, in that "
           "order, must be current.", outer, seen["outer"])
    expect(seen.get("inner") == inner, "In a nested block the innermost pair is current.",
           inner, seen.get("inner"))
    expect(seen.get("after inner") == outer, "When a nested block ends, the enclosing block's "
           "pair must be current again: remove only the innermost pair (the last one added).",
           outer, seen.get("after inner"))
    expect(seen.get("raised", True), "A block that raises must let the exception go on to the "
           "caller: __exit__ must not return True (that swallows it).", "KeyError", "no error")
    expect(seen.get("after raise") == outer, "A block that raises must still restore the pair "
           "that was current before it (__exit__ runs on an exception too).", outer,
           seen.get("after raise"))
    if "exit error" in seen:
        error = seen["exit error"]
        fail("Leaving the blocks failed: each __exit__ removes the pair its own __enter__ added, "
             "once.", "no error", f"{type(error).__name__}: {error}")
    expect(seen["after"] is None, "After the outermost block no pair is current.", None, seen["after"])


def _program(M, x_values):
    """y = (x * x).exp().sum(): the product saves x twice, exp saves its output."""
    x = M.tensor(x_values, requires_grad=True)
    return x, (x * x).exp().sum()


def saved(ns):
    """Saved tensors go through the pair current when saved; the graph keeps only the packed."""
    mine = Namespace(ns)
    rng = np.random.default_rng(10)
    values = rng.uniform(-1.0, 1.0, size=4)
    libraries = ((mine, mine.saved_tensors_hooks, mine.is_grad_enabled),
                 (ng, ng.autograd.graph.saved_tensors_hooks, ng.is_grad_enabled))

    # saving: pack_hook once per saved tensor, with grad mode off; the tensor itself not kept
    grad_modes = []
    for M, hooks_of, grad_mode in libraries:
        modes = []
        with hooks_of(lambda t, modes=modes, grad_mode=grad_mode: (modes.append(grad_mode()), ("packed", t))[1],
                      lambda p: p[1]):
            x, y = _program(M, values)
        grad_modes.append(modes)
    mine_modes, ng_modes = grad_modes
    expect(len(mine_modes) == len(ng_modes), "pack_hook must be called once for each tensor a "
           "node saves, when the node is made (inside the block).", f"{len(ng_modes)} calls",
           f"{len(mine_modes)} calls")
    expect(not any(mine_modes), "pack_hook must run with grad mode off (wrap the call in "
           "no_grad()): what a hook computes is not part of the graph.",
           "is_grad_enabled() False in pack_hook", "True")
    with mine.saved_tensors_hooks(lambda t: "a token", lambda p: None):
        x, y = _program(mine, values)
    kept = [s.tensor for s in y.grad_fn.next_functions[0][0].next_functions[0][0]._saved]
    expect(all(t is None for t in kept), "With hooks a SavedTensor must not keep the tensor "
           "(its tensor field None): the graph keeps only what pack_hook returned.",
           "tensor None", kept)

    # unpacking: through the pair current when the tensor was saved
    unpacked = []
    with mine.saved_tensors_hooks(lambda t: ("first", t), lambda p: (unpacked.append(p), p[1] * 0.0)[1]):
        x, y = _program(mine, values)
    try:
        with mine.saved_tensors_hooks(lambda t: t, lambda p: p[1]):
            y.backward()
    except Exception as error:  # noqa: BLE001 - named here when unpack_hook was skipped
        expect(unpacked, "unpack_hook must be called at each use of a saved tensor, and its "
               "result returned: the node keeps what pack_hook returned, not a tensor.",
               "unpack_hook called", f"not called; {type(error).__name__}: {error}")
        raise
    close(_array(x.grad), np.zeros(4), "A saved tensor uses the pair that was current when it "
          "was saved (keep the pair with it), not the one current at backward, nor none.")

    # at each use: once per saved tensor per backward; the same values as without hooks
    counts = []
    for M, hooks_of, _ in libraries:
        calls = []
        with hooks_of(lambda t: t, lambda p, calls=calls: (calls.append(1), p)[1]):
            x, y = _program(M, values)
        y.backward(retain_graph=True)
        once = len(calls)
        y.backward()
        counts.append((once, len(calls), _array(x.grad)))
    (m1, m2, mine_grad), (n1, n2, ng_grad) = counts
    expect((m1, m2) == (n1, n2), "unpack_hook must be called at each use of a saved tensor: "
           "once per saved tensor per backward (unpack what pack_hook returned every time; "
           "keep no unpacked copy).", f"{n1} calls after one backward, {n2} after two",
           f"{m1} and {m2}")
    close(mine_grad, ng_grad, "Through the hooks backward must get the same values: return "
          "what unpack_hook gives.")

    # unpack_hook must give a Tensor: PyTorch's TypeError
    with mine.saved_tensors_hooks(lambda t: t, lambda p: 1):
        x, y = _program(mine, values)
    with ng.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 1):
        x_ng, y_ng = _program(ng, values)
    try:
        y_ng.backward()
    except TypeError as error:
        phrase = str(error).splitlines()[0]
    raises(lambda: y.backward(), TypeError, phrase,
           "unpack_hook must return a Tensor: otherwise raise TypeError(UNPACK_NOT_A_TENSOR + "
           "the name of its result's type).")

    # no version check through hooks: the changed values are used, as in nbgrad
    grads = []
    for M, hooks_of in ((mine, mine.saved_tensors_hooks), (ng, ng.autograd.graph.saved_tensors_hooks)):
        x = M.tensor(values, requires_grad=True)
        with hooks_of(lambda t: t, lambda p: p):
            a = x * 1.0
            y = (a * a).sum()
        with M.no_grad():
            a.add_(1.0)
        try:
            y.backward()
        except RuntimeError as error:
            fail("With hooks there is no version check (PyTorch cannot see through a hook): "
                 "backward must compute with what unpack_hook returns, here the changed tensor.",
                 "no error", f"RuntimeError: {str(error)[:90]}...")
        grads.append(_array(x.grad))
    close(grads[0], grads[1], "With hooks backward computes with what unpack_hook returns: here "
          "the tensor changed in place, as nbgrad does.")

    # freeing: after backward the packed value is dropped, and a second backward refuses
    with mine.saved_tensors_hooks(lambda t: t, lambda p: p):
        x, y = _program(mine, values)
    node = y.grad_fn.next_functions[0][0].next_functions[0][0]
    y.backward()
    expect(all(getattr(s, "packed", None) is None for s in node._saved),
           "release() must drop what pack_hook returned (freeing memory is the point of "
           "backward's release).", "packed None", [getattr(s, "packed", "?") for s in node._saved])
    with ng.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
        x_ng, y_ng = _program(ng, values)
    y_ng.backward()
    phrase = nbgrad_message(y_ng.backward).splitlines()[0][:60]
    raises(y.backward, RuntimeError, phrase, "After release() a saved tensor packed by hooks must "
           "refuse as without hooks, with SECOND_BACKWARD: forget the hooks when freeing.")

    # without a pair: as before, freeing and the version check included
    x, y = _program(mine, values)
    y.backward()
    raises(y.backward, RuntimeError, "Trying to backward through the graph a second time",
           "Without a current pair release() must free the tensor as before: call the previous "
           "version.")
    x = mine.tensor(values, requires_grad=True)
    a = x * 1.0
    y = (a * a).sum()
    with mine.no_grad():
        a.add_(1.0)
    raises(y.backward, RuntimeError, "modified by an inplace operation",
           "Without a current pair a saved tensor must behave as before (chapter 05's version "
           "check): call the previous version.")


def _segment(calls):
    def function(a, b):
        calls.append(1)
        return (a * b).tanh() * a
    return function


def checkpoint(ns):
    """``checkpoint``: the segment unrecorded and unsaved in forward, run again in backward."""
    mine = Namespace(ns)
    rng = np.random.default_rng(110)
    a_values, b_values = rng.uniform(-1.0, 1.0, size=(2, 5))

    def reference(requires):
        a = ng.tensor(a_values, requires_grad=requires[0])
        b = ng.tensor(b_values, requires_grad=requires[1])
        ((_segment([])(a, b)) ** 2).sum().backward()
        return [None if t.grad is None else t.grad.numpy() for t in (a, b)]

    for requires in ((True, True), (True, False)):
        expected = reference(requires)
        for inside_no_grad in (False, True):
            calls, packed = [], []
            a = mine.tensor(a_values, requires_grad=requires[0])
            b = mine.tensor(b_values, requires_grad=requires[1])
            with mine.saved_tensors_hooks(lambda t: (packed.append(t), t)[1], lambda p: p):
                out = mine.checkpoint(_segment(calls), a, b)
            expect(len(calls) == 1, "In forward, checkpoint runs function once.", 1, len(calls))
            expect(out.grad_fn is not None and out.grad_fn.name() == "CheckpointFunctionBackward",
                   "The output's grad_fn is the Function's node, CheckpointFunctionBackward.",
                   "CheckpointFunctionBackward", out.grad_fn and out.grad_fn.name())
            expect(len(packed) == 2 and packed[0] is a and packed[1] is b,
                   "In forward only the inputs are saved (ctx.save_for_backward(*inputs)), "
                   "nothing of the segment: the segment itself records nothing, so saved-tensor "
                   "hooks see exactly the inputs.", "2 tensors saved: a and b", f"{len(packed)} saved")
            loss = (out ** 2).sum()
            try:
                if inside_no_grad:  # PyTorch allows it; the second run must still record
                    with mine.no_grad():
                        loss.backward()
                else:
                    loss.backward()
            except AttributeError as error:
                if "has no attribute 'backward'" not in str(error):
                    raise
                fail("ctx.function is taken: it is your Function subclass, whose backward the "
                     "node calls (chapter 06). Keep the segment's function under another name "
                     "of ctx.", "gradients", f"AttributeError: {error}")
            except RuntimeError as error:
                if not inside_no_grad:
                    raise
                fail("In backward, run function again with grad mode on (enable_grad()): the "
                     "backward call may come from inside no_grad(), and the second run must be "
                     "recorded to be backpropagated.", "gradients", f"RuntimeError: {error}")
            expect(len(calls) == 2, "function runs exactly twice: once in forward, once when "
                   "backward reaches the node.", 2, len(calls))
            _same_gradients(a, b, expected)

    # an input made by earlier operations: its graph gets the gradient once, through the node
    calls = []
    w = mine.tensor(a_values, requires_grad=True)
    b = mine.tensor(b_values)
    (mine.checkpoint(_segment(calls), w * 2.0, b) ** 2).sum().backward()
    w_ng = ng.tensor(a_values, requires_grad=True)
    ((_segment([])(w_ng * 2.0, ng.tensor(b_values))) ** 2).sum().backward()
    close(_array(w.grad), w_ng.grad.numpy(), "With an input made by earlier operations, the "
          "gradient must flow into its graph once, through the node's returned gradients: run the "
          "second pass on new leaves (detach()), not on the inputs themselves.")


def _same_gradients(a, b, expected):
    """The inputs' gradients against the plain program's, naming the usual mistake."""
    for name, t, grad in (("a", a, expected[0]), ("b", b, expected[1])):
        if grad is None:
            expect(t.grad is None, f"An input that does not require grad ({name}) gets None.",
                   None, t.grad)
            continue
        expect(t.grad is not None, f"The gradient must reach {name}: return one gradient per "
               "argument of forward (None for function, then the inputs').", "a gradient", None)
        got = _array(t.grad)
        if name == "a" and expected[1] is not None and np.allclose(got, expected[1]):
            fail("a got b's gradient: return one gradient per argument of forward, None for "
                 "function first, then the inputs' in order.", expected[0], got)
        if np.allclose(got, 2 * grad):
            fail(f"{name}.grad is twice the plain program's: the second run must be on new leaves "
                 "(detach()), so that its backward does not also reach the inputs themselves.",
                 grad, got)
        close(got, grad, f"{name}.grad must be the plain program's (without checkpoint): "
              "backpropagate the incoming gradient (the one backward passes to the node) "
              "through the second run.")


CHECKS = task_checks(globals(), [hooks, saved, checkpoint])
