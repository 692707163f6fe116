"""What keeps every operation cheap, held as behaviour (benchmarks/README.md says why).

CPython 3.11 specializes attribute access only for classes whose instances use the default
lookup: a ``__getattr__`` or ``__getattribute__`` anywhere in a class's MRO makes every
attribute read on its instances take the slow path, and nbgrad reads a tensor's and a
node's attributes on every operation, forward and backward.
"""

import numpy as np
import pytest

import nbgrad as ng
from nbgrad.core.node import Node


def _every_node_class():
    found, todo = [], [Node]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


HOT_CLASSES = [ng.Tensor, ng.nn.Parameter, *_every_node_class()]


@pytest.mark.parametrize("cls", HOT_CLASSES, ids=lambda cls: cls.__name__)
def test_a_hot_class_keeps_the_default_attribute_lookup(cls):
    overriding = [(klass.__name__, name) for klass in cls.__mro__ if klass is not object
                  for name in ("__getattr__", "__getattribute__") if name in vars(klass)]
    assert overriding == [], f"{cls.__name__}: {overriding} slows every attribute read"


def test_a_name_pytorch_has_still_says_that_nbgrad_lacks_it():
    t = ng.ones(2)
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'stft': "
                                             r"nbgrad does not implement torch\.Tensor\.stft \(yet\)$"):
        t.stft
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'no_such_name'$"):
        t.no_such_name
    assert not hasattr(t, "stft") and "stft" not in dir(t) and "sum" in dir(t)


def test_saved_names_read_without_a_getattr():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    w = ng.tensor([3.0, 4.0], requires_grad=True)
    node = (x * w).grad_fn
    assert node._saved_self is x and node._saved_other is w
    assert [name for name in dir(node) if name.startswith("_saved_")] == ["_saved_other",
                                                                           "_saved_self"]
    assert node._raw_saved_self.__class__.__name__ == "RawSaved"
    assert ng.tensor(np.ones((2, 3)), requires_grad=True).sum(1).grad_fn._saved_keepdim is False
