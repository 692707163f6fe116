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

from . import activation, functional, init, utils
from .activation import *  # noqa: F403  (the layers of declared operations among them)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .distance import CosineSimilarity, PairwiseDistance
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, HuberLoss,
                   KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, NLLLoss, SmoothL1Loss)
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, LayerNorm
from .parameter import Parameter
from .sparse import Embedding

__all__ = ["functional", "init", "utils", "Module", "Parameter", "Sequential", "ModuleList", "Linear",
           "Identity", "Flatten", *activation.__all__, "MSELoss", "NLLLoss", "CrossEntropyLoss",
           "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm",
           "GroupNorm", "Embedding", "ModuleDict", "ParameterList",
           "ParameterDict", "Unflatten", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "KLDivLoss",
           "MarginRankingLoss", "CosineEmbeddingLoss", "CosineSimilarity", "PairwiseDistance"]
