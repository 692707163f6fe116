"""A name nbgrad lacks gets an AttributeError that says whether PyTorch has it."""

import importlib
import inspect
import json
import pathlib
import random

import pytest

import nbgrad
from nbgrad import missing

NAMES = json.loads((pathlib.Path(nbgrad.__file__).with_name("torch_names.json")).read_text())
# nbgrad's modules that explain a missing name, with PyTorch's counterpart
MODULES = {"nbgrad": "torch", "nbgrad.nn": "torch.nn", "nbgrad.nn.functional": "torch.nn.functional",
           "nbgrad.nn.init": "torch.nn.init", "nbgrad.optim": "torch.optim",
           "nbgrad.autograd": "torch.autograd", "nbgrad.cuda": "torch.cuda",
           "nbgrad.utils": "torch.utils", "nbgrad.linalg": "torch.linalg", "nbgrad.utils.data": "torch.utils.data"}


def lacking(module, torch_module):
    return [name for name in NAMES["names"][torch_module] if not hasattr(module, name)]


@pytest.mark.parametrize("module_name", MODULES)
def test_every_pytorch_name_a_module_lacks_says_so(module_name):
    module = importlib.import_module(module_name)
    torch_module = MODULES[module_name]
    names = lacking(module, torch_module)
    assert names, f"{module_name} has every name of {torch_module}: pick another module"
    for name in names:
        with pytest.raises(AttributeError) as error:
            getattr(module, name)
        assert str(error.value) == (f"module '{module_name}' has no attribute '{name}': "
                                    f"nbgrad does not implement {torch_module}.{name} (yet)"
                                    + (f"; instead, {missing.INSTEAD[f'{torch_module}.{name}']}"
                                       if f"{torch_module}.{name}" in missing.INSTEAD else ""))
        assert error.value.name == name


@pytest.mark.parametrize("module_name", MODULES)
def test_a_name_pytorch_lacks_too_gets_pythons_plain_message(module_name):
    module = importlib.import_module(module_name)
    with pytest.raises(AttributeError, match=fr"^module '{module_name}' has no attribute 'zeros_lke'$"):
        module.zeros_lke  # noqa: B018
    assert not hasattr(module, "__no_such_dunder__")


def test_every_pytorch_tensor_method_nbgrad_lacks_says_so():
    x = nbgrad.zeros(2)
    names = [name for name in NAMES["names"]["torch.Tensor"] if not hasattr(nbgrad.Tensor, name)]
    assert "stft" in names
    for name in random.Random(0).sample(names, min(200, len(names))):
        with pytest.raises(AttributeError, match=(
                fr"^'Tensor' object has no attribute '{name}': "
                fr"nbgrad does not implement torch\.Tensor\.{name} \(yet\)$")):
            getattr(x, name)
    with pytest.raises(AttributeError, match=r"^'Parameter' object has no attribute 'sizee'$"):
        nbgrad.nn.Parameter(nbgrad.zeros(1)).sizee  # noqa: B018


def test_the_instead_hint_names_what_to_use():
    with pytest.raises(AttributeError, match="nbgrad does not implement torch.compile .yet.; "
                                             "instead, nbgrad runs eagerly"):
        nbgrad.compile  # noqa: B018


def test_names_that_exist_and_submodules_are_found_as_before():
    from nbgrad.nn import functional  # a submodule, through from-import

    assert functional is importlib.import_module("nbgrad.nn.functional")
    assert getattr(nbgrad.zeros(1), "__array_interface__", "absent") == "absent"
    x = nbgrad.zeros(1)
    x.note = "mine"  # the user's own attributes are untouched
    assert x.note == "mine"


def test_the_name_list_is_pytorchs():
    torch = pytest.importorskip("torch", reason="torch is not installed: the list is compared with it")
    version = torch.__version__.split("+")[0]
    if version != NAMES["torch"]:
        pytest.skip(f"the list is of torch {NAMES['torch']}, this is {version}: "
                    "run tools/list_torch_names.py under that version to compare")
    modules = [m for m in NAMES["names"] if m != "torch.Tensor"]
    for module in modules:  # as the tool did: each one's submodules are then attributes
        importlib.import_module(module)
    for torch_module, names in NAMES["names"].items():
        owner = torch.Tensor if torch_module == "torch.Tensor" else importlib.import_module(torch_module)
        current = {n for n in dir(owner) if not n.startswith("_")}
        # a submodule becomes an attribute once something imports it: those may be new
        later = {n for n in current - set(names) if not inspect.ismodule(getattr(owner, n))}
        assert set(names) <= current and not later, (
            f"{torch_module}: run python tools/list_torch_names.py")
