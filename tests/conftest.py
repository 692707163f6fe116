"""Shared fixtures."""

import os

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


# -- headless Chromium, for the JupyterLab test (tests/browser) and the site's (tests/docs) --
# One Playwright per test process: its sync API refuses to start a second one while the
# first runs, so the two folders share this session fixture.
CHROMIUM = os.environ.get("NBGRAD_CHROMIUM", "/usr/bin/chromium")
# Everything Chromium might fetch on its own is switched off: the machine reaches nothing
# but package registries. Playwright itself adds --headless and a fresh temporary
# --user-data-dir to every launch().
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def browser_unavailable() -> str | None:
    """Why the browser test cannot run here, or None when it can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (it is in the test extra: pip install -e '.[test]')"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; or set NBGRAD_CHROMIUM)"
    return None


@pytest.fixture(scope="session")
def browser():
    reason = browser_unavailable()
    if reason:
        if os.environ.get("NBGRAD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"NBGRAD_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=120_000
        )
        yield chromium
        chromium.close()
