"""Write ``nbgrad/torch_names.json``: the public names of PyTorch's modules nbgrad mirrors.

    python tools/list_torch_names.py    # needs torch installed (CI's version: 2.13.0)

With the list, an ``AttributeError`` for a name nbgrad lacks can say whether PyTorch has
it ("nbgrad does not implement torch.stft (yet)") or whether it is a plain typo
(``nbgrad/missing.py``). The file is committed, so nbgrad needs no torch at run time.
"""

import importlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "nbgrad" / "torch_names.json"
MODULES = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
           "torch.optim", "torch.optim.lr_scheduler", "torch.autograd", "torch.linalg",
           "torch.utils", "torch.utils.data", "torch.cuda", "torch.backends"]


def public_names(obj):
    return sorted(name for name in dir(obj) if not name.startswith("_"))


def main():
    import torch

    names = {module: public_names(importlib.import_module(module)) for module in MODULES}
    names["torch.Tensor"] = public_names(torch.Tensor)
    document = {"torch": torch.__version__.split("+")[0], "names": names}
    OUT.write_text(json.dumps(document, indent=0, sort_keys=True) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)} ({sum(map(len, names.values()))} names, torch "
          f"{document['torch']})")


if __name__ == "__main__":
    main()
