"""The names nbgrad's signatures use for what a function accepts (``torch.types``' role).

An operation takes a tensor or a Python number where PyTorch does (``x + 2``,
``nbgrad.add(x, 2)``), a dimension or several (``sum(dim=(0, 1))``), a shape written as
one sequence or as separate integers, and a device by name (``"cpu"``) or as an
``nbgrad.device``. These aliases spell those once, so that every signature reads the same.
Annotations are never evaluated at run time (each module has ``from __future__ import
annotations``), so they cost nothing per call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from .backend import device
    from .tensor import Tensor

__all__ = ["Number", "TensorOrNumber", "Dims", "Shape", "DeviceLike"]

# bool is an int to Python, and PyTorch accepts it wherever it accepts a number
Number = Union[int, float, bool]
# an operand of arithmetic and comparisons: a tensor, or a number broadcast against one
TensorOrNumber = Union["Tensor", Number]
# ``dim=``: one dimension or several (negative ones count from the end)
Dims = Union[int, Sequence[int]]
# a shape: ``(2, 3)``, ``[2, 3]`` or an ``nbgrad.Size``
Shape = Sequence[int]
# ``device=``: ``"cpu"``, ``"cuda"``, ``"cuda:1"``, a device index or an ``nbgrad.device``
DeviceLike = Union["device", str, int]
