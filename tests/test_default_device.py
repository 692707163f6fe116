"""Parity of ``set_default_device`` / ``get_default_device`` and ``nbgrad.backends`` (mps,
cudnn) with PyTorch, on the CPU; on CUDA where CuPy finds a GPU."""

import pytest

from parity import check, check_error, torch

import nbgrad as ng

GPU = pytest.mark.skipif(not ng.cuda.is_available(), reason="no usable GPU (CuPy)")


@pytest.fixture(autouse=True)
def default_device_restored():
    yield
    torch.set_default_device(None)
    ng.set_default_device(None)


@pytest.mark.parametrize("dev", ["cpu", None, "device"])
def test_cpu_default(dev):
    def program(M):
        before = M.get_default_device()
        M.set_default_device(M.device("cpu") if dev == "device" else dev)
        devices = [before, M.get_default_device(), M.zeros(2).device, M.tensor([1.0]).device,
                   M.rand(2).device, M.nn.Linear(2, 2).weight.device]
        return [repr(d) for d in devices]
    check(program)


@pytest.mark.parametrize("bad", ["tpu", 3.5])
def test_bad_default_device(bad):
    check_error(lambda M: M.set_default_device(bad), key="")


def test_cuda_default_without_a_gpu_fails_when_used():
    if ng.cuda.is_available() or torch.cuda.is_available():
        pytest.skip("a GPU is available")
    check_error(lambda M: (M.set_default_device("cuda"), M.zeros(1)),
                key="not compiled with CUDA enabled")
    check_error(lambda M: (M.set_default_device("cuda"), M.get_default_device()),
                key="not compiled with CUDA enabled")


@GPU
def test_cuda_default_puts_new_tensors_on_the_gpu():
    ng.set_default_device("cuda")
    assert ng.get_default_device() == ng.device("cuda", 0)
    made = [ng.zeros(2), ng.ones(2), ng.tensor([1.0]), ng.rand(2), ng.arange(3),
            ng.nn.Linear(2, 2).weight]
    assert all(t.device.type == "cuda" for t in made)
    cpu = ng.from_numpy(__import__("numpy").ones(2))
    assert cpu.device.type == "cpu" and ng.zeros_like(cpu).device.type == "cpu"
    ng.set_default_device(None)
    assert ng.zeros(1).device == ng.device("cpu")


def test_backends_mps_and_cudnn():
    def program(M):
        mps, cudnn = M.backends.mps, M.backends.cudnn
        seen = [mps.is_available(), mps.is_built(), cudnn.is_available(), cudnn.version(),
                cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32]
        with cudnn.flags(enabled=False, benchmark=True):
            seen += [cudnn.enabled, cudnn.benchmark, cudnn.deterministic]
        seen += [cudnn.enabled, cudnn.benchmark]
        cudnn.benchmark = True
        seen.append(M.backends.cudnn.benchmark)
        cudnn.benchmark = False
        return seen
    check(program)
