"""``out=``: writing a function's result into a tensor the caller passes, as PyTorch does.

``nbgrad.add(a, b, out=c)`` computes ``add(a, b)`` and writes it into ``c``: ``c`` keeps its
identity (its views and its base see the values), its version goes up, and it is what the
call returns. Only the functions of the namespace take ``out=`` (``Tensor.add`` does not, as
in PyTorch): ``with_out`` wraps a function where the namespace is built (``nbgrad``'s, from
``declare.exported()`` and ``nbgrad/__init__.py``; ``nbgrad.linalg``'s), and ``OUT`` lists
the functions whose PyTorch counterpart takes ``out=``, each with the rule PyTorch applies to
the dtype of ``out``. tests/test_out.py checks the table against PyTorch.

What PyTorch does, and so nbgrad:

* with grad mode on, no argument (``out`` included) may require grad: ``out=`` records no
  graph;
* an ``out`` of another shape is resized, with a warning when it had elements (a creation
  function such as ``zeros`` resizes silently, and ``arange`` keeps the shape of an ``out``
  with as many elements);
* ``out``'s dtype: one the result casts to, the result's exactly, or any (``OUT`` says
  which, as PyTorch's kernels do); a creation function, and ``sum``, make their values in
  it;
* for (values, indices) results (``sort``, ``max(x, dim)``...) ``out`` is a tuple of as many
  tensors, each of exactly the dtype of its result (the indices: int64);
* ``out`` may be an operand (``add(a, b, out=a)``, as ``a.add_(b)``), but not overlap one
  partly.
"""

from __future__ import annotations

import functools
import inspect
import re
import textwrap
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from ..core.grad_mode import grad_mode
from ..tensor import Tensor
from .inplace import _write, check_overlap

if TYPE_CHECKING:
    from collections.abc import Callable

# What PyTorch accepts as the dtype of ``out``:
CAST = "cast"          # one the result's dtype casts to (float64 for a float32 result, not int64)
JOIN = "join"          # as CAST, refused with cat's TypeError (cat, stack and their kin)
EXACT = "exact"        # the result's dtype itself
ANY = "any"            # any: the result is cast to it (comparisons, logical_not, bernoulli)
INTO = "into"          # any: the function computes in it (its dtype=; sum, cumsum...)
CREATION = "creation"  # any: the values are made in it, on its device (zeros, randn...)
RANGE = "range"        # as CREATION; an out with as many elements keeps its shape (arange)
TUPLE = "tuple"        # (values, indices), each of exactly its result's dtype
EITHER = "either"      # a tensor (CAST), or a tuple where the result is one (max(x, dim))

# The functions of nbgrad whose PyTorch function takes ``out=`` (torch 2.13: the overloads in
# torch/_C/_VariableFunctions.pyi, and the docs of torch.linalg's), with their rule.
OUT = {
    **dict.fromkeys((
        "acos acosh add addcdiv addcmul arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan "
        "atan2 atanh copysign cos cosh diff div divide erf erfc erfinv exp exp2 expm1 floor_divide fmod ger "
        "hypot kron lerp log log10 logit log1p log2 logaddexp logsumexp maximum mean minimum mul "
        "multiply nanmean nansum normal outer pow reciprocal remainder rsqrt sigmoid sin sinh "
        "sqrt square std sub subtract tan tanh threshold true_divide var xlogy").split(), CAST),
    **dict.fromkeys((
        "cat column_stack concat concatenate dstack hstack row_stack stack vstack").split(), JOIN),
    **dict.fromkeys((
        "abs all amax amin any argmax argmin argsort bmm bucketize ceil clamp clamp_max "
        "clamp_min clip cross diag dot floor frac gather hardshrink index_add index_copy "
        "index_select inverse isin log_softmax logcumsumexp masked_select matmul mm msort multinomial "
        "mv nan_to_num neg negative nonzero norm round scatter scatter_add scatter_reduce "
        "searchsorted sgn sign softmax take take_along_dim tensordot tril triu trunc where").split(),
        EXACT),
    **dict.fromkeys((
        "bernoulli eq ge greater greater_equal gt le less less_equal logical_not lt ne "
        "not_equal").split(), ANY),
    **dict.fromkeys("cumprod cumsum prod sum".split(), INTO),
    **dict.fromkeys(
        "empty eye full linspace ones rand randint randn randperm zeros".split(), CREATION),
    "arange": RANGE,
    **dict.fromkeys("aminmax cummax cummin kthvalue linalg.slogdet slogdet sort topk".split(), TUPLE),
    **dict.fromkeys("max median min nanmedian".split(), EITHER),
    **dict.fromkeys(("linalg.cholesky", "linalg.cross", "linalg.det", "linalg.inv", "linalg.matrix_norm", "linalg.norm",
                     "linalg.solve", "linalg.vector_norm"), EXACT),
}
ANNOTATIONS = {TUPLE: "tuple[Tensor, ...] | None", EITHER: "Tensor | tuple[Tensor, ...] | None"}
# the entry ``out`` gets in the function's Parameters (its type, and what it must be)
DOCS = {
    CAST: ("Tensor, optional", "The tensor to write the result into, of a dtype the result "
           "casts to"),
    EXACT: ("Tensor, optional", "The tensor to write the result into, of the result's dtype"),
    ANY: ("Tensor, optional", "The tensor to write the result into, of any dtype"),
    INTO: ("Tensor, optional", "The tensor to write the result into, of any dtype, which "
           "the function computes in unless ``dtype`` says another"),
    CREATION: ("Tensor, optional", "The tensor to make the values in: in its dtype, on its "
               "device"),
    RANGE: ("Tensor, optional", "The tensor to make the values in: in its dtype, on its "
            "device, in its shape if it has as many elements"),
    TUPLE: ("tuple of Tensor, optional", "Tensors to write the results into, each of its "
            "result's dtype"),
    EITHER: ("Tensor or tuple of Tensor, optional", "The tensor to write the result into, of "
             "a dtype the result casts to; where the result is a tuple, as many tensors, each "
             "of its result's dtype"),
}
DOCS[JOIN] = DOCS[CAST]
DOCS_END = (" (resized if needed); returned. Not with grad mode on and an argument that "
            "requires grad (as in PyTorch).")
RESIZED = ("An output with one or more elements was resized since it had shape {}, which does "
           "not match the required output shape {}. This behavior is deprecated, and in a "
           "future PyTorch release outputs will not be resized unless they have zero "
           "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
           "zero elements with t.resize_(0).")
RANGE_RESIZED = ("The number of elements in the out tensor of shape {} is {} which does not "
                 "match the computed number of elements {}. Note that this may occur as a "
                 "result of rounding error. The out tensor will be resized to a tensor of "
                 "shape ({},).")
NO_AUTOGRAD = ("{}(): functions with out=... arguments don't support automatic "
               "differentiation, but one of the arguments requires grad.")


def with_out(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``function`` taking ``out=`` as well, by ``OUT[name]``'s rule; ``function`` itself
    when ``name`` is not in ``OUT``."""
    rule = OUT.get(name)
    if rule is None:
        return function
    short = name.rpartition(".")[2]
    signature = _signature(function, ANNOTATIONS.get(rule, "Tensor | None"))

    def into(out, args, kwargs):
        return _into(out, short, rule, function, args, kwargs)

    call = _compiled(signature, function, into)
    functools.update_wrapper(call, function)
    call.__signature__ = signature  # what inspect.signature (help, the stubs) reads
    kind, description = DOCS[rule]
    call.__doc__ = _documented(function.__doc__, f"out : {kind}", description + DOCS_END)
    return call


def _compiled(signature, function, into):
    """A function of ``signature`` that calls ``function`` when ``out`` is None, else
    ``into(out, args, kwargs)``. Written out parameter by parameter, it costs a call with
    no out= one ``if`` (a ``*args, **kwargs`` wrapper would pack both on every call)."""
    kind = inspect.Parameter
    params, positional, keywords, defaults, slash = [], [], [], {}, 0
    for param in signature.parameters.values():
        text = param.name
        if param.default is not param.empty:
            defaults[param.name] = param.default
            text += f"=_defaults[{param.name!r}]"
        if param.kind is kind.KEYWORD_ONLY and not any(p.startswith("*") for p in params):
            params.append("*")
        if param.kind is kind.VAR_POSITIONAL:
            text = f"*{param.name}"
            positional.append(text)
        elif param.kind is kind.VAR_KEYWORD:
            text = f"**{param.name}"
            keywords.append(text)
        elif param.kind is kind.KEYWORD_ONLY:
            if param.name != "out":
                keywords.append(f"{param.name}={param.name}")
        else:
            positional.append(param.name)
        params.append(text)
        if param.kind is kind.POSITIONAL_ONLY:
            slash = len(params)
    if slash:
        params.insert(slash, "/")
    arguments = ", ".join([*positional, *keywords])
    source = (f"def call({', '.join(params)}):\n"
              f"    if out is None:\n"
              f"        return _function({arguments})\n"
              f"    return _into(out, ({''.join(a + ', ' for a in positional)}), "
              f"dict({', '.join(keywords)}))\n")
    namespace = {"_function": function, "_into": into, "_defaults": defaults}
    exec(compile(source, f"<out= of {function.__qualname__}>", "exec"), namespace)
    return namespace["call"]


def _signature(function, annotation):
    """``function``'s signature with a keyword-only ``out`` (before a ``**kwargs``)."""
    signature = inspect.signature(function)
    params = list(signature.parameters.values())
    out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None,
                            annotation=annotation)
    at = len(params) - (bool(params) and params[-1].kind is inspect.Parameter.VAR_KEYWORD)
    return signature.replace(parameters=[*params[:at], out, *params[at:]])


_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}$", re.MULTILINE)


def _documented(doc, entry, description):
    """``doc`` (cleaned) with ``out`` last in its Parameters section, which it gains if it
    has none (before its first other section, as numpydoc orders them)."""
    text = inspect.cleandoc(doc or "")
    lines = "\n".join([entry, *textwrap.wrap(description, 88, initial_indent="    ",
                                               subsequent_indent="    ")])
    sections = list(_SECTION.finditer(text))
    for i, section in enumerate(sections):
        if section.group(1) == "Parameters":
            end = sections[i + 1].start() if i + 1 < len(sections) else len(text)
            body = text[:end].rstrip("\n")
            return f"{body}\n{lines}\n" + (f"\n{text[end:]}" if end < len(text) else "")
    at = sections[0].start() if sections else len(text)
    head = text[:at].rstrip("\n")
    return f"{head}\n\nParameters\n----------\n{lines}\n" + (f"\n{text[at:]}" if sections else "")


def _into(out, name, rule, function, args, kwargs):
    """``function(*args, **kwargs)`` written into ``out``, which is returned."""
    outs = _checked_outs(out, name, rule)
    tensors = list(_tensors((*args, *kwargs.values())))
    if grad_mode.enabled and any(t._requires_grad for t in (*outs, *tensors)):
        raise RuntimeError(NO_AUTOGRAD.format(
            name if rule not in (CREATION, RANGE) else f"aten::{name}"))
    if rule in (CREATION, RANGE):
        kwargs = _made_in(outs[0], name, kwargs)
    elif rule == INTO:
        rule, kwargs = _computed_in(outs[0], kwargs)
    result = function(*args, **kwargs)
    results = result if isinstance(result, tuple) else (result,)
    if isinstance(result, tuple) != isinstance(out, (tuple, list)):
        wanted = "tuple of Tensors" if isinstance(result, tuple) else "Tensor"
        raise TypeError(f"{name}(): argument 'out' must be {wanted}, not {type(out).__name__}")
    if len(outs) != len(results):
        raise TypeError(f"expected tuple of {len(results)} elements but got {len(outs)}")
    for target, value in zip(outs, results):
        _check_dtype(target, value, EXACT if isinstance(result, tuple) else rule)
        _check_device(target, value)
        values = _fit(target, value._data, rule)
        check_overlap(target, tensors)
        _write(target, values.astype(target._data.dtype, copy=False))
    if isinstance(result, tuple):
        return type(result)(*outs) if hasattr(result, "_fields") else tuple(outs)
    return out


def _checked_outs(out, name, rule):
    """``out`` as a tuple of tensors, with PyTorch's TypeError for anything else."""
    if isinstance(out, Tensor):
        if rule == TUPLE:
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not Tensor")
        return (out,)
    if rule in (TUPLE, EITHER) and isinstance(out, (tuple, list)):
        for i, value in enumerate(out):
            if not isinstance(value, Tensor):
                raise TypeError(f"{name}(): expected Tensor as element {i} in argument 'out', "
                                f"but got {type(value).__name__}")
        return tuple(out)
    wanted = "tuple of Tensors" if rule == TUPLE else "Tensor"
    raise TypeError(f"{name}(): argument 'out' must be {wanted}, not {type(out).__name__}")


def _tensors(values):
    """The tensors among ``values`` and in the lists among them (``cat([a, b])``)."""
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from _tensors(value)
        elif isinstance(value, Tensor):
            yield value


def _made_in(out, name, kwargs):
    """A creation function's keywords, with ``out``'s dtype and device."""
    wanted = kwargs.get("dtype")
    if wanted is not None and dtypes.to_numpy_dtype(wanted) != out._data.dtype:
        raise RuntimeError(f"dtype {dtypes.scalar_type_name(dtypes.to_numpy_dtype(wanted))} "
                           "does not match dtype of out parameter "
                           f"({dtypes.scalar_type_name(out._data.dtype)})")
    return {**kwargs, "dtype": out.dtype, "device": out.device}


def _computed_in(out, kwargs):
    """The rule and keywords of a function computing in ``out``'s dtype unless its
    ``dtype=`` says another, which ``out`` must then have."""
    if kwargs.get("dtype") is not None:
        return EXACT, kwargs
    return ANY, {**kwargs, "dtype": out.dtype}


def _check_dtype(out, result, rule):
    have, want = result._data.dtype, out._data.dtype
    if have == want or rule in (ANY, CREATION, RANGE):
        return
    if rule == EXACT:
        raise RuntimeError(f"Expected out tensor to have dtype {dtypes.c_type_name(have)}, but "
                           f"got {dtypes.c_type_name(want)} instead")
    if np.can_cast(have, want, "same_kind"):  # PyTorch's canCast, for its real dtypes
        return
    if rule == JOIN:
        raise TypeError("nbgrad.cat(): input types can't be cast to the desired output type "
                        f"{dtypes.scalar_type_name(want)}")
    raise RuntimeError(f"result type {dtypes.scalar_type_name(have)} can't be cast to the "
                       f"desired output type {dtypes.scalar_type_name(want)}")


def _check_device(out, result):
    if out.device != result.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least "
                           f"two devices, {result.device} and {out.device}!")


def _fit(out, values, rule):
    """``values`` to write into ``out``, which is resized to their shape if it differs (with
    PyTorch's warning if it had elements, except from a creation function)."""
    shape, had = values.shape, out._data.shape
    if had == shape:
        return values
    if rule == RANGE and out._data.size == values.size:
        return values.reshape(had)
    if out._base is not None:
        raise RuntimeError(f"out= is a view of shape {list(had)} and the result has shape "
                           f"{list(shape)}: nbgrad does not resize a view (PyTorch would, "
                           "within its base's storage).\nnbgrad hint: pass an out of the "
                           "result's shape, or one that is not a view.")
    # stacklevel: the caller's line (past _fit, _into, into and the wrapper)
    if rule == RANGE and out._data.size:
        warnings.warn(RANGE_RESIZED.format(list(had), out._data.size, values.size, values.size),
                      UserWarning, stacklevel=5)
    elif rule != CREATION and out._data.size:
        warnings.warn(RESIZED.format(list(had), list(shape)), UserWarning, stacklevel=5)
    out._data = values.astype(out._data.dtype, copy=True)
    return values
