"""Shared fixtures."""

import pytest

import nbgrad

NO_CUDA = ("no CUDA device: nbgrad.cuda.is_available() is False (install the cuda12 extra on "
           "a machine with an NVIDIA GPU)")


@pytest.fixture(scope="session")
def torch():
    """PyTorch, the oracle of the parity tests; those tests are skipped without it."""
    return pytest.importorskip(
        "torch", reason="PyTorch is not installed: parity tests need `pip install torch==2.13.0`"
    )


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def device(request):
    """Each device a test runs on: "cpu" always, "cuda" where a GPU is usable (else the
    test is skipped, saying why). Select with ``-m gpu`` / ``-m "not gpu"``."""
    if request.param == "cuda" and not nbgrad.cuda.is_available():
        pytest.skip(NO_CUDA)
    return request.param
