"""Typical wrong answers to exercise 00 (the recorder), and the hint each must get."""

from exercise_tasks import Mistake

EDGE = "task-gradient-edge"
RECORD = "task-record"
MUL = "task-mul"  # part 0: MulBackward0.backward, part 1: mul

MISTAKES = [
    # Task 1: gradient_edge
    Mistake(cell=EDGE, what="a new AccumulateGrad at every call", answer='''
        if tensor.grad_fn is not None:
            return (tensor.grad_fn, 0)
        if not tensor.requires_grad:
            return (None, 0)
        return (AccumulateGrad(tensor), 0)
        ''', hint="Made a new AccumulateGrad at every call?"),
    Mistake(cell=EDGE, what="the leaf holds its accumulator strongly", answer='''
        if tensor.grad_fn is not None:
            return (tensor.grad_fn, 0)
        if not tensor.requires_grad:
            return (None, 0)
        if tensor._accumulator is None:
            tensor._accumulator = AccumulateGrad(tensor)
        return (tensor._accumulator, 0)
        ''', hint="The leaf keeps its AccumulateGrad alive"),
    Mistake(cell=EDGE, what="a dead weak reference not replaced", answer='''
        if tensor.grad_fn is not None:
            return (tensor.grad_fn, 0)
        if not tensor.requires_grad:
            return (None, 0)
        if tensor._accumulator is None:
            accumulator = AccumulateGrad(tensor)
            tensor._accumulator = weakref.ref(accumulator)
            return (accumulator, 0)
        return (tensor._accumulator(), 0)
        ''', hint="Once a leaf's accumulator is gone"),
    Mistake(cell=EDGE, what="a result treated as a leaf (its grad_fn ignored)", answer='''
        if not tensor.requires_grad:
            return (None, 0)
        accumulator = tensor._accumulator() if tensor._accumulator else None
        if accumulator is None:
            accumulator = AccumulateGrad(tensor)
            tensor._accumulator = weakref.ref(accumulator)
        return (accumulator, 0)
        ''', hint="A result (a tensor with a grad_fn) sends its gradient to its grad_fn"),
    Mistake(cell=EDGE, what="an accumulator for a leaf that needs no gradient", answer='''
        if tensor.grad_fn is not None:
            return (tensor.grad_fn, 0)
        accumulator = tensor._accumulator() if tensor._accumulator else None
        if accumulator is None:
            accumulator = AccumulateGrad(tensor)
            tensor._accumulator = weakref.ref(accumulator)
        return (accumulator, 0)
        ''', hint="A leaf that does not require grad has no edge"),
    Mistake(cell=EDGE, what="the node alone, not the pair (node, output_nr)", answer='''
        if tensor.grad_fn is not None:
            return tensor.grad_fn
        if not tensor.requires_grad:
            return None
        accumulator = tensor._accumulator() if tensor._accumulator else None
        if accumulator is None:
            accumulator = AccumulateGrad(tensor)
            tensor._accumulator = weakref.ref(accumulator)
        return accumulator
        ''', hint="An edge is a pair (node, output_nr)"),

    # Task 2: record
    Mistake(cell=RECORD, what="recorded only when ALL inputs require grad", answer='''
        if all(t.requires_grad for t in inputs):
            node = node_class(tuple(gradient_edge(t) for t in inputs))
            out.grad_fn = node
            node.save(*saved)
            node.__dict__.update(fields)
        return out
        ''', hint="recorded when ANY of its inputs requires grad"),
    Mistake(cell=RECORD, what="recorded even when no input requires grad", answer='''
        node = node_class(tuple(gradient_edge(t) for t in inputs))
        out.grad_fn = node
        node.save(*saved)
        node.__dict__.update(fields)
        return out
        ''', hint="Recorded a node although no input requires grad?"),
    Mistake(cell=RECORD, what="edges only for the inputs that require grad", answer='''
        if any(t.requires_grad for t in inputs):
            node = node_class(tuple(gradient_edge(t) for t in inputs if t.requires_grad))
            out.grad_fn = node
            node.save(*saved)
            node.__dict__.update(fields)
        return out
        ''', hint="one edge per input, in the inputs' order"),
    Mistake(cell=RECORD, what="next_functions as a list", answer='''
        if any(t.requires_grad for t in inputs):
            node = node_class([gradient_edge(t) for t in inputs])
            out.grad_fn = node
            node.save(*saved)
            node.__dict__.update(fields)
        return out
        ''', hint="next_functions is a tuple, as in PyTorch, not a list"),
    Mistake(cell=RECORD, what="the saved tensors forgotten", answer='''
        if any(t.requires_grad for t in inputs):
            node = node_class(tuple(gradient_edge(t) for t in inputs))
            out.grad_fn = node
            node.__dict__.update(fields)
        return out
        ''', hint="Forgot to save `saved` on the node?"),
    Mistake(cell=RECORD, what="the tuple saved as one item", answer='''
        if any(t.requires_grad for t in inputs):
            node = node_class(tuple(gradient_edge(t) for t in inputs))
            out.grad_fn = node
            node.save(saved)
            node.__dict__.update(fields)
        return out
        ''', hint="Saved the tuple `saved` as one item"),
    Mistake(cell=RECORD, what="the keyword fields kept as one dict", answer='''
        if any(t.requires_grad for t in inputs):
            node = node_class(tuple(gradient_edge(t) for t in inputs))
            out.grad_fn = node
            node.save(*saved)
            node.fields = fields
        return out
        ''', hint="The keyword fields must become attributes of the node"),
    Mistake(cell=RECORD, what="returned the node, not the output", answer='''
        if any(t.requires_grad for t in inputs):
            node = node_class(tuple(gradient_edge(t) for t in inputs))
            out.grad_fn = node
            node.save(*saved)
            node.__dict__.update(fields)
            return node
        return out
        ''', hint="record must return the output tensor it was given"),

    # Task 3, part 0: MulBackward0.backward
    Mistake(cell=MUL, part=0, what="each input's gradient times itself (swapped)", answer='''
        a, b = self.saved
        return sum_to(grad * a.array, a.shape), sum_to(grad * b.array, b.shape)
        ''', hint="multiply by the OTHER input, not by a itself"),
    Mistake(cell=MUL, part=0, what="the incoming gradient forgotten", answer='''
        a, b = self.saved
        return sum_to(b.array, a.shape), sum_to(a.array, b.shape)
        ''', hint="Forgot the incoming gradient?"),
    Mistake(cell=MUL, part=0, what="broadcast gradients not summed back", answer='''
        a, b = self.saved
        return grad * b.array, grad * a.array
        ''', hint="Each gradient has its input's shape"),
    Mistake(cell=MUL, part=0, what="a list, not a tuple", answer='''
        a, b = self.saved
        return [sum_to(grad * b.array, a.shape), sum_to(grad * a.array, b.shape)]
        ''', hint="returns one gradient per input, as a tuple"),

    # Task 3, part 1: mul
    Mistake(cell=MUL, part=1, what="a number operand used as it is", answer='''
        return record(MulBackward0, Tensor(a.array * b.array), (a, b), saved=(a, b))
        ''', hint="must first become a tensor"),
    Mistake(cell=MUL, part=1, what="a number made a tensor of its own dtype", answer='''
        a, b = as_tensor(a), as_tensor(b)
        return record(MulBackward0, Tensor(a.array * b.array), (a, b), saved=(a, b))
        ''', hint="A Python number takes the tensor's dtype"),
    Mistake(cell=MUL, part=1, what="the result not recorded", answer='''
        a, b = as_tensor(a, b), as_tensor(b, a)
        return Tensor(a.array * b.array)
        ''', hint="a * b recorded nothing"),
    Mistake(cell=MUL, part=1, what="nothing saved for backward", answer='''
        a, b = as_tensor(a, b), as_tensor(b, a)
        return record(MulBackward0, Tensor(a.array * b.array), (a, b))
        ''', hint="MulBackward0 saves both input tensors"),
    Mistake(cell=MUL, part=1, what="the arrays saved, not the tensors", answer='''
        a, b = as_tensor(a, b), as_tensor(b, a)
        return record(MulBackward0, Tensor(a.array * b.array), (a, b), saved=(a.array, b.array))
        ''', hint="MulBackward0 saves both input tensors"),
    Mistake(cell=MUL, part=1, what="the inputs in the wrong order", answer='''
        a, b = as_tensor(a, b), as_tensor(b, a)
        return record(MulBackward0, Tensor(a.array * b.array), (b, a), saved=(a, b))
        ''', hint="The edges follow the operands' order"),
]
