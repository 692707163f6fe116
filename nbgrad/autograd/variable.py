"""``Variable``, as it survives in PyTorch since 0.4: a name for ``Tensor``.

Before PyTorch 0.4 a ``Variable`` wrapped a tensor and carried the autograd state; the two
were merged, so ``Variable(t)`` now simply returns a tensor (chapter 00). ``volatile=True``
was the old ``no_grad`` and only warns.
"""

from __future__ import annotations

import warnings

from ..tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)`` returns a Tensor sharing ``data``'s storage.

    Parameters
    ----------
    data : Tensor
        The tensor whose storage the result shares (anything else raises ``TypeError``).
    requires_grad : bool
        Whether the result, a new leaf, requires grad.
    volatile : bool
        Pre-0.4 PyTorch's ``no_grad``: it now only warns and has no effect.

    Raises
    ------
    ValueError
        ``volatile`` and ``requires_grad`` both true, as PyTorch refuses them.
    TypeError
        ``data`` is not a tensor.
    """

    # a Variable is made as a Tensor, as in PyTorch: mypy expects __new__ to make its class
    def __new__(cls, data: Tensor, requires_grad: bool = False,  # type: ignore[misc]
                volatile: bool = False) -> Tensor:
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` "
                "instead.",
                UserWarning,
                stacklevel=2,
            )
            if requires_grad:  # PyTorch checks this before the data's type
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        tensor = Tensor._make(data._data, data._counter())
        return tensor.requires_grad_(requires_grad)
