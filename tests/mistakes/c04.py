"""Typical wrong answers to exercise 04 (saved tensors, retain_graph, gradient=), and the
hint each must get."""

from exercise_tasks import Mistake

SAVED = "c04-05"    # Task 1: SavedTensor.unpack (part 0) and release (part 1)
NODE = "c04-08"     # Task 2: Node.save (part 0), saved (part 1), release (part 2)
ENGINE = "c04-12"   # Task 3: Node.__call__ (part 0) and Tensor.backward (part 1)

# the reference backward, with one piece changed
BACKWARD = '''
shape = None if gradient is None else as_tensor(gradient).shape
if shape is not None and shape != self.shape:
    raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {shape} and "
                       f"output[0] has a shape of {self.shape}.")
OPTION
'''
OPTION = '''previous, GraphTask.retain_graph = GraphTask.retain_graph, bool(retain_graph)
try:
    _backward_without_options(self, gradient)
finally:
    GraphTask.retain_graph = previous'''


def backward(option=OPTION, check=None):
    answer = BACKWARD.replace("OPTION", option.strip("\n"))
    if check is not None:
        answer = answer.replace("shape != self.shape", check)
    return answer


MISTAKES = [
    # Task 1: SavedTensor.unpack
    Mistake(cell=SAVED, part=0, what="no check: a released tensor unpacks as None", answer='''
        return self.tensor
        ''', hint="after release(), unpack() must raise RuntimeError(SECOND_BACKWARD)"),
    Mistake(cell=SAVED, part=0, what="a message of its own", answer='''
        if self.tensor is None:
            raise RuntimeError("this saved tensor was freed by backward")
        return self.tensor
        ''', hint="PyTorch's message, SECOND_BACKWARD, not a message of your own"),
    Mistake(cell=SAVED, part=0, what="the wrong kind of error", answer='''
        if self.tensor is None:
            raise ValueError(SECOND_BACKWARD)
        return self.tensor
        ''', hint="after release(), unpack() must raise RuntimeError(SECOND_BACKWARD)"),
    Mistake(cell=SAVED, part=0, what="a copy, not the tensor", answer='''
        if self.tensor is None:
            raise RuntimeError(SECOND_BACKWARD)
        return Tensor(self.tensor.array)
        ''', hint="unpack() must return the very tensor that was saved"),

    # Task 1: SavedTensor.release
    Mistake(cell=SAVED, part=1, what="a flag, the reference kept", answer='''
        self.released = True
        ''', hint="release() must drop the SavedTensor's reference to the tensor"),
    Mistake(cell=SAVED, part=1, what="the attribute deleted", answer='''
        del self.tensor
        ''', hint="release() must set the reference to None, not delete the attribute"),
    Mistake(cell=SAVED, part=1, what="the tensor's memory thrown away", answer='''
        self.tensor.array = None
        self.tensor = None
        ''', hint="never change the tensor itself"),

    # Task 2: Node.save
    Mistake(cell=NODE, part=0, what="the tensors kept as they are", answer='''
        self._saved = tensors
        ''', hint="save() must keep in self._saved one SavedTensor(t, self) per tensor"),
    Mistake(cell=NODE, part=0, what="a generator, not a tuple", answer='''
        self._saved = (SavedTensor(t, self) for t in tensors)
        ''', hint="save() must keep a tuple in self._saved (a generator"),
    Mistake(cell=NODE, part=0, what="each SavedTensor made for the tensor's own grad_fn", answer='''
        self._saved = tuple(SavedTensor(t, t.grad_fn) for t in tensors)
        ''', hint="make each SavedTensor for the node that saves, SavedTensor(t, self)"),

    # Task 2: Node.saved
    Mistake(cell=NODE, part=1, what="the SavedTensors themselves, not unpacked", answer='''
        return self._saved
        ''', hint="saved must unpack each SavedTensor"),
    Mistake(cell=NODE, part=1, what="the references read past unpack()", answer='''
        return tuple(saved.tensor for saved in self._saved)
        ''', hint="after release(), reading node.saved must raise the second-backward error"),
    Mistake(cell=NODE, part=1, what="a list, not a tuple", answer='''
        return [saved.unpack() for saved in self._saved]
        ''', hint="saved must be a tuple of the unpacked tensors"),
    Mistake(cell=NODE, part=1, what="in reverse order", answer='''
        return tuple(saved.unpack() for saved in reversed(self._saved))
        ''', hint="in the order save() got them"),

    # Task 2: Node.release
    Mistake(cell=NODE, part=2, what="the tuple emptied instead", answer='''
        self._saved = ()
        ''', hint="release() must release each SavedTensor, not empty the tuple"),
    Mistake(cell=NODE, part=2, what="the tuple thrown away", answer='''
        self._saved = None
        ''', hint="release() must release each SavedTensor and keep the tuple"),
    Mistake(cell=NODE, part=2, what="only the first one released", answer='''
        if self._saved:
            self._saved[0].release()
        ''', hint="release() must release every SavedTensor of the node"),

    # Task 3: Node.__call__
    Mistake(cell=ENGINE, part=0, what="released before it runs", answer='''
        if not GraphTask.retain_graph:
            self.release()
        return _call_without_freeing(self, grad)
        ''', hint="release a node after it has run, not before"),
    Mistake(cell=ENGINE, part=0, what="retain_graph ignored", answer='''
        grads = _call_without_freeing(self, grad)
        self.release()
        return grads
        ''', hint="backward(retain_graph=True) must keep the saved tensors"),
    Mistake(cell=ENGINE, part=0, what="never released", answer='''
        return _call_without_freeing(self, grad)
        ''', hint="a second backward() must raise PyTorch's error"),
    Mistake(cell=ENGINE, part=0, what="the gradients not returned", answer='''
        _call_without_freeing(self, grad)
        if not GraphTask.retain_graph:
            self.release()
        ''', hint="Node.__call__ must return the gradients"),

    # Task 3: Tensor.backward
    Mistake(cell=ENGINE, part=1, what="no shape check", answer='''
        previous, GraphTask.retain_graph = GraphTask.retain_graph, bool(retain_graph)
        try:
            _backward_without_options(self, gradient)
        finally:
            GraphTask.retain_graph = previous
        ''', hint="must check that g has the output's shape"),
    Mistake(cell=ENGINE, part=1, what="sizes compared, not shapes",
            answer=backward(check="as_tensor(gradient).array.size != self.array.size"),
            hint="compare shapes exactly"),
    Mistake(cell=ENGINE, part=1, what="gradient= not handed on", answer=backward(option='''
previous, GraphTask.retain_graph = GraphTask.retain_graph, bool(retain_graph)
try:
    _backward_without_options(self)
finally:
    GraphTask.retain_graph = previous'''), hint="backward(gradient=v) must start from v"),
    Mistake(cell=ENGINE, part=1, what="the option set only when true, never put back",
            answer=backward(option='''
if retain_graph:
    GraphTask.retain_graph = True
_backward_without_options(self, gradient)'''), hint="retain_graph=True must hold for that backward call only"),
    Mistake(cell=ENGINE, part=1, what="the option left set after the call", answer=backward(option='''
GraphTask.retain_graph = bool(retain_graph)
_backward_without_options(self, gradient)'''), hint="must be back to the value it had before the call"),
    Mistake(cell=ENGINE, part=1, what="put back, but not when backward raises", answer=backward(option='''
previous, GraphTask.retain_graph = GraphTask.retain_graph, bool(retain_graph)
_backward_without_options(self, gradient)
GraphTask.retain_graph = previous'''), hint="(put it back in a finally)"),
    Mistake(cell=ENGINE, part=1, what="reset to False, not to the value before", answer=backward(option='''
GraphTask.retain_graph = bool(retain_graph)
try:
    _backward_without_options(self, gradient)
finally:
    GraphTask.retain_graph = False'''), hint="Put back the value GraphTask.retain_graph had before the call (not False)"),
]
