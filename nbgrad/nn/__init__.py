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

from __future__ import annotations

from .. import missing as _missing
from . import activation, functional, init, utils
from .activation import *  # noqa: F403  (the layers of declared operations among them)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,
                      FeatureAlphaDropout)
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, HuberLoss,
                   KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, NLLLoss, SmoothL1Loss)
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, LayerNorm
from .parameter import Parameter
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                      AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = ["functional", "init", "utils", "Module", "Parameter", "Sequential", "ModuleList",
           "ModuleDict", "ParameterList", "ParameterDict", "Linear", "Identity", "Flatten",
           "Unflatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout", *activation.__all__, "MSELoss", "NLLLoss", "CrossEntropyLoss",
           "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "KLDivLoss",
           "MarginRankingLoss", "CosineEmbeddingLoss", "CosineSimilarity", "PairwiseDistance",
           "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "Embedding",
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
           "Conv1d", "Conv2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"]


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
