"""The ``AttributeError`` for a name nbgrad lacks: does PyTorch have it, or is it a typo?

``import nbgrad as torch`` runs real PyTorch programs only as far as nbgrad offers
PyTorch's names. When a program reaches one that is missing, Python's bare "module
'nbgrad' has no attribute 'stft'" would leave the user guessing; so each public module
ends with ``__getattr__ = missing.module_getattr(__name__)``, which Python calls only
after the ordinary lookup failed (it costs nothing on the names that exist). It checks
``torch_names.json``, the public names of PyTorch's matching module written by
``tools/list_torch_names.py``, and says which case it is.
"""

from __future__ import annotations

import functools
import json
import pathlib
import sys

__all__ = ["module_getattr", "not_implemented"]

# What to use instead, where nbgrad has something that does the job.
INSTEAD = {
    "torch.compile": "nbgrad runs eagerly: call the model or function itself",
    "torch.vmap": "write the batched computation directly, or loop over the batch",
}


@functools.cache
def _torch_names():
    path = pathlib.Path(__file__).with_name("torch_names.json")
    document = json.loads(path.read_text())
    return {module: frozenset(names) for module, names in document["names"].items()}


def torch_counterpart(module_name):
    """``"torch.nn.functional"`` for ``"nbgrad.nn.functional"``."""
    return "torch" + module_name[len("nbgrad"):]


def not_implemented(torch_module, name):
    """The sentence for a PyTorch name nbgrad lacks, or ``None`` if PyTorch has no such name."""
    if name.startswith("_") or name not in _torch_names().get(torch_module, ()):
        return None
    full = f"{torch_module}.{name}"
    sentence = f"nbgrad does not implement {full} (yet)"
    if full in INSTEAD:
        sentence += f"; instead, {INSTEAD[full]}"
    return sentence


def module_getattr(module_name):
    """A module-level ``__getattr__`` for ``module_name`` that explains a missing name."""
    torch_module = torch_counterpart(module_name)

    def __getattr__(name):
        message = f"module '{module_name}' has no attribute '{name}'"
        sentence = not_implemented(torch_module, name)
        raise AttributeError(message if sentence is None else f"{message}: {sentence}",
                             name=name, obj=sys.modules.get(module_name))

    return __getattr__
