"""The type check CI runs (mypy, configured in pyproject.toml), and what it lets an IDE see."""

import pathlib
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (it is in the [test] extra)")

ROOT = pathlib.Path(__file__).resolve().parents[1]


def mypy(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *args],
                          cwd=cwd, capture_output=True, text=True)


def test_nbgrad_passes_the_type_check():
    result = mypy()  # files and options from [tool.mypy]
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_users_program_sees_the_names_made_at_import_time(tmp_path):
    program = tmp_path / "user_program.py"
    program.write_text(textwrap.dedent("""
        import nbgrad as torch
        import nbgrad.nn.functional as F

        x = torch.tanh(torch.zeros(2, requires_grad=True))
        y = F.cross_entropy(torch.nn.Tanh()(x).unsqueeze(0), torch.tensor([1]))
        y.backward()
        torch.no_such_function(x)
    """))
    # a cache of its own: a shared one would remember the program of another run's tmp_path
    result = mypy("--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
                  str(tmp_path / "mypy_cache"), str(program))
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, result.stdout + result.stderr
    assert 'Module has no attribute "no_such_function"' in errors[0]
    assert errors[0].startswith(f"{program}:8:")
