"""``python -m buildgrad.flatten OUT.py``: the learner's package as one file that runs with NumPy
alone. On the reference it runs the article's closing program with PyTorch's numbers, trains
chapter 08's network to nbgrad's losses, passes every chapter's checks and has one definition
per name, each class whole; a learner's finished notebook is used, an unfinished one is not;
a pattern flatten cannot merge stops it with an error that names the chapter and the function."""

import ast
import collections
import importlib.util
import json
import os
import pathlib
import re
import runpy
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from buildgrad import checks, flatten, track
from buildgrad.flatten.scopes import bound_names
from closing_program import PRINT_NUMBERS, PROGRAM, assert_hand_derived_numbers

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
NUMPY_HOME = str(pathlib.Path(importlib.util.find_spec("numpy").origin).parent.parent)


def _flatten_command(folder, *options):
    """``python -m buildgrad.flatten my_autograd.py`` run in ``folder``, as a learner runs it."""
    return subprocess.run([sys.executable, "-m", "buildgrad.flatten", "my_autograd.py", *options],
                          cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def flat(tmp_path_factory):
    """The one file written from the reference: a folder with no notebooks of the learner's."""
    folder = tmp_path_factory.mktemp("fresh")
    result = _flatten_command(folder)
    assert result.returncode == 0, result.stderr
    return folder / "my_autograd.py", result.stdout


def _alone(path, program):
    """Run ``program`` after ``import my_autograd as T`` in a fresh interpreter that sees only
    the file's folder, the standard library and NumPy: ``-I -S`` keeps out the environment
    and the site hooks, among them the editable install's finder for buildgrad and nbgrad."""
    prelude = textwrap.dedent(f"""\
        import importlib.util, sys
        sys.path.insert(0, {str(path.parent)!r})
        sys.path.append({NUMPY_HOME!r})
        assert importlib.util.find_spec("buildgrad") is None, sys.path
        assert importlib.util.find_spec("nbgrad") is None, sys.path
        import {path.stem} as T
        """)
    after = ("\nassert not [m for m in sys.modules if m.split('.')[0] in ('buildgrad', 'nbgrad')], "
             "sorted(sys.modules)\n")
    result = subprocess.run([sys.executable, "-I", "-S", "-c", prelude + program + after],
                            cwd=path.parent, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_command_writes_one_file_from_the_reference(flat):
    path, stdout = flat
    assert [p.name for p in path.parent.iterdir()] == ["my_autograd.py"]
    lines = stdout.splitlines()
    assert lines[:-1] == [f"chapter {n:02d}: the reference" for n in range(len(track.CHAPTERS))]
    assert lines[-1] == f"my_autograd.py: {len(path.read_text().splitlines())} lines"


def test_alone_it_runs_the_closing_program_with_the_hand_derived_numbers(flat):
    assert_hand_derived_numbers(_alone(flat[0], PROGRAM.format(sgd="T.SGD") + PRINT_NUMBERS))


def test_alone_it_prints_the_closing_program_as_pytorch_does(flat):
    pytest.importorskip("torch", reason="the comparison with PyTorch needs torch installed")
    ours = _alone(flat[0], PROGRAM.format(sgd="T.SGD"))
    theirs = subprocess.run([sys.executable, "-c", "import torch as T\n" + PROGRAM.format(sgd="T.optim.SGD")],
                            capture_output=True, text=True)
    assert theirs.returncode == 0, theirs.stderr
    assert ours == theirs.stdout


def test_alone_it_trains_the_chapter_08_network_to_nbgrads_losses(flat, tmp_path):
    import nbgrad as ng
    from nbgrad.viz.widgets.training import two_moons
    # chapter 08, section 4: two moons, 2-16-16-2 tanh, SGD lr 0.3 momentum 0.9, 300 steps
    X, y = two_moons()
    ng.manual_seed(0)
    model = ng.nn.Sequential(ng.nn.Linear(2, 16), ng.nn.Tanh(), ng.nn.Linear(16, 16), ng.nn.Tanh(),
                             ng.nn.Linear(16, 2))
    weights = [p.detach().numpy().copy() for p in model.parameters()]
    np.savez(tmp_path / "start.npz", X=X, y=y, *weights)
    optimizer = ng.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
    theirs = []
    for _ in range(300):
        optimizer.zero_grad()
        loss = ng.nn.functional.cross_entropy(model(ng.tensor(X)), ng.tensor(y))
        loss.backward()
        optimizer.step()
        theirs.append(loss.item())
    out = _alone(flat[0], textwrap.dedent(f"""
        import json
        import numpy as np
        start = np.load({str(tmp_path / "start.npz")!r})
        model = T.Sequential(T.Linear(2, 16), T.Tanh(), T.Linear(16, 16), T.Tanh(), T.Linear(16, 2))
        for index, p in enumerate(model.parameters()):
            p.array[...] = start[f"arr_{{index}}"]
        optimizer = T.SGD(model.parameters(), lr=0.3, momentum=0.9)
        X, y, losses = T.tensor(start["X"]), T.tensor(start["y"]), []
        for step in range(300):
            optimizer.zero_grad()
            loss = T.cross_entropy(model(X), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print(json.dumps(losses))
        """))
    ours = np.array(json.loads(out.splitlines()[-1]))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    assert ours[-1] < 0.2  # it did train


def _top_level_definitions(tree):
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom)):
            names += sorted(bound_names(ast.Module([node], [])))
    return names


def test_each_class_is_defined_once_and_no_name_twice(flat):
    text = flat[0].read_text()
    tree = ast.parse(text)
    classes = collections.Counter(node.name for node in tree.body if isinstance(node, ast.ClassDef))
    for name in track.CHAPTERS:
        chapter_tree = ast.parse((ROOT / "buildgrad" / f"{name}.py").read_text())
        for node in chapter_tree.body:
            if isinstance(node, ast.ClassDef):
                assert classes[node.name] == 1, f"class {node.name} ({name}): {classes[node.name]} times"
    for essential in ("Tensor", "Node", "AccumulateGrad", "SavedTensor", "Function", "Module", "SGD"):
        assert classes[essential] == 1, essential
    twice = [name for name, count in collections.Counter(_top_level_definitions(tree)).items() if count > 1]
    assert not twice, f"defined more than once: {twice}"
    # chapter 00's patching decorator is gone (a list's own .extend may stay)
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "extend"]
    assert not re.findall(r"\b_\w+_without_\w+", text)
    assert not re.findall(r"(from|import) buildgrad", text)
    assert not re.findall(r"\bnbgrad\b", text)
    assert "public_names" not in text and "__all__" not in text


def test_its_classes_have_the_members_the_chain_of_patches_gives_them(flat):
    housekeeping = {"__module__", "__dict__", "__weakref__", "__doc__", "__qualname__",
                    "__static_attributes__", "__firstlineno__"}
    chain = json.loads(subprocess.run(  # a process of its own: importing a stage patches classes
        [sys.executable, "-c",
         f"import json\nimport buildgrad.{track.CHAPTERS[-1]} as bg\n"
         "print(json.dumps({n: sorted(vars(c)) for n, c in vars(bg).items() if isinstance(c, type)}))"],
        capture_output=True, text=True, check=True).stdout)
    ours = runpy.run_path(str(flat[0]))
    for name, members in chain.items():
        assert isinstance(ours.get(name), type), name
        assert set(vars(ours[name])) - housekeeping == set(members) - housekeeping, name


@pytest.mark.parametrize("chapter", range(len(track.CHAPTERS)), ids=lambda n: f"chapter{n:02d}")
def test_every_chapters_checks_pass_on_it(flat, chapter):
    checks.run(chapter, runpy.run_path(str(flat[0])))


# A learner's notebooks

def _notebook_with(source, extra, path):
    """``source`` (a notebook) saved at ``path`` with ``extra`` added to its first package cell."""
    notebook = json.loads(source.read_text())
    cell = next(c for c in notebook["cells"] if c["cell_type"] == "code"
                and "".join(c["source"]).startswith(track.EXPORT))
    cell["source"] = "".join(cell["source"]).rstrip("\n") + "\n\n\n" + extra
    path.write_text(json.dumps(notebook))


def test_your_finished_notebook_is_used_and_an_unfinished_one_is_not(tmp_path):
    solution = next(SOLUTIONS.glob("03_*.ipynb"))
    mine = tmp_path / solution.name
    _notebook_with(solution, 'MY_CHANGE = "the learner wrote this"\n', mine)
    result = _flatten_command(tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"chapter 03: yours ({solution.name})" in result.stdout.splitlines()
    text = (tmp_path / "my_autograd.py").read_text()
    assert 'MY_CHANGE = "the learner wrote this"' in text
    assert f"chapter 03 (c03_hooks): yours ({solution.name})" in text
    namespace = runpy.run_path(str(tmp_path / "my_autograd.py"))
    checks.run(3, namespace)

    _notebook_with(solution, 'MY_CHANGE = "the learner wrote this"\n\n\n'
                             "def todo():\n    raise NotImplementedError()\n", mine)
    result = _flatten_command(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "chapter 03: the reference" in result.stdout.splitlines()
    assert "MY_CHANGE" not in (tmp_path / "my_autograd.py").read_text()


def _chapter_07_notebook(folder, extra):
    """A finished notebook for chapter 07: the reference module, and ``extra`` after it."""
    reference = (ROOT / "buildgrad" / "c07_detach.py").read_text()
    source = track.EXPORT + "\n" + reference + "\n\n" + textwrap.dedent(extra)
    (folder / "07_detach.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_your_wrapper_of_an_earlier_method_is_inlined_into_it(tmp_path):
    _chapter_07_notebook(tmp_path, '''
        _repr_without_marks = Tensor.__repr__


        @extend(Tensor)
        def __repr__(self):
            """Chapter 00's repr, in angle brackets."""
            text = _repr_without_marks(self)
            return "<" + text + ">"
        ''')
    result = _flatten_command(tmp_path)
    assert result.returncode == 0, result.stderr
    path = tmp_path / "my_autograd.py"
    tensor = next(node for node in ast.parse(path.read_text()).body
                  if isinstance(node, ast.ClassDef) and node.name == "Tensor")
    reprs = [node for node in tensor.body if isinstance(node, ast.FunctionDef) and node.name == "__repr__"]
    assert len(reprs) == 1
    assert "_repr_without_marks" not in path.read_text()
    assert _alone(path, "print(repr(T.tensor([1., 2.])))").splitlines()[-1] == "<tensor([1., 2.])>"


def test_a_pattern_flatten_cannot_merge_stops_it_naming_the_chapter_and_the_function(tmp_path):
    _chapter_07_notebook(tmp_path, '''
        _repr_without_marks = Tensor.__repr__


        @extend(Tensor)
        def __repr__(self):
            return "<" + _repr_without_marks(self) + ">"
        ''')
    result = _flatten_command(tmp_path)
    assert result.returncode == 2
    assert "chapter 07 (yours (07_detach.ipynb), line" in result.stderr
    assert "__repr__ calls _repr_without_marks" in result.stderr
    assert "inside an expression" in result.stderr
    assert not (tmp_path / "my_autograd.py").exists()


# The patterns, on small made-up chapters

MACHINERY = '''
def extend(cls):
    def add(member):
        setattr(cls, (member.fget if isinstance(member, property) else member).__name__, member)
        return member
    return add


class Box:
    def __init__(self, value):
        self.value = value

    def scaled(self, factor, offset=0):
        """The value times ``factor``, plus ``offset``."""
        result = self.value * factor
        return result + offset
'''


def _flat(*chapters):
    texts = [MACHINERY] + [textwrap.dedent(text) for text in chapters]
    return flatten.flatten_chapters(
        [flatten.Chapter(n, f"c{n:02d}_made_up", "a test", text) for n, text in enumerate(texts)])


def test_a_wrapper_with_other_arguments_a_default_and_a_clashing_local_is_inlined():
    text = _flat('''
        """Chapter 01: a log."""

        _scaled_without_log = Box.scaled


        @extend(Box)
        def scaled(self, k):
            """Also keeps the results."""
            result = getattr(self, "log", [])
            value = _scaled_without_log(self, k + 1)
            result.append(value)
            self.log = result
            return value
        ''')
    assert "_scaled_without_log" not in text and "extend" not in text
    namespace = {}
    exec(compile(text, "one_file", "exec"), namespace)
    box = namespace["Box"](2)
    assert (box.scaled(3), box.scaled(0), box.log) == (8, 2, [8, 2])
    assert '"""The value times ``factor``, plus ``offset``."""' in text  # the first version's
    assert "# Chapter 01: Also keeps the results." in text               # the later one's, a note


@pytest.mark.parametrize("chapter, message", [
    ('''
     _old = Box.scaled

     @extend(Box)
     def scaled(self, factor):
         return 1 + _old(self, factor)
     ''', "chapter 01 (a test, line 5): scaled calls _old (the previous scaled) inside an expression"),
    ('''
     _old = Box.scaled
     KEPT = _old
     ''', "KEPT uses _old, an earlier version of a function"),
    ('''
     if True:
         Box.extra = 1
     ''', "chapter 01 (a test, line 2): this statement changes a class in a way flatten cannot merge"),
    ('''
     Box.again = Box.scaled

     @extend(Box)
     def scaled(self, factor):
         return 0
     ''', "Box.again was bound to Box.scaled before this chapter replaces Box.scaled"),
], ids=["call-inside-an-expression", "alias-used-as-a-value", "class-changed-in-an-if",
        "member-bound-to-a-replaced-member"])
def test_a_pattern_flatten_does_not_support_is_refused_clearly(chapter, message):
    with pytest.raises(flatten.FlattenError, match=re.escape(message)):
        _flat(chapter)


def test_an_early_return_in_the_previous_version_is_refused_clearly():
    early = MACHINERY.replace("        result = self.value",
                              "        if factor == 0:\n            return 0\n        result = self.value")
    wrapper = textwrap.dedent('''
        _old = Box.scaled

        @extend(Box)
        def scaled(self, factor):
            value = _old(self, factor)
            return value
        ''')
    chapters = [flatten.Chapter(0, "c00", "a test", early), flatten.Chapter(1, "c01", "a test", wrapper)]
    with pytest.raises(flatten.FlattenError, match="scaled calls _old .* which returns early"):
        flatten.flatten_chapters(chapters)
