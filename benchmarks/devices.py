"""nbgrad's MLP on the CPU and on the GPU, at a large batch (where a GPU can pay off).

The same 64-128-128-10 ReLU MLP as ``mlp.py`` (``nn.Sequential``, ``cross_entropy``,
``optim.SGD``), moved with ``Module.to(device)``, trained on 4096 rows of digits that
live on the device. ``loss.item()`` ends each step: it waits for the GPU to finish, so
the times are complete. The GPU column reads ``n/a (no GPU)`` where
``nbgrad.cuda.is_available()`` is False.
"""

from common import median, ng, perf_counter
import memory
import mlp


def step_times(X, y, steps):
    """Median seconds per training step for ``"cpu"`` and ``"cuda"`` (``None``: no GPU)."""
    x_host, t_host = memory.big_batch(X, y)
    nn = ng.nn
    times = {}
    for device in ("cpu", "cuda"):
        if device == "cuda" and not ng.cuda.is_available():
            times[device] = None
            continue
        ng.manual_seed(mlp.SEED)
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                              nn.Linear(128, 10)).to(device)
        optimizer = ng.optim.SGD(model.parameters(), lr=mlp.LR)
        x = ng.from_numpy(x_host).to(device)
        t = ng.from_numpy(t_host).to(device)

        def step():
            loss = nn.functional.cross_entropy(model(x), t)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            return loss.item()

        step()  # warm-up: CuPy compiles each kernel on its first use
        samples = []
        for _ in range(steps):
            start = perf_counter()
            step()
            samples.append(perf_counter() - start)
        times[device] = median(samples)
    return times
