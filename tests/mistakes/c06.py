"""Typical wrong answers to exercise 06 (subgradients, ties, ``Function.apply``), and the
hint each must get."""

from exercise_tasks import Mistake

ABS_RELU = "ec8a0f29"   # Task 1: AbsBackward0.backward (part 0), ReluBackward0.backward (part 1)
MAX = "6288d831"        # Task 2: MaxBackward1.backward
APPLY = "c556ad99"      # Task 3: Function.apply

APPLY_REFERENCE = '''
ctx = cls.node_class(tuple(
    gradient_edge(a) if isinstance(a, Tensor) else (None, 0) for a in args))
ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
with no_grad():
    out = cls.forward(ctx, *args)
if any(a is out for a in args):
    out = Tensor(out.array)
if GradMode.enabled and any(ctx.needs_input_grad):
    out.grad_fn = ctx
return out
'''


def apply(**replaced):
    """The reference apply with some of its lines replaced (a line's new text may span lines)."""
    answer = APPLY_REFERENCE
    for old, new in replaced.items():
        old = {"edges": "ctx = cls.node_class(tuple(\n"
                        "    gradient_edge(a) if isinstance(a, Tensor) else (None, 0) for a in args))",
               "needs": "ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)",
               "forward": "with no_grad():\n    out = cls.forward(ctx, *args)",
               "wrap": "if any(a is out for a in args):\n    out = Tensor(out.array)",
               "record": "if GradMode.enabled and any(ctx.needs_input_grad):"}[old]
        assert old in answer, old
        answer = answer.replace(old, new)
    return answer


MISTAKES = [
    # Task 1: AbsBackward0
    Mistake(cell=ABS_RELU, part=0, what="+1 at the corner (x >= 0 counted as positive)", answer='''
        (a,) = self.saved
        return (np.where(a.array >= 0, grad, -grad),)
        ''', hint="At x = 0 PyTorch picks the subgradient 0 for |x|"),
    Mistake(cell=ABS_RELU, part=0, what="the sign as x / |x| (NaN at 0)", answer='''
        (a,) = self.saved
        return (grad * a.array / np.abs(a.array),)
        ''', hint="At x = 0 PyTorch picks the subgradient 0 for |x|"),
    Mistake(cell=ABS_RELU, part=0, what="the local slope without the incoming gradient", answer='''
        (a,) = self.saved
        return (np.sign(a.array),)
        ''', hint="the chain rule multiplies it by the gradient that arrived"),

    # Task 1: ReluBackward0
    Mistake(cell=ABS_RELU, part=1, what="output >= 0, as if it were the input (passes everywhere)", answer='''
        (result,) = self.saved
        return (np.where(result.array >= 0, grad, 0),)
        ''', hint="a test like output >= 0 holds everywhere"),
    Mistake(cell=ABS_RELU, part=1, what="a product with a 0/1 mask (0 * inf is NaN)", answer='''
        (result,) = self.saved
        return (grad * (result.array > 0),)
        ''', hint="do not multiply by a 0/1 mask"),
    Mistake(cell=ABS_RELU, part=1, what="selected where output > 0 (a NaN output gets 0)", answer='''
        (result,) = self.saved
        return (np.where(result.array > 0, grad, 0),)
        ''', hint="Where relu's output is NaN (relu of NaN) PyTorch passes the gradient"),
    Mistake(cell=ABS_RELU, part=1, what="the 0/1 slope without the incoming gradient", answer='''
        (result,) = self.saved
        return ((result.array > 0).astype(grad.dtype),)
        ''', hint="it does not replace it by 1"),

    # Task 2: MaxBackward1
    Mistake(cell=MAX, what="every tied maximum gets the whole gradient", answer='''
        a, result = self.saved
        return (np.where(a.array == result.array, grad, 0),)
        ''', hint="The shares must add up to the gradient that arrived"),
    Mistake(cell=MAX, what="the first maximum only (argmax: max(dim=)'s rule)", answer='''
        a, result = self.saved
        out = np.zeros_like(a.array)
        out.flat[np.argmax(a.array)] = grad
        return (out,)
        ''', hint="not only the first one"),
    Mistake(cell=MAX, what="1 / k without the incoming gradient", answer='''
        a, result = self.saved
        winners = a.array == result.array
        return (np.where(winners, 1 / winners.sum(), 0),)
        ''', hint="The shares must add up to the gradient that arrived"),

    # Task 3: Function.apply
    Mistake(cell=APPLY, what="a plain BackwardFunction, not the subclass's node class",
            answer=apply(edges="ctx = BackwardFunction(tuple(\n"
                               "    gradient_edge(a) if isinstance(a, Tensor) else (None, 0) for a in args))"),
            hint="the Function's own node class"),
    Mistake(cell=APPLY, what="edges for the tensors only (a number gets none)",
            answer=apply(edges="ctx = cls.node_class(tuple(gradient_edge(a) for a in args if isinstance(a, Tensor)))"),
            hint="one edge per argument"),
    Mistake(cell=APPLY, what="needs_input_grad True for every tensor",
            answer=apply(needs="ctx.needs_input_grad = tuple(isinstance(a, Tensor) for a in args)"),
            hint="ctx.needs_input_grad says, per argument, whether it is a tensor that requires grad"),
    Mistake(cell=APPLY, what="needs_input_grad set only after forward ran",
            answer=apply(needs="", forward="with no_grad():\n    out = cls.forward(ctx, *args)\n"
                         "ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)"),
            hint="must be set before forward runs"),
    Mistake(cell=APPLY, what="forward run with grad mode on",
            answer=apply(forward="out = cls.forward(ctx, *args)"),
            hint="forward runs with grad mode off"),
    Mistake(cell=APPLY, what="an input returned as it is gets the node",
            answer=apply(wrap=""),
            hint="When forward returns an input as it is"),
    Mistake(cell=APPLY, what="recorded whenever grad mode is on",
            answer=apply(record="if GradMode.enabled:"),
            hint="With no input that requires grad, apply records nothing"),
    Mistake(cell=APPLY, what="grad mode ignored",
            answer=apply(record="if any(ctx.needs_input_grad):"),
            hint="Under no_grad() apply records nothing"),
]
