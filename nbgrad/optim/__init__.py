"""Optimizers with PyTorch's API and update rules: ``SGD``, ``Adam``, ``AdamW``,
``RMSprop``, ``Adagrad``, ``Adadelta``, ``Adamax``, ``NAdam``, ``RAdam``, ``Rprop``,
``ASGD``, ``LBFGS``; learning-rate schedules in ``lr_scheduler``.

    >>> import nbgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0, -2.0]))
    >>> opt = ng.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8000, -1.6000], requires_grad=True)

Reading order: ``optimizer.py`` (groups and state), ``sgd.py``, ``adam.py``,
``rmsprop.py``, ``adagrad.py``; then ``lr_scheduler.py``. The others are variations:
``adadelta.py``, ``adamax.py``, ``nadam.py``, ``radam.py``, ``rprop.py``, ``asgd.py``;
``lbfgs.py`` is a quasi-Newton method, its ``step`` a closure's loop.
"""

from __future__ import annotations

from .. import missing as _missing
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS",
           "lr_scheduler"]


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
