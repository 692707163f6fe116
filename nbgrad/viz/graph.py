"""Drawing an autograd graph with Graphviz: what backward will walk, and what it keeps.

``draw(loss)`` shows, from the tensors you pass down to the leaves:

* each backward node by its PyTorch name (``MulBackward0``), with the saved tensors it
  holds: their shape, the version they were saved at and the version they have now
  (red when they differ: backward would fail), or *freed* once backward released them;
* each leaf (``AccumulateGrad``) with its name, ``requires_grad`` and ``.grad``;
* the tensors you passed, green when they ``retain_grad()``.

Names come from ``names={"w": w, ...}``, for leaves, the tensors you pass and the tensors
in between (each drawn beside the node that made it); unnamed tensors are labelled by their
shape, written as PyTorch writes one, ``(2, 3)``.
The result renders as PNG in Jupyter and exposes its DOT text as ``.source``.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from ..core.node import _FREED, AccumulateGrad, SavedOutput, SavedTensor

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..tensor import Tensor

MISSING_DOT = (
    "Graphviz's `dot` program was not found, so the graph cannot be drawn. Install it: "
    "`apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
    "`conda install -c conda-forge graphviz`; environment.yml already includes it."
)


class GraphView:
    """A drawn graph: ``.source`` is its DOT text, and Jupyter shows it as a PNG.

    Parameters
    ----------
    source : str
        The graph in Graphviz's DOT language.
    summary : str
        What its ``repr`` says, e.g. ``"2 backward nodes, 1 leaves"``.
    """

    def __init__(self, source: str, summary: str) -> None:
        self.source = source
        self.summary = summary

    def png(self) -> bytes:
        """The drawing as PNG bytes (what the notebook shows); needs Graphviz's ``dot``.

        Returns
        -------
        bytes

        Raises
        ------
        RuntimeError
            When the ``dot`` program is not installed (the message says how to install it).
        """
        import graphviz

        if shutil.which("dot") is None:
            raise RuntimeError(MISSING_DOT)
        return graphviz.Source(self.source).pipe(format="png")

    def _repr_png_(self):
        return self.png()

    def __repr__(self):
        return f"<autograd graph: {self.summary}>"


def _shape(shape):
    """``(3,)``, ``(2, 3)``; ``scalar`` for a 0-d tensor."""
    return str(tuple(shape)) if shape else "scalar"


def _values(t, limit=4):
    flat = t._data.reshape(-1)
    if flat.size > limit:
        return f"shape {_shape(t._data.shape)}"
    text = ", ".join(f"{v:.4g}" for v in flat.tolist())
    return text if t._data.ndim == 0 else f"[{text}]"


def _label(t, names):
    for name, candidate in names.items():
        if candidate is t:
            return name
    return _shape(t._data.shape)


def _saved_rows(node, names):
    """One line per saved tensor: what it is and whether backward can still use it."""
    saved = node._saved
    if saved is _FREED:
        return [("saved tensors freed by backward", "gray40")]
    rows = []
    for value in saved:
        if type(value) is SavedTensor:
            now, then = value.tensor._version, value.version
            shape = _label(value.tensor, names)
        elif type(value) is SavedOutput:
            now, then = value.vc[0], value.version
            shape = "output " + _shape(value.data.shape)
        else:
            continue
        color = "red" if now != then else "black"
        rows.append((f"saved {shape}, version {then} (now {now})", color))
    return rows


def draw(*tensors: Tensor, names: Mapping[str, Tensor] | None = None,
         show_saved: bool = True) -> GraphView:
    """The backward graph behind ``tensors``, from them down to the leaves.

    Each backward node is shown by its PyTorch name with the saved tensors it holds (red
    when one was modified in place since it was saved: backward would fail; *freed* once
    backward released them), each leaf with its name, ``requires_grad`` and ``.grad``, and
    each tensor passed green when it ``retain_grad()``.

    Parameters
    ----------
    *tensors : Tensor
        Where the graph starts (usually the loss).
    names : mapping of str to Tensor, optional
        Labels for tensors (matched by identity): a leaf, a tensor passed, or one in
        between, drawn beside the node that made it. The others are labelled by their shape.
    show_saved : bool
        List each node's saved tensors.

    Returns
    -------
    GraphView
        Rendered as PNG in Jupyter; its DOT text is ``.source``.
    """
    names = dict(names or {})
    lines = ["digraph autograd {", '  rankdir="BT";',
             '  node [fontname="Helvetica", fontsize=11];']
    ids: dict[int, str] = {}  # id of a tensor or node -> its DOT name

    def node_id(obj):
        if id(obj) not in ids:
            ids[id(obj)] = f"n{len(ids)}"
        return ids[id(obj)]

    counts = {"nodes": 0, "leaves": 0}
    stack, seen = [], set()
    for t in tensors:
        out_id = node_id(t)
        color = "palegreen" if t.retains_grad else "lightblue"
        label = _label(t, names) + ("\\nretains grad" if t.retains_grad else "")
        lines.append(f'  {out_id} [label="{label}", shape=ellipse, style=filled, fillcolor={color}];')
        fn = t.grad_fn
        if fn is not None:
            lines.append(f"  {node_id(fn)} -> {out_id};")
            stack.append(fn)
        elif t._requires_grad:
            lines.append(f'  {out_id} [label="{label}\\nleaf, requires_grad=True"];')
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        fid = node_id(fn)
        if type(fn) is AccumulateGrad:
            counts["leaves"] += 1
            leaf = fn.variable
            grad = leaf._grad
            grad_text = "None" if grad is None else _values(grad)
            lines.append(
                f'  {fid} [label="{_label(leaf, names)}\\nleaf, requires_grad=True\\n'
                f'grad = {grad_text}", shape=box, style="rounded,filled", fillcolor=lightyellow];'
            )
            continue
        counts["nodes"] += 1
        rows = _saved_rows(fn, names) if show_saved else []
        label = fn.name() + "".join(f"\\n{text}" for text, _ in rows)
        color = next((c for _, c in rows if c == "red"), "black")
        lines.append(f'  {fid} [label="{label}", shape=box, color={color}];')
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                lines.append(f"  {node_id(next_fn)} -> {fid};")
                stack.append(next_fn)
    passed = {id(t) for t in tensors}
    for name, t in names.items():
        fn = t.grad_fn
        if id(t) not in passed and fn is not None and id(fn) in seen:
            lines.append(f'  {node_id(t)} [label="{name}", shape=ellipse, style=filled, '
                         "fillcolor=gray92];")
            lines.append(f"  {node_id(fn)} -> {node_id(t)} [style=dashed, arrowhead=none];")
    lines.append("}")
    summary = f"{counts['nodes']} backward nodes, {counts['leaves']} leaves"
    return GraphView("\n".join(lines), summary)
