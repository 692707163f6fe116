"""The shape every chapter widget shares: controls, one figure, and a ``draw`` callback.

A widget subclass declares its controls (ipywidgets sliders, checkboxes, dropdowns) and
implements ``draw(**values)``, which computes with nbgrad and updates the matplotlib
figure. Changing any control calls ``draw`` again (observers fire synchronously), so a test
can set ``widget.controls["x"].value`` and inspect ``widget.data`` or the figure's lines
without a browser. In a notebook the figure is shown as a PNG under the controls.
"""

from __future__ import annotations

import io

import ipywidgets
from IPython.display import Image, clear_output, display
from matplotlib.figure import Figure


class GradientWidget:
    """Base class: subclasses set ``controls`` and implement ``draw``."""

    figsize = (8, 3.2)

    def __init__(self, controls, ncols=1):
        self.controls = dict(controls)
        self.figure = Figure(figsize=self.figsize, dpi=80)
        self.axes = self.figure.subplots(1, ncols, squeeze=False)[0].tolist()
        self.data = {}  # what the last draw computed: the numbers tests check
        self.output = ipywidgets.Output()
        self._displayed = False
        for control in self.controls.values():
            control.observe(self._changed, names="value")
        self.redraw()

    @property
    def values(self):
        return {name: control.value for name, control in self.controls.items()}

    def draw(self, **values):
        raise NotImplementedError

    def redraw(self):
        for ax in self.axes:
            ax.clear()
        self.draw(**self.values)
        self.figure.tight_layout()
        if self._displayed:
            self._show()

    def _changed(self, change):
        self.redraw()

    def png(self):
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return buffer.getvalue()

    def _show(self):
        with self.output:
            clear_output(wait=True)
            display(Image(data=self.png(), format="png"))

    def widget(self):
        """The controls above the figure, as one ipywidgets box."""
        return ipywidgets.VBox([ipywidgets.HBox(list(self.controls.values())), self.output])

    def _ipython_display_(self):
        self._displayed = True
        display(self.widget())
        self._show()
