"""Typical wrong answers to exercise 10 (saved-tensor hooks, checkpoint), and the hint each
must get."""

from exercise_tasks import Mistake

HOOKS = "a1c0e006"       # Task 1: saved_tensors_hooks (__init__, __enter__, __exit__)
SAVED = "a1c0e009"       # Task 2: SavedTensor.__init__, unpack, release
CHECKPOINT = "a1c0e00c"  # Task 3: CheckpointFunction.forward, backward

MISTAKES = [
    # Task 1: saved_tensors_hooks
    Mistake(cell=HOOKS, part=0, what="the pair made current when the object is made", answer='''
        self.pair = (pack_hook, unpack_hook)
        HooksStack.pairs.append(self.pair)
        ''', hint="Making saved_tensors_hooks(pack, unpack) must change nothing"),
    Mistake(cell=HOOKS, part=0, what="the pair in the wrong order", answer='''
        self.pair = (unpack_hook, pack_hook)
        ''', hint="its (pack_hook, unpack_hook) pair, in that order"),
    Mistake(cell=HOOKS, part=1, what="__enter__ returns the object", answer='''
        HooksStack.pairs.append(self.pair)
        return self
        ''', hint="__enter__ returns nothing"),
    Mistake(cell=HOOKS, part=1, what="the stack replaced, not pushed", answer='''
        HooksStack.pairs[:] = [self.pair]
        ''', hint="the enclosing block's pair must be current again"),
    Mistake(cell=HOOKS, part=2, what="the outermost pair removed", answer='''
        HooksStack.pairs.pop(0)
        ''', hint="the enclosing block's pair must be current again"),
    Mistake(cell=HOOKS, part=2, what="every pair cleared", answer='''
        HooksStack.pairs.clear()
        ''', hint="the enclosing block's pair must be current again"),
    Mistake(cell=HOOKS, part=2, what="the exception swallowed", answer='''
        HooksStack.pairs.pop()
        return True
        ''', hint="must not return True"),
    Mistake(cell=HOOKS, part=2, what="nothing removed on an exception", answer='''
        if exc_info[0] is None:
            HooksStack.pairs.pop()
        ''', hint="__exit__ runs on an exception too"),

    # Task 2: SavedTensor through the hooks
    Mistake(cell=SAVED, part=0, what="pack_hook with grad mode on", answer='''
        self.hooks = current_hooks()
        if self.hooks is None:
            _save_without_hooks(self, tensor, node)
        else:
            self.tensor = None
            self.packed = self.hooks[0](tensor)
        ''', hint="pack_hook must run with grad mode off"),
    Mistake(cell=SAVED, part=0, what="the tensor kept beside the packed value", answer='''
        self.hooks = current_hooks()
        _save_without_hooks(self, tensor, node)
        if self.hooks is not None:
            with no_grad():
                self.packed = self.hooks[0](tensor)
        ''', hint="must not keep the tensor"),
    Mistake(cell=SAVED, part=0, what="pack_hook not called: the tensor kept", answer='''
        self.hooks = current_hooks()
        if self.hooks is None:
            _save_without_hooks(self, tensor, node)
        else:
            self.tensor = None
            self.packed = tensor
        ''', hint="pack_hook must be called once for each tensor"),
    Mistake(cell=SAVED, part=1, what="the hooks read at backward, not at saving", answer='''
        if self.hooks is None:
            return _unpack_without_hooks(self)
        tensor = current_hooks()[1](self.packed) if current_hooks() else self.packed
        if not isinstance(tensor, Tensor):
            raise TypeError(UNPACK_NOT_A_TENSOR + type(tensor).__name__)
        return tensor
        ''', hint="uses the pair that was current when it was saved"),
    Mistake(cell=SAVED, part=1, what="the packed value returned as it is", answer='''
        if self.hooks is None:
            return _unpack_without_hooks(self)
        return self.packed
        ''', hint="unpack_hook must be called at each use"),
    Mistake(cell=SAVED, part=1, what="unpacked once and cached", answer='''
        if self.hooks is None:
            return _unpack_without_hooks(self)
        if not hasattr(self, "unpacked"):
            self.unpacked = self.hooks[1](self.packed)
        if not isinstance(self.unpacked, Tensor):
            raise TypeError(UNPACK_NOT_A_TENSOR + type(self.unpacked).__name__)
        return self.unpacked
        ''', hint="unpack_hook must be called at each use"),
    Mistake(cell=SAVED, part=1, what="a non-tensor from unpack_hook not refused", answer='''
        if self.hooks is None:
            return _unpack_without_hooks(self)
        return self.hooks[1](self.packed)
        ''', hint="unpack_hook must return a Tensor"),
    Mistake(cell=SAVED, part=1, what="a message of its own for a non-tensor", answer='''
        if self.hooks is None:
            return _unpack_without_hooks(self)
        tensor = self.hooks[1](self.packed)
        if not isinstance(tensor, Tensor):
            raise TypeError("unpack_hook must return a tensor")
        return tensor
        ''', hint="unpack_hook must return a Tensor"),
    Mistake(cell=SAVED, part=1, what="the version still checked through hooks", answer='''
        if self.hooks is None:
            return _unpack_without_hooks(self)
        tensor = self.hooks[1](self.packed)
        if not isinstance(tensor, Tensor):
            raise TypeError(UNPACK_NOT_A_TENSOR + type(tensor).__name__)
        if tensor._version != 0:
            raise RuntimeError("one of the variables needed for gradient computation has been "
                               "modified by an inplace operation")
        return tensor
        ''', hint="With hooks there is no version check"),
    Mistake(cell=SAVED, part=2, what="the hooks kept after freeing", answer='''
        _release_without_hooks(self)
        self.packed = None
        ''', hint="forget the hooks when freeing"),
    Mistake(cell=SAVED, part=2, what="the packed value kept after freeing", answer='''
        _release_without_hooks(self)
        self.hooks = None
        ''', hint="release() must drop what pack_hook returned"),

    # Task 3: checkpoint
    Mistake(cell=CHECKPOINT, part=0, what="the segment's function stored as ctx.function", answer='''
        ctx.function = function
        ctx.save_for_backward(*inputs)
        return function(*inputs)
        ''', hint="ctx.function is taken"),
    Mistake(cell=CHECKPOINT, part=0, what="the inputs kept as a field, not saved", answer='''
        ctx.segment = function
        ctx.inputs = inputs
        return function(*inputs)
        ''', hint="only the inputs are saved (ctx.save_for_backward(*inputs))"),
    Mistake(cell=CHECKPOINT, part=0, what="the forward run recorded", answer='''
        ctx.segment = function
        ctx.save_for_backward(*inputs)
        with enable_grad():
            return function(*inputs)
        ''', hint="nothing of the segment"),
    Mistake(cell=CHECKPOINT, part=1, what="the second run under the caller's grad mode", answer='''
        leaves = tuple(x.detach().requires_grad_(x.requires_grad) for x in ctx.saved_tensors)
        out = ctx.segment(*leaves)
        out.backward(grad)
        return (None, *(leaf.grad for leaf in leaves))
        ''', hint="run function again with grad mode on (enable_grad())"),
    Mistake(cell=CHECKPOINT, part=1, what="the second run on the inputs themselves", answer='''
        inputs = ctx.saved_tensors
        with enable_grad():
            out = ctx.segment(*inputs)
        out.backward(grad)
        return (None, *(x.grad for x in inputs))
        ''', hint="the second run must be on new leaves (detach())"),
    Mistake(cell=CHECKPOINT, part=1, what="no gradient for the function argument", answer='''
        leaves = tuple(x.detach().requires_grad_(x.requires_grad) for x in ctx.saved_tensors)
        with enable_grad():
            out = ctx.segment(*leaves)
        out.backward(grad)
        return tuple(leaf.grad for leaf in leaves)
        ''', hint="return one gradient per argument of forward, None for function first"),
    Mistake(cell=CHECKPOINT, part=1, what="the incoming gradient ignored", answer='''
        leaves = tuple(x.detach().requires_grad_(x.requires_grad) for x in ctx.saved_tensors)
        with enable_grad():
            out = ctx.segment(*leaves)
        out.sum().backward()
        return (None, *(leaf.grad for leaf in leaves))
        ''', hint="backpropagate the incoming gradient"),
]
