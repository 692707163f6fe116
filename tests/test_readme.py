"""The README's tour runs as written: the CNN on digits, trained, saved and loaded back."""

import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def tour_blocks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block for block in re.findall(r"```python\n(.*?)```", text, flags=re.S)
            if block.startswith("import nbgrad as torch")]


def test_the_cnn_tour_trains_saves_and_loads(tmp_path, monkeypatch):
    pytest.importorskip("sklearn", reason="the tour's data comes from scikit-learn")
    (block,) = tour_blocks()
    assert "DataLoader" in block and "torch.save" in block and "torch.load" in block
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    namespace = {}
    with contextlib.redirect_stdout(printed):
        exec(compile(block, "README.md (the CNN tour)", "exec"), namespace)
    lines = printed.getvalue().splitlines()
    assert len(lines) == 4
    # the comment under the loop quotes the last line: it is what this code prints
    assert f"# {lines[-1]}" in block
    assert float(lines[-1].rsplit(" ", 1)[1]) > 0.9
    assert (tmp_path / "digits.nbgrad").exists()
    model, checkpoint = namespace["model"], namespace["checkpoint"]
    for name, value in model.state_dict().items():
        assert (value == checkpoint["model"][name]).all()
