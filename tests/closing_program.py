"""The closing program of *PyTorch autograd, organised* (chapter 08, section 1), as the
build-track tests run it on the learner's package (a stage of buildgrad, or the flattened
file), and the numbers section 1 derives for it by hand."""

import numpy as np

# ``T`` is the library under test, imported before; ``{sgd}`` names its SGD class
PROGRAM = """
SGD = {sgd}
x1 = T.tensor([[1., 2.], [2., 3.], [1., 1.]], requires_grad=True)
w1 = T.tensor([[1., 2., 3.], [3., 2., 1.]], requires_grad=True)
y1 = w1.mm(x1)
y1.retain_grad()
w2 = T.tensor([[1., 3.], [2., 1.]])
y2 = w2.mm(y1)
y = y2.view(-1).max()
optimizer = SGD([x1, w1], lr=0.001)
optimizer.zero_grad()
y.backward(retain_graph=True)
y3 = y ** 2
y3.backward()
optimizer.step()
print(0, y)
print('w1:', w1, '\\n', 'w1.grad:', w1.grad)
print('w2:', w2, '\\n', 'w2.grad:', w2.grad)
print('x1:', x1, '\\n', 'x1.grad:', x1.grad)
print('y1.grad:', y1.grad)
"""

# appended to PROGRAM: the values the hand derivation gives, on one line
PRINT_NUMBERS = (
    "import numpy as np\n"
    "print(*np.concatenate([w1.numpy().ravel(), w1.grad.numpy().ravel(), x1.numpy().ravel(),"
    " x1.grad.numpy().ravel(), y1.grad.numpy().ravel()]))\n")


def assert_hand_derived_numbers(out):
    """``out``: what PROGRAM + PRINT_NUMBERS printed."""
    lines = out.splitlines()
    assert lines[0] == "0 tensor(50., grad_fn=<MaxBackward1>)"
    assert " w2.grad: None" in lines
    # y = max(W2 W1 X1) = 50 at (0, 1); the two backward calls add up to (1 + 2y) = 101
    # times the first gradient; SGD then moves by -0.001 times that
    X1 = np.array([[1., 2.], [2., 3.], [1., 1.]])
    W1 = np.array([[1., 2., 3.], [3., 2., 1.]])
    W2 = np.array([[1., 3.], [2., 1.]])
    G1 = W2.T @ np.array([[0., 1.], [0., 0.]])
    dW1, dX1 = 101 * G1 @ X1.T, 101 * W1.T @ G1
    expected = [W1 - 0.001 * dW1, dW1, X1 - 0.001 * dX1, dX1, 101 * G1]
    numbers = np.array(lines[-1].split(), dtype=float)
    np.testing.assert_allclose(numbers, np.concatenate([a.ravel() for a in expected]), rtol=1e-6)
    np.testing.assert_allclose(numbers[0], 0.798, rtol=1e-6)  # w1[0, 0], as chapter 08 says
