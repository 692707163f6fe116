"""nbgrad's benchmark suite: hand NumPy, PyTorch (CPU) and nbgrad, side by side, one run.

    python benchmarks/run.py            # the full suite (about a minute or two)
    python benchmarks/run.py --quick    # a smoke run (about 30 s)
    python benchmarks/run.py --profile  # also: cProfile of nbgrad's MLP step and op chain

Prints a Markdown table (ready to paste into the README) with the machine, the versions,
the measured numbers, their ratios to hand-written NumPy, the targets of GUIDE section 8
and PASS/FAIL; the same report is written to ``benchmarks/results/`` (ignored by git).
See ``benchmarks/README.md`` for what each row measures.
"""

import os

# One BLAS/OpenMP thread for every engine: set before NumPy or PyTorch is imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
try:
    import nbgrad  # noqa: F401
except ImportError:  # run from a checkout without installing: use the repository's copy
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402

from common import fmt_mb, fmt_ratio, fmt_time, interleaved, ng, torch  # noqa: E402

if torch is not None:
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set (only possible once, before any parallel work)
        pass

import basic_mlp  # noqa: E402
import cnn  # noqa: E402
import devices  # noqa: E402
import graphs  # noqa: E402
import inference  # noqa: E402
import memory  # noqa: E402
import mlp  # noqa: E402
import overhead  # noqa: E402

FULL = dict(epochs=10, repeats=11, chains=10, chain_repeats=11, depth_repeats=5,
            million=True, flat_steps=2000, device_steps=10, cnn_repeats=5, cnn_epochs=5,
            inference_repeats=11)
QUICK = dict(epochs=2, repeats=3, chains=3, chain_repeats=3, depth_repeats=1,
             million=False, flat_steps=200, device_steps=3, cnn_repeats=1, cnn_epochs=2,
             inference_repeats=3)
FLAT_TOLERANCE = 32 * 1024  # bytes of growth between step 10 and the last step


# -- the machine --------------------------------------------------------------------------
def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def threads():
    """One line per thread pool: what threadpoolctl sees, and PyTorch's own setting.
    Returns (text, all_single)."""
    parts, single = [], True
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        parts.append("threadpoolctl not installed (thread counts not verified)")
    else:
        for pool in threadpool_info():
            lib = os.path.basename(pool.get("filepath", "")) or pool.get("prefix", "?")
            parts.append(f"{pool['internal_api']} {pool.get('version') or ''} "
                         f"({lib}): {pool['num_threads']}".replace("  ", " "))
            single &= pool["num_threads"] == 1
    if torch is not None:
        parts.append(f"torch.get_num_threads(): {torch.get_num_threads()}")
        single &= torch.get_num_threads() == 1
    return "; ".join(parts), single


def git_revision():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "nbgrad"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return (rev + (" + uncommitted changes in nbgrad/" if dirty else "")) or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _loadavg():
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "n/a"


def _busy(load):
    try:  # this process keeps one core busy itself
        return float(load) > (os.cpu_count() or 1) * 0.5 + 1
    except ValueError:
        return False


# -- the report ---------------------------------------------------------------------------
def verdict(ok):
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def ratio(a, b):
    return None if a is None or b is None or not b else a / b


def fmt_bytes(n):
    if n is None:
        return "n/a"
    return f"{n / 1024:.1f} KiB" if abs(n) < 2**20 else fmt_mb(n)


def build_table(res):
    rows = []
    has_torch = torch is not None
    for batch in (64, 512):
        t = res[f"mlp{batch}"]
        limit = 1.5 if batch == 64 else 1.15
        nb = ratio(t["nbgrad"], t["numpy"])
        rows.append([
            f"MLP 64-128-128-10 on digits, batch {batch}, time per epoch",
            fmt_time(t["numpy"]), fmt_time(t.get("torch", float("nan"))), fmt_time(t["nbgrad"]),
            fmt_ratio(ratio(t.get("torch"), t["numpy"])), fmt_ratio(nb),
            f"<= {limit}x NumPy", verdict(nb <= limit),
        ])
    for batch in (64, 512):
        t = res[f"basic{batch}"]
        limit = 0.85 if batch == 64 else 0.95
        vs_torch = ratio(t["nbgrad"], t.get("torch"))
        rows.append([
            f"MLP as above, loss from basic ops, lr 0.1, batch {batch}, time per epoch",
            fmt_time(t["numpy"]), fmt_time(t.get("torch", float("nan"))), fmt_time(t["nbgrad"]),
            fmt_ratio(ratio(t.get("torch"), t["numpy"])),
            f"{fmt_ratio(ratio(t['nbgrad'], t['numpy']))} ({fmt_ratio(vs_torch)} PyTorch)",
            f"<= {limit}x PyTorch", verdict(None if vs_torch is None else vs_torch <= limit),
        ])
    c = res["cnn"]
    cnn_vs_torch = ratio(c["nbgrad"], c.get("torch"))
    rows.append([
        "CNN conv-pool-conv-pool-linear on 8x8 digits, batch 64, time per epoch",
        "-", fmt_time(c.get("torch", float("nan"))), fmt_time(c["nbgrad"]),
        "-", f"{fmt_ratio(cnn_vs_torch)} PyTorch" if cnn_vs_torch else "-",
        "<= 1.5x PyTorch", verdict(None if cnn_vs_torch is None else cnn_vs_torch <= 1.5),
    ])
    o = res["overhead"]
    vs_torch = ratio(o["nbgrad"], o.get("torch"))
    rows.append([
        f"overhead: {overhead.OPS} ops on 8 float64 values (* + tanh), forward+backward, us/op",
        f"{o['numpy']:.2f}", f"{o['torch']:.2f}" if has_torch else "n/a", f"{o['nbgrad']:.2f}",
        fmt_ratio(ratio(o.get("torch"), o["numpy"])),
        f"{fmt_ratio(ratio(o['nbgrad'], o['numpy']))} ({fmt_ratio(vs_torch)} PyTorch)",
        "<= 0.75x PyTorch", verdict(None if vs_torch is None else vs_torch <= 0.75),
    ])
    i = res["inference"]
    modes = {name: i[name]["inference_mode"] / i[name]["no_grad"] for name in i}

    def both_modes(name):
        return " / ".join(fmt_time(i[name][mode] / 1e3) for mode in inference.MODES)

    rows.append([
        f"inference: the MLP on one row at a time, {inference.N_ROWS} rows, "
        "no_grad / inference_mode",
        "-", both_modes("torch") if has_torch else "n/a", both_modes("nbgrad"),
        "-", f"inference_mode {fmt_ratio(modes['nbgrad'])} no_grad"
        + (f" (PyTorch {fmt_ratio(modes['torch'])})" if has_torch else ""),
        "inference_mode <= no_grad (3% noise)", verdict(modes["nbgrad"] <= 1.03),
    ])
    d = res["depth"]
    nb_vs_torch = ratio(d["nbgrad"], d.get("torch"))
    rows.append([
        "depth: x = x + 1 chained 10^5 times, forward + backward",
        "-", fmt_time(d.get("torch", float("nan"))), fmt_time(d["nbgrad"]),
        "-", f"{fmt_ratio(nb_vs_torch)} PyTorch" if nb_vs_torch else "-",
        "<= 0.75x PyTorch", verdict(None if nb_vs_torch is None else nb_vs_torch <= 0.75),
    ])
    million = res.get("million")
    rows.append([
        "depth: the same, 10^6 times (nbgrad)",
        "-", "-", "skipped (--quick)" if million is None else fmt_time(million["time"]),
        "-", "-", "works", "n/a" if million is None else verdict(million["ok"]),
    ])
    for n, v in sorted(res["views"].items()):
        vs_torch = ratio(v.get("nbgrad"), v.get("torch"))
        rows.append([
            f"view chain: 10^{len(str(n)) - 1} chained view(), one in-place change on the last, "
            "backward",
            "-", fmt_time(v.get("torch", float("nan"))), fmt_time(v["nbgrad"]),
            "-", f"{fmt_ratio(vs_torch)} PyTorch" if vs_torch else "-",
            "<= 3x PyTorch" if n == 10**5 else "report only (10^6: works)",
            verdict(None if vs_torch is None or n != 10**5 else vs_torch <= 3),
        ])
    m = res["memory"]
    nb = ratio(m["nbgrad"], m["numpy"])
    rows.append([
        "extra memory of one MLP step, batch 4096",
        fmt_mb(m["numpy"]), fmt_mb(m.get("torch")) + ("*" if m.get("torch") else ""),
        fmt_mb(m["nbgrad"]),
        fmt_ratio(ratio(m.get("torch"), m["numpy"])), fmt_ratio(nb), "<= hand NumPy",
        verdict(nb <= 1),
    ])
    cpu, gpu = res["devices"]["cpu"], res["devices"]["cuda"]
    rows.append([
        f"nbgrad MLP step, batch {memory.BATCH}: CPU / GPU",
        "-", "-", f"{fmt_time(cpu)} / " + ("n/a (no GPU)" if gpu is None else fmt_time(gpu)),
        "-", "-" if gpu is None else f"GPU {cpu / gpu:.2f}x faster", "report only", "n/a",
    ])
    early, last, steps = res["flat"]
    rows.append([
        f"nbgrad traced memory after step 10 / after step {steps} (batch 64)",
        "-", "-", f"{fmt_bytes(early)} / {fmt_bytes(last)}", "-",
        f"{last - early:+,d} B", f"flat (growth < {FLAT_TOLERANCE // 1024} KiB)",
        verdict(last - early < FLAT_TOLERANCE),
    ])
    header = ["workload", "hand NumPy", "PyTorch CPU", "nbgrad", "PyTorch / NumPy",
              "nbgrad / NumPy", "target (GUIDE 8; issue 31)", "result"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines), [row[-1] for row in rows]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: few repeats, no 10^6 depth (about 30 s)")
    parser.add_argument("--structure", choices=("auto", "nn", "ops"), default="auto",
                        help="MLP written with nn/optim or with tensor ops (auto: nn if it "
                             "works, else ops)")
    parser.add_argument("--profile", action="store_true",
                        help="also print cProfile's top functions for nbgrad")
    parser.add_argument("--no-save", action="store_true",
                        help="do not write the report to benchmarks/results/")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    started = time.perf_counter()

    def progress(message):
        print(f"[{time.perf_counter() - started:6.1f} s] {message}", file=sys.stderr,
              flush=True)

    load_start = _loadavg()
    thread_text, single = threads()
    if not single:
        try:  # enforce what the environment variables did not
            from threadpoolctl import threadpool_limits
            _limits = threadpool_limits(limits=1)  # noqa: F841  (kept for the whole run)
            thread_text += "; enforced to 1 with threadpoolctl"
        except ImportError:
            thread_text += "; WARNING: more than one thread"

    X, y = mlp.load_data()
    structure, structure_note = mlp.choose_structure(args.structure, X, y)
    progress(f"MLP structure: {structure_note}")
    res = {}
    for batch in (64, 512):
        progress(f"MLP, batch {batch}")
        res[f"mlp{batch}"] = mlp.benchmark(X, y, batch, structure, cfg["epochs"],
                                           cfg["repeats"], interleaved)
    for batch in (64, 512):
        progress(f"MLP with the loss from basic ops, batch {batch}")
        res[f"basic{batch}"] = basic_mlp.basic_mlp(batch, cfg["epochs"], cfg["repeats"],
                                                   interleaved)
    progress("CNN, batch 64 (a process per engine)")
    res["cnn"] = cnn.benchmark(cfg["cnn_repeats"], cfg["cnn_epochs"],
                               ("nbgrad",) if torch is None else ("torch", "nbgrad"))
    progress("overhead chain")
    res["overhead"] = overhead.overhead(cfg["chains"], cfg["chain_repeats"], interleaved)
    progress("inference, no_grad and inference_mode")
    res["inference"] = inference.inference(cfg["inference_repeats"], interleaved)
    progress("depth 10^5")
    engines = {"nbgrad": ng} if torch is None else {"torch": torch, "nbgrad": ng}
    res["depth"], depth_free = graphs.timed(10**5, cfg["depth_repeats"], engines,
                                            graphs.depth_once)
    if cfg["million"]:
        progress("depth 10^6 (nbgrad)")
        try:
            elapsed, freed = graphs.in_own_process(graphs.depth_once, ng, 10**6)
            res["million"] = dict(time=elapsed, freed=freed, ok=True)
        except RuntimeError as error:  # the process's failure, whatever it was
            res["million"] = dict(time=float("nan"), freed=float("nan"), ok=False,
                                  error=f"{type(error).__name__}: {error}")
    res["views"] = {}
    for n in (10**4, 10**5) + ((10**6,) if cfg["million"] else ()):
        progress(f"view chain 10^{len(str(n)) - 1}")
        res["views"][n], _ = graphs.timed(n, 1 if n == 10**6 else cfg["depth_repeats"], engines,
                                          graphs.view_chain_once)
    progress("memory of one step")
    res["memory"], memory_notes = memory.step_memory(X, y, structure)
    progress("MLP step on the CPU and the GPU")
    res["devices"] = devices.step_times(X, y, cfg["device_steps"])
    progress(f"memory over {cfg['flat_steps']} steps")
    res["flat"] = memory.flat_memory(X, y, structure, cfg["flat_steps"]) + (cfg["flat_steps"],)

    table, verdicts = build_table(res)
    now = datetime.datetime.now().astimezone()
    info = [
        f"Date: {now:%Y-%m-%d %H:%M %Z}",
        f"CPU: {cpu_model()} ({os.cpu_count()} logical cores)",
        f"Python {platform.python_version()}, NumPy {np.__version__}, "
        f"torch {torch.__version__ if torch is not None else 'not installed'}, "
        f"nbgrad {getattr(ng, '__version__', '?')} ({git_revision()})",
        f"Threads: {thread_text}",
        f"Load average (1 min) at start / end: {load_start} / {_loadavg()}"
        + (" -- the machine was busy, timings are inflated and noisy"
           if _busy(load_start) or _busy(_loadavg()) else ""),
        f"MLP written with: {structure_note}",
        f"Run: {'--quick' if args.quick else 'full'}; MLP median of {cfg['repeats']} blocks of "
        f"{cfg['epochs']} epochs; overhead median of {cfg['chain_repeats']} blocks of "
        f"{cfg['chains']} chains; depth median of {cfg['depth_repeats']}",
    ]
    notes = [
        "Ratios are to hand-written NumPy (the floor) except the CNN, depth and view-chain "
        "rows (nbgrad / PyTorch).",
        "Same initial weights and batch order everywhere; losses of the first 5 steps and the "
        "weights after them checked equal (float32 tolerance).",
        "Time to free the 10^5-deep graph (not in the row): " + ", ".join(
            f"{k} {fmt_time(v)}" for k, v in depth_free.items()) + (
            f"; 10^6: {fmt_time(res['million']['freed'])}" if res.get("million") else ""),
    ]
    if res.get("million") and not res["million"]["ok"]:
        notes.append(f"10^6 depth failed: {res['million']['error']}")
    if "dezero" in res["basic64"]:
        dezero = [f"batch {b} {fmt_time(t['dezero'])} ({fmt_ratio(ratio(t['dezero'], t.get('torch')))}"
                  " PyTorch)" for b, t in ((b, res[f"basic{b}"]) for b in (64, 512))]
        notes.append("DeZero 0.0.13 (the engine of \"Deep Learning from Scratch 3\") on the "
                     f"basic-op MLP, in the same interleaved runs: {', '.join(dezero)}.")
    if memory_notes.get("torch"):
        notes.append(f"*PyTorch memory: {memory_notes['torch']}; NumPy and nbgrad: "
                     "tracemalloc peak during the step minus traced memory before it.")
    summary = f"{verdicts.count('PASS')} PASS, {verdicts.count('FAIL')} FAIL"
    report = "\n".join(["## nbgrad benchmarks", "", *[f"- {line}" for line in info], "",
                        table, "", *[f"- {line}" for line in notes], "", f"Result: {summary}"])
    if args.profile:
        import profiling

        progress("profiling")
        report += "\n\n## Where nbgrad's time goes (cProfile)\n\n```\n"
        report += profiling.profile_mlp(X, y, structure) + "\n\n"
        report += profiling.profile_chain() + "\n```"
    print(report)
    if not args.no_save:
        out_dir = os.path.join(HERE, "results")
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, f"{now:%Y-%m-%d_%H%M%S}{'_quick' if args.quick else ''}.md")
        with open(path, "w") as f:
            f.write(report + "\n")
        progress(f"written to {os.path.relpath(path, ROOT)}")
    progress("done")


if __name__ == "__main__":
    main()
