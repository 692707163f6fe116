"""``pad_sequence``: sequences of different lengths as one padded batch, as in
``torch.nn.utils.rnn``.

nbgrad has no ``PackedSequence`` (nor ``pack_padded_sequence`` and its relatives): a
recurrent layer reads the padded batch whole, padding included.
"""

from __future__ import annotations

from collections.abc import Iterable

from ... import creation
from ...tensor import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(sequences: Iterable[Tensor] | Tensor, batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stack tensors of shapes ``(L_i, *)`` into one ``(max L_i, B, *)``, padded.

    Parameters
    ----------
    sequences : iterable of Tensor
        The sequences, each with its length first and the same trailing shape (a tensor
        is read as the sequence of its rows).
    batch_first : bool
        Give ``(B, max L_i, *)`` instead.
    padding_value : float
        The value of the padding.
    padding_side : str
        ``"right"`` (the default) pads after each sequence, ``"left"`` before it.

    Returns
    -------
    Tensor
        Of the first sequence's dtype and device. As in PyTorch the sequences are copied
        into a tensor of padding, so the result's ``grad_fn`` is ``CopySlices`` and each
        sequence gets the gradient of its own slice.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(  # noqa: TRY004  (PyTorch raises RuntimeError here)
            "pad_sequence: Expected iterable for input sequences, but got arg "
            f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if any(s.dim() == 0 for s in sequences):
        raise RuntimeError("pad_sequence: each sequence needs a length dimension, got a 0-d tensor")
    first = sequences[0]
    longest = max(s.size(0) for s in sequences)
    batch = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = creation.full(batch + tuple(first.shape[1:]), padding_value, dtype=first.dtype,
                        device=first.device)
    for i, sequence in enumerate(sequences):
        length = sequence.size(0)
        steps = slice(0, length) if padding_side == "right" else slice(longest - length, longest)
        out[(i, steps) if batch_first else (steps, i)].copy_(sequence)  # broadcasts as torch's
    return out
