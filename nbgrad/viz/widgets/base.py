"""The shape every chapter widget shares: controls, one figure, and a ``draw`` callback.

A widget subclass declares its controls (ipywidgets sliders, checkboxes, dropdowns) and
implements ``draw(**values)``, which computes with nbgrad and updates the matplotlib
figure. Changing any control calls ``draw`` again (observers fire synchronously), so a test
can set ``widget.controls["x"].value`` and inspect ``widget.data`` or the figure's lines
without a browser. In a notebook the figure is shown as a PNG under the controls.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import ipywidgets
from IPython.display import Image, clear_output, display
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from collections.abc import Mapping


class GradientWidget:
    """Base class: subclasses set ``controls`` and implement ``draw``.

    Parameters
    ----------
    controls : mapping of str to ipywidgets widget
        The controls by name; ``draw`` receives their values under these names.
    ncols : int
        How many axes (side by side) the figure has: ``self.axes``.
    """

    figsize = (8, 3.2)

    def __init__(self, controls: Mapping[str, Any], ncols: int = 1) -> None:
        self.controls = dict(controls)
        self.figure = Figure(figsize=self.figsize, dpi=80)
        self.axes = self.figure.subplots(1, ncols, squeeze=False)[0].tolist()
        self.data: dict[str, Any] = {}  # what the last draw computed: the numbers tests check
        self.output = ipywidgets.Output()
        self._displayed = False
        for control in self.controls.values():
            control.observe(self._changed, names="value")
        self.redraw()

    @property
    def values(self) -> dict[str, Any]:
        """Each control's current value, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def draw(self, **values):  # (no hints: typed, it would make every subclass's keywords
        # an incompatible override for mypy)
        """Compute with nbgrad and plot on ``self.axes`` (cleared before); store the numbers
        that tests check in ``self.data``. Every subclass defines it.

        Parameters
        ----------
        **values
            The controls' values, by the controls' names.
        """
        raise NotImplementedError

    def redraw(self) -> None:
        """Clear the axes and ``draw`` again with the controls' current values (and show
        the new figure, once the widget is displayed)."""
        for ax in self.axes:
            ax.clear()
        self.draw(**self.values)
        self.figure.tight_layout()
        if self._displayed:
            self._show()

    def _changed(self, change: Any) -> None:
        self.redraw()

    def png(self) -> bytes:
        """The figure as PNG bytes.

        Returns
        -------
        bytes
        """
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return buffer.getvalue()

    def _show(self) -> None:
        with self.output:
            clear_output(wait=True)
            display(Image(data=self.png(), format="png"))

    def widget(self) -> ipywidgets.VBox:
        """The controls above the figure, as one ipywidgets box.

        Returns
        -------
        ipywidgets.VBox
        """
        return ipywidgets.VBox([ipywidgets.HBox(list(self.controls.values())), self.output])

    def _ipython_display_(self) -> None:
        self._displayed = True
        display(self.widget())
        self._show()
