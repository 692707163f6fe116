"""Exercise 08's typical wrong answers, each with the phrase its check's hint must contain."""

from exercise_tasks import Mistake

MODULE, LINEAR = "task-module-parameters", "task-linear"
LOG_SOFTMAX, NLL, SGD = "task-log-softmax", "task-nll-loss", "task-sgd-step"

MISTAKES = [
    # Task 1, Module.__setattr__ (part 0)
    Mistake(cell=MODULE, what="files the value but never sets the attribute", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        ''', hint="must still set the attribute itself"),
    Mistake(cell=MODULE, what="files it, then returns before setting it", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
            return
        if isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="must still set the attribute itself"),
    Mistake(cell=MODULE, what="sets the attribute with setattr, which recurses", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        setattr(self, name, value)
        ''', hint="calls __setattr__ again, for ever"),
    Mistake(cell=MODULE, what="files every Tensor as a parameter", answer='''
        if isinstance(value, Tensor):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="a plain Tensor is not a Parameter"),
    Mistake(cell=MODULE, what="forgets the submodules", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        object.__setattr__(self, name, value)
        ''', hint="filed in self._modules"),
    Mistake(cell=MODULE, what="replaces the dicts instead of filing into them", answer='''
        if isinstance(value, Parameter):
            object.__setattr__(self, "_parameters", {name: value})
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="replacing the whole of self._parameters"),
    Mistake(cell=MODULE, what="no rule for a name filed as a parameter: a plain tensor replaces it", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="takes only a Parameter or None"),
    Mistake(cell=MODULE, what="None refused as well", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif name in self._parameters:
            raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                            f"'{name}' (Parameter or None expected)")
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="None may be assigned"),
    Mistake(cell=MODULE, what="None allowed, but the old Parameter left filed", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif name in self._parameters and value is not None:
            raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                            f"'{name}' (Parameter or None expected)")
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="files None in its place"),
    Mistake(cell=MODULE, what="None filed under any name", answer='''
        if isinstance(value, Parameter) or value is None:
            self._parameters[name] = value
        elif name in self._parameters:
            raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                            f"'{name}' (Parameter or None expected)")
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="None is filed only under a name already filed as a parameter"),
    Mistake(cell=MODULE, what="the attribute set before the refusal", answer='''
        object.__setattr__(self, name, value)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                f"'{name}' (Parameter or None expected)")
            self._parameters[name] = None
        elif isinstance(value, Module):
            self._modules[name] = value
        ''', hint="a refused assignment changes nothing"),
    Mistake(cell=MODULE, what="a module checked first: filed where a parameter's name was", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                f"'{name}' (Parameter or None expected)")
            self._parameters[name] = None
        object.__setattr__(self, name, value)
        ''', hint="raises TypeError, as PyTorch does"),
    Mistake(cell=MODULE, what="a TypeError without the class and the name", answer='''
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError("Parameter or None expected")
            self._parameters[name] = None
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ''', hint="names the value's class and the parameter"),
    # Task 1, Module.parameters (part 1)
    Mistake(cell=MODULE, part=1, what="submodules' parameters first", answer='''
        for module in self._modules.values():
            yield from module.parameters()
        yield from self._parameters.values()
        ''', hint="the order is PyTorch's"),
    Mistake(cell=MODULE, part=1, what="one level only: a submodule's _parameters, no recursion", answer='''
        yield from self._parameters.values()
        for module in self._modules.values():
            yield from module._parameters.values()
        ''', hint="a submodule's submodule was missed"),
    Mistake(cell=MODULE, part=1, what="only the module's own parameters", answer='''
        return iter(self._parameters.values())
        ''', hint="the submodules' parameters are missing"),
    Mistake(cell=MODULE, part=1, what="yields the submodules instead of their parameters", answer='''
        yield from self._parameters.values()
        yield from self._modules.values()
        ''', hint="the Parameter objects themselves"),
    Mistake(cell=MODULE, part=1, what="yields copies of the parameters", answer='''
        for p in self._parameters.values():
            yield Parameter(p.array.copy())
        for module in self._modules.values():
            yield from module.parameters()
        ''', hint="the Parameter objects themselves"),
    Mistake(cell=MODULE, part=1, what="plain recursion: names set to None yielded", answer='''
        yield from self._parameters.values()
        for module in self._modules.values():
            yield from module.parameters()
        ''', hint="it skips a name set to None"),
    Mistake(cell=MODULE, part=1, what="recursion that skips None but yields a shared Parameter twice", answer='''
        for p in self._parameters.values():
            if p is not None:
                yield p
        for module in self._modules.values():
            yield from module.parameters()
        ''', hint="shared by two submodules (tied weights) is yielded once"),
    Mistake(cell=MODULE, part=1, what="a set of what was yielded, but one per recursive call", answer='''
        seen = set()
        for p in self._parameters.values():
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                yield p
        for module in self._modules.values():
            yield from module.parameters()
        ''', hint="remember what the whole walk has yielded"),
    Mistake(cell=MODULE, part=1, what="a queue: level by level instead of depth first", answer='''
        seen, queue = set(), [self]
        while queue:
            module = queue.pop(0)
            for p in module._parameters.values():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield p
            queue.extend(module._modules.values())
        ''', hint="depth first"),
    Mistake(cell=MODULE, part=1, what="a stack, submodules pushed in order: the last assigned comes first", answer='''
        seen, stack = set(), [self]
        while stack:
            module = stack.pop()
            for p in module._parameters.values():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield p
            stack.extend(module._modules.values())
        ''', hint="in the order they were assigned"),
    # Task 2, Linear.forward
    Mistake(cell=LINEAR, what="the weight not transposed", answer='''
        return x.mm(self.weight) + self.bias
        ''', hint="the TRANSPOSED weight"),
    Mistake(cell=LINEAR, what="the bias forgotten", answer='''
        return x.mm(self.weight.t())
        ''', hint="the bias is missing"),
    Mistake(cell=LINEAR, what="computed in NumPy, so nothing is recorded", answer='''
        return Tensor(x.array @ self.weight.array.T + self.bias.array)
        ''', hint="no gradient reached weight"),
    # Task 3, LogSoftmaxBackward0.backward (part 0)
    Mistake(cell=LOG_SOFTMAX, what="the incoming gradient summed over the whole array", answer='''
        return (grad - np.exp(result.array) * grad.sum(),)
        ''', hint="over each ROW"),
    Mistake(cell=LOG_SOFTMAX, what="row sums without keepdims", answer='''
        return (grad - np.exp(result.array) * grad.sum(axis=1),)
        ''', hint="must be a column (keepdims=True)"),
    Mistake(cell=LOG_SOFTMAX, what="only the diagonal of the Jacobian", answer='''
        return (grad * (1 - np.exp(result.array)),)
        ''', hint="every score of a row moves every output of that row"),
    Mistake(cell=LOG_SOFTMAX, what="the saved log softmax used as the softmax", answer='''
        return (grad - result.array * grad.sum(axis=1, keepdims=True),)
        ''', hint="the saved tensor is the LOG softmax"),
    # Task 3, log_softmax (part 1)
    Mistake(cell=LOG_SOFTMAX, part=1, what="no shift: exp overflows", answer='''
        out = Tensor(x.array - np.log(np.exp(x.array).sum(axis=1, keepdims=True)))
        return record(LogSoftmaxBackward0, out, (x,), saved=(out,))
        ''', hint="subtract EACH ROW's own maximum"),
    Mistake(cell=LOG_SOFTMAX, part=1, what="shifted by the whole array's maximum", answer='''
        shifted = x.array - x.array.max()
        out = Tensor(shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)))
        return record(LogSoftmaxBackward0, out, (x,), saved=(out,))
        ''', hint="subtract EACH ROW's own maximum"),
    Mistake(cell=LOG_SOFTMAX, part=1, what="normalised over the columns (axis 0)", answer='''
        shifted = x.array - x.array.max(axis=1, keepdims=True)
        out = Tensor(shifted - np.log(np.exp(shifted).sum(axis=0, keepdims=True)))
        return record(LogSoftmaxBackward0, out, (x,), saved=(out,))
        ''', hint="each row on its own"),
    Mistake(cell=LOG_SOFTMAX, part=1, what="saves the input instead of the output", answer='''
        shifted = x.array - x.array.max(axis=1, keepdims=True)
        out = Tensor(shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)))
        return record(LogSoftmaxBackward0, out, (x,), saved=(x,))
        ''', hint="save the output of log_softmax"),
    Mistake(cell=LOG_SOFTMAX, part=1, what="not recorded", answer='''
        shifted = x.array - x.array.max(axis=1, keepdims=True)
        return Tensor(shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)))
        ''', hint="log_softmax must record its node"),
    # Task 3, NllLossBackward0.backward (part 0)
    Mistake(cell=NLL, what="not divided by N", answer='''
        full = np.zeros(self.shape, dtype=grad.dtype)
        full[np.arange(self.shape[0]), self.target] = -grad
        return (full,)
        ''', hint="divide by N"),
    Mistake(cell=NLL, what="the incoming gradient ignored", answer='''
        full = np.zeros(self.shape)
        full[np.arange(self.shape[0]), self.target] = -1 / self.shape[0]
        return (full,)
        ''', hint="multiply by the incoming grad"),
    Mistake(cell=NLL, what="the sign lost", answer='''
        full = np.zeros(self.shape, dtype=grad.dtype)
        full[np.arange(self.shape[0]), self.target] = grad / self.shape[0]
        return (full,)
        ''', hint="MINUS grad / N"),
    Mistake(cell=NLL, what="whole columns instead of one entry per row", answer='''
        full = np.zeros(self.shape, dtype=grad.dtype)
        full[:, self.target] = -grad / self.shape[0]
        return (full,)
        ''', hint="ONE entry per row"),
    # Task 3, nll_loss (part 1)
    Mistake(cell=NLL, part=1, what="the sum instead of the mean", answer='''
        picked = log_probabilities.array[np.arange(len(target.array)), target.array]
        out = Tensor(-picked.sum())
        return record(NllLossBackward0, out, (log_probabilities,),
                      shape=log_probabilities.shape, target=target.array)
        ''', hint="the MEAN over the rows"),
    Mistake(cell=NLL, part=1, what="the minus forgotten", answer='''
        picked = log_probabilities.array[np.arange(len(target.array)), target.array]
        out = Tensor(picked.mean())
        return record(NllLossBackward0, out, (log_probabilities,),
                      shape=log_probabilities.shape, target=target.array)
        ''', hint="MINUS the mean"),
    Mistake(cell=NLL, part=1, what="whole columns picked", answer='''
        picked = log_probabilities.array[:, target.array]
        out = Tensor(-picked.mean())
        return record(NllLossBackward0, out, (log_probabilities,),
                      shape=log_probabilities.shape, target=target.array)
        ''', hint="pick ONE entry per row"),
    Mistake(cell=NLL, part=1, what="the target recorded as an input too", answer='''
        picked = log_probabilities.array[np.arange(len(target.array)), target.array]
        out = Tensor(-picked.mean())
        return record(NllLossBackward0, out, (log_probabilities, target),
                      shape=log_probabilities.shape, target=target.array)
        ''', hint="the target is data, not an input of the node"),
    Mistake(cell=NLL, part=1, what="not recorded", answer='''
        picked = log_probabilities.array[np.arange(len(target.array)), target.array]
        return Tensor(-picked.mean())
        ''', hint="nll_loss must record its node"),
    # Task 4, SGD.step
    Mistake(cell=SGD, what="no no_grad(): the in-place change of a leaf is refused", answer='''
        for p in self.params:
            if p.grad is None:
                continue
            g = p.grad.array
            if self.momentum:
                b = self.buffers.get(id(p))
                b = g.copy() if b is None else self.momentum * b + g
                self.buffers[id(p)] = b
                g = b
            p.sub_(Tensor(self.lr * g))
        ''', hint="under `with no_grad():`"),
    Mistake(cell=SGD, what="parameters without a gradient not skipped", answer='''
        with no_grad():
            for p in self.params:
                g = p.grad.array
                if self.momentum:
                    b = self.buffers.get(id(p))
                    b = g.copy() if b is None else self.momentum * b + g
                    self.buffers[id(p)] = b
                    g = b
                p.sub_(Tensor(self.lr * g))
        ''', hint="skip a parameter whose .grad is None"),
    Mistake(cell=SGD, what="the buffer never stored: momentum forgotten from step to step", answer='''
        with no_grad():
            for p in self.params:
                if p.grad is None:
                    continue
                g = p.grad.array
                if self.momentum:
                    b = self.buffers.get(id(p))
                    b = g.copy() if b is None else self.momentum * b + g
                    g = b
                p.sub_(Tensor(self.lr * g))
        ''', hint="kept from the parameter's previous step"),
    Mistake(cell=SGD, what="the first buffer is the gradient's array itself", answer='''
        with no_grad():
            for p in self.params:
                if p.grad is None:
                    continue
                g = p.grad.array
                if self.momentum:
                    b = self.buffers.get(id(p))
                    b = g if b is None else self.momentum * b + g
                    self.buffers[id(p)] = b
                    g = b
                p.sub_(Tensor(self.lr * g))
        ''', hint="must be a COPY of the gradient"),
    Mistake(cell=SGD, what="the array replaced: no in-place change, no version bump", answer='''
        with no_grad():
            for p in self.params:
                if p.grad is None:
                    continue
                g = p.grad.array
                if self.momentum:
                    b = self.buffers.get(id(p))
                    b = g.copy() if b is None else self.momentum * b + g
                    self.buffers[id(p)] = b
                    g = b
                p.array = p.array - self.lr * g
        ''', hint="version counter"),
    Mistake(cell=SGD, what="a new tensor bound to the loop's name: nothing moves", answer='''
        with no_grad():
            for p in self.params:
                if p.grad is None:
                    continue
                g = p.grad.array
                if self.momentum:
                    b = self.buffers.get(id(p))
                    b = g.copy() if b is None else self.momentum * b + g
                    self.buffers[id(p)] = b
                    g = b
                p = p - Tensor(self.lr * g)
        ''', hint="the parameter did not move"),
    Mistake(cell=SGD, what="the buffer not multiplied by momentum", answer='''
        with no_grad():
            for p in self.params:
                if p.grad is None:
                    continue
                g = p.grad.array
                if self.momentum:
                    b = self.buffers.get(id(p))
                    b = g.copy() if b is None else b + g
                    self.buffers[id(p)] = b
                    g = b
                p.sub_(Tensor(self.lr * g))
        ''', hint="multiplied by momentum"),
]
