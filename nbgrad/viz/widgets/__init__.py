"""One interactive widget per chapter; each plots gradients that nbgrad computes.

The widgets need ipywidgets, matplotlib and IPython, which come with the ``[lab]`` extra:
without one of them, importing a widget says so and how to install it.
"""

from __future__ import annotations

import importlib.util

LAB_MODULES = ("ipywidgets", "matplotlib", "IPython")

for _name in LAB_MODULES:
    if importlib.util.find_spec(_name) is None:
        raise ModuleNotFoundError(
            f"nbgrad's chapter widgets need {_name}, which is not installed. It comes with the "
            "[lab] extra: pip install -e \".[lab]\" in a clone of nbgrad (or pip install "
            "\"nbgrad[lab]\"), then restart the kernel.", name=_name)

from .base import GradientWidget  # noqa: E402 - after the check, which explains a missing module

__all__ = ["GradientWidget"]
