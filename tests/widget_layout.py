"""The layout check the widget tests share: what would make a widget hard to read."""

import numpy as np


def layout_problems(widget):
    """What would make the widget hard to read: a control whose description may be cut
    (its width not "initial"), an axes without labels, a legend over plotted points."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    found = [f"control {name}: description may be cut"
             for name, control in widget.controls.items()
             if type(control).__name__ != "Checkbox"
             and control.style.description_width != "initial"]
    canvas = FigureCanvasAgg(widget.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    for i, ax in enumerate(widget.axes):
        if not ax.get_xlabel() or not ax.get_ylabel():
            found.append(f"axes {i}: an axis without a label")
        legend = ax.get_legend()
        if legend is None:
            continue
        box, area = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        for line in ax.lines:
            xy = ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()])
                                        .astype(float))
            shown = ((xy[:, 0] >= area.x0) & (xy[:, 0] <= area.x1)
                     & (xy[:, 1] >= area.y0) & (xy[:, 1] <= area.y1))  # not clipped away
            covered = shown & (xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) \
                & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)
            if covered.any():
                found.append(f"axes {i}: the legend covers {line.get_label()!r}")
    return found
