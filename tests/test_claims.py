"""``nbgrad.viz.claim``: a chapter's point printed when it holds, an error when it does not."""

import numpy as np
import pytest

import nbgrad as ng
from nbgrad.viz import ClaimFailed, claim


def failure(actual, expected, **tolerance):
    with pytest.raises(ClaimFailed) as raised:
        claim(actual, expected, "the point", **tolerance)
    return str(raised.value)


@pytest.mark.parametrize("actual, expected", [
    (ng.tensor([[1., 2.]], requires_grad=True), [[1, 2]]),
    (ng.tensor(3), 3.0),
    (np.array([np.nan, np.inf, -0.0]), [np.nan, np.inf, 0.0]),
    ((2, 3), ng.Size([2, 3])),
    (ng.tensor([True, False]), [True, False]),
    (None, None), (True, True), (np.bool_(False), False), ("MulBackward0", "MulBackward0"),
])
def test_a_claim_that_holds_prints_its_statement(actual, expected, capsys):
    claim(actual, expected, "w1.grad is 101 times the first gradient")
    assert capsys.readouterr().out == "✓ w1.grad is 101 times the first gradient\n"


def test_a_claim_about_a_pytorch_tensor_compares_its_values(torch, capsys):
    claim(torch.tensor([1., 2.], requires_grad=True) * 2, ng.tensor([2., 4.]), "doubled")
    assert capsys.readouterr().out == "✓ doubled\n"
    assert "got:      [2., 4.]" in failure(torch.tensor([2., 4.]), [2., 5.])


@pytest.mark.parametrize("actual, expected", [
    (ng.tensor([1., 2.]), [1., 2.5]),              # a value
    (ng.tensor([1., 2.]), [[1., 2.]]),             # the shape, values broadcasting equal
    (ng.tensor([]), [0.]),                         # empty against one element
    (np.float32(0.798), 0.798),                    # exact unless a tolerance is given
    (1, True), (ng.tensor(True), True),            # a bool claim needs a bool
    (0, None), (None, 0), ("a", "b"), (0.0, "0.0"),
])
def test_a_claim_that_does_not_hold_raises_with_its_statement(actual, expected, capsys):
    message = failure(actual, expected)
    assert message.splitlines()[0] == "the point"
    assert message.splitlines()[1].startswith("  expected: ")
    assert message.splitlines()[2].startswith("  got:      ")
    assert capsys.readouterr().out == ""  # no check mark for a false claim


def test_tolerances_are_numpys():
    claim(np.float32(0.798), 0.798, "close", rtol=1e-6)
    claim(1e-9, 0.0, "near zero", atol=1e-8)
    failure(0.79, 0.798, rtol=1e-3)
    failure(1e-7, 0.0, atol=1e-8)


def test_the_message_shows_both_values():
    message = failure(ng.tensor([[2., 3.], [6., 9.]]), np.array([[202., 303.], [606., 909.]]))
    assert message == ("the point\n"
                       "  expected: [[202., 303.],\n"
                       "             [606., 909.]]\n"
                       "  got:      [[2., 3.],\n"
                       "             [6., 9.]]")
