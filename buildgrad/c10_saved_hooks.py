# Generated from solutions/10_higher_order.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 10: saved-tensor hooks and checkpointing: where the tensors a graph saves live.

Inside ``saved_tensors_hooks(pack_hook, unpack_hook)`` every tensor a node saves goes through
``pack_hook`` when the node is made, and the graph keeps only what it returned; backward gets
a tensor back from ``unpack_hook``. The innermost block's pair is the one used.
``checkpoint(function, *inputs)`` runs ``function`` without recording it and keeps only its
inputs; when backward reaches it, it runs ``function`` again, recording, and backpropagates
through that: memory traded for a second forward pass.
"""

from buildgrad.c09_anomaly import *  # noqa: F403  (chapter 10 continues chapter 09)

UNPACK_NOT_A_TENSOR = "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "


class HooksStack:
    pairs = []  # (pack_hook, unpack_hook), the innermost block's last


def current_hooks():
    """The innermost block's (pack_hook, unpack_hook), or None outside every block."""
    return HooksStack.pairs[-1] if HooksStack.pairs else None


class saved_tensors_hooks:
    def __init__(self, pack_hook, unpack_hook):
        self.pair = (pack_hook, unpack_hook)

    def __enter__(self):
        HooksStack.pairs.append(self.pair)

    def __exit__(self, *exc_info):
        HooksStack.pairs.pop()


_save_without_hooks = SavedTensor.__init__
_unpack_without_hooks = SavedTensor.unpack
_release_without_hooks = SavedTensor.release


@extend(SavedTensor)
def __init__(self, tensor, node):
    self.hooks = current_hooks()
    if self.hooks is None:
        _save_without_hooks(self, tensor, node)
    else:
        self.tensor = None  # the graph keeps what pack_hook made, not the tensor
        with no_grad():
            self.packed = self.hooks[0](tensor)


@extend(SavedTensor)
def unpack(self):
    if self.hooks is None:
        return _unpack_without_hooks(self)
    tensor = self.hooks[1](self.packed)
    if not isinstance(tensor, Tensor):
        raise TypeError(UNPACK_NOT_A_TENSOR + type(tensor).__name__)
    return tensor


@extend(SavedTensor)
def release(self):
    _release_without_hooks(self)
    self.hooks = self.packed = None


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, function, *inputs):
        ctx.segment = function
        ctx.save_for_backward(*inputs)
        return function(*inputs)

    @staticmethod
    def backward(ctx, grad):
        leaves = tuple(x.detach().requires_grad_(x.requires_grad) for x in ctx.saved_tensors)
        with enable_grad():
            out = ctx.segment(*leaves)
        out.backward(grad)
        return (None, *(leaf.grad for leaf in leaves))


def checkpoint(function, *inputs):
    return CheckpointFunction.apply(function, *inputs)


__all__ = public_names(globals())
