"""Typical wrong answers to exercise 05 (version counters and in-place operations), and the
hint each must get."""

from exercise_tasks import Mistake

COUNTER = "cd480130"     # Task 1: Tensor.__init__ (part 0) and _version (part 1)
SAVED = "e55e876c"       # Task 2: SavedTensor.__init__ (part 0) and unpack (part 1)
LEAF_RULE = "6f941547"   # Task 3: check_in_place
IN_PLACE = "7f056b50"    # Task 4: in_place

# the reference unpack, with one line changed (the message's pieces)
UNPACK = '''
tensor = _unpack_without_check(self)
if self.version_counter.version != self.saved_version:
    name = self.output_of or (short_name(tensor.grad_fn) if tensor.grad_fn else None)
    where = f", which is output 0 of {name}," if name else ""
    kind = {np.float32: "FloatTensor", np.float64: "DoubleTensor"}.get(tensor.dtype.type, "Tensor")
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [buildgrad.{kind} SHAPE]{where} is at version "
        f"NOW; expected version SAVED instead.")
return tensor
'''


def unpack(shape="{list(tensor.shape)}", now="{self.version_counter.version}",
           saved="{self.saved_version}", **replaced):
    answer = UNPACK.replace("SHAPE", shape).replace("NOW", now).replace("SAVED", saved)
    for old, new in replaced.items():
        old = {"name": "name = self.output_of or (short_name(tensor.grad_fn) if tensor.grad_fn else None)",
               "kind": 'kind = {np.float32: "FloatTensor", np.float64: "DoubleTensor"}.get(tensor.dtype.type, "Tensor")',
               "check": "tensor = _unpack_without_check(self)",
               "compare": "if self.version_counter.version != self.saved_version:",
               "return": "return tensor"}[old]
        assert old in answer, old
        answer = answer.replace(old, new)
    return answer


# the reference in_place, with one part changed
IN_PLACE_ANSWER = '''
check_in_place(self)
before = Tensor(self.array.copy())
before.grad_fn = self.grad_fn
result = op(before, other)
self.array[...] = result.array
self._version_counter.version += 1
if result.grad_fn is not None:
    if self._base is None:
        self.grad_fn = result.grad_fn
    else:
        base = self._base
        copy = CopySlices((gradient_edge(base),) + result.grad_fn.next_functions[1:])
        copy.op_node, copy.positions = result.grad_fn, positions_in_base(self)
        base.grad_fn = copy
return self
'''


def in_place(old, new):
    assert old in IN_PLACE_ANSWER, old
    return IN_PLACE_ANSWER.replace(old, new)


MISTAKES = [
    # Task 1, part 0: Tensor.__init__
    Mistake(cell=COUNTER, what="the version set as a number, on the read-only property", answer='''
        _init_without_version(self, array, requires_grad)
        self._version = 0
        ''', hint="`_version` is a property, it cannot be set"),
    Mistake(cell=COUNTER, what="chapter 04's __init__ not called", answer='''
        self._version_counter = VersionCounter()
        ''', hint="Making a tensor failed: run chapter 04's __init__ first"),
    Mistake(cell=COUNTER, what="the class, not an instance (one object for every tensor)", answer='''
        _init_without_version(self, array, requires_grad)
        self._version_counter = VersionCounter
        ''', hint="a VersionCounter instance in `_version_counter` (`VersionCounter()`, not the class)"),
    Mistake(cell=COUNTER, what="the arguments of chapter 04's __init__ dropped", answer='''
        _init_without_version(self, array)
        self._version_counter = VersionCounter()
        ''', hint="Run chapter 04's __init__ (`_init_without_version`) with the same arguments"),
    # Task 1, part 1: _version
    Mistake(cell=COUNTER, part=1, what="the counter returned, not its number", answer='''
        return self._version_counter
        ''', hint="`_version` is a number: the counter's `version`"),
    Mistake(cell=COUNTER, part=1, what="a number that never moves", answer='''
        return 0
        ''', hint="`_version` must read the counter each time"),

    # Task 2, part 0: SavedTensor.__init__
    Mistake(cell=SAVED, what="the version number kept instead of the counter", answer='''
        _save_without_version(self, tensor, node)
        self.version_counter, self.saved_version = tensor._version, tensor._version
        self.output_of = short_name(node) if self.is_output else None
        ''', hint="Keep the tensor's counter itself in `version_counter`"),
    Mistake(cell=SAVED, what="the counter of the tensor chapter 04 keeps, not the output's", answer='''
        _save_without_version(self, tensor, node)
        self.version_counter, self.saved_version = self.tensor._version_counter, tensor._version
        self.output_of = short_name(node) if self.is_output else None
        ''', hint="For an output, keep the OUTPUT's counter"),
    Mistake(cell=SAVED, what="the saved version taken as 0", answer='''
        _save_without_version(self, tensor, node)
        self.version_counter, self.saved_version = tensor._version_counter, 0
        self.output_of = short_name(node) if self.is_output else None
        ''', hint="`saved_version` is the tensor's version when it is saved"),
    Mistake(cell=SAVED, what="chapter 04's __init__ not called", answer='''
        self.version_counter, self.saved_version = tensor._version_counter, tensor._version
        self.output_of = short_name(node) if self.is_output else None
        ''', hint="SavedTensor.__init__ does chapter 04's work first (`_save_without_version`)"),
    Mistake(cell=SAVED, what="no name kept for an output", answer='''
        _save_without_version(self, tensor, node)
        self.version_counter, self.saved_version = tensor._version_counter, tensor._version
        self.output_of = None
        ''', hint="An output of the saving node is named by that node"),
    Mistake(cell=SAVED, what="an input's node named when it is saved, not when it is unpacked", answer='''
        _save_without_version(self, tensor, node)
        self.version_counter, self.saved_version = tensor._version_counter, tensor._version
        self.output_of = short_name(tensor.grad_fn) if tensor.grad_fn else None
        ''', hint="Name a saved input by its grad_fn when unpack runs, not when it was saved"),
    # Task 2, part 1: unpack
    Mistake(cell=SAVED, part=1, what="the unpacked tensor's version compared (an output's never moves)",
            answer=unpack(compare="if tensor._version != self.saved_version:", now="{tensor._version}"),
            hint="For an output, watch the output's own counter"),
    Mistake(cell=SAVED, part=1, what="the shape as a tuple", answer=unpack(shape="{tensor.shape}"),
            hint="the shape as a list, as PyTorch writes it"),
    Mistake(cell=SAVED, part=1, what="float64 called FloatTensor too",
            answer=unpack(kind='kind = "FloatTensor"'), hint="[buildgrad.DoubleTensor for float64"),
    Mistake(cell=SAVED, part=1, what="the two versions swapped",
            answer=unpack(now="{self.saved_version}", saved="{self.version_counter.version}"),
            hint="'is at version <the counter's version now>; expected version <the version saved>"),
    Mistake(cell=SAVED, part=1, what="the node's full name",
            answer=unpack(name="name = self.output_of or (tensor.grad_fn.name() if tensor.grad_fn else None)"),
            hint="without its 'Backward0' (`short_name`)"),
    Mistake(cell=SAVED, part=1, what="an output named by the kept tensor's grad_fn (it has none)",
            answer=unpack(name="name = short_name(tensor.grad_fn) if tensor.grad_fn else None"),
            hint="An output of the saving node is named by that node"),
    Mistake(cell=SAVED, part=1, what="a leaf named anyway",
            answer=unpack(name="name = self.output_of or (short_name(tensor.grad_fn) if tensor.grad_fn else 'AccumulateGrad')"),
            hint="A leaf has no grad_fn"),
    Mistake(cell=SAVED, part=1, what="chapter 04's unpack skipped: a freed graph goes unnoticed",
            answer=unpack(check="tensor = self.tensor"), hint="Call chapter 04's unpack first"),
    Mistake(cell=SAVED, part=1, what="nothing returned when the version is unchanged",
            answer=unpack(**{"return": "pass"}),
            hint="unpack returns the saved tensor while its version has not moved"),

    # Task 3: check_in_place
    Mistake(cell=LEAF_RULE, what="refused under no_grad too", answer='''
        if self.requires_grad and self.is_leaf:
            raise RuntimeError(LEAF_IN_PLACE)
        if self._base is not None and self._base.is_leaf and self._base.requires_grad:
            raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)
        ''', hint="Under no_grad nothing is recorded: the leaf rule is off"),
    Mistake(cell=LEAF_RULE, what="every leaf refused, also one without grad", answer='''
        if GradMode.enabled and self.is_leaf:
            raise RuntimeError(LEAF_IN_PLACE)
        if GradMode.enabled and self._base is not None and self._base.is_leaf and self._base.requires_grad:
            raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)
        ''', hint="A leaf that does not require grad may change."),
    Mistake(cell=LEAF_RULE, what="every view that requires grad refused", answer='''
        if GradMode.enabled and self.requires_grad and self.is_leaf:
            raise RuntimeError(LEAF_IN_PLACE)
        if GradMode.enabled and self._base is not None and self.requires_grad:
            raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)
        ''', hint="A view of a non-leaf may change."),
    Mistake(cell=LEAF_RULE, what="a view known by its node, so view() and t() slip through", answer='''
        if GradMode.enabled and self.requires_grad and self.is_leaf:
            raise RuntimeError(LEAF_IN_PLACE)
        if (GradMode.enabled and type(self.grad_fn).__name__ in ("SliceBackward0", "SelectBackward0")
                and self._base.is_leaf and self._base.requires_grad):
            raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)
        ''', hint="Every view counts, `view` and `t` too"),
    Mistake(cell=LEAF_RULE, what="one message for a leaf and for its view", answer='''
        if GradMode.enabled and self.requires_grad and self.is_leaf:
            raise RuntimeError(LEAF_IN_PLACE)
        if GradMode.enabled and self._base is not None and self._base.is_leaf and self._base.requires_grad:
            raise RuntimeError(LEAF_IN_PLACE)
        ''', hint="the other message"),

    # Task 4: in_place
    Mistake(cell=IN_PLACE, what="the leaf rule never checked",
            answer=in_place("check_in_place(self)\n", ""), hint="Call check_in_place(self) first"),
    Mistake(cell=IN_PLACE, what="the leaf rule checked after writing",
            answer=in_place("check_in_place(self)\n", "").replace(
                "self._version_counter.version += 1\n", "self._version_counter.version += 1\ncheck_in_place(self)\n"),
            hint="A refused change must change nothing: check first, write after."),
    Mistake(cell=IN_PLACE, what="the operands swapped",
            answer=in_place("result = op(before, other)", "result = op(as_tensor(other, before), before)"),
            hint="self's old values first"),
    Mistake(cell=IN_PLACE, what="a new array given to self instead of writing into its memory",
            answer=in_place("self.array[...] = result.array", "self.array = result.array"),
            hint="Write the result INTO self's array"),
    Mistake(cell=IN_PLACE, what="the version not bumped",
            answer=in_place("self._version_counter.version += 1\n", ""),
            hint="Each in-place write bumps self's counter"),
    Mistake(cell=IN_PLACE, what="self not returned",
            answer=in_place("return self", "pass"), hint="in_place returns self"),
    Mistake(cell=IN_PLACE, what="op computed on self itself, which the node saves and the write changes",
            answer=in_place("before = Tensor(self.array.copy())\nbefore.grad_fn = self.grad_fn\n",
                            "before = self\n"),
            hint="Compute op on a NEW tensor holding self's old values"),
    Mistake(cell=IN_PLACE, what="the old values not copied: the saved input sees the write",
            answer=in_place("Tensor(self.array.copy())", "Tensor(self.array)"),
            hint="The node saved self's NEW values"),
    Mistake(cell=IN_PLACE, what="the old values cut off from self's history",
            answer=in_place("before.grad_fn = self.grad_fn\n", ""),
            hint="must stand where self stood in the graph"),
    Mistake(cell=IN_PLACE, what="a result's snapshot given self's requires_grad too (the setter refuses it)",
            answer=in_place("before.grad_fn = self.grad_fn\n",
                            "before.grad_fn = self.grad_fn\nbefore.requires_grad = self.requires_grad\n"),
            hint="chapter 02's setter refuses to set a result's requires_grad"),
    Mistake(cell=IN_PLACE, what="the change never recorded on a tensor of its own",
            answer=in_place("        self.grad_fn = result.grad_fn\n", "        pass\n"),
            hint="Record the change: self's grad_fn becomes the operation's node"),
    Mistake(cell=IN_PLACE, what="recorded even when op recorded nothing",
            answer=in_place("if result.grad_fn is not None:\n", "if True:\n"),
            hint="When op records nothing"),
    Mistake(cell=IN_PLACE, what="a view's change recorded on the view, not on its base",
            answer=in_place("    if self._base is None:\n", "    if True:\n"),
            hint="A change through a view is recorded on its BASE"),
    Mistake(cell=IN_PLACE, what="CopySlices given the view's edge, not the base's",
            answer=in_place("CopySlices((gradient_edge(base),)", "CopySlices((gradient_edge(self),)"),
            hint="CopySlices's first edge is the base's edge before the change"),
    Mistake(cell=IN_PLACE, what="CopySlices without the operation's other edges",
            answer=in_place("CopySlices((gradient_edge(base),) + result.grad_fn.next_functions[1:])",
                            "CopySlices((gradient_edge(base),))"),
            hint="the operation node's edges for its other inputs"),
    Mistake(cell=IN_PLACE, what="CopySlices without its op_node",
            answer=in_place("copy.op_node, copy.positions = result.grad_fn, positions_in_base(self)",
                            "copy.positions = positions_in_base(self)"),
            hint="the base's CopySlices needs op_node"),
]
