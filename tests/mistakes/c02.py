"""Typical wrong answers to exercise 02 (requires_grad, grad mode), and the hint each must get."""

from exercise_tasks import Mistake

SETTER = "535bb260"
BLOCKS = "bcdb384b"   # part 0: __enter__, 1: __exit__, 2: no_grad, 3: enable_grad
RECORD = "c37a9c68"
BACKWARD = "4ab59ab5"

MISTAKES = [
    # Task 1: the requires_grad setter
    Mistake(cell=SETTER, what="a result refused only False (True let through)", answer='''
        if not self.is_leaf and not value:
            raise RuntimeError(ONLY_LEAVES + USE_DETACH)
        if value and self.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT.replace("Only", "only"))
        self._requires_grad = value
        ''', hint="Setting `requires_grad = True` on a computed tensor"),
    Mistake(cell=SETTER, what="the .detach() remedy for True too", answer='''
        if not self.is_leaf:
            raise RuntimeError(ONLY_LEAVES + USE_DETACH)
        if value and self.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT.replace("Only", "only"))
        self._requires_grad = value
        ''', hint="the .detach() remedy is for False only"),
    Mistake(cell=SETTER, what="no remedy for False", answer='''
        if not self.is_leaf:
            raise RuntimeError(ONLY_LEAVES)
        if value and self.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT.replace("Only", "only"))
        self._requires_grad = value
        ''', hint="For `requires_grad = False` on a result PyTorch adds the remedy"),
    Mistake(cell=SETTER, what="the float rule refuses False too", answer='''
        if not self.is_leaf:
            raise RuntimeError(ONLY_LEAVES if value else ONLY_LEAVES + USE_DETACH)
        if self.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT.replace("Only", "only"))
        self._requires_grad = value
        ''', hint="`requires_grad = False` is allowed for any dtype"),
    Mistake(cell=SETTER, what="only integer dtypes refused (bool let through)", answer='''
        if not self.is_leaf:
            raise RuntimeError(ONLY_LEAVES if value else ONLY_LEAVES + USE_DETACH)
        if value and self.dtype.kind in "iu":
            raise RuntimeError(ONLY_FLOAT.replace("Only", "only"))
        self._requires_grad = value
        ''', hint="A bool leaf cannot require grad"),
    Mistake(cell=SETTER, what="the factory's capitalised message", answer='''
        if not self.is_leaf:
            raise RuntimeError(ONLY_LEAVES if value else ONLY_LEAVES + USE_DETACH)
        if value and self.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT)
        self._requires_grad = value
        ''', hint="with a lower-case first letter"),
    Mistake(cell=SETTER, what="the flag stored before the rules", answer='''
        self._requires_grad = value
        if not self.is_leaf:
            raise RuntimeError(ONLY_LEAVES if value else ONLY_LEAVES + USE_DETACH)
        if value and self.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT.replace("Only", "only"))
        ''', hint="A refused change must leave the flag as it was"),

    # Task 2: set_grad_enabled.__enter__
    Mistake(cell=BLOCKS, part=0, what="the mode remembered after it is set", answer='''
        GradMode.enabled = self.mode
        self.previous = GradMode.enabled
        ''', hint="each block remembers its own (on self), before it sets its mode"),
    Mistake(cell=BLOCKS, part=0, what="one remembered mode for all blocks (on the class)", answer='''
        set_grad_enabled.previous, GradMode.enabled = GradMode.enabled, self.mode
        ''', hint="each block remembers its own (on self)"),
    Mistake(cell=BLOCKS, part=0, what="the mode remembered but never set", answer='''
        self.previous = GradMode.enabled
        ''', hint="On entering, a block sets grad mode to its own mode"),
    Mistake(cell=BLOCKS, part=0, what="the mode toggled instead of set", answer='''
        self.previous, GradMode.enabled = GradMode.enabled, not GradMode.enabled
        ''', hint="On entering, a block sets grad mode to its own mode"),

    # Task 2: set_grad_enabled.__exit__
    Mistake(cell=BLOCKS, part=1, what="always back to True", answer='''
        GradMode.enabled = True
        ''', hint="On leaving, a block puts back the mode it found on entering, whatever its own mode"),
    Mistake(cell=BLOCKS, part=1, what="back to the opposite of the block's mode", answer='''
        GradMode.enabled = not self.mode
        ''', hint="On leaving, a block puts back the mode it found on entering, whatever its own mode"),
    Mistake(cell=BLOCKS, part=1, what="restored only when the block ended without an error", answer='''
        if exc_info[0] is None:
            GradMode.enabled = self.previous
        ''', hint="must still restore the mode"),
    Mistake(cell=BLOCKS, part=1, what="the error swallowed (__exit__ returns True)", answer='''
        GradMode.enabled = self.previous
        return True
        ''', hint="must reach the caller"),

    # Task 2: no_grad
    Mistake(cell=BLOCKS, part=2, what="the mode switched off, no block returned", answer='''
        GradMode.enabled = False
        ''', hint="no_grad() must give a block for `with`"),
    Mistake(cell=BLOCKS, part=2, what="the class returned, not a block", answer='''
        return set_grad_enabled
        ''', hint="no_grad() must give a block for `with`"),
    Mistake(cell=BLOCKS, part=2, what="enable_grad's block", answer='''
        return set_grad_enabled(True)
        ''', hint="On entering, a block sets grad mode to its own mode"),

    # Task 2: enable_grad
    Mistake(cell=BLOCKS, part=3, what="no_grad's block, copied", answer='''
        return set_grad_enabled(False)
        ''', hint="On entering, a block sets grad mode to its own mode"),
    Mistake(cell=BLOCKS, part=3, what="the mode switched on, no block returned", answer='''
        GradMode.enabled = True
        ''', hint="enable_grad() must give a block for `with`"),

    # Task 3: record in grad mode
    Mistake(cell=RECORD, what="the inputs' flags tested instead of grad mode", answer='''
        if not any(t.requires_grad for t in inputs):
            return out
        return _record_in_any_mode(node_class, out, inputs, saved, **fields)
        ''', hint="While grad mode is off, `record` returns `out` unrecorded"),
    Mistake(cell=RECORD, what="the function is_grad_enabled tested, not called", answer='''
        if not is_grad_enabled:
            return out
        return _record_in_any_mode(node_class, out, inputs, saved, **fields)
        ''', hint="While grad mode is off, `record` returns `out` unrecorded"),
    Mistake(cell=RECORD, what="nothing returned under no_grad", answer='''
        if not GradMode.enabled:
            return
        return _record_in_any_mode(node_class, out, inputs, saved, **fields)
        ''', hint="`record` returns the result in either mode"),
    Mistake(cell=RECORD, what="the test upside down", answer='''
        if GradMode.enabled:
            return out
        return _record_in_any_mode(node_class, out, inputs, saved, **fields)
        ''', hint="While grad mode is on, `record` records as chapter 00's did"),
    Mistake(cell=RECORD, what="saved tensors and fields not passed on", answer='''
        if not GradMode.enabled:
            return out
        return _record_in_any_mode(node_class, out, inputs)
        ''', hint="pass every argument on to chapter 00's record"),
    Mistake(cell=RECORD, what="the fields not passed on", answer='''
        if not GradMode.enabled:
            return out
        return _record_in_any_mode(node_class, out, inputs, saved)
        ''', hint="pass every argument on to chapter 00's record"),

    # Task 4: backward without a graph
    Mistake(cell=BACKWARD, what="grad_fn tested instead of requires_grad", answer='''
        if self.grad_fn is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        _backward_without_checks(self, gradient)
        ''', hint="test requires_grad, not grad_fn"),
    Mistake(cell=BACKWARD, what="the engine run before the check", answer='''
        _backward_without_checks(self, gradient)
        if not self.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        ''', hint="Before running the engine, `backward` must check `self.requires_grad`"),
    Mistake(cell=BACKWARD, what="gradient not passed on", answer='''
        if not self.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        _backward_without_checks(self)
        ''', hint="Pass `gradient` on to chapter 01's backward"),
    Mistake(cell=BACKWARD, what="a ValueError, not PyTorch's RuntimeError", answer='''
        if not self.requires_grad:
            raise ValueError("element 0 of tensors does not require grad and does not have a grad_fn")
        _backward_without_checks(self, gradient)
        ''', hint="raise PyTorch's RuntimeError"),
]
