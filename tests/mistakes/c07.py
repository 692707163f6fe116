"""Typical wrong answers to exercise 07 (detach(), .data, detach_()), and the hint each must
get."""

from exercise_tasks import Mistake

DETACH = "d92bbf97"     # Task 1: Tensor.detach
DATA = "d767b6a7"       # Task 2: the Tensor.data property
IN_PLACE = "ca6ebfc1"   # Task 3: Tensor.detach_

MISTAKES = [
    # Task 1: detach()
    Mistake(cell=DETACH, what="a counter of its own (what .data does)", answer='''
        return Tensor(self.array)
        ''', hint="detach() must share the tensor's version counter"),
    Mistake(cell=DETACH, what="the counter's number copied, not the counter", answer='''
        out = Tensor(self.array)
        out._version_counter.version = self._version
        return out
        ''', hint="detach() must share the tensor's version counter"),
    Mistake(cell=DETACH, what="a copy of the array", answer='''
        out = Tensor(self.array.copy())
        out._version_counter = self._version_counter
        return out
        ''', hint="must share the tensor's memory, not copy it"),
    Mistake(cell=DETACH, what="the flag carried over", answer='''
        out = Tensor(self.array, requires_grad=self.requires_grad)
        out._version_counter = self._version_counter
        return out
        ''', hint="must have no history"),
    Mistake(cell=DETACH, what="the tensor itself", answer='''
        return self
        ''', hint="must return a new tensor, not the tensor itself"),

    # Task 2: .data
    Mistake(cell=DATA, what="the counter shared (what detach() does)", answer='''
        return self.detach()
        ''', hint=".data must have a version counter of its own"),
    Mistake(cell=DATA, what="a new counter that starts at the tensor's version", answer='''
        out = Tensor(self.array)
        out._version_counter.version = self._version
        return out
        ''', hint=".data's version counter is a new one, at 0"),
    Mistake(cell=DATA, what="the NumPy array itself", answer='''
        return self.array
        ''', hint="must return a Tensor over the tensor's array, not the array itself"),
    Mistake(cell=DATA, what="a copy of the array", answer='''
        return Tensor(self.array.copy())
        ''', hint="must share the tensor's memory, not copy it"),
    Mistake(cell=DATA, what="the flag carried over", answer='''
        return Tensor(self.array, requires_grad=self.requires_grad)
        ''', hint="must have no history"),

    # Task 3: detach_()
    Mistake(cell=IN_PLACE, what="views not refused", answer='''
        self.grad_fn = None
        self._requires_grad = False
        return self
        ''', hint="detach_() must refuse a view (a tensor whose _base is set)"),
    Mistake(cell=IN_PLACE, what="every non-leaf refused, not only views", answer='''
        if not self.is_leaf:
            raise RuntimeError(DETACH_VIEW_IN_PLACE)
        self._requires_grad = False
        return self
        ''', hint="detach_() refuses only a view"),
    Mistake(cell=IN_PLACE, what="a message of its own", answer='''
        if self._base is not None:
            raise RuntimeError("cannot detach a view in place")
        self.grad_fn = None
        self._requires_grad = False
        return self
        ''', hint="with PyTorch's message, DETACH_VIEW_IN_PLACE"),
    Mistake(cell=IN_PLACE, what="the view changed before it is refused", answer='''
        self.grad_fn = None
        self._requires_grad = False
        if self._base is not None:
            raise RuntimeError(DETACH_VIEW_IN_PLACE)
        return self
        ''', hint="must refuse a view before it changes anything"),
    Mistake(cell=IN_PLACE, what="a new tensor returned (what detach() does)", answer='''
        if self._base is not None:
            raise RuntimeError(DETACH_VIEW_IN_PLACE)
        return self.detach()
        ''', hint="detach_() works in place: it must return the tensor itself"),
    Mistake(cell=IN_PLACE, what="the history dropped, the leaf's flag kept", answer='''
        if self._base is not None:
            raise RuntimeError(DETACH_VIEW_IN_PLACE)
        self.grad_fn = None
        return self
        ''', hint="the tensor must no longer require grad"),
]
