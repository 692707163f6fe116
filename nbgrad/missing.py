"""The ``AttributeError`` for a name nbgrad lacks: does PyTorch have it, or is it a typo?

``import nbgrad as torch`` runs real PyTorch programs only as far as nbgrad offers
PyTorch's names. When a program reaches one that is missing, Python's bare "module
'nbgrad' has no attribute 'stft'" would leave the user guessing; so each public module
ends with ``__getattr__ = missing.module_getattr(__name__)``, which Python calls only
after the ordinary lookup failed (it costs nothing on the names that exist). It checks
``torch_names.json``, the public names of PyTorch's matching module written by
``tools/list_torch_names.py``, and says which case it is.

``Tensor`` does the same with a base class instead (``lacking``): in a class with a
``__getattr__``, CPython 3.11 does not specialize attribute access, and nbgrad reads a
tensor's attributes on every operation.
"""

from __future__ import annotations

import functools
import json
import pathlib
import sys

__all__ = ["lacking", "module_getattr", "not_implemented", "visible_names"]

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


class Unimplemented:
    """A name of a PyTorch class that nbgrad's lacks, as a class attribute: reading it
    raises the ``AttributeError`` that says so."""

    __slots__ = ("name", "sentence")

    def __init__(self, name, sentence):
        self.name = name
        self.sentence = sentence

    def __get__(self, obj, cls=None):
        if obj is None:
            message = f"type object '{cls.__name__}' has no attribute '{self.name}'"
        else:
            message = f"'{type(obj).__name__}' object has no attribute '{self.name}'"
        raise AttributeError(f"{message}: {self.sentence}", name=self.name,
                             obj=cls if obj is None else obj)

    def __repr__(self):
        return f"<{self.sentence}>"


def lacking(torch_class):
    """A base class for nbgrad's counterpart of ``torch_class`` (``"torch.Tensor"``): an
    ``Unimplemented`` for each of its public names, which the subclass's own attributes
    shadow; the others say that nbgrad lacks them."""
    names = {name: Unimplemented(name, not_implemented(torch_class, name))
             for name in _torch_names().get(torch_class, ()) if not name.startswith("_")}
    return type(f"Lacking{torch_class.rpartition('.')[2]}", (), {"__slots__": (), **names})


def visible_names(obj):
    """``dir(obj)`` without the names it lacks (``lacking``): ``__dir__`` of such a class."""
    cls = type(obj)
    return [name for name in object.__dir__(obj)
            if not isinstance(_class_attribute(cls, name), Unimplemented)]


def _class_attribute(cls, name):
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None
