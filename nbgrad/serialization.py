"""``nbgrad.save`` / ``nbgrad.load``: tensors, state_dicts and optimizer state on disk, in a
format that cannot run code when it is read.

A file is a zip archive (like PyTorch's) holding

* ``nbgrad.json``: the manifest, ``{"format": "nbgrad", "version": 1, "object": ...}``,
  where the object is described as JSON: numbers, strings, ``None`` and bools as
  themselves, and ``{"tensor": i, ...}``, ``{"list": [...]}``, ``{"tuple": [...]}``,
  ``{"dict": [[key, value], ...]}`` (keys of any storable type, in order),
  ``{"OrderedDict": ...}``, ``{"dtype": name}``, ``{"Size": [...]}``, ``{"ndarray": i}``,
  ``{"numpy_scalar": i}``;
* ``arrays/<i>.npy``: each tensor's values as a NumPy ``.npy`` file, read back with
  ``allow_pickle=False``.

Nothing is unpickled, so PyTorch's own ``.pt`` files, which are pickles, cannot be read:
``load`` says so and how to convert one (``nbgrad.interop.from_torch``). What is kept:
dtype (all of nbgrad's, bool, float16 and int8 included), shape, device, ``requires_grad``,
and ``Parameter`` stays ``Parameter``. A tensor that appears several times in the object
comes back as one tensor; two *different* tensors that share memory (a tensor and its
view, a Parameter and its ``state_dict()`` entry) come back as separate copies, where
PyTorch would keep them sharing. ``.grad`` is not saved (nor by PyTorch).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import zipfile
from collections import OrderedDict
from collections.abc import Callable
from typing import IO, Any, Union

import numpy as np

from . import backend, dtypes
from .backend import device
from .tensor import Parameter, Size, Tensor

__all__ = ["load", "save"]

MANIFEST = "nbgrad.json"
FORMAT = "nbgrad"
VERSION = 1
_CONTAINERS = {list: "list", tuple: "tuple", dict: "dict", OrderedDict: "OrderedDict"}
_BY_NAME = {d.name: d for d in dtypes.ALL}

FileLike = Union[str, os.PathLike, IO[bytes]]  # noqa: UP007 - an alias evaluated at import
MapLocation = Union[None, str, device, dict, Callable]  # noqa: UP007


# -- saving --------------------------------------------------------------------------------
class _Writer:
    """Describes an object as JSON, collecting the arrays it holds."""

    def __init__(self):
        self.arrays = []
        self.seen = {}  # id(tensor) -> its description, so a repeated tensor is stored once

    def _array(self, data):
        self.arrays.append(backend.to_device(data, "cpu"))
        return len(self.arrays) - 1

    def describe(self, obj, where):
        if obj is None or type(obj) in (bool, int, float, str):
            return obj  # exactly these types: JSON would turn a subclass into its base
        if isinstance(obj, Tensor):
            if id(obj) not in self.seen:
                self.seen[id(obj)] = {"tensor": self._array(obj._data),
                                      "device": str(obj.device),
                                      "requires_grad": obj.requires_grad,
                                      "parameter": isinstance(obj, Parameter)}
            return self.seen[id(obj)]
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "biuf":
            return {"ndarray": self._array(obj)}
        if isinstance(obj, np.generic) and obj.dtype.kind in "biuf":  # np.float64(0.1), ...
            return {"numpy_scalar": self._array(np.asarray(obj))}
        if type(obj) is dtypes.dtype:
            return {"dtype": obj.name}
        if type(obj) is Size:
            return {"Size": list(obj)}
        kind = _CONTAINERS.get(type(obj))
        if kind in ("list", "tuple"):
            return {kind: [self.describe(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if kind is not None:
            return {kind: [[self.describe(k, f"{where} (a key)"), self.describe(v, f"{where}[{k!r}]")]
                           for k, v in obj.items()]}
        hint = (" Save its state_dict() instead, and load that into a new one with "
                "load_state_dict()." if hasattr(obj, "state_dict") else "")
        raise TypeError(
            f"nbgrad.save cannot store an object of type {type(obj).__module__}."
            f"{type(obj).__qualname__} (at {where}). It stores tensors, Parameters, NumPy "
            "arrays of numbers, dtypes, sizes, numbers, strings, bools and None, and lists, "
            "tuples and dicts of them: no pickling, so that loading a file never runs code."
            + hint
        )


def save(obj: Any, f: FileLike, pickle_module: Any = None, pickle_protocol: Any = None,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` (tensors, a ``state_dict``, optimizer state, nested containers of them)
    to ``f``.

    Parameters
    ----------
    obj : object
        Tensors, Parameters, NumPy arrays of numbers, dtypes, sizes, ``int``, ``float``,
        ``str``, ``bool``, ``None``, and ``list`` / ``tuple`` / ``dict`` / ``OrderedDict``
        of them (dict keys too).
    f : str, os.PathLike or binary file object
        Where to write (a file object must be open for writing bytes).
    pickle_module, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record
        PyTorch's options, accepted and unused: nbgrad's format never pickles.

    Raises
    ------
    TypeError
        For an object of another type, naming the type and where it is inside ``obj``.

    Notes
    -----
    The format (``nbgrad/serialization.py``) is a zip of ``.npy`` arrays with a JSON
    manifest, so ``load`` cannot run code. A tensor appearing twice is stored once; distinct
    tensors that share memory are stored separately (PyTorch keeps them sharing).
    """
    writer = _Writer()
    manifest = {"format": FORMAT, "version": VERSION, "object": writer.describe(obj, "obj")}
    text = json.dumps(manifest)
    with _opened(f, "wb") as stream, zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, text)
        for i, array in enumerate(writer.arrays):
            with archive.open(f"arrays/{i}.npy", "w", force_zip64=True) as out:
                np.lib.format.write_array(out, array, allow_pickle=False)


# -- loading -------------------------------------------------------------------------------
class _Reader:
    """Rebuilds the object from its JSON description and the archive's arrays."""

    def __init__(self, archive, map_location):
        self.archive = archive
        self.map_location = map_location
        self.built = {}  # array index -> the tensor, so a repeated tensor is one tensor again

    def _array(self, index):
        try:
            with self.archive.open(f"arrays/{int(index)}.npy") as stream:
                return np.lib.format.read_array(stream, allow_pickle=False)
        except (KeyError, ValueError) as e:
            raise _corrupt(f"array {index!r} is missing or unreadable ({e})") from None

    def _tensor(self, spec):
        index = spec["tensor"]
        if index not in self.built:
            data = _on_device(self._array(index), spec.get("device", "cpu"), self.map_location)
            dtypes.from_numpy_dtype(data.dtype)
            if spec.get("parameter"):
                t = Parameter(Tensor._make(data), bool(spec.get("requires_grad")))
            else:
                t = Tensor._make(data)
                t._requires_grad = bool(spec.get("requires_grad")) and data.dtype.kind == "f"
            self.built[index] = t
        return self.built[index]

    def build(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, dict) and "tensor" in node:
            return self._tensor(node)
        if not isinstance(node, dict) or len(node) != 1:
            raise _corrupt(f"unexpected entry {node!r}")
        ((kind, value),) = node.items()
        if kind == "list":
            return [self.build(v) for v in value]
        if kind == "tuple":
            return tuple(self.build(v) for v in value)
        if kind in ("dict", "OrderedDict"):
            pairs = ((self.build(k), self.build(v)) for k, v in value)
            return dict(pairs) if kind == "dict" else OrderedDict(pairs)
        if kind == "ndarray":
            return self._array(value)
        if kind == "numpy_scalar":
            return self._array(value)[()]
        if kind == "dtype" and value in _BY_NAME:
            return _BY_NAME[value]
        if kind == "Size":
            return Size(value)
        raise _corrupt(f"unexpected entry {node!r}")


def _corrupt(detail):
    return RuntimeError(f"nbgrad.load: the file is damaged: {detail}")


def _on_device(array, saved, map_location):
    """The array where ``map_location`` sends a tensor saved on ``saved``; PyTorch's rules
    and its error for a CUDA tensor on a machine without a GPU."""
    if callable(map_location) and not isinstance(map_location, (dict, str, device)):
        moved = map_location(Tensor._make(array), saved)  # PyTorch: fn(storage, location)
        return moved._data if isinstance(moved, Tensor) else array
    target = saved
    if isinstance(map_location, dict):
        target = map_location.get(saved, saved)
    elif map_location is not None:
        target = map_location
    target = device(target)
    if target.type == "cuda" and not backend.cuda_is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but nbgrad.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use nbgrad.load with "
            "map_location=nbgrad.device('cpu') to map your storages to the CPU."
        )
    return backend.to_device(array, target)


def _what_it_is(archive_names, head):
    """A sentence naming a file that is not nbgrad's, and what to do with it."""
    if archive_names is not None:
        if any(n.endswith("data.pkl") for n in archive_names):
            return ("it is a PyTorch file (torch.save). nbgrad does not read those: they are "
                    "pickles, and unpickling can run code. Load it with torch.load(f) and "
                    "convert it with nbgrad.interop.from_torch(obj), then nbgrad.save it.")
        if archive_names and all(n.endswith(".npy") for n in archive_names):
            return "it is a NumPy .npz archive: read it with numpy.load(f)."
        return "it is a zip archive without nbgrad's manifest (nbgrad.json)."
    if head[:1] == b"\x80":
        return ("it is a Python pickle (perhaps a PyTorch file written with "
                "_use_new_zipfile_serialization=False). nbgrad never unpickles, as that can "
                "run code: load it with torch.load(f) and convert it with "
                "nbgrad.interop.from_torch(obj).")
    if head[:6] == b"\x93NUMPY":
        return "it is a NumPy .npy file: read it with numpy.load(f)."
    return "nbgrad.save writes a zip archive with a manifest, nbgrad.json."


def load(f: FileLike, map_location: MapLocation = None, pickle_module: Any = None, *,
         weights_only: Any = None, mmap: Any = None, **pickle_load_args: Any) -> Any:
    """Load an object saved by ``nbgrad.save``.

    Parameters
    ----------
    f : str, os.PathLike or binary file object
        The file (a file object must be open for reading bytes, and seekable).
    map_location : str, nbgrad.device, dict or callable, optional
        Where tensors go: a device for all of them, a dict from saved device names to
        devices (``{"cuda:0": "cpu"}``), or PyTorch's ``fn(tensor, location)`` returning
        the tensor to use (``lambda storage, loc: storage`` keeps it on the CPU). By
        default each goes back to the device it was saved from.
    pickle_module, weights_only, mmap, **pickle_load_args
        PyTorch's options, accepted and unused: nothing is unpickled, so loading is always
        as safe as PyTorch's ``weights_only=True``.

    Returns
    -------
    object
        What was saved, with tensors as leaves (``requires_grad`` and ``Parameter`` as
        saved).

    Raises
    ------
    RuntimeError
        When ``f`` is not an nbgrad file, saying what it is (a PyTorch ``.pt`` file, a
        pickle, a NumPy file) and what to do instead; when a CUDA tensor is loaded on a
        machine without a GPU and no ``map_location`` is given.
    """
    with _opened(f, "rb") as stream:
        head = stream.read(8)
        stream.seek(-len(head), io.SEEK_CUR)
        if not zipfile.is_zipfile(stream):
            raise RuntimeError(f"nbgrad.load: {_name(f)} is not an nbgrad file: "
                               f"{_what_it_is(None, head)}")
        stream.seek(0)
        with zipfile.ZipFile(stream) as archive:
            names = archive.namelist()
            if MANIFEST not in names:
                raise RuntimeError(f"nbgrad.load: {_name(f)} is not an nbgrad file: "
                                   f"{_what_it_is(names, head)}")
            try:
                manifest = json.loads(archive.read(MANIFEST))
            except ValueError as e:
                raise _corrupt(f"{MANIFEST} is not valid JSON ({e})") from None
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise _corrupt(f"{MANIFEST} is not nbgrad's manifest")
            if manifest.get("version") != VERSION:
                raise RuntimeError(f"nbgrad.load: {_name(f)} has format version "
                                   f"{manifest.get('version')!r}; this nbgrad reads version "
                                   f"{VERSION}. Upgrade nbgrad to read it.")
            return _Reader(archive, map_location).build(manifest["object"])


def _name(f):
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"


@contextlib.contextmanager
def _opened(f, mode):
    """``f`` as an open binary stream: a path is opened (and closed after), a file object
    is used as it is (and left open, as PyTorch leaves it)."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as stream:
            yield stream
        return
    if not hasattr(f, "write" if "w" in mode else "read"):
        raise TypeError(f"expected a path or a binary file object, got {type(f).__name__}")
    yield f
