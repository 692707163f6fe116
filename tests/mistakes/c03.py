"""Typical wrong answers to exercise 03 (hooks and retain_grad), and the hint each must get."""

from exercise_tasks import Mistake

REGISTER = "task-register-hook"
RETAIN = "task-retain-grad"
GRAD = "task-grad-property"
CALL = "task-call-hooks"

MISTAKES = [
    # Task 1: register_hook
    Mistake(cell=REGISTER, what="every hook kept on the tensor, a result's too", answer='''
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        handle = RemovableHandle(self, "_hooks")
        self._hooks = self._hooks + (hook,)
        self._hooks_ids = self._hooks_ids + (handle.id,)
        return handle
        ''', hint="a result's hooks go on its grad_fn"),
    Mistake(cell=REGISTER, what="every hook put on grad_fn, a leaf's too", answer='''
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        handle = RemovableHandle(self.grad_fn, "pre_hooks")
        self.grad_fn.pre_hooks = self.grad_fn.pre_hooks + (hook,)
        self.grad_fn.pre_hooks_ids = self.grad_fn.pre_hooks_ids + (handle.id,)
        return handle
        ''', hint="register_hook on a leaf raised: a leaf has no grad_fn"),
    Mistake(cell=REGISTER, what="the new hook put first", answer='''
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        owner, attribute = (self, "_hooks") if self.is_leaf else (self.grad_fn, "pre_hooks")
        handle = RemovableHandle(owner, attribute)
        setattr(owner, attribute, (hook,) + getattr(owner, attribute))
        setattr(owner, attribute + "_ids", (handle.id,) + getattr(owner, attribute + "_ids"))
        return handle
        ''', hint="hooks run in registration order"),
    Mistake(cell=REGISTER, what="the handle's id not recorded", answer='''
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        owner, attribute = (self, "_hooks") if self.is_leaf else (self.grad_fn, "pre_hooks")
        setattr(owner, attribute, getattr(owner, attribute) + (hook,))
        return RemovableHandle(owner, attribute)
        ''', hint="handle.remove() took nothing off"),
    Mistake(cell=REGISTER, what="no handle returned", answer='''
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        owner, attribute = (self, "_hooks") if self.is_leaf else (self.grad_fn, "pre_hooks")
        handle = RemovableHandle(owner, attribute)
        setattr(owner, attribute, getattr(owner, attribute) + (hook,))
        setattr(owner, attribute + "_ids", getattr(owner, attribute + "_ids") + (handle.id,))
        ''', hint="register_hook returns the handle"),
    Mistake(cell=REGISTER, what="a tensor without grad accepted", answer='''
        owner, attribute = (self, "_hooks") if self.is_leaf else (self.grad_fn, "pre_hooks")
        handle = RemovableHandle(owner, attribute)
        setattr(owner, attribute, getattr(owner, attribute) + (hook,))
        setattr(owner, attribute + "_ids", getattr(owner, attribute + "_ids") + (handle.id,))
        return handle
        ''', hint="a tensor that does not require grad has no gradient to hook"),

    # Task 2, part 0: retain_grad
    Mistake(cell=RETAIN, what="leaves marked too (they have no grad_fn)", answer='''
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self.grad_fn.retains = weakref.ref(self)
        ''', hint="retain_grad() on a leaf raised"),
    Mistake(cell=RETAIN, what="the tensor itself stored, not a weak reference", answer='''
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if not self.is_leaf:
            self.grad_fn.retains = self
        ''', hint="not the tensor itself"),
    Mistake(cell=RETAIN, what="a strong reference (a closure over the tensor)", answer='''
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if not self.is_leaf:
            self.grad_fn.retains = lambda: self
        ''', hint="keep a *weak* reference"),
    Mistake(cell=RETAIN, what="a tensor without grad accepted", answer='''
        if not self.is_leaf:
            self.grad_fn.retains = weakref.ref(self)
        ''', hint="must raise PyTorch's error"),

    # Task 2, part 1: retains_grad
    Mistake(cell=RETAIN, part=1, what="a leaf's grad_fn read", answer='''
        return self.grad_fn.retains is not None
        ''', hint="retains_grad on a leaf raised"),
    Mistake(cell=RETAIN, part=1, what="every non-leaf said to retain", answer='''
        return not self.is_leaf
        ''', hint="True only for a non-leaf that called retain_grad()"),
    Mistake(cell=RETAIN, part=1, what="leaves said to retain", answer='''
        return self.is_leaf or self.grad_fn.retains is not None
        ''', hint="a leaf reports False"),

    # Task 3: the .grad property
    Mistake(cell=GRAD, what="a warning for every tensor", answer='''
        warnings.warn(NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad
        ''', hint="reading a leaf's .grad never warns"),
    Mistake(cell=GRAD, what="a retaining non-leaf warned about", answer='''
        if not self.is_leaf and self._grad is None:
            warnings.warn(NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad
        ''', hint="a non-leaf that called retain_grad() reads its .grad silently"),
    Mistake(cell=GRAD, what="a warning even when a gradient is there", answer='''
        if not self.is_leaf and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad
        ''', hint="warn only while the non-leaf has no gradient"),
    Mistake(cell=GRAD, what="the warning reported inside the property", answer='''
        if not self.is_leaf and not self.retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD, UserWarning)
        return self._grad
        ''', hint="point at the line that read .grad"),
    Mistake(cell=GRAD, what="None returned for a non-leaf, whatever it holds", answer='''
        if not self.is_leaf and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD, UserWarning, stacklevel=2)
            return None
        return self._grad
        ''', hint="warn only while the non-leaf has no gradient"),
    Mistake(cell=GRAD, what="a warning of its own words", answer='''
        if not self.is_leaf and not self.retains_grad and self._grad is None:
            warnings.warn("this tensor is not a leaf: call retain_grad()", UserWarning, stacklevel=2)
        return self._grad
        ''', hint="the warning is PyTorch's text"),

    # Task 4: Node.__call__
    Mistake(cell=CALL, what="the gradient stored before the hooks run", answer='''
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        for hook in self.pre_hooks:
            replaced = hook(Tensor(grad))
            if replaced is not None:
                grad = as_tensor(replaced).array
        return _call_without_hooks(self, grad)
        ''', hint="retain_grad runs AFTER the hooks"),
    Mistake(cell=CALL, what="what a hook returns ignored", answer='''
        for hook in self.pre_hooks:
            hook(Tensor(grad))
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        return _call_without_hooks(self, grad)
        ''', hint="a hook's returned tensor replaces the gradient"),
    Mistake(cell=CALL, what="the hooks given the bare array", answer='''
        for hook in self.pre_hooks:
            replaced = hook(grad)
            if replaced is not None:
                grad = as_tensor(replaced).array
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        return _call_without_hooks(self, grad)
        ''', hint="a hook receives the gradient as a Tensor"),
    Mistake(cell=CALL, what="a hook's tensor passed on, not unwrapped", answer='''
        for hook in self.pre_hooks:
            replaced = hook(Tensor(grad))
            if replaced is not None:
                grad = replaced
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        return _call_without_hooks(self, grad)
        ''', hint="unwrap what the hook returned"),
    Mistake(cell=CALL, what="every hook given the gradient that arrived", answer='''
        arrived = grad
        for hook in self.pre_hooks:
            replaced = hook(Tensor(arrived))
            if replaced is not None:
                grad = as_tensor(replaced).array
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        return _call_without_hooks(self, grad)
        ''', hint="each hook receives what the hook before it returned"),
    Mistake(cell=CALL, what="the node run before the hooks", answer='''
        grads = _call_without_hooks(self, grad)
        for hook in self.pre_hooks:
            replaced = hook(Tensor(grad))
            if replaced is not None:
                grad = as_tensor(replaced).array
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        return grads
        ''', hint="the hooks run BEFORE the node"),
    Mistake(cell=CALL, what="a retained gradient replaced, not accumulated", answer='''
        for hook in self.pre_hooks:
            replaced = hook(Tensor(grad))
            if replaced is not None:
                grad = as_tensor(replaced).array
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad.copy())
        return _call_without_hooks(self, grad)
        ''', hint="a retained gradient accumulates like a leaf's"),
    Mistake(cell=CALL, what="the engine's array kept, not a copy", answer='''
        for hook in self.pre_hooks:
            replaced = hook(Tensor(grad))
            if replaced is not None:
                grad = as_tensor(replaced).array
        retained = self.retains() if self.retains is not None else None
        if retained is not None:
            retained._grad = Tensor(grad if retained._grad is None else retained._grad.array + grad)
        return _call_without_hooks(self, grad)
        ''', hint="a retained gradient must be a copy of its own"),
    Mistake(cell=CALL, what="the weak reference called without looking", answer='''
        for hook in self.pre_hooks:
            replaced = hook(Tensor(grad))
            if replaced is not None:
                grad = as_tensor(replaced).array
        if self.retains is not None:
            retained = self.retains()
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        return _call_without_hooks(self, grad)
        ''', hint="may be gone"),
    Mistake(cell=CALL, what="retains called when no tensor asked", answer='''
        for hook in self.pre_hooks:
            replaced = hook(Tensor(grad))
            if replaced is not None:
                grad = as_tensor(replaced).array
        retained = self.retains()
        if retained is not None:
            retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
        return _call_without_hooks(self, grad)
        ''', hint="self.retains is None until retain_grad() is called"),
]
