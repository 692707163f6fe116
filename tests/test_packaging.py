"""pyproject.toml is the single source of dependencies; environment.yml mirrors it.

These tests fail when a dependency is added to (or removed from, or given another version
range in) one file but not the other. They need nothing beyond the standard library:
environment.yml is read by the small parser below, which accepts only the simple subset
of YAML that the file uses and raises on anything else rather than misread it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
ENVIRONMENT = ROOT / "environment.yml"
README = ROOT / "README.md"

# extras that environment.yml (conda-forge, CPU only) does not mirror
EXTRAS_NOT_IN_CONDA = {"cuda12"}
# PyPI name -> conda-forge name, where they differ (names normalized as in PEP 503)
PYPI_TO_CONDA = {
    "graphviz": "python-graphviz",
    "matplotlib": "matplotlib-base",  # matplotlib without the Qt backend
}
# conda packages with no PyPI counterpart in pyproject.toml
CONDA_ONLY = {
    "python",  # compared with requires-python instead
    "pip",
    "graphviz",  # the `dot` program that python-graphviz calls
}


def normalize(name: str) -> str:
    """PEP 503 normalization; conda-forge names compare the same way here."""
    return re.sub(r"[-_.]+", "-", name).lower()


_PEP508 = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*"
    r"(?:\[(?P<extras>[^\]]*)\])?\s*"
    r"(?P<spec>[^;]*?)\s*(?:;.*)?$"
)
_CONDA = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?P<spec>.*)$")


def parse_requirement(text: str) -> tuple[str, list[str], str]:
    """'numpy>=1.26' -> ('numpy', [], '>=1.26'); 'nbgrad[lab]' -> ('nbgrad', ['lab'], '')."""
    m = _PEP508.match(text)
    assert m, f"cannot parse requirement {text!r} in pyproject.toml"
    extras = [e.strip() for e in (m["extras"] or "").split(",") if e.strip()]
    return normalize(m["name"]), extras, m["spec"].replace(" ", "")


def parse_conda_spec(text: str) -> tuple[str, str]:
    m = _CONDA.match(text.strip())
    assert m, f"cannot parse conda dependency {text!r} in environment.yml"
    return normalize(m["name"]), m["spec"].replace(" ", "")


def parse_environment_yml(text: str) -> dict:
    """Read the subset of YAML that environment.yml uses.

    Top-level `key: value` scalars and `key:` followed by a block list of scalars; inside
    `dependencies`, one `- pip:` item holding a nested block list. Anything else raises.
    """
    result: dict = {}
    key = None  # top-level key whose list is being read
    pip_indent = None  # indent of the `- pip:` dash while its nested list is read
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()  # comments
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if "\t" in line[: indent + 1]:
            raise ValueError(f"environment.yml:{lineno}: tabs are not supported")
        if indent == 0:
            m = re.fullmatch(r"([A-Za-z_][\w-]*):\s*(.*)", line)
            if not m:
                raise ValueError(f"environment.yml:{lineno}: unsupported line {raw!r}")
            key, value = m[1], m[2]
            pip_indent = None
            if value:
                if value[0] in "[{&*|>!":
                    raise ValueError(f"environment.yml:{lineno}: unsupported value {raw!r}")
                result[key], key = value.strip("'\""), None
            else:
                result[key] = []
            continue
        m = re.fullmatch(r"(\s*)- (.+)", line)
        if not m or key is None:
            raise ValueError(f"environment.yml:{lineno}: unsupported line {raw!r}")
        item = m[2].strip()
        if item[0] in "[{&*|>!":
            raise ValueError(f"environment.yml:{lineno}: unsupported item {raw!r}")
        item = item.strip("'\"")
        if pip_indent is not None and indent > pip_indent:
            result[key][-1]["pip"].append(item)
            continue
        pip_indent = None
        if key == "dependencies" and item == "pip:":
            result[key].append({"pip": []})
            pip_indent = indent
        elif item.endswith(":"):
            raise ValueError(f"environment.yml:{lineno}: unsupported mapping {raw!r}")
        else:
            result[key].append(item)
    return result


def pyproject_requirements(project: dict) -> dict[str, str]:
    """{normalized name: version spec} for the core dependencies and the mirrored extras."""
    own = normalize(project["name"])
    extras = project.get("optional-dependencies", {})
    reqs: dict[str, str] = {}
    groups = [project.get("dependencies", [])]
    groups += [deps for extra, deps in extras.items() if extra not in EXTRAS_NOT_IN_CONDA]
    for group in groups:
        for text in group:
            name, referenced, spec = parse_requirement(text)
            if name == own:  # a self-reference like nbgrad[lab]: its extras are read anyway
                for extra in referenced:
                    assert extra in extras, f"{text!r} names an extra pyproject.toml lacks"
                continue
            assert reqs.get(name, spec) == spec, f"{name} has two version ranges in pyproject.toml"
            reqs[name] = spec
    return reqs


def conda_requirements(env: dict) -> dict[str, str]:
    """{normalized conda name: version spec}, pip items left out."""
    reqs: dict[str, str] = {}
    for item in env.get("dependencies", []):
        if isinstance(item, dict):
            continue
        name, spec = parse_conda_spec(item)
        assert name not in reqs, f"{name} is listed twice in environment.yml"
        reqs[name] = spec
    return reqs


def expected_conda(pyproject_reqs: dict[str, str]) -> dict[str, str]:
    return {PYPI_TO_CONDA.get(name, name): spec for name, spec in pyproject_reqs.items()}


def missing_from_environment(pyproject_reqs: dict[str, str], conda_reqs: dict[str, str]) -> list[str]:
    return sorted(set(expected_conda(pyproject_reqs)) - set(conda_reqs))


def extra_in_environment(pyproject_reqs: dict[str, str], conda_reqs: dict[str, str]) -> list[str]:
    return sorted(set(conda_reqs) - set(expected_conda(pyproject_reqs)) - CONDA_ONLY)


@pytest.fixture(scope="module")
def project() -> dict:
    with PYPROJECT.open("rb") as f:
        return tomllib.load(f)["project"]


@pytest.fixture(scope="module")
def env() -> dict:
    return parse_environment_yml(ENVIRONMENT.read_text(encoding="utf-8"))


def test_every_pyproject_dependency_is_in_environment_yml(project, env):
    missing = missing_from_environment(pyproject_requirements(project), conda_requirements(env))
    assert not missing, (
        f"environment.yml lacks {missing}, which pyproject.toml requires (core or an extra "
        f"other than {sorted(EXTRAS_NOT_IN_CONDA)}). Add them under their conda-forge names "
        f"(PyPI -> conda-forge renames: {PYPI_TO_CONDA})."
    )


def test_environment_yml_lists_nothing_pyproject_lacks(project, env):
    extra = extra_in_environment(pyproject_requirements(project), conda_requirements(env))
    assert not extra, (
        f"environment.yml lists {extra}, which pyproject.toml does not require. "
        f"pyproject.toml is the single source of dependencies: add them there first."
    )


def test_version_ranges_agree(project, env):
    conda = conda_requirements(env)
    differ = {
        name: (spec, conda[name])
        for name, spec in expected_conda(pyproject_requirements(project)).items()
        if name in conda and conda[name] != spec
    }
    assert not differ, f"version ranges differ, {{name: (pyproject, environment.yml)}}: {differ}"


def test_python_version_agrees(project, env):
    assert conda_requirements(env).get("python") == project["requires-python"].replace(" ", "")


def test_environment_yml_installs_the_package_cpu_only(env):
    assert env.get("name") == "nbgrad"
    assert env.get("channels", [None])[0] == "conda-forge"
    pip_items = [item["pip"] for item in env["dependencies"] if isinstance(item, dict)]
    assert pip_items == [["-e ."]], "environment.yml should end with `- pip: [-e .]`"
    assert "pip" in conda_requirements(env), "a pip: section needs pip itself listed"
    gpu = [name for name in conda_requirements(env) if "cupy" in name or "cuda" in name]
    assert not gpu, f"environment.yml is CPU only, but lists {gpu}"


def test_extras_use_ranges_and_leave_torch_out(project):
    groups = {"dependencies": project["dependencies"], **project["optional-dependencies"]}
    assert {"lab", "test", "course", "cuda12"} <= set(groups)
    for group, deps in groups.items():
        for text in deps:
            name, _, spec = parse_requirement(text)
            assert name != "torch", (
                f"torch in {group}: a plain torch requirement pulls a multi-GB CUDA build; "
                f"CI installs torch==2.13.0 (CPU) itself"
            )
            assert "==" not in spec and "===" not in spec, f"{text!r} in {group} is a pin, use a range"


def test_readme_quick_start_commands():
    """.ci/run runs the README's test command verbatim; both quick-start lines must be there."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines.count(
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[lab]" && '
        'jupyter lab --notebook-dir=. notebooks/README.ipynb'
    ) == 1
    test_lines = [line for line in lines if re.match(r'python3 -m venv \.venv && .*pip install -e "\.\[test\]"', line)]
    assert test_lines == [
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && python -m pytest -n 2'
    ]


# --- the checks themselves --------------------------------------------------------------

def test_checks_catch_a_dependency_added_on_one_side_only():
    pyproject = {"numpy": ">=1.26", "graphviz": ">=0.20", "matplotlib": ">=3.7"}
    conda = {"python": ">=3.11", "pip": "", "graphviz": "", "numpy": ">=1.26",
             "python-graphviz": ">=0.20", "matplotlib-base": ">=3.7"}
    assert missing_from_environment(pyproject, conda) == []
    assert extra_in_environment(pyproject, conda) == []
    assert missing_from_environment({**pyproject, "rich": ">=13"}, conda) == ["rich"]
    assert extra_in_environment(pyproject, {**conda, "rich": ">=13"}) == ["rich"]
    # the binary `graphviz` does not stand in for the python package
    assert missing_from_environment(pyproject, {k: v for k, v in conda.items() if k != "python-graphviz"}) == [
        "python-graphviz"
    ]


def test_parser_reads_nested_pip_list_and_rejects_unknown_syntax():
    text = (
        "name: demo  # comment\n"
        "channels:\n  - conda-forge\n"
        "dependencies:\n"
        "  - python>=3.11\n"
        "  - pip\n"
        "  - pip:\n"
        "      - -e .\n"
        "      - rich>=13\n"
        "  - numpy\n"
    )
    assert parse_environment_yml(text) == {
        "name": "demo",
        "channels": ["conda-forge"],
        "dependencies": ["python>=3.11", "pip", {"pip": ["-e .", "rich>=13"]}, "numpy"],
    }
    with pytest.raises(ValueError):
        parse_environment_yml("dependencies: [numpy, scipy]\n")
    with pytest.raises(ValueError):
        parse_environment_yml("dependencies:\n  - conda-forge::numpy:\n")


def test_parser_agrees_with_pyyaml():
    yaml = pytest.importorskip("yaml")
    text = ENVIRONMENT.read_text(encoding="utf-8")
    assert parse_environment_yml(text) == yaml.safe_load(text)


def test_the_wheel_carries_the_stubs_the_type_marker_and_the_torch_names(tmp_path):
    """What an IDE reads from an installed nbgrad: the .pyi stubs, py.typed (PEP 561) and
    the names missing.py explains; they are package data, which a wheel must include."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path),
                    str(ROOT)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("nbgrad-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {"nbgrad/py.typed", "nbgrad/torch_names.json", "nbgrad/tensor.pyi",
                "nbgrad/__init__.pyi", "nbgrad/nn/functional.pyi", "nbgrad/nn/activation.pyi"}
    assert expected <= names, sorted(expected - names)


def test_a_plain_pytest_n_keeps_a_notebooks_cells_on_one_worker(tmp_path):
    """nbval's cells share their notebook's kernel, so they must run in order on one worker:
    the configuration's ``--dist loadscope`` makes ``pytest -n 2`` (without it) do so."""
    nbformat = pytest.importorskip("nbformat", reason="nbformat comes with the [test] extra")
    cells = [nbformat.v4.new_code_cell("step = 0", execution_count=1)]
    for i in range(1, 9):  # each cell needs the one before it
        cell = nbformat.v4.new_code_cell(f"step += 1\nstep", execution_count=i + 1)
        cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": str(i)},
                                               execution_count=i + 1)]
        cells.append(cell)
    notebook = tmp_path / "steps.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), notebook)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
         "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), str(notebook)],
        cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "9 passed" in result.stdout
