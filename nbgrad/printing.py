"""``repr`` of a tensor, character for character as PyTorch prints it.

A port of the parts of ``torch/_tensor_str.py`` that apply here, working on the array
directly: one formatter picks integer, fixed or scientific notation for the whole tensor,
then rows are laid out within ``linewidth`` and long tensors are summarized with ``...``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import backend, dtypes


@dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = PrintOptions()


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set how tensors print, as ``torch.set_printoptions`` does.

    The options given replace the current ones (after ``profile``'s, when given); the
    others stay, except ``sci_mode``, which is always set.

    Parameters
    ----------
    precision : int, optional
        Digits after the point of floating-point values (default 4).
    threshold : float, optional
        Tensors with more elements than this are summarized with ``...`` (default 1000).
    edgeitems : int, optional
        The items shown at each end of each dimension of a summary (default 3).
    linewidth : int, optional
        The characters per line before rows are wrapped (default 80).
    profile : str, optional
        ``'default'``, ``'short'`` (precision 2, edgeitems 2) or ``'full'`` (never
        summarized): sets the four options above.
    sci_mode : bool, optional
        Scientific notation on (True) or off (False); None lets each tensor's values decide.

    Raises
    ------
    KeyError
        ``profile`` is not one of the three.
    """
    if profile is not None:
        defaults = {"default": (4, 1000, 3), "short": (2, 1000, 2), "full": (4, math.inf, 3)}
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems = defaults[profile]
        PRINT_OPTS.linewidth = 80
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    def __init__(self, values):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        p = PRINT_OPTS.precision
        for value in finite.tolist():
            if self.sci_mode:
                width = len(f"{value:.{p}e}")
            elif self.int_mode:
                width = len(f"{value:.0f}") + 1
            else:
                width = len(f"{value:.{p}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value):
        p = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{p}f}"
        else:
            text = str(value)
        return (self.max_width - len(text)) * " " + text


def _vector_str(values, indent, summarize, formatter):
    element_length = formatter.max_width + 2
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = ([formatter.format(v) for v in values[:edge].tolist()] + [" ..."]
                + [formatter.format(v) for v in values[-edge:].tolist()])
    else:
        data = [formatter.format(v) for v in values.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(values, indent, summarize, formatter):
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector_str(values, indent, summarize, formatter)
    edge = PRINT_OPTS.edgeitems
    n = values.shape[0]
    if summarize and n > 2 * edge:
        rows = ([_array_str(values[i], indent + 1, summarize, formatter) for i in range(edge)]
                + ["..."]
                + [_array_str(values[i], indent + 1, summarize, formatter)
                   for i in range(n - edge, n)])
    else:
        rows = [_array_str(values[i], indent + 1, summarize, formatter) for i in range(n)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _summarized(values):
    """Only the values that a summarized print shows (they decide the format)."""
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        return np.concatenate((values[:edge], values[-edge:])) if values.shape[0] > 2 * edge else values
    if values.shape[0] > 2 * edge:
        parts = [values[i] for i in range(edge)] + [values[i] for i in range(len(values) - edge, len(values))]
    else:
        parts = list(values)
    return np.stack([_summarized(p) for p in parts])


def array_str(values, indent):
    if values.size == 0:
        return "[]"
    summarize = values.size > PRINT_OPTS.threshold
    formatter = _Formatter(_summarized(values) if summarize else values)
    return _array_str(values, indent, summarize, formatter)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(tensor):
    prefix = "tensor("
    indent = len(prefix)
    values = backend.to_device(tensor._data, "cpu")
    suffixes = []
    if tensor.is_cuda:
        suffixes.append(f"device='{tensor.device}'")
    dtype = tensor.dtype
    default = dtype in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool)
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={dtype!r}")
        text = "[]"
    else:
        if not default:
            suffixes.append(f"dtype={dtype!r}")
        text = array_str(values, indent)
    try:
        grad_fn = tensor.grad_fn
    except RuntimeError:  # a view that may no longer be used (ops/inplace.py): PyTorch's word
        suffixes.append("grad_fn=<Invalid>")
    else:
        if grad_fn is not None:
            suffixes.append(f"grad_fn=<{type(grad_fn).__name__}>")
        elif tensor._requires_grad:
            suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + text, suffixes, indent)
