"""buildgrad: the autograd package the course's learner builds, chapter by chapter.

Each chapter is a module that continues the one before it (``from <previous> import *``)
and grows the same classes: ``c00_graph`` records the graph, ``c01_engine`` runs backward,
``c02_leaves`` adds ``requires_grad`` and grad mode, ``c03_hooks`` hooks and
``retain_grad``, ``c04_saved`` saved tensors and ``retain_graph``, ``c05_inplace`` version
counters and views, ``c06_nondifferentiable`` subgradients and ``Function``,
``c07_detach`` ``detach()`` and ``.data``, ``c08_training`` ``nn`` and ``SGD``,
``c09_anomaly`` ``detect_anomaly``, ``c10_saved_hooks`` saved-tensor hooks and
``checkpoint``.

Import the stage you want, for example ``import buildgrad.c10_saved_hooks as bg`` for the
whole package. This file imports no chapter, so that importing ``buildgrad.c03_hooks``
gives exactly the package as chapter 03 leaves it. This folder is the reference build: its
chapter modules are generated from the package cells of ``solutions/`` by
``tools/make_exercises.py``. ``python -m buildgrad.workspace`` makes a learner's own copy to
write.
"""
