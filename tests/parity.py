"""The parity helpers: run a program under torch and nbgrad and compare what comes out.

A program is a function of the module ``M`` (``torch`` or ``nbgrad``). The helpers compare
values, dtypes, ``requires_grad``, ``.grad``, errors (type and key phrase: PyTorch's message
must appear in nbgrad's, which may add a line of hint) and warnings (category and key phrase).
Deliberate differences are normalised, never asserted away: ``torch.`` is read as ``nbgrad.``,
and PyTorch's trailing "Hint: enable anomaly detection ..." sentence is not part of the key
phrase. Importing this module skips the importing test module when PyTorch is missing.
"""

import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: the parity tests need `pip install torch==2.13.0`"
)

import nbgrad as ng  # noqa: E402

MODULES = {"torch": torch, "nbgrad": ng}


# -- helpers -----------------------------------------------------------------------------------
def normalise(text):
    return text.replace("torch.", "nbgrad.").replace("torch", "nbgrad")


def key_phrase(message):
    """PyTorch's message without its anomaly-detection hint; its first line."""
    message = normalise(message)
    message = re.split(r"\s*Hint: enable anomaly detection", message)[0]
    message = re.split(r" \(Triggered internally at", message)[0]
    return message.strip().splitlines()[0].strip() if message.strip() else ""


def is_tensor(value):
    return isinstance(value, (torch.Tensor, ng.Tensor))


def as_numpy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().cpu().numpy()
    return np.asarray(t.detach()._data)


def assert_same(t, n, where="result", rtol=1e-5, atol=1e-6):
    """A value produced by torch and the one produced by nbgrad are the same."""
    if isinstance(t, torch.Tensor):
        assert isinstance(n, ng.Tensor), f"{where}: nbgrad gave {type(n).__name__}, torch a Tensor"
        assert tuple(n.shape) == tuple(t.shape), f"{where}: shape {tuple(n.shape)} != torch {tuple(t.shape)}"
        assert normalise(str(t.dtype)) == str(n.dtype), f"{where}: dtype {n.dtype} != torch {t.dtype}"
        assert n.requires_grad == t.requires_grad, f"{where}: requires_grad {n.requires_grad} != torch {t.requires_grad}"
        assert n.is_leaf == t.is_leaf, f"{where}: is_leaf {n.is_leaf} != torch {t.is_leaf}"
        tv, nv = as_numpy(t), as_numpy(n)
        if tv.dtype.kind == "f":
            np.testing.assert_allclose(nv, tv, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(nv, tv, err_msg=where)
    elif isinstance(t, (tuple, list)):
        assert isinstance(n, (tuple, list)), f"{where}: nbgrad gave {type(n).__name__}"
        assert len(n) == len(t), f"{where}: length {len(n)} != torch {len(t)}"
        for i, (a, b) in enumerate(zip(t, n)):
            assert_same(a, b, f"{where}[{i}]", rtol, atol)
    elif isinstance(t, dict):
        assert set(n) == set(t), f"{where}: keys {sorted(n)} != torch {sorted(t)}"
        for k in t:
            assert_same(t[k], n[k], f"{where}[{k!r}]", rtol, atol)
    elif isinstance(t, float):
        assert isinstance(n, float), f"{where}: nbgrad gave {type(n).__name__}, torch float"
        assert n == pytest.approx(t, rel=rtol, abs=atol, nan_ok=True), f"{where}: {n} != torch {t}"
    elif isinstance(t, str):
        assert n == normalise(t), f"{where}: {n!r} != torch {t!r}"
    elif isinstance(t, torch.dtype):
        assert str(n) == normalise(str(t)), f"{where}: {n} != torch {t}"
    elif isinstance(t, torch.Size):
        assert tuple(n) == tuple(t), f"{where}: {n} != torch {t}"
    else:
        assert type(n) is type(t), f"{where}: nbgrad gave {type(n).__name__}, torch {type(t).__name__}"
        assert n == t, f"{where}: {n!r} != torch {t!r}"


def check(program, **tolerances):
    """Run ``program(M)`` under both libraries and compare the results."""
    expected = program(torch)
    got = program(ng)
    assert_same(expected, got, **tolerances)
    return expected, got


def outcome(program, M):
    try:
        return program(M), None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return None, e


def check_error(program, key=None):
    """Both raise, with the same exception type and PyTorch's key phrase in nbgrad's text."""
    _, t_err = outcome(program, torch)
    assert t_err is not None, "the program does not raise under torch: the test is wrong"
    _, n_err = outcome(program, ng)
    assert n_err is not None, f"nbgrad does not raise; torch raises {type(t_err).__name__}: {t_err}"
    expected_type = type(t_err)
    if expected_type.__module__ != "builtins":  # e.g. torch's GradcheckError: same name, same base
        assert type(n_err).__name__ == expected_type.__name__, (
            f"nbgrad raises {type(n_err).__name__}: {n_err}\ntorch raises {expected_type.__name__}: {t_err}"
        )
        expected_type = next(c for c in expected_type.__mro__ if c.__module__ == "builtins")
    assert isinstance(n_err, expected_type), (
        f"nbgrad raises {type(n_err).__name__}: {n_err}\ntorch raises {type(t_err).__name__}: {t_err}"
    )
    phrase = key if key is not None else key_phrase(str(t_err))  # key="": the type only
    assert phrase in normalise(str(t_err)), "the key phrase is not in torch's message: the test is wrong"
    assert phrase in normalise(str(n_err)), (
        f"key phrase {phrase!r} not in nbgrad's message:\n{n_err}\n(torch: {t_err})"
    )
    return t_err, n_err


def same_outcome(program, **tolerances):
    """The same result under both libraries, or, where PyTorch raises, the same error."""
    _, error = outcome(program, torch)
    if error is None:
        return check(program, **tolerances)
    return check_error(program)


def value_and_grads(program, *arrays, dtype="float64"):
    """A program of leaves made from ``arrays``: its value and every leaf's gradient (of a
    weighted sum, so that each element has its own), and the result's node name."""
    def run(M):
        leaves = [M.tensor(a, dtype=getattr(M, dtype), requires_grad=True) for a in arrays]
        out = program(M, *leaves)
        outs = out if isinstance(out, tuple) else (out,)
        total = 0
        for k, o in enumerate(outs):
            if o.dtype.is_floating_point and o.requires_grad:
                weights = np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape)) * (k + 1)
                total = total + (o * M.tensor(weights, dtype=o.dtype)).sum()
        total.backward()
        return (*(o.detach() for o in outs), *(t.grad for t in leaves),
                *(type(o.grad_fn).__name__ for o in outs if o.grad_fn is not None))
    return run


def captured_warnings(program, M):
    """What ``program(M)`` warns, every time (not once per line); appended, so that the
    filters already in force, nbgrad's own filter for NumPy's warnings among them, decide
    first, as they do for a user."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", append=True)
        result = program(M)
    return result, [w for w in caught if not issubclass(w.category, DeprecationWarning)]


def check_warning(program, category=UserWarning, key=None):
    """Both warn with ``category``; PyTorch's key phrase appears in nbgrad's warning."""
    t_result, t_warns = captured_warnings(program, torch)
    n_result, n_warns = captured_warnings(program, ng)
    t_match = [w for w in t_warns if issubclass(w.category, category)]
    assert t_match, "torch does not warn: the test is wrong"
    n_match = [w for w in n_warns if issubclass(w.category, category)]
    assert n_match, f"nbgrad does not warn; torch warns {t_match[0].message}"
    phrase = key if key is not None else key_phrase(str(t_match[0].message))
    assert any(phrase in normalise(str(w.message)) for w in n_match), (
        f"key phrase {phrase!r} not in nbgrad's warnings: {[str(w.message) for w in n_match]}"
    )
    return t_result, n_result


def check_no_warning(program):
    _, t_warns = captured_warnings(program, torch)
    assert not t_warns, f"torch warns: {[str(w.message) for w in t_warns]}: the test is wrong"
    _, n_warns = captured_warnings(program, ng)
    assert not n_warns, f"nbgrad warns (torch does not): {[str(w.message) for w in n_warns]}"


def leaf(M, values, dtype=None, requires_grad=True):
    return M.tensor(values, dtype=dtype or M.float32, requires_grad=requires_grad)


def grad_of(t):
    g = t.grad
    return None if g is None else g.clone()
