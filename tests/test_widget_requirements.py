"""A widget imported without the [lab] extra's modules says which one is missing and how
to install it, instead of a bare ModuleNotFoundError from inside nbgrad."""

import subprocess
import sys
import textwrap

import pytest

from nbgrad.viz.widgets import LAB_MODULES


@pytest.mark.parametrize("missing", LAB_MODULES)
def test_a_widget_without_a_lab_module_names_the_lab_extra(missing):
    # a module set to None in sys.modules is one Python cannot import, as if not installed
    program = textwrap.dedent(f"""
        import importlib.util, sys
        real_find_spec = importlib.util.find_spec
        importlib.util.find_spec = lambda name, *a: None if name == {missing!r} else real_find_spec(name, *a)
        sys.modules[{missing!r}] = None
        try:
            from nbgrad.viz.widgets.chain_rule import ChainRuleExplorer
        except ModuleNotFoundError as error:
            print(type(error).__name__, error.name)
            print(error)
    """)
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    kind, message = result.stdout.split("\n", 1)
    assert kind == f"ModuleNotFoundError {missing}"
    assert f"need {missing}, which is not installed" in message
    assert 'pip install -e ".[lab]"' in message


def test_with_the_lab_extra_the_widgets_import():
    from nbgrad.viz.widgets.chain_rule import ChainRuleExplorer

    assert ChainRuleExplorer.__module__ == "nbgrad.viz.widgets.chain_rule"
