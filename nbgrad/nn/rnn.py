"""Recurrent layers as PyTorch has them: ``RNN``, ``LSTM``, ``GRU`` and their one-step cells.

One time step, with ``x`` the step's input and ``h`` (and ``c``) the state it carries:

* ``RNN``:  ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (or ``relu``);
* ``LSTM``: gates ``i, f, g, o`` (in that order in the weights' rows),
  ``c' = f * c + i * g``, ``h' = o * tanh(c')``, with ``i, f, o`` sigmoids and ``g`` a tanh;
* ``GRU``:  gates ``r, z, n``, ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``,
  ``h' = (1 - z) * n + z * h``, computed as PyTorch does: ``(h - n) * z + n``.

Parameters have PyTorch's names, shapes, order and initialisation (uniform on
``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``): ``weight_ih_l{k}``, ``weight_hh_l{k}``,
``bias_ih_l{k}``, ``bias_hh_l{k}``, then the same with ``_reverse`` for the backward
direction, so a ``state_dict`` moves between the two libraries unchanged.

How it is computed: from nbgrad's differentiable operations, so autograd derives the
backward pass. The input projection ``x W_ih^T + b`` of *all* time steps is one matrix
product per layer and direction; only the recurrence ``h W_hh^T`` runs in a Python loop
over time. ``b_hh`` adds outside every gate product in ``RNN`` and ``LSTM``, so it joins
``b_ih`` in that one projection; in ``GRU`` ``b_hn`` sits inside ``r * (...)`` and stays
in the loop.

Where nbgrad differs from PyTorch:

* the graph is the composition of those operations (``AddmmBackward0``,
  ``SigmoidBackward0``, ``StackBackward0``, ...). PyTorch composes too on the CPU for
  ``RNN``, ``GRU`` and the cells, and the outputs' ``grad_fn`` agree there; its ``LSTM``
  is one fused node (``MkldnnRnnLayerBackward0``, or cuDNN's on a GPU) and its
  ``batch_first`` output a ``TransposeBackward1``. nbgrad's ``LSTM`` layer fuses each
  step's update after the gates' product into one node (``ThnnFusedLstmCellBackward0``,
  PyTorch's name for that fused update on CUDA); ``LSTMCell`` composes, as PyTorch's;
* ``PackedSequence`` inputs and ``LSTM``'s ``proj_size > 0`` are not implemented;
* the dropout between layers draws from nbgrad's generator, so its masks differ.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from typing import NamedTuple

from .. import creation
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..backend import device as Device
from ..core.node import Node
from ..dtypes import dtype as DType
from ..ops.activations import _sigmoid
from ..ops.shape import cat, stack
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]


# -- one time step ------------------------------------------------------------------------
# ``xw`` is the step's input projection (``x W_ih^T`` plus the biases that add outside the
# gate products); ``F.addmm(xw, h, w_hh_t)`` adds ``h W_hh^T`` to it in one product.
# ``w_hh_t`` is ``W_hh^T``, transposed once per sequence (one node, not one per step).
def _tanh_step(xw, h, w_hh_t, b_hh):
    return F.addmm(xw, h, w_hh_t).tanh()


def _relu_step(xw, h, w_hh_t, b_hh):
    return F.addmm(xw, h, w_hh_t).relu()


def _lstm_step(xw, state, w_hh_t, b_hh):
    h, c = state
    n = h.shape[-1]
    gates = F.addmm(xw, h, w_hh_t)
    # one sigmoid over all four blocks (cheaper than three): the ``g`` block of it is unused
    s = gates.sigmoid()
    i, f, o = s[:, :n], s[:, n:2 * n], s[:, 3 * n:]
    g = gates[:, 2 * n:3 * n].tanh()
    c = f * c + i * g
    return o * c.tanh(), c


def _fused_lstm_step(xw, state, w_hh_t, b_hh):
    """``_lstm_step`` with everything after the gates' product in one node: the LSTM
    layer's step (PyTorch's is one fused node too; its cell composes, as ``_lstm_step``)."""
    h, c = state
    return lstm_cell_update(F.addmm(xw, h, w_hh_t), c)


def _activated_gates(gates, n):
    """The gates' pre-activations ``(N, 4n)`` (an array) activated: a sigmoid over all four
    blocks (one pass), the ``g`` block then a tanh."""
    activated = _sigmoid(gates)
    activated[:, 2 * n:3 * n] = array_module(gates).tanh(gates[:, 2 * n:3 * n])
    return activated


def lstm_cell_update(gates, c):
    """``(h', c')`` from the gates' pre-activations ``(N, 4H)`` and the cell state ``c``
    ``(N, H)``: ``c' = f c + i g``, ``h' = o tanh(c')``, as one operation (node
    ``ThnnFusedLstmCellBackward0``, PyTorch's name for this fused step) instead of eleven."""
    n = c._data.shape[-1]
    act = _activated_gates(gates._data, n)
    i, f, g, o = (act[:, k * n:(k + 1) * n] for k in range(4))
    c_new = f * c._data + i * g
    tanh_c = array_module(c_new).tanh(c_new)
    h_out, c_out = Tensor._make(o * tanh_c), Tensor._make(c_new)
    if should_record(gates, c):
        record(ThnnFusedLstmCellBackward0, (h_out, c_out), (gates, c),
               saved=(gates, c, act, tanh_c))
    return h_out, c_out


class ThnnFusedLstmCellBackward0(Node):
    """The backward of ``lstm_cell_update``: with ``dc = grad_c + grad_h o (1 - tanh(c')^2)``,
    the gates' gradient is ``[dc g i(1-i), dc c f(1-f), dc i (1-g^2), grad_h tanh(c') o(1-o)]``
    and ``c``'s is ``dc f``. ``apply`` recomputes the gates from the saved inputs with
    differentiable operations (for double backward); ``fast_apply`` uses the saved arrays."""

    __slots__ = ("num_outputs",)  # two: set by ``record``

    def apply(self, grad_h, grad_c):
        gates, c, _, _ = self.saved_values
        n = c.shape[-1]
        i, f, o = (gates[:, k * n:(k + 1) * n].sigmoid() for k in (0, 1, 3))
        g = gates[:, 2 * n:3 * n].tanh()
        tanh_c = (f * c + i * g).tanh()
        dc = 0 if grad_c is None else grad_c
        if grad_h is not None:
            dc = dc + grad_h * o * (1 - tanh_c * tanh_c)
            do = grad_h * tanh_c * o * (1 - o)
        else:
            do = o * 0
        return cat([dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g), do],
                   1), dc * f

    def fast_apply(self, grad_h, grad_c):
        _, c, act, tanh_c = self.saved_values
        n = tanh_c.shape[-1]
        i, f, g, o = (act[:, k * n:(k + 1) * n] for k in range(4))
        xp = array_module(act)
        dc = xp.zeros_like(tanh_c) if grad_c is None else grad_c._data.copy()
        grad_gates = xp.empty_like(act)
        if grad_h is None:
            grad_gates[:, 3 * n:] = 0
        else:
            dc += grad_h._data * o * (1 - tanh_c * tanh_c)
            grad_gates[:, 3 * n:] = grad_h._data * tanh_c * o * (1 - o)
        grad_gates[:, :n] = dc * g * i * (1 - i)
        grad_gates[:, n:2 * n] = dc * c._data * f * (1 - f)
        grad_gates[:, 2 * n:3 * n] = dc * i * (1 - g * g)
        return Tensor._make(grad_gates), Tensor._make(dc * f)


def _gru_step(xw, h, w_hh_t, b_hh):
    n = h.shape[-1]
    hw = h.matmul(w_hh_t) if b_hh is None else F.addmm(b_hh, h, w_hh_t)
    rz = (xw[:, :2 * n] + hw[:, :2 * n]).sigmoid()  # r and z in one sigmoid
    r, z = rz[:, :n], rz[:, n:]
    new = (xw[:, 2 * n:] + r * hw[:, 2 * n:]).tanh()
    return (h - new) * z + new


class _Recurrence(NamedTuple):
    """What one kind of recurrent layer computes."""

    gates: int  # blocks of ``hidden_size`` rows in each weight and bias
    step: Callable  # (xw, state, w_hh_t, b_hh) -> the next state
    folds_hidden_bias: bool  # b_hh joins b_ih in the input projection


_RECURRENCES = {
    "RNN_TANH": _Recurrence(1, _tanh_step, True),
    "RNN_RELU": _Recurrence(1, _relu_step, True),
    "LSTM": _Recurrence(4, _fused_lstm_step, True),
    "LSTM_CELL": _Recurrence(4, _lstm_step, True),
    "GRU": _Recurrence(3, _gru_step, False),
}


def _hidden(state):
    """The part of a state that is the step's output: ``h``."""
    return state[0] if isinstance(state, tuple) else state


def _input_projection(recurrence, x, w_ih, b_ih, b_hh):
    """``x W_ih^T + b_ih`` (``+ b_hh`` where it adds outside the gates), for every step at once."""
    if b_ih is None:
        return F.linear(x, w_ih)
    return F.linear(x, w_ih, b_ih + b_hh if recurrence.folds_hidden_bias else b_ih)


def _hidden_bias(recurrence, b_hh):
    """``b_hh`` where the step adds it itself (``GRU``), else ``None`` (it is in ``xw``)."""
    return None if recurrence.folds_hidden_bias else b_hh


# -- the multi-layer modules --------------------------------------------------------------
class RNNBase(Module):
    """The machinery shared by ``RNN``, ``LSTM`` and ``GRU``: parameters, checks, the loop.

    Parameters
    ----------
    mode : str
        ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``.
    input_size, hidden_size : int
        Features of each step's input and of the hidden state.
    num_layers : int
        Recurrent layers stacked, each reading the previous one's outputs.
    bias : bool
        Whether the layers have ``b_ih`` and ``b_hh``.
    batch_first : bool
        Inputs and outputs laid out ``(N, L, H)`` instead of ``(L, N, H)`` (hidden states
        are ``(layers * directions, N, H)`` either way, as in PyTorch).
    dropout : float
        Probability of zeroing each output of every layer but the last, in training.
    bidirectional : bool
        A second pass per layer from the last step to the first, its outputs concatenated
        after the forward pass's.
    proj_size : int
        Must be 0: nbgrad does not implement LSTM projections.
    device, dtype
        Where and of what type the parameters are made.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0,
                 device: Device | str | None = None, dtype: DType | None = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         proj_size)
        if mode not in _RECURRENCES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if proj_size:
            raise NotImplementedError("nbgrad does not implement LSTM's proj_size (yet)")
        gate_size = _RECURRENCES[mode].gates * hidden_size
        num_directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else hidden_size * num_directions
                shapes: list[tuple[int, ...]] = [(gate_size, layer_input_size),
                                                 (gate_size, hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                names = [n.format(layer, "_reverse" if direction else "") for n in names]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(creation.empty(shape, dtype=dtype,
                                                                 device=device)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, in PyTorch's order.

        Returns
        -------
        list of list of Parameter
            Per layer and direction: ``weight_ih``, ``weight_hh`` and, with ``bias``,
            ``bias_ih``, ``bias_hh``.
        """
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def reset_parameters(self) -> None:
        """Draw every parameter uniformly from ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Does nothing: PyTorch packs the weights into one buffer for cuDNN here, and
        nbgrad has no such buffer (kept so that code calling it runs)."""

    def check_input(self, input: Tensor, batch_sizes: None) -> None:
        """Raise PyTorch's error if ``input`` has the wrong dtype, rank or feature size.

        Parameters
        ----------
        input : Tensor
            A batched input, 3-D.
        batch_sizes : None
            PyTorch's ``PackedSequence`` argument; nbgrad passes ``None``.

        Raises
        ------
        ValueError
            The input's dtype is not the weights'.
        RuntimeError
            The input is not 3-D, or its last dimension is not ``input_size``.
        """
        weight_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})"
            )
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. "
                               f"Expected {self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: None) -> tuple[int, int, int]:
        """The size of the initial hidden state that a batched ``input`` needs.

        Parameters
        ----------
        input : Tensor
        batch_sizes : None
            PyTorch's ``PackedSequence`` argument; nbgrad passes ``None``.

        Returns
        -------
        tuple of int
            ``(num_layers * num_directions, batch, hidden_size)``.
        """
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return self.num_layers * num_directions, mini_batch, self.hidden_size

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """Raise ``RuntimeError(msg)`` if ``hx`` is not of the expected size.

        Parameters
        ----------
        hx : Tensor
        expected_hidden_size : tuple of int
        msg : str
            The message, formatted with the expected and the actual size.
        """
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: None) -> None:
        """Check a batched ``input`` and its initial hidden state as PyTorch does.

        Parameters
        ----------
        input : Tensor
        hidden : Tensor
            The initial hidden state, ``(num_layers * num_directions, N, H)``.
        batch_sizes : None
            PyTorch's ``PackedSequence`` argument; nbgrad passes ``None``.
        """
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def extra_repr(self) -> str:
        """The sizes, then each argument that differs from its default (PyTorch's text).

        Returns
        -------
        str
        """
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _batched(self, kind, input):
        """``(input as 3-D, whether it was batched)``, after PyTorch's rank check."""
        if input.dim() not in (2, 3):
            raise ValueError(f"{kind}: Expected input to be 2D or 3D, got {input.dim()}D"
                             + (" tensor instead" if kind == "RNN" else " instead"))
        if input.dim() == 3:
            return input, True
        return input.unsqueeze(0 if self.batch_first else 1), False

    def _zeros(self, input):
        batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return creation.zeros((self.num_layers * num_directions, batch, self.hidden_size),
                              dtype=input.dtype, device=input.device)

    def _unbatched_output(self, output):
        return output.squeeze(0 if self.batch_first else 1)

    def _run(self, input, states):
        """Run every layer and direction over the batched ``input``.

        ``states`` holds one initial state per layer and direction; returns the last
        layer's outputs and the final state of each layer and direction.
        """
        time_dim = 1 if self.batch_first else 0
        if input.size(time_dim) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        recurrence = _RECURRENCES[self.mode]
        num_directions = 2 if self.bidirectional else 1
        weights = self.all_weights
        finals = []
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                input = F.dropout(input, self.dropout, training=True)
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                w_ih, w_hh, b_ih, b_hh = (weights[index] + [None, None])[:4]  # None: bias=False
                steps = _input_projection(recurrence, input, w_ih, b_ih, b_hh).unbind(time_dim)
                hidden, final = _run_direction(recurrence.step, steps, states[index], w_hh.t(),
                                               _hidden_bias(recurrence, b_hh), direction == 1)
                outputs.append(stack(hidden, time_dim))
                finals.append(final)
            input = outputs[0] if num_directions == 1 else cat(outputs, -1)
        return input, finals


def _run_direction(step, steps, state, w_hh_t, b_hh, reverse):
    """The recurrence over the steps' input projections, forwards or from the last step:
    ``(each step's h, in time order; the final state)``."""
    hidden = [None] * len(steps)
    for t in (reversed(range(len(steps))) if reverse else range(len(steps))):
        state = step(steps[t], state, w_hh_t, b_hh)
        hidden[t] = _hidden(state)
    return hidden, state


def _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    """PyTorch's checks of a recurrent layer's arguments, in its order, with its messages."""
    if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
            or isinstance(dropout, bool)):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int)):
        if not isinstance(value, kind):
            raise TypeError(
                f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    """An Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` per layer.

    Calling it with ``input`` and an optional initial state ``hx`` returns
    ``(output, h_n)`` (see ``forward``).

    Parameters
    ----------
    input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device, dtype
        As for :class:`RNNBase`.
    nonlinearity : str
        ``"tanh"`` or ``"relu"``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False,
                 device: Device | str | None = None, dtype: DType | None = None) -> None:
        self.nonlinearity = nonlinearity
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Run the layers over ``input``.

        Parameters
        ----------
        input : Tensor
            ``(L, N, H_in)``, ``(N, L, H_in)`` if ``batch_first``, or ``(L, H_in)`` unbatched.
        hx : Tensor, optional
            The initial state of every layer and direction, ``(num_layers * num_directions, N, H)``
            (``N`` left out unbatched); zeros when omitted.

        Returns
        -------
        (Tensor, Tensor)
            ``output``, the last layer's ``h_t`` for every step (``(L, N, D * H)``
            laid out as the input), and ``h_n``, the final state of every layer and
            direction, shaped as ``hx``.
        """
        return _single_state_forward(self, "RNN", input, hx)


class GRU(RNNBase):
    """A gated recurrent unit: gates ``r, z`` and candidate ``n`` per step (see the module).

    Called as :class:`RNN` is: ``gru(input, hx=None)`` returns ``(output, h_n)``.

    Parameters
    ----------
    input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device, dtype
        As for :class:`RNNBase`.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Device | str | None = None, dtype: DType | None = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Run the layers over ``input``.

        Parameters
        ----------
        input : Tensor
            ``(L, N, H_in)``, ``(N, L, H_in)`` if ``batch_first``, or ``(L, H_in)`` unbatched.
        hx : Tensor, optional
            The initial state of every layer and direction, ``(num_layers * num_directions, N, H)``
            (``N`` left out unbatched); zeros when omitted.

        Returns
        -------
        (Tensor, Tensor)
            ``output``, the last layer's ``h_t`` for every step (``(L, N, D * H)``
            laid out as the input), and ``h_n``, the final state of every layer and
            direction, shaped as ``hx``.
        """
        return _single_state_forward(self, "GRU", input, hx)


def _single_state_forward(module, kind, input, hx):
    """``RNN.forward`` and ``GRU.forward``: the state is one tensor, checked as PyTorch does."""
    input, is_batched = module._batched(kind, input)
    if hx is not None:
        if not is_batched:
            if hx.dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{hx.dim()}-D tensor")
            hx = hx.unsqueeze(1)
        elif hx.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
    else:
        hx = module._zeros(input)
    module.check_forward_args(input, hx, None)
    output, finals = module._run(input, hx.unbind(0))
    hidden = stack(finals)
    if not is_batched:
        return module._unbatched_output(output), hidden.squeeze(1)
    return output, hidden


class LSTM(RNNBase):
    """A long short-term memory layer: gates ``i, f, g, o`` and a cell state ``c`` per step.

    Calling it with ``input`` (shaped as for :class:`RNN`) and an optional pair
    ``(h_0, c_0)`` returns ``(output, (h_n, c_n))`` (see ``forward``).

    Parameters
    ----------
    input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device, dtype
        As for :class:`RNNBase`.
    proj_size : int
        Must be 0 (the default): nbgrad does not implement projections.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Device | str | None = None,
                 dtype: DType | None = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device=device, dtype=dtype)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: None) -> tuple[int, int, int]:
        """The expected size of ``c_0``: that of ``h_0``.

        Parameters
        ----------
        input : Tensor
        batch_sizes : None
            PyTorch's ``PackedSequence`` argument; nbgrad passes ``None``.

        Returns
        -------
        tuple of int
            ``(num_layers * num_directions, batch, hidden_size)``.
        """
        return self.get_expected_hidden_size(input, batch_sizes)

    # ``hidden`` is the pair (h_0, c_0) here: an override that narrows, as PyTorch's does
    def check_forward_args(self, input: Tensor, hidden: tuple[Tensor, Tensor],  # type: ignore[override]
                           batch_sizes: None) -> None:
        """Check a batched ``input`` and its initial ``(h_0, c_0)`` as PyTorch does.

        Parameters
        ----------
        input : Tensor
        hidden : (Tensor, Tensor)
            ``(h_0, c_0)``, each ``(num_layers * num_directions, N, H)``.
        batch_sizes : None
            PyTorch's ``PackedSequence`` argument; nbgrad passes ``None``.
        """
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Run the layers over ``input``.

        Parameters
        ----------
        input : Tensor
            ``(L, N, H_in)``, ``(N, L, H_in)`` if ``batch_first``, or ``(L, H_in)`` unbatched.
        hx : (Tensor, Tensor), optional
            ``(h_0, c_0)``, each ``(num_layers * num_directions, N, H)`` (``N`` left
            out unbatched); zeros when omitted.

        Returns
        -------
        (Tensor, (Tensor, Tensor))
            ``output``, the last layer's ``h_t`` for every step, and the final
            ``(h_n, c_n)`` of every layer and direction, shaped as ``hx``.
        """
        input, is_batched = self._batched("LSTM", input)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif is_batched:
            if hx[0].dim() != 3 or hx[1].dim() != 3:
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        else:
            if hx[0].dim() != 2 or hx[1].dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        output, finals = self._run(input, list(zip(hx[0].unbind(0), hx[1].unbind(0))))
        h_n, c_n = stack([h for h, _ in finals]), stack([c for _, c in finals])
        if not is_batched:
            return self._unbatched_output(output), (h_n.squeeze(1), c_n.squeeze(1))
        return output, (h_n, c_n)


# -- the cells: one step of one layer -----------------------------------------------------
class RNNCellBase(Module):
    """The parameters and checks shared by the cells: ``weight_ih``, ``weight_hh``,
    ``bias_ih``, ``bias_hh``, each ``num_chunks * hidden_size`` rows.

    Parameters
    ----------
    input_size, hidden_size : int
        Features of the input and of the hidden state.
    bias : bool
        Whether the cell has ``bias_ih`` and ``bias_hh``.
    num_chunks : int
        Gate blocks: 1 (RNN), 4 (LSTM), 3 (GRU).
    device, dtype
        Where and of what type the parameters are made.
    """

    _mode = ""  # the key of the cell's recurrence in _RECURRENCES

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Device | str | None = None, dtype: DType | None = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(creation.empty((rows, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(creation.empty((rows, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(creation.empty(rows, dtype=dtype, device=device))
            self.bias_hh = Parameter(creation.empty(rows, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        """The sizes, then ``bias`` and ``nonlinearity`` where not the default (PyTorch's text).

        Returns
        -------
        str
        """
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Draw every parameter uniformly from ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, input, state):
        """One step from a batched ``input`` and ``state``, checked as ATen's cells check."""
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.weight_ih.size(1)}")
        for label, hx in enumerate(state if isinstance(state, tuple) else (state,)):
            if input.size(0) != hx.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} "
                                   f"batch size {hx.size(0)}")
            if hx.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, "
                                   f"expected {self.hidden_size}")
        recurrence = _RECURRENCES[self._mode]
        xw = _input_projection(recurrence, input, self.weight_ih, self.bias_ih, self.bias_hh)
        return recurrence.step(xw, state, self.weight_hh.t(),
                               _hidden_bias(recurrence, self.bias_hh))

    def _check_rank(self, input):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")

    def _batched(self, input, hx):
        """``(input, hx, whether input was batched)``, both made 2-D (``hx`` zeros if
        ``None``), for the cells whose state is one tensor."""
        self._check_rank(input)
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected hidden to be 1D or 2D, got "
                             f"{hx.dim()}D instead")
        if input.dim() == 2:
            return input, self._zeros(input) if hx is None else hx, True
        input = input.unsqueeze(0)
        return input, self._zeros(input) if hx is None else hx.unsqueeze(0), False

    def _zeros(self, input):
        return creation.zeros((input.size(0), self.hidden_size), dtype=input.dtype,
                              device=input.device)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    ``cell(input, hx=None)`` returns ``h'`` (see ``forward``).

    Parameters
    ----------
    input_size, hidden_size, bias, device, dtype
        As for :class:`RNNCellBase`.
    nonlinearity : str
        ``"tanh"`` or ``"relu"`` (checked when called, as PyTorch does).
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Device | str | None = None,
                 dtype: DType | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    @property
    def _mode(self):
        return "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """One step from ``input`` and the state ``hx``.

        Parameters
        ----------
        input : Tensor
            ``(N, H_in)``, or ``(H_in,)`` unbatched.
        hx : Tensor, optional
            ``(N, H)``, or ``(H,)`` unbatched; zeros when omitted.

        Returns
        -------
        Tensor
            The next hidden state, shaped as ``hx``.
        """
        input, hx, is_batched = self._batched(input, hx)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = self._step(input, hx)
        return h if is_batched else h.squeeze(0)


class GRUCell(RNNCellBase):
    """One step of a GRU (see :class:`GRU`).

    ``cell(input, hx=None)`` returns the next hidden state, shaped as for :class:`RNNCell`.

    Parameters
    ----------
    input_size, hidden_size, bias, device, dtype
        As for :class:`RNNCellBase`.
    """

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Device | str | None = None, dtype: DType | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """One step from ``input`` and the state ``hx``.

        Parameters
        ----------
        input : Tensor
            ``(N, H_in)``, or ``(H_in,)`` unbatched.
        hx : Tensor, optional
            ``(N, H)``, or ``(H,)`` unbatched; zeros when omitted.

        Returns
        -------
        Tensor
            The next hidden state, shaped as ``hx``.
        """
        input, hx, is_batched = self._batched(input, hx)
        h = self._step(input, hx)
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM (see :class:`LSTM`).

    ``cell(input, hx=None)``, ``hx`` being ``(h, c)``, returns the next ``(h', c')``
    (see ``forward``).

    Parameters
    ----------
    input_size, hidden_size, bias, device, dtype
        As for :class:`RNNCellBase`.
    """

    _mode = "LSTM_CELL"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Device | str | None = None, dtype: DType | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, Tensor]:
        """One step from ``input`` and the state ``hx = (h, c)``.

        Parameters
        ----------
        input : Tensor
            ``(N, H_in)``, or ``(H_in,)`` unbatched.
        hx : (Tensor, Tensor), optional
            ``(h, c)``, each ``(N, H)``, or ``(H,)`` unbatched; zeros when omitted.

        Returns
        -------
        (Tensor, Tensor)
            The next ``(h, c)``, shaped as ``hx``.
        """
        self._check_rank(input)
        is_batched = input.dim() == 2
        if hx is not None:
            for index, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{index}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        h, c = self._step(input, tuple(hx))
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))
