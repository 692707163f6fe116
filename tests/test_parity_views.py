"""Views against PyTorch: how they are made, what they share, and in-place changes through them.

The rules pinned here, each over every view operation nbgrad offers (``VIEWS``) or over
random chains of them:

* a view requires grad when its base does, also when made under ``no_grad`` (then it is
  a leaf without ``grad_fn``); changing such a view in place while recording, or using it
  after its base changed in place, raises PyTorch's CreationMeta errors;
* every view operation returns a view, even when the shape does not change (and those
  that PyTorch answers with the tensor itself, such as ``flatten(0, 0)``, do the same);
* a view of a view has the first base as its ``_base``; an in-place change through any
  chain of views reaches the base's gradient (``CopySlices``), and a retained gradient
  follows its view there;
* once its base changed in place, by any route (recorded or not, through another view, a
  ``detach()``ed alias or an optimizer step), a view gets a new ``grad_fn`` from the base
  (``AsStridedBackward0``) when next read, and joins the graph if the base now does;
* PyTorch's memory-overlap rules for the written-to tensor;
* custom Functions: ``mark_dirty`` on a view of an input rewrites its base; a view a
  Function returns may not be changed in place.
"""

import numpy as np
import pytest

from parity import check, check_error, check_warning, grad_of, leaf

# Each view operation, on a tensor of shape (2, 3, 1) (or its 0-d case where it has one).
VIEWS = {
    "view": lambda t: t.view(3, 2),
    "view_same_shape": lambda t: t.view(2, 3, 1),
    "view_as": lambda t: t.view_as(t),
    "reshape": lambda t: t.reshape(6),
    "reshape_as": lambda t: t.reshape_as(t),
    "flatten": lambda t: t.flatten(),
    "flatten_middle": lambda t: t.flatten(1, 2),
    "squeeze": lambda t: t.squeeze(),
    "squeeze_dim": lambda t: t.squeeze(2),
    "squeeze_not_one": lambda t: t.squeeze(0),
    "unsqueeze": lambda t: t.unsqueeze(1),
    "transpose": lambda t: t.transpose(0, 1),
    "transpose_same_dim": lambda t: t.transpose(1, 1),
    "swapaxes": lambda t: t.swapaxes(0, 2),
    "permute": lambda t: t.permute(2, 0, 1),
    "permute_identity": lambda t: t.permute(0, 1, 2),
    "T_of_matrix": lambda t: t[:, :, 0].T,
    "t": lambda t: t[:, :, 0].t(),
    "expand_same_shape": lambda t: t.expand(2, 3, 1),
    "expand_leading_one": lambda t: t.expand(1, 2, 3, 1),
    "expand_as": lambda t: t.expand_as(t),
    "select": lambda t: t[1],
    "select_negative": lambda t: t.select(1, -1),
    "slice": lambda t: t[:, 1:],
    "slice_step": lambda t: t[:, ::2],
    "full_slice": lambda t: t[:],
    "ellipsis": lambda t: t[...],
    "none": lambda t: t[None],
    "mixed_basic": lambda t: t[1, None, ::2, 0],
}
# In-place writes through these would write one element twice (refused), so they are left
# out of the tests that write.
REPEATS = {"expand_leading_one"}
BASES = {
    "leaf": lambda M: leaf(M, np.arange(6.0).reshape(2, 3, 1).tolist()),
    "non_leaf": lambda M: leaf(M, np.arange(6.0).reshape(2, 3, 1).tolist()) * 2,
}


# -- views made under no_grad --------------------------------------------------------------------
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("name", VIEWS)
def test_a_view_made_under_no_grad_requires_grad_as_its_base(name, base):
    def program(M):
        b = BASES[base](M)
        with M.no_grad():
            v = VIEWS[name](b)
        return v.requires_grad, v.grad_fn is None, v.is_leaf, v._is_view(), v._base is b

    check(program)


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_changing_a_view_made_under_no_grad_with_grad_mode_on_raises(name, base):
    def program(M):
        b = BASES[base](M)
        with M.no_grad():
            v = VIEWS[name](b)
        v.mul_(2)

    check_error(program)


@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_changing_a_no_grad_view_of_a_tensor_without_grad_by_one_with_grad_raises(name):
    def program(M):
        b = M.zeros(2, 3, 1)
        with M.no_grad():
            v = VIEWS[name](b)
        v.add_(M.ones(v.shape, requires_grad=True))

    check_error(program)


@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_a_view_of_a_no_grad_view_is_named_in_the_error(name):
    def program(M):
        b = BASES["non_leaf"](M)
        with M.no_grad():
            v = b[0]
        w = VIEWS[name](v.unsqueeze(-1))
        w.mul_(2)

    check_error(program)


@pytest.mark.parametrize("grad_mode", [True, False], ids=["changed_with_grad", "changed_under_no_grad"])
@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_a_no_grad_view_cannot_be_used_after_its_base_changed_in_place(name, grad_mode):
    def changed(M):
        b = BASES["non_leaf"](M)
        with M.no_grad():
            v = VIEWS[name](b)
        with M.set_grad_enabled(grad_mode):
            b.mul_(2)
        return v

    check_error(lambda M: changed(M) * 2)  # refused at the first use, not at backward
    check_error(lambda M: changed(M).is_leaf)
    check(lambda M: (repr(changed(M)), changed(M).requires_grad))  # grad_fn=<Invalid>


@pytest.mark.parametrize("name", VIEWS)
def test_a_no_grad_view_of_a_leaf_used_with_grad_sends_no_gradient_anywhere(name):
    def program(M):
        x = BASES["leaf"](M)
        with M.no_grad():
            v = VIEWS[name](x)
        y = (v * 2).sum()
        edges = [fn is None for fn, _ in y.grad_fn.next_functions[0][0].next_functions]
        y.backward()
        return y.requires_grad, edges, grad_of(v), grad_of(x)

    check(program)


def test_a_no_grad_view_changed_and_used_under_no_grad_is_fine():
    def program(M):
        b = BASES["non_leaf"](M)
        with M.no_grad():
            v = b[0]
            v.mul_(3)
            w = v * 2
        b.sum().backward()
        return b, w, v.requires_grad

    check(program)


def test_a_view_taken_before_requires_grad_follows_its_base():
    def program(M):
        x = M.ones(3)
        v = x[:2]
        x.requires_grad_()
        first = (v.requires_grad, v.is_leaf, v.grad_fn is None)
        x.requires_grad_(False)
        return first, v.requires_grad

    check(program)
    check_error(lambda M: [x := M.ones(3), v := x[:2], x.requires_grad_(), v.mul_(2)])


def test_a_view_of_a_tensor_without_grad_records_into_its_base():
    def program(M):
        a = M.zeros(4)
        v = a[1:3]
        w = leaf(M, [1.0, 2.0])
        v.add_(w * w)
        (a * M.arange(4.0)).sum().backward()
        return a, grad_of(w), type(a.grad_fn).__name__, type(v.grad_fn).__name__

    check(program)


# -- every view operation returns a view -----------------------------------------------------------
SELF_OR_VIEW = {
    **VIEWS,
    "flatten_one_dim": lambda t: t.flatten(1, 1),
    "flatten_0d": lambda t: t[0, 0, 0].flatten(),
    "expand_0d": lambda t: t[0, 0, 0].expand(()),
    "view_0d": lambda t: t[0, 0, 0].view(()),
    "type_as": lambda t: t.type_as(t),
    "to_same_dtype": lambda t: t.to(t.dtype),
    "contiguous": lambda t: t.contiguous(),
    "float": lambda t: t.float(),
}


@pytest.mark.parametrize("name", SELF_OR_VIEW)
def test_each_view_operation_returns_a_view_or_the_tensor_itself(name):
    def program(M):
        x = M.arange(6.0).reshape(2, 3, 1)
        base = x._base
        v = SELF_OR_VIEW[name](x)
        return v is x, v._is_view(), v._base is base

    check(program)


@pytest.mark.parametrize("name", sorted(set(SELF_OR_VIEW) - REPEATS))
def test_an_in_place_change_through_each_view_reaches_the_base(name):
    def program(M):
        x = M.arange(6.0).reshape(2, 3, 1)
        v = SELF_OR_VIEW[name](x)
        v.neg_()
        v.add_(M.ones(v.shape))
        return x, v, x._version

    check(program)


def test_expand_of_a_0d_tensor_is_a_view():
    def program(M):
        x = M.tensor(2.0)
        x.expand(()).neg_()
        return x

    check(program)


# -- in-place changes through views, with gradients ----------------------------------------------
@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_a_retained_gradient_follows_its_view_through_an_in_place_change(name):
    def program(M):
        x = BASES["leaf"](M)
        y = x * 1
        v = VIEWS[name](y)
        v.retain_grad()
        v.mul_(3)
        (v * v).sum().backward()
        return grad_of(v), grad_of(x), v.retains_grad, type(v.grad_fn).__name__, type(y.grad_fn).__name__

    check(program)


@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_other_views_are_rebuilt_after_an_in_place_change(name):
    def program(M):
        x = BASES["leaf"](M)
        y = x * 2
        v = VIEWS[name](y)
        other = y[0]
        v.mul_(2)
        (other * M.arange(3.0).unsqueeze(-1)).sum().backward()
        return y, grad_of(x), type(other.grad_fn).__name__

    check(program)


@pytest.mark.parametrize("changed", ["base", "view"])
@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_a_saved_view_changed_in_place_is_named_by_its_new_grad_fn(name, changed):
    def program(M):
        y = BASES["leaf"](M) * 1
        v = VIEWS[name](y)
        w = v * v  # saves v
        (y if changed == "base" else v).add_(1)
        w.sum().backward()

    check_error(program)  # "... which is output 0 of AsStrided, is at version 1 ..."


@pytest.mark.parametrize("name", sorted(set(VIEWS) - REPEATS))
def test_second_order_gradients_through_an_in_place_change_of_a_view(name):
    def program(M):
        a = BASES["leaf"](M)
        b = a * 1
        v = VIEWS[name](b)
        v.mul_(v.detach() + a.sum())
        (g,) = M.autograd.grad((b * b).sum(), a, create_graph=True)
        (gg,) = M.autograd.grad((g * g).sum(), a)
        return g, gg

    check(program)


def random_view(M, t, rng):
    """One random view operation applicable to ``t``."""
    shape = t.shape
    choices = ["unsqueeze", "view_flat", "none"]
    if len(shape) >= 2:
        choices += ["transpose", "permute"]
    if 1 in shape:
        choices.append("squeeze")
    if any(s > 1 for s in shape):
        choices += ["slice", "select"]
    kind = choices[int(rng.integers(len(choices)))]
    if kind == "unsqueeze":
        return t.unsqueeze(int(rng.integers(-len(shape) - 1, len(shape) + 1)))
    if kind == "view_flat":
        return t.reshape(-1)
    if kind == "none":
        return t[None]
    if kind == "transpose":
        d0, d1 = (int(d) for d in rng.integers(0, len(shape), size=2))
        return t.transpose(d0, d1)
    if kind == "permute":
        return t.permute(*(int(d) for d in rng.permutation(len(shape))))
    if kind == "squeeze":
        return t.squeeze(int(rng.choice([i for i, s in enumerate(shape) if s == 1])))
    dim = int(rng.choice([i for i, s in enumerate(shape) if s > 1]))
    if kind == "select":
        return t.select(dim, int(rng.integers(-shape[dim], shape[dim])))
    start, step = int(rng.integers(0, shape[dim] - 1)), int(rng.integers(1, 3))
    return t[(slice(None),) * dim + (slice(start, None, step),)]


IN_PLACE = {
    "mul_": lambda v, w: v.mul_(w),
    "add_": lambda v, w: v.add_(w * w),
    "exp_": lambda v, w: v.exp_(),
    "copy_": lambda v, w: v.copy_(w.expand(v.shape) if w.dim() <= v.dim() else w),
    "zero_": lambda v, w: v.zero_(),
    "setitem": lambda v, w: v.unsqueeze(0).__setitem__(slice(0, 1), w.sum()),
}


@pytest.mark.parametrize("seed", range(40))
def test_an_in_place_change_at_the_end_of_a_random_chain_of_views(seed):
    def program(M):
        rng = np.random.default_rng(seed)
        x = leaf(M, rng.standard_normal((3, 4)).tolist())
        y = x * 2
        v = y
        for _ in range(int(rng.integers(1, 7))):
            v = random_view(M, v, rng)
        w = leaf(M, [0.5])
        change = list(IN_PLACE)[seed % len(IN_PLACE)]
        IN_PLACE[change](v, w)
        weights = M.tensor(rng.standard_normal((3, 4)).tolist())
        (y * weights).sum().backward()
        return y, v, grad_of(x), grad_of(w), v._base is y, type(y.grad_fn).__name__, \
            type(v.grad_fn).__name__

    check(program)


def _under_no_grad(M, base, w):
    with M.no_grad():
        base.mul_(2)


def _optimizer_step(M, base, w):
    base.grad = M.ones_like(base)
    M.optim.SGD([base], lr=0.1).step()


CHANGE_ROUTES = {
    "recorded_on_base": lambda M, base, w: base.mul_(w),
    "recorded_on_other_view": lambda M, base, w: base.view(-1)[:2].add_(w),
    "base_under_no_grad": _under_no_grad,
    "detached_alias": lambda M, base, w: base.detach().add_(1),
    "optimizer_step": _optimizer_step,
}
BASE_KINDS = {
    "leaf": lambda M, rng: leaf(M, rng.standard_normal((3, 4)).tolist()),
    "non_leaf": lambda M, rng: leaf(M, rng.standard_normal((3, 4)).tolist()) * 2,
    "no_grad": lambda M, rng: M.tensor(rng.standard_normal((3, 4)).tolist()),
}


@pytest.mark.parametrize("seed", range(60))
def test_views_follow_their_base_after_it_changed_in_place_by_any_route(seed):
    def program(M):
        rng = np.random.default_rng(seed)
        kind = list(BASE_KINDS)[seed % len(BASE_KINDS)]
        route = list(CHANGE_ROUTES)[seed // len(BASE_KINDS) % len(CHANGE_ROUTES)]
        base = BASE_KINDS[kind](M, rng)
        v = base
        for _ in range(int(rng.integers(1, 5))):
            v = random_view(M, v, rng)
        before = type(v.grad_fn).__name__
        w = leaf(M, [0.5])
        try:
            CHANGE_ROUTES[route](M, base, w)
        except (RuntimeError, ValueError) as error:  # a leaf changed in place, a non-leaf
            return "refused", str(error).splitlines()[0]  # given to an optimizer: as PyTorch
        out = (v * M.tensor(rng.standard_normal(tuple(v.shape)).tolist())).sum()
        if out.requires_grad:
            out.backward()
        return (before, type(v.grad_fn).__name__, v.requires_grad, v.is_leaf, v,
                grad_of(w), grad_of(base) if base.is_leaf else None, route, kind)

    check(program)


# -- unbind and iteration --------------------------------------------------------------------------
def test_rows_met_while_iterating_can_be_changed_in_place():
    def program(M):
        x = M.zeros(2, 3)
        for row in x:
            row += 1
        return x

    check(program)


@pytest.mark.parametrize("change", ["piece", "view_of_piece", "view_as_of_piece", "no_grad_view_of_piece"])
def test_a_piece_of_unbind_in_a_graph_may_not_be_changed_in_place(change):
    def program(M):
        z = leaf(M, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) * 1
        piece = z.unbind()[1]
        if change == "view_of_piece":
            piece = piece[1:]
        elif change == "view_as_of_piece":
            piece = piece.view_as(z[0])
        elif change == "no_grad_view_of_piece":
            with M.no_grad():
                piece = piece[1:]
        piece.add_(1)

    check_error(program)


@pytest.mark.parametrize("changed", ["base", "other_piece_under_no_grad", "base_under_no_grad"])
def test_a_piece_of_unbind_cannot_be_used_after_its_base_changed(changed):
    def program(M):
        z = leaf(M, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) * 1
        pieces = z.unbind()
        if changed == "base":
            z.mul_(2)
        elif changed == "base_under_no_grad":
            with M.no_grad():
                z.mul_(2)
        else:
            with M.no_grad():
                pieces[0].mul_(2)
        pieces[1].sum().backward()

    check_error(program)


# -- memory overlap ----------------------------------------------------------------------------------
OVERLAPS = {
    "transpose": lambda x: x.__itruediv__(x.t()),
    "shifted_rows": lambda x: x[:2].__iadd__(x[1:]),
    "shifted_flat": lambda x: x.view(-1)[:5].mul_(x.view(-1)[4:]),
    "itself": lambda x: x.__iadd__(x),
    "same_memory_other_view": lambda x: x.add_(x.view(9).view(3, 3)),
    "same_row_twice": lambda x: x[0].add_(x[0]),
    "disjoint_rows": lambda x: x[0].add_(x[1]),
    "interleaved_columns": lambda x: x[:, ::2].__iadd__(x[:, 1:2].expand(3, 2)),
    "columns_against_rows": lambda x: x[:, 0].mul_(x[0]),
    "detached": lambda x: x.mul_(x.detach().t()),
    "copy_transpose": lambda x: x.copy_(x.t()),
    "expanded_target": lambda x: x[:1].expand(3, 3).add_(1),
    "empty_expanded_target": lambda x: x[:, :0][:1].expand(5, 0).add_(1),
    "empty_operand": lambda x: x[:0].add_(x[1:1]),
}


@pytest.mark.parametrize("name", OVERLAPS)
def test_memory_overlap_rules(name):
    def program(M):
        x = M.arange(9.0).reshape(3, 3)
        OVERLAPS[name](x)
        return x

    expected = _outcome(program)
    if expected is None:
        check(program)
    else:
        check_error(program)


def _outcome(program):
    import torch
    try:
        program(torch)
    except RuntimeError as error:
        return error
    return None


@pytest.mark.parametrize("seed", range(30))
def test_memory_overlap_of_random_slices_of_one_storage(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 6))
    starts = [int(s) for s in rng.integers(0, 12 - size, size=2)]

    def program(M):
        x = M.arange(12.0)
        x[starts[0]:starts[0] + size].add_(x[starts[1]:starts[1] + size])
        return x

    check_error(program) if _outcome(program) is not None else check(program)


# -- custom Functions ----------------------------------------------------------------------------------
def dirty_add(M):
    class DirtyAdd(M.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(y)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    return DirtyAdd


@pytest.mark.parametrize("view", ["slice", "select_row", "transpose_row"])
def test_mark_dirty_on_a_view_of_an_input_rewrites_its_base(view):
    def program(M):
        a = leaf(M, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) * 1
        y = leaf(M, [10.0, 20.0, 30.0])
        v = {"slice": a[0], "select_row": a.select(0, 1), "transpose_row": a.t().t()[1]}[view]
        out = dirty_add(M).apply(v, y)
        (a * M.arange(6.0).view(2, 3)).sum().backward()
        return a, out, grad_of(y), out._base is a, type(a.grad_fn).__name__, type(out.grad_fn).__name__

    check(program)


def test_mark_dirty_on_a_view_of_a_leaf_raises():
    check_error(lambda M: dirty_add(M).apply(leaf(M, [1.0, 2.0, 3.0])[:2], leaf(M, [1.0, 1.0])))


def test_mark_dirty_on_a_leaf_raises():
    check_error(lambda M: dirty_add(M).apply(leaf(M, [1.0, 2.0]), leaf(M, [1.0, 1.0])))


def test_mark_dirty_of_a_tensor_that_is_not_an_input_warns():
    def program(M):
        class Doubled(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                z = x * 2
                ctx.mark_dirty(z)
                return z

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        x = leaf(M, [1.0, 2.0]) * 1
        Doubled.apply(x).sum().backward()

    check_warning(program, UserWarning, "ctx.mark_dirty() received a tensor that was not an input.")


def test_mark_dirty_of_a_tensor_not_returned_raises():
    def program(M):
        class Hidden(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad

        Hidden.apply(leaf(M, [1.0, 2.0]) * 1)

    check_error(program)


@pytest.mark.parametrize("returned", ["view", "input_as_is"])
def test_a_view_returned_by_a_custom_function_may_not_be_changed_in_place(returned):
    def program(M):
        class Returns(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:2] if returned == "view" else x

            @staticmethod
            def backward(ctx, grad):
                return M.cat([grad, grad.new_zeros(1)]) if returned == "view" else grad

        out = Returns.apply(leaf(M, [1.0, 2.0, 3.0]) * 1)
        first = (out._is_view(), type(out.grad_fn).__name__.endswith("ReturnsBackward"))
        try:
            out.mul_(2)
        except RuntimeError as error:
            return first, str(error).splitlines()[0]
        return first, None

    check(program)


def test_a_view_whose_base_data_was_replaced_is_refused_not_written_out_of_bounds():
    """nbgrad finds a view in its base by their addresses: once ``.data`` of the base was
    replaced, the view no longer lies there. An in-place change of the base still works
    (the view keeps its old grad_fn); one through the view raises instead of reading or
    writing outside the new memory."""
    import nbgrad as ng

    y = ng.ones(4, requires_grad=True) * 1
    v = y[1:]
    y.data = ng.zeros(4)
    y.mul_(2)
    assert type(v.grad_fn).__name__ == "SliceBackward0"
    with pytest.raises(RuntimeError, match="no longer lies in its base's memory"):
        v.mul_(2)
