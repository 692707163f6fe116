"""The Tensor: an array of numbers plus what autograd needs to know about it.

A tensor holds

* ``_data``: the NumPy (CPU) or CuPy (GPU) array with its values; views share it;
* ``_requires_grad``: whether gradients are wanted for it (set by the user on a leaf,
  and by autograd on every result computed from such a tensor);
* ``_grad_fn``: the node that produced it (``None`` for a leaf), and ``_output_nr``,
  which output of that node it is;
* ``_vc``: its version counter, a one-element list shared with its views and with
  ``detach()``; every in-place change adds one, and saved tensors compare against it.
  It is created the first time it is shared or bumped (``None`` means version 0): most
  tensors never need one, and fewer objects per operation is less work for Python's
  garbage collector;
* ``_base``: for a view, the tensor whose storage it looks into (never itself a view),
  ``_creation_meta``: how the view was made, if not plainly (``ops/views.py``), and
  ``_grad_fn_version``: the version at which the view got its ``grad_fn``; once the base
  is changed in place the versions differ, and reading ``grad_fn`` makes a new one
  (``ops/inplace.py``). For a base, ``_views``: weak references to its live views that
  are outside any graph, whose ``requires_grad`` follows the base's.

Every field is set when the tensor is made (``_make``), most of them to ``None`` or
``False``: reading an unset slot raises and catches an ``AttributeError``, which costs far
more than storing it, and a field that is always there is one less case to think about.

The mathematical methods (``x.exp()``, ``x + y``, ...) are the functions of
:mod:`nbgrad.ops`: each operation declares its method and operator names, and is bound to
the class where it is defined (``nbgrad/ops/declare.py``). ``tensor.pyi`` lists them all,
with their signatures, for IDEs; a test keeps it in step.
"""

from __future__ import annotations

import warnings
import weakref
from copy import deepcopy as _deepcopy
from typing import TYPE_CHECKING

import numpy as np

from . import backend, dtypes, missing, printing
from .core.grad_mode import grad_mode, inference_listeners
from .core.node import INFERENCE_COUNTER, add_hook
from .warn import warn_once

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .backend import device
    from .core.node import Node, RemovableHandle
    from .dtypes import dtype
    from .types import DeviceLike, Number

_ndarray = np.ndarray
_new = object.__new__

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)
# How a view was made, if not plainly (``_creation_meta``, PyTorch's CreationMeta, whose
# DEFAULT is ``None`` here): ``ops/views.py`` explains what each forbids.
NO_GRAD_MODE = "no_grad_mode"
MULTI_OUTPUT_NODE = "multi_output_node"
IN_CUSTOM_FUNCTION = "in_custom_function"
ONLY_FLOAT_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
SCALAR_OF_GRAD_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)


def warn_if_scalar_of_grad(t: Tensor, stacklevel: int = 2) -> None:
    """PyTorch's once-per-process warning when a tensor that requires grad (with grad mode
    on) becomes a Python float: the number is cut off from the graph. ``float()`` gives it
    (so does ``tensor([t, ...])``); ``int()``, ``bool()`` and ``.item()`` do not."""
    if t._requires_grad and grad_mode.enabled:
        warn_once(SCALAR_OF_GRAD_WARNING, UserWarning, stacklevel + 1)


class Tensor(missing.lacking("torch.Tensor")):
    """An array of numbers that autograd can differentiate through: PyTorch's ``Tensor``
    on a NumPy (CPU) or CuPy (GPU) array.

    Make one with ``nbgrad.tensor(data)``, ``nbgrad.zeros(shape)``, ``nbgrad.randn(...)``
    and the other creation functions (``nbgrad.Tensor(data)`` is PyTorch's legacy
    constructor, float32 always). Its methods are the operations of ``nbgrad.ops``; the
    module docstring lists the fields behind the attributes below.

    Parameters
    ----------
    *args, **kwargs
        The legacy constructor's forms (``nbgrad.legacy``): ``Tensor(data)`` converts a
        sequence to the default float dtype, ``Tensor(*sizes)`` and ``Tensor(size=...)``
        make zeros of that shape, ``Tensor()`` an empty one-dimensional tensor and
        ``Tensor(tensor)`` shares that tensor's memory; ``device=`` places it.

    Attributes
    ----------
    data : Tensor
        The same values outside the graph, without the version check (chapter 07).
    dtype, shape, device
        What it holds and where; ``shape`` is an ``nbgrad.Size``.
    requires_grad : bool
        Whether autograd records operations on it (chapter 02).
    grad : Tensor or None
        The accumulated gradient: leaves, and non-leaves that called ``retain_grad()``
        (chapter 03).
    grad_fn : Node or None
        The backward node that made it; ``None`` for a leaf (chapter 00).
    is_leaf : bool
        Made by the user, not by a recorded operation.
    """

    __slots__ = (
        "_data", "_requires_grad", "_grad_fn", "_output_nr", "_vc", "_base", "_grad",
        "_hooks", "_post_accumulate_hooks", "_accumulator", "_retains_grad",
        "_views", "_creation_meta", "_grad_fn_version", "__weakref__",
        "__dict__",  # attributes of the user's own (x.foo = 1), as in PyTorch: made when first set
    )
    __array_priority__ = 1000  # ndarray (op) Tensor defers to Tensor's reflected operator

    @classmethod
    def _make(cls, data, vc=None):
        """Wrap an array without copying or checking it: the internal constructor."""
        if type(data) is not _ndarray and isinstance(data, np.generic):
            data = np.asarray(data)  # NumPy turns 0-d results into scalars; keep arrays
        t = _new(cls)
        t._data = data
        t._requires_grad = t._retains_grad = False
        t._grad_fn = t._base = t._grad = t._hooks = t._post_accumulate_hooks = None
        t._accumulator = t._views = t._creation_meta = None
        t._output_nr = t._grad_fn_version = 0
        t._vc = vc
        return t

    def is_inference(self) -> bool:
        """Whether this is an inference tensor.

        It was made inside ``inference_mode`` (and is not a view of a normal tensor), so it
        has no version counter and never joins a graph.

        Returns
        -------
        bool
        """
        return self._vc is INFERENCE_COUNTER

    def _counter(self):
        """The version counter, created when first needed (to share it, or to bump it)."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    def _bump_version(self):
        vc = self._vc
        if vc is None:
            self._vc = [1]
        else:
            vc[0] += 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # ``nbgrad.Tensor(...)``, the legacy constructor, is the ``__new__`` of legacy.py

    # -- what it is -------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The size of each dimension.

        Returns
        -------
        Size
            A tuple of ints, printed as ``nbgrad.Size([2, 3])``.
        """
        return Size(self._data.shape)

    # Any: a Size without ``dim``, an int with it (PyTorch's stub has two overloads); a
    # union would make every caller check which one it got
    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of dimension ``dim``.

        Parameters
        ----------
        dim : int, optional
            The dimension whose size is wanted (negative counts from the end).

        Returns
        -------
        Size or int
            The whole shape without ``dim``; the size of that dimension with it.

        Raises
        ------
        IndexError
            ``dim`` is out of range.
        """
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[dtypes.dim_index(dim, self._data.ndim)]

    def dim(self) -> int:
        """The number of dimensions (0 for a scalar tensor); ``ndim`` is the same.

        Returns
        -------
        int
        """
        return self._data.ndim

    ndim = property(dim)

    def numel(self) -> int:
        """The number of elements (the product of the shape); ``nelement`` is the same.

        Returns
        -------
        int
        """
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> dtype:
        """The element type, such as ``nbgrad.float32``.

        Returns
        -------
        nbgrad.dtype
        """
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> device:
        """Where the values live: ``device(type='cpu')`` or a CUDA device.

        Returns
        -------
        nbgrad.device
        """
        return backend.device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        """Whether the values live on a GPU (a CuPy array).

        Returns
        -------
        bool
        """
        return type(self._data) is not _ndarray

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point type (only those can require grad).

        Returns
        -------
        bool
        """
        return self._data.dtype.kind == "f"

    def element_size(self) -> int:
        """The size of one element in bytes (4 for float32).

        Returns
        -------
        int
        """
        return self._data.dtype.itemsize

    def data_ptr(self) -> int:
        """The memory address of the first element, as an int.

        Views that start where this tensor starts (``x[0]``, ``x.view(-1)``, ``x.t()``,
        ``x.detach()``) give the same number, ``x[1]`` one row further on, and a copy
        (``clone()``) another one: a quick test of whether two tensors share memory. It is
        the NumPy array's ``__array_interface__['data'][0]`` (a CuPy array's
        ``data.ptr``); 0 for a tensor with no elements, as in PyTorch.

        Returns
        -------
        int
        """
        data = self._data
        if data.size == 0:
            return 0
        if type(data) is _ndarray:
            return int(data.__array_interface__["data"][0])
        return int(data.data.ptr)

    def type(self, dtype: dtype | type | str | None = None) -> str | Tensor:
        """The type name (``'nbgrad.FloatTensor'``), or this tensor converted to ``dtype``.

        Parameters
        ----------
        dtype : nbgrad.dtype, type or str, optional
            The type to convert to: an nbgrad dtype, a typed class (``nbgrad.DoubleTensor``)
            or a type name (``'nbgrad.DoubleTensor'``, or ``'nbgrad.cuda.DoubleTensor'``,
            which also moves it to the GPU).

        Returns
        -------
        str or Tensor
            The name (``'nbgrad.cuda.FloatTensor'`` on a GPU) without ``dtype``; with it,
            ``to(dtype)``: this tensor itself when nothing changes.

        Raises
        ------
        ValueError
            ``dtype`` is a type or name that is not a tensor type (``invalid type: 'int'``).
        TypeError
            ``dtype`` is neither a type, a str nor a dtype.
        """
        if dtype is None:
            prefix = "nbgrad.cuda." if self.is_cuda else "nbgrad."
            return prefix + self.dtype._tensor_type
        if type(dtype) is dtypes.dtype:
            return self.to(dtype)
        if isinstance(dtype, type) and type(getattr(dtype, "dtype", None)) is dtypes.dtype:
            return self.to(dtype.dtype)  # a typed class: x.type(nbgrad.DoubleTensor)
        if isinstance(dtype, type):  # PyTorch names the Python or NumPy type it refuses
            name = dtype.__name__ if dtype.__module__ == "builtins" else f"{dtype.__module__}.{dtype.__name__}"
            raise ValueError(f"invalid type: '{name}'")
        if not isinstance(dtype, str):
            raise TypeError("dtype must be a type, str, or dtype object")
        device, _, name = dtype.rpartition(".")
        target = _TENSOR_TYPES.get(name)
        if target is None or device not in ("nbgrad", "nbgrad.cuda"):
            raise ValueError(f"invalid type: '{dtype}'")
        return self.to(target, device="cuda" if device == "nbgrad.cuda" else "cpu")

    def is_contiguous(self) -> bool:
        """Whether the elements are laid out in memory row by row, without gaps.

        Returns
        -------
        bool
        """
        return bool(self._data.flags.c_contiguous)

    def _is_view(self):
        return self._base is not None

    @property
    def _version(self):
        vc = self._vc
        return vc[0] if vc else 0

    # -- autograd state ---------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether gradients are wanted for this tensor (chapter 02).

        False by default; a result requires grad when any input does (with grad mode on).
        Only a leaf's flag may be set, and only a floating-point tensor can require grad.

        Returns
        -------
        bool

        Raises
        ------
        RuntimeError
            On setting: the value is not a bool, the tensor is not a leaf, or it is True
            for a tensor that is not floating point.
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if type(value) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None and value:  # even True: the attribute is a leaf's to set
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables.\n"
                "nbgrad hint: chapter 02 (requires_grad) explains leaves and non-leaves."
            )
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT_GRAD.replace("Only", "only"))
        self.requires_grad_(value)

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` of a leaf, in place (chapter 02).

        Views of this tensor that are outside any graph follow the new flag. On a non-leaf,
        ``requires_grad_(True)`` does nothing (it already requires grad).

        Parameters
        ----------
        requires_grad : bool

        Returns
        -------
        Tensor
            This tensor.

        Raises
        ------
        TypeError
            ``requires_grad`` is not a bool.
        RuntimeError
            ``requires_grad_(False)`` on a non-leaf; True on a tensor that is not floating
            point, or on an inference tensor outside ``inference_mode``.
        """
        if type(requires_grad) is not bool:
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {dtypes.type_name(requires_grad)}")
        if requires_grad and self._vc is INFERENCE_COUNTER and not grad_mode.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().\n"
                "nbgrad hint: chapter 02 (requires_grad) explains leaves and non-leaves."
            )
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients"
                f"\nnbgrad hint: this tensor is {self.dtype}; use .float() first."
            )
        self._requires_grad = requires_grad
        self._views_follow()
        return self

    def _views_follow(self):
        """A view outside any graph requires grad exactly when its base does (PyTorch), so
        those views follow a change of the base's flag."""
        for ref in tuple(self._views or ()):
            view = ref()
            if view is not None and view._grad_fn is None:
                view._requires_grad = self._requires_grad

    @property
    def grad_fn(self) -> Node | None:
        """The node that produced this tensor, or ``None`` for a leaf (chapter 00).

        A view whose base (or another view of it) was changed in place since it got its
        node gets a new one on reading, as in PyTorch: ``AsStridedBackward0`` in general,
        leading to the base's current ``grad_fn``.

        Returns
        -------
        Node or None

        Raises
        ------
        RuntimeError
            That view was made in a way that forbids it (under ``no_grad``, by an operation
            with several view outputs, or in a custom ``Function``).
        """
        if self._base is not None and self._vc[0] != self._grad_fn_version:
            self._regenerate_grad_fn()  # a view whose base was changed in place since
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """Whether this tensor was not computed by a recorded operation (chapter 02).

        Returns
        -------
        bool
            True exactly when ``grad_fn`` is None: tensors made by the user, and results
            of operations on tensors that need no gradient.
        """
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is (chapter 04).

        A node with several outputs (``unbind``, ``split``, ``max(dim)``) numbers them from
        0; its backward gets one gradient per output, in that order, and an edge
        ``(grad_fn, output_nr)`` in ``next_functions`` names one of them.

        Returns
        -------
        int
            0 for a leaf and for the single output of a node, ``k`` for output ``k``.
        """
        return 0 if self._grad_fn is None else self._output_nr

    @property
    def retains_grad(self) -> bool:
        """Whether this non-leaf keeps its gradient in ``.grad`` (chapter 03).

        Returns
        -------
        bool
            True after ``retain_grad()`` on a non-leaf; always False for a leaf.
        """
        return self._grad_fn is not None and self._retains_grad

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward (chapter 03).

        ``None`` before the first backward, and for non-leaves that do not retain it
        (reading it there warns, as in PyTorch). It may be assigned a tensor of the same
        shape, dtype and device, or None; ``del t.grad`` clears it.

        Returns
        -------
        Tensor or None

        Raises
        ------
        TypeError
            On assigning something that is neither a tensor nor None.
        RuntimeError
            On assigning the tensor itself, or one of another shape, dtype or device.

        Warns
        -----
        UserWarning
            Reading it on a non-leaf that does not retain its gradient, while it has none.
        """
        # As PyTorch: only while there is no gradient (backward(inputs=[y]) gives y one).
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.device != self.device:
                raise RuntimeError(
                    f"attempting to assign a gradient located on device '{value.device}' to a "
                    f"tensor located on device '{self.device}'. Please ensure that the gradient "
                    "and the tensor are on the same device"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                    f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{dtypes.c_type_name(value._data.dtype)}' to a tensor "
                    f"with grad_dtype '{self.dtype._tensor_type[:-6]}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match."
                    "\nnbgrad hint: nbgrad has no grad_dtype; convert the gradient with "
                    f".to({self.dtype!r})."
                )
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in ``.grad`` after backward (chapter 03).

        On a leaf it does nothing: a leaf keeps its gradient anyway.

        Raises
        ------
        RuntimeError
            The tensor does not require grad.
        """
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        fn = self.grad_fn
        if fn is None or self._retains_grad:
            return
        self._retains_grad = True
        hooks = fn._node_hooks()
        hooks.retains_grad[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Run ``hook(grad)`` each time the gradient of this tensor is computed.

        Parameters
        ----------
        hook : callable
            Called with the gradient; what it returns, unless None, replaces the gradient
            (for the rest of the backward pass and in ``.grad``).

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.

        Raises
        ------
        RuntimeError
            The tensor does not require grad.
        TypeError
            ``hook`` is not callable.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        fn = self.grad_fn
        if fn is None:
            if self._hooks is None:
                self._hooks = {}
            return add_hook(self._hooks, hook)
        hooks = fn._node_hooks().tensor_pre.setdefault(self._output_nr, {})
        return add_hook(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Run ``hook(tensor)`` each time backward has accumulated this leaf's ``.grad``.

        Parameters
        ----------
        hook : callable
            Called with this tensor (its ``.grad`` is up to date); what it returns is ignored.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.

        Raises
        ------
        RuntimeError
            The tensor is not a leaf, or does not require grad.
        TypeError
            ``hook`` is not callable.
        """
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = {}
        return add_hook(self._post_accumulate_hooks, hook)

    # -- leaving the graph ------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """The same storage, outside the graph, with a version counter of its own (chapter 07).

        Unlike ``detach()``, changes made through it in place are invisible to autograd's
        version check: a saved tensor changed that way gives silently wrong gradients.
        Assigning a tensor to ``.data`` makes this tensor use that tensor's values.

        Returns
        -------
        Tensor

        Raises
        ------
        TypeError
            On assigning something that is not a tensor.
        RuntimeError
            On assigning a tensor that is not floating point to one that requires grad, and
            on ``del t.data``.
        """
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind != "f":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        self._data = value._data

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    def detach(self) -> Tensor:
        """The same storage and version counter, outside the graph (chapter 07).

        The result is a leaf that does not require grad; an in-place change through it
        bumps the shared version, so backward still notices it.

        Returns
        -------
        Tensor
        """
        return Tensor._make(self._data, self._counter())

    def detach_(self) -> Tensor:
        """Take this tensor out of the graph, in place: it becomes a leaf that needs no gradient.

        Returns
        -------
        Tensor
            This tensor.

        Raises
        ------
        RuntimeError
            The tensor is a view (use ``detach()``).
        """
        if self._is_view():
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        self._views_follow()
        return self

    # -- conversions ------------------------------------------------------------------
    def item(self) -> Number:
        """The value of a one-element tensor as a Python number, outside the graph.

        Returns
        -------
        float, int or bool
            As the dtype is floating point, integer or bool.

        Raises
        ------
        RuntimeError
            The tensor has other than one element: ``a Tensor with 3 elements cannot be
            converted to Scalar``.
        """
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.item()

    # Any: a list, or a number for a 0-d tensor; a union would make every caller check
    def tolist(self) -> Any:
        """The values as (nested) Python lists of numbers, outside the graph.

        Returns
        -------
        list or number
            One level of nesting per dimension; a 0-d tensor gives a bare number.
        """
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> Any:
        """The values as a NumPy array: the tensor's own array, sharing its memory.

        PyTorch's checks, in PyTorch's order: a GPU tensor must be copied to the host first
        (``.cpu()``), and a tensor that requires grad (with grad mode on) must be detached.

        Parameters
        ----------
        force : bool
            Skip the checks: a GPU tensor is copied to the host, and one that requires grad
            is given anyway (its array, outside the graph).

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        TypeError
            The tensor is on a GPU (without ``force``).
        RuntimeError
            The tensor requires grad and grad mode is on (without ``force``).
        """
        if force:
            return backend.to_device(self._data, "cpu")
        if self.is_cuda:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() "
                "to copy the tensor to host memory first."
            )
        if self._requires_grad and grad_mode.enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        """The values as a NumPy array (NumPy's protocol: ``np.asarray(t)``)."""
        array = self.numpy()
        if dtype is not None and array.dtype != dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The values as a DLPack capsule (the array interchange protocol), so that
        ``torch.from_dlpack(t)``, ``numpy.from_dlpack(t)`` and ``cupy.from_dlpack(t)``
        share this tensor's memory. The keywords are the protocol's, passed on to NumPy or
        CuPy.

        As in PyTorch, a tensor that requires grad must be detached first. A view with
        negative strides (``flip``) is exported as a copy, which the protocol allows when
        ``copy`` is not ``False``: PyTorch cannot import negative strides.
        """
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        data = self._data
        if any(s < 0 for s in data.strides):
            if copy is False:
                raise BufferError("a tensor with negative strides cannot be exported without a "
                                  "copy\nnbgrad hint: call .contiguous() first, or pass copy=None.")
            data = data.copy()
        wanted = {"stream": stream, "max_version": max_version, "dl_device": dl_device,
                  "copy": copy}
        return data.__dlpack__(**{k: v for k, v in wanted.items() if v is not None})

    def __dlpack_device__(self):
        """``(device type, index)`` in DLPack's numbering: ``(1, 0)`` for the CPU,
        ``(2, i)`` for CUDA device ``i``."""
        return self._data.__dlpack_device__()

    def cpu(self) -> Tensor:
        """This tensor on the CPU (itself when it is there already).

        Returns
        -------
        Tensor
        """
        return self.to("cpu")

    def cuda(self, device: DeviceLike | None = None) -> Tensor:
        """This tensor on a GPU (CuPy): ``to('cuda')``.

        Parameters
        ----------
        device : nbgrad.device, str or int, optional
            The CUDA device (an index, ``'cuda:1'``...); ``'cuda'`` when omitted.

        Returns
        -------
        Tensor
        """
        return self.to("cuda" if device is None else backend.device("cuda", _cuda_index(device)))

    def float(self) -> Tensor:
        """This tensor converted to ``nbgrad.float32``: ``to(nbgrad.float32)``.

        Returns
        -------
        Tensor
            Itself when it is float32 already.
        """
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        """This tensor converted to ``nbgrad.float64``: ``to(nbgrad.float64)``.

        Returns
        -------
        Tensor
            Itself when it is float64 already.
        """
        return self.to(dtypes.float64)

    def half(self) -> Tensor:
        """This tensor converted to ``nbgrad.float16``: ``to(nbgrad.float16)``.

        Returns
        -------
        Tensor
            Itself when it is float16 already.
        """
        return self.to(dtypes.float16)

    def long(self) -> Tensor:
        """This tensor converted to ``nbgrad.int64``: ``to(nbgrad.int64)``.

        Returns
        -------
        Tensor
            Itself when it is int64 already.
        """
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        """This tensor converted to ``nbgrad.int32``: ``to(nbgrad.int32)``.

        Returns
        -------
        Tensor
            Itself when it is int32 already.
        """
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        """This tensor converted to ``nbgrad.bool``: ``to(nbgrad.bool)``.

        Returns
        -------
        Tensor
            Itself when it is bool already.
        """
        return self.to(dtypes.bool)

    def type_as(self, other: Tensor) -> Tensor:
        """This tensor converted to ``other``'s dtype: ``to(other.dtype)``.

        Parameters
        ----------
        other : Tensor

        Returns
        -------
        Tensor
            Itself when the dtypes are the same.
        """
        return self.to(other.dtype)

    # -- Python protocols -------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None):
        return printing.tensor_repr(self)

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __len__(self):
        """The size of the first dimension."""
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        """The slices along the first dimension (``unbind(0)``), as views."""
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def _scalar(self, kind):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return kind(self._data.item())

    def __float__(self):
        """The value of a one-element tensor as a float (warns, once, if it requires grad)."""
        warn_if_scalar_of_grad(self)
        return self._scalar(float)

    def __int__(self):
        """The value of a one-element tensor as an int."""
        return self._scalar(int)

    def __bool__(self):
        """The truth of a one-element tensor."""
        if self._data.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._data.size > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.item())

    def __index__(self):
        """A one-element integer tensor used as an index."""
        if self._data.size != 1 or self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    __hash__ = object.__hash__

    def __deepcopy__(self, memo):
        """A copy of a leaf with its own storage, ``requires_grad``, ``.grad`` and the
        user's own attributes (deep-copied)."""
        if id(self) in memo:
            return memo[id(self)]
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        copy = type(self)._make(self._data.copy())
        copy._requires_grad = self._requires_grad
        memo[id(self)] = copy
        grad = self._grad
        if grad is not None:
            copy._grad = grad.__deepcopy__(memo)
        if self.__dict__:
            copy.__dict__.update(_deepcopy(self.__dict__, memo))
        return copy

    def __reduce_ex__(self, protocol):
        """Pickling keeps the values, device, ``requires_grad`` and the user's attributes;
        not ``.grad`` nor the graph: a non-leaf comes back as a leaf, as in PyTorch."""
        data = backend.to_device(self._data, "cpu")
        return (_rebuild, (type(self), data, self._requires_grad, str(self.device)),
                self.__dict__ or None)

    @property
    def volatile(self) -> bool:
        """Removed in PyTorch 0.4 with the Variable/Tensor merge (chapter 00).

        Reading it gives False, setting it does nothing; both warn. ``no_grad`` took its
        place.

        Returns
        -------
        bool
            False.

        Warns
        -----
        UserWarning
            Always.
        """
        warnings.warn(
            "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
        )
        return False

    @volatile.setter
    def volatile(self, value):
        warnings.warn(
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
            UserWarning,
            stacklevel=2,
        )

    def __dir__(self):
        """The names of this tensor's attributes, without those of PyTorch's that nbgrad
        lacks (``missing.lacking``)."""
        return missing.visible_names(self)


def _mark_inference_tensors(active):
    """While inference mode is on, a new tensor that shares no counter is an inference
    tensor: the default counter of ``Tensor._make`` becomes the inference counter, so
    tensor creation pays nothing for inference mode, outside it or in it."""
    Tensor._make.__func__.__defaults__ = (INFERENCE_COUNTER if active else None,)


inference_listeners.append(_mark_inference_tensors)


class Parameter(Tensor):
    """A leaf tensor that a Module registers as one of its parameters.

    It shares ``data``'s memory and version counter, and is a leaf even when ``data`` is not.

    Parameters
    ----------
    data : Tensor, optional
        The values; an empty tensor of the default dtype when omitted.
    requires_grad : bool
        Whether it requires grad (it does unless told not to).

    Raises
    ------
    TypeError
        ``data`` is not a tensor.
    RuntimeError
        It should require grad but ``data`` is not floating point.
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        """A Parameter over ``data``'s memory (see the class)."""
        if data is None:
            data = Tensor._make(np.empty(0, dtypes.get_default_dtype().numpy))
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor, got {type(data).__name__}")
        if requires_grad and data._data.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT_GRAD)
        param = cls._make(data._data, data._counter())
        param._requires_grad = bool(requires_grad)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        """A new Parameter over a copy of the values, with the same ``requires_grad``:
        PyTorch's Parameter.__deepcopy__ keeps neither ``.grad`` nor other attributes, so a
        deep-copied model starts without gradients."""
        if id(self) in memo:
            return memo[id(self)]
        copy = memo[id(self)] = type(self)(Tensor._make(self._data.copy()), self._requires_grad)
        return copy


_TENSOR_TYPES = {d._tensor_type: d for d in dtypes.ALL}  # 'FloatTensor' -> float32


class Size(tuple):
    """A shape: a tuple of ints, printed as PyTorch prints it (``nbgrad.Size([2, 3])``).

    Parameters
    ----------
    iterable : iterable of int, optional
        The sizes of the dimensions; none (a 0-d shape) when omitted.
    """

    __slots__ = ()

    def __repr__(self):
        return f"nbgrad.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements of a tensor of this shape.

        Returns
        -------
        int
            The product of the sizes (1 for the 0-d shape).
        """
        n = 1
        for s in self:
            n *= s
        return n


def _rebuild(cls, data, requires_grad, device):
    t = cls._make(backend.to_device(data, device))
    t._requires_grad = requires_grad
    return t


def _cuda_index(device):
    if isinstance(device, int):
        return device
    return backend.device(device).index or 0


