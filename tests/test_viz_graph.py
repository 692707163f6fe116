"""What the graph viewer writes on a graph: names on leaves, on the tensors passed and on
the tensors in between; shapes written as PyTorch writes them; saved tensors' versions."""

import re

import nbgrad as ng
from nbgrad.viz import draw


def labels(view):
    return re.findall(r'label="([^"]*)"', view.source)


def test_names_label_leaves_outputs_and_intermediate_tensors():
    x = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    y = h.sin().sum()
    view = draw(y, names={"x": x, "h": h, "y": y})
    assert "y" in labels(view)
    assert any(label.startswith("x\\nleaf") for label in labels(view))
    # h is drawn beside MulBackward0, the node that made it, and SinBackward0 saved it
    (h_id,) = re.findall(r'(n\d+) \[label="h", shape=ellipse', view.source)
    (mul_id,) = re.findall(r'(n\d+) \[label="MulBackward0', view.source)
    assert f"{mul_id} -> {h_id} [style=dashed" in view.source
    assert "SinBackward0\\nsaved h, version 0 (now 0)" in labels(view)


def test_a_name_outside_the_drawn_graph_is_not_drawn():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    elsewhere = x * 3
    view = draw((x * 2).sum(), names={"elsewhere": elsewhere})
    assert "elsewhere" not in labels(view)


def test_unnamed_tensors_are_labelled_by_their_shape_as_a_tuple():
    w = ng.ones(2, 3, requires_grad=True)
    v = ng.ones(3, requires_grad=True)
    view = draw((w @ v).sin().sum())
    assert "SinBackward0\\nsaved (2,), version 0 (now 0)" in labels(view)
    assert any(label.startswith("(2, 3)\\nleaf") for label in labels(view))
    assert "scalar" in labels(draw(ng.tensor(2.0, requires_grad=True) * 1))


def test_a_saved_tensor_changed_in_place_is_red_and_freed_ones_say_so():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = h.sin()
    h.add_(1)
    view = draw(y, names={"h": h})
    assert re.search(r'label="SinBackward0\\nsaved h, version 0 \(now 1\)", shape=box, color=red',
                     view.source)
    z = x.exp().sum()
    z.backward()
    assert "ExpBackward0\\nsaved tensors freed by backward" in labels(draw(z))
