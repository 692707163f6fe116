"""Shared fixtures."""

import pytest


@pytest.fixture(scope="session")
def torch():
    """PyTorch, the oracle of the parity tests; those tests are skipped without it."""
    return pytest.importorskip(
        "torch", reason="PyTorch is not installed: parity tests need `pip install torch==2.13.0`"
    )
