"""Neural-network building blocks with PyTorch's API: ``Module``, layers, losses, ``init``.

    >>> import nbgrad as ng
    >>> from nbgrad import nn
    >>> model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    >>> model
    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
    )
    >>> [name for name, _ in model.named_parameters()]
    ['0.weight', '0.bias']

Reading order: ``module.py`` (how a module registers its parts), ``linear.py``,
``functional.py`` (the losses as compositions of differentiable operations).
"""

from .. import missing as _missing
from . import activation, functional, init, utils
from .activation import *  # noqa: F403  (the layers of declared operations among them)
from .container import ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,
                      FeatureAlphaDropout)
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                      AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ = ["functional", "init", "Module", "Parameter", "Sequential", "ModuleList", "Linear",
           "Identity", "Flatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout", *activation.__all__, "MSELoss", "NLLLoss", "CrossEntropyLoss",
           "BCEWithLogitsLoss", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell",
           "LSTMCell", "GRUCell", "Conv1d", "Conv2d", "MaxPool1d", "MaxPool2d", "AvgPool1d",
           "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d"]


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
