# Generated from solutions/07_detach.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 07: ``detach()`` and ``.data``.

Both give a tensor over the same memory that requires no grad and has no history.
``detach()`` shares the version counter too, so an in-place change through it is caught
by the saved-tensor check; ``.data`` gets a counter of its own, so the same change goes
unnoticed and backward silently computes with the new values.
"""

from buildgrad.c06_nondifferentiable import *  # noqa: F403  (chapter 07 continues chapter 06)

DETACH_VIEW_IN_PLACE = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
    "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
    "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
    "torch/optim/optimizer.py as the solution.")


@extend(Tensor)
def detach(self):
    out = Tensor(self.array)
    out._version_counter = self._version_counter  # in-place changes stay visible
    return out


@extend(Tensor)
@property
def data(self):
    return Tensor(self.array)  # a counter of its own: in-place changes go unnoticed


@data.setter
def data(self, value):
    self.array = value.array


Tensor.data = data


@extend(Tensor)
def detach_(self):
    if self._base is not None:
        raise RuntimeError(DETACH_VIEW_IN_PLACE)
    self.grad_fn = None
    self._requires_grad = False
    return self


__all__ = public_names(globals())
