#!/usr/bin/env python3
"""Training speed side by side with PyTorch (CPU), eager and
`torch.compile`: LeNet-5 on Fashion-MNIST and the character transformer on
words at 1, 4 and 8 blocks (a sibling of vs_jax_models.py, whose models,
data, init schemes, optimizers and schedules it shares).

In one invocation, for each model, trains it here (the release examples,
cold: the compilation cache off) and in PyTorch on the same batches
(written by the example with --save-data), eager and compiled, on the same
number of threads (all the machine's cores), and prints for each the
compile time of the train step (ours: the example's; torch.compile: the
first step's extra time over an eager step, Inductor's caches off; eager:
none), the time per
step (the mean over every step after the first, each with its batch
gathered on the host) and the mean training loss (a check that all three
train the same model), and the ratios to ours. Prints the CPU model and
its vector ISA first.

`--isa avx2` restricts every side to AVX2 (benchvenv.ISA_ENV: the
project's kernels for x86-64-v3, `ATEN_CPU_CAPABILITY=avx2`,
`OPENBLAS_CORETYPE=Haswell`) on a machine that has more.

Usage: python3 benches/vs_torch.py [--quick] [--only lenet|transformer]
           [--layers 1,4,8] [--isa avx2]
"""
import os
import sys
import tempfile
import time

import benchvenv
import vs_jax_models as shared

# LeNet: (epochs, training images), quick and full.
LENET = {"quick": (1, 6400), "full": (1, 19200)}
# The transformer: steps, quick and full (heads 4, dim 64 as the names
# example's defaults).
TRANSFORMER_STEPS = {"quick": 60, "full": 300}


def ensure_torch():
    """Re-runs this script inside the benchmarks' venv, which has torch."""
    benchvenv.ensure("torch", ["torch", "numpy"])


def uniform_(t, bound):
    import torch
    with torch.no_grad():
        t.uniform_(-bound, bound)
    return t


def sgd_momentum(params, momentum, lr):
    """As vs_jax_models.sgd_momentum: m = 0.9 m + g; p -= lr m."""
    import torch
    with torch.no_grad():
        for p, m in zip(params, momentum):
            m.mul_(0.9).add_(p.grad)
            p.sub_(lr * m)
            p.grad = None


def adamw(params, ms, vs, t, lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01):
    """As vs_jax_models.adamw (PyTorch's AdamW, written out so that eager
    and compiled run the same update)."""
    import torch
    with torch.no_grad():
        step_size = lr / (1.0 - beta1 ** t)
        bias2 = (1.0 - beta2 ** t) ** 0.5
        for p, m, v in zip(params, ms, vs):
            g = p.grad
            m.mul_(beta1).add_(g, alpha=1.0 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1.0 - beta2)
            p.mul_(1.0 - lr * weight_decay)
            p.sub_(step_size * m / (v.sqrt() / bias2 + eps))
            p.grad = None


def timed(step, steps):
    """Runs `step(s)` for every step; returns (first step's seconds, mean
    seconds of the others, losses)."""
    losses = []
    t = time.perf_counter()
    losses.append(float(step(0)))
    first = time.perf_counter() - t
    t = time.perf_counter()
    for s in range(1, steps):
        losses.append(float(step(s)))
    rest = (time.perf_counter() - t) / max(1, steps - 1)
    return first, rest, losses


# --- LeNet -----------------------------------------------------------------

def lenet_torch(data_dir, compiled):
    import numpy as np
    import torch
    import torch.nn.functional as F

    train_x = torch.from_numpy(np.load(os.path.join(data_dir, "train_images.npy")))
    train_y = torch.from_numpy(np.load(os.path.join(data_dir, "train_labels.npy")).astype(np.int64))
    order = np.load(os.path.join(data_dir, "batches.npy")).astype(np.int64)
    steps = order.shape[0]
    torch.manual_seed(0)
    z = lambda n: torch.zeros(n, requires_grad=True)
    u = lambda shape, b: uniform_(torch.empty(*shape), b).requires_grad_()
    p = [u((6, 1, 5, 5), shared.he(25)), z(6), u((16, 6, 5, 5), shared.he(150)), z(16),
         u((400, 120), shared.he(400)), z(120), u((120, 84), shared.he(120)), z(84),
         u((84, 10), shared.glorot(84, 10)), z(10)]
    momentum = [torch.zeros_like(q) for q in p]

    def loss_fn(x, y):
        # NHWC images, as the example saves them.
        h = x.permute(0, 3, 1, 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p[0], p[1], padding=2)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p[2], p[3])), 2)
        h = h.permute(0, 2, 3, 1).reshape(h.shape[0], -1)
        h = F.relu(h @ p[4] + p[5])
        h = F.relu(h @ p[6] + p[7])
        return F.cross_entropy(h @ p[8] + p[9], y)

    fn = torch.compile(loss_fn) if compiled else loss_fn

    def step(s):
        rows = torch.from_numpy(order[s])
        loss = fn(train_x[rows], train_y[rows])
        loss.backward()
        sgd_momentum(p, momentum, shared.linear_lr(shared.LENET_LR, steps, s))
        return loss.detach()

    return steps, timed(step, steps)


# --- The transformer --------------------------------------------------------

def transformer_torch(layers, heads, dim, data_dir, compiled):
    import math

    import numpy as np
    import torch
    import torch.nn.functional as F

    load = lambda name: np.load(os.path.join(data_dir, f"{name}.npy"))
    ids_all = torch.from_numpy(load("train_ids").astype(np.int64))
    targets_all = torch.from_numpy(load("train_targets").astype(np.int64))
    mask_all = torch.from_numpy(load("train_mask").astype(np.float32))
    order = load("batches").astype(np.int64)
    steps = order.shape[0]
    vocab, length = 27, ids_all.shape[1]
    head_dim = dim // heads
    torch.manual_seed(0)
    z = lambda n: torch.zeros(n, requires_grad=True)
    u = lambda shape, b: uniform_(torch.empty(*shape), b).requires_grad_()
    p = {"embed": u((vocab, dim), shared.glorot(vocab, dim)),
         "pos": u((length, dim), shared.glorot(length, dim))}
    for l in range(layers):
        for ln in ("ln1", "ln2"):
            p[f"{l}.{ln}.gain"], p[f"{l}.{ln}.bias"] = z(dim), z(dim)
        for w in ("q", "k", "v", "o"):
            p[f"{l}.attn.{w}"] = u((dim, dim), shared.glorot(dim, dim))
        p[f"{l}.mlp.0.w"], p[f"{l}.mlp.0.b"] = u((dim, 4 * dim), shared.he(dim)), z(4 * dim)
        p[f"{l}.mlp.out.w"] = u((4 * dim, dim), shared.glorot(4 * dim, dim))
        p[f"{l}.mlp.out.b"] = z(dim)
    p["ln.gain"], p["ln.bias"] = z(dim), z(dim)
    p["head.w"], p["head.b"] = u((dim, vocab), shared.glorot(dim, vocab)), z(vocab)
    params = list(p.values())
    ms = [torch.zeros_like(q) for q in params]
    vs = [torch.zeros_like(q) for q in params]
    causal = torch.tril(torch.ones(length, length, dtype=torch.bool))

    def layer_norm(name, x):
        d = x - x.mean(-1, keepdim=True)
        var = (d * d).mean(-1, keepdim=True)
        return (1.0 + p[f"{name}.gain"]) * (d / torch.sqrt(var + 1e-5)) + p[f"{name}.bias"]

    def attention(name, x):
        b = x.shape[0]
        q, k, v = ((x @ p[f"{name}.{w}"]).reshape(b, length, heads, head_dim) for w in "qkv")
        scores = torch.einsum("bshe,bthe->bsth", q, k) * (1.0 / math.sqrt(head_dim))
        scores = scores.masked_fill(~causal[None, :, :, None], -1e9)
        mixed = torch.einsum("bsth,bthe->bshe", scores.softmax(2), v).reshape(b, length, dim)
        return mixed @ p[f"{name}.o"]

    def loss_fn(ids, targets, mask):
        h = p["embed"][ids] + p["pos"]
        for l in range(layers):
            h = h + attention(f"{l}.attn", layer_norm(f"{l}.ln1", h))
            f = F.relu(layer_norm(f"{l}.ln2", h) @ p[f"{l}.mlp.0.w"] + p[f"{l}.mlp.0.b"])
            h = h + f @ p[f"{l}.mlp.out.w"] + p[f"{l}.mlp.out.b"]
        logp = (layer_norm("ln", h) @ p["head.w"] + p["head.b"]).log_softmax(-1)
        nll = -logp.gather(-1, targets[..., None])[..., 0]
        return (nll * mask).sum() / mask.sum()

    fn = torch.compile(loss_fn) if compiled else loss_fn
    warmup, end = steps // 20, shared.TRANSFORMER_LR / 10

    def step(s):
        rows = torch.from_numpy(order[s])
        loss = fn(ids_all[rows], targets_all[rows], mask_all[rows])
        loss.backward()
        lr = shared.warmup_cosine_lr(shared.TRANSFORMER_LR, warmup, steps, end, s)
        adamw(params, ms, vs, s + 1, lr)
        return loss.detach()

    return steps, timed(step, steps)


def attempt(run):
    """`run()`'s (steps, timings), or the error of a peer that failed (a
    crash inside torch.compile is reported, not fatal)."""
    try:
        return run()
    except Exception as e:  # noqa: BLE001 - any failure of the peer
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"


def report(title, ours, eager, comp):
    print(f"\n{title}")
    print(f"  {'':16} {'compile s':>10} {'ms/step':>9} {'train loss':>11} {'ms/step ratio':>14}")
    rows = [("ocannl", ours["compile_s"], ours["step_ms"], ours["train_loss"])]
    for who, timing in (("torch eager", eager), ("torch.compile", comp)):
        if isinstance(timing, str):
            rows.append((who, None, timing, None))
            continue
        first, rest, losses = timing
        compile_s = 0.0 if who == "torch eager" or isinstance(eager, str) else max(0.0, first - eager[1])
        rows.append((who, compile_s, rest * 1e3, sum(losses) / len(losses)))
    for who, c, ms, loss in rows:
        if c is None:
            print(f"  {who:16} failed: {ms}")
        else:
            print(f"  {who:16} {c:10.2f} {ms:9.2f} {loss:11.4f} {ms / rows[0][2]:14.2f}")
    print("  (ratio: ms/step over ocannl's; above 1: ocannl faster)")


def main():
    benchvenv.restrict_isa()
    # Cold compiles on both sides: Inductor's caches off (ours are off too).
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
    os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "0")
    ensure_torch()
    import torch
    shared.build()
    torch.set_num_threads(os.cpu_count())
    quick = "--quick" in sys.argv
    mode = "quick" if quick else "full"
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    layer_counts = ([int(x) for x in sys.argv[sys.argv.index("--layers") + 1].split(",")]
                    if "--layers" in sys.argv else [1, 4, 8])
    print(benchvenv.cpu_banner())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"ATen CPU capability {torch.backends.cpu.get_cpu_capability()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    if only in (None, "lenet"):
        epochs, items = LENET[mode]
        with tempfile.TemporaryDirectory() as d:
            ours = shared.lenet_ours(epochs, items, d)
            steps, eager = attempt(lambda: lenet_torch(d, compiled=False))
            _, comp = attempt(lambda: lenet_torch(d, compiled=True))
        assert steps in (None, ours["steps"]), (steps, ours["steps"])
        report(f"LeNet-5 on Fashion-MNIST: {ours['steps']} steps of {shared.LENET_BATCH}", ours, eager, comp)
    if only in (None, "transformer"):
        for layers in layer_counts:
            steps = TRANSFORMER_STEPS[mode]
            with tempfile.TemporaryDirectory() as d:
                ours = shared.transformer_ours(steps, layers, 4, 64, d)
                n, eager = attempt(lambda: transformer_torch(layers, 4, 64, d, compiled=False))
                _, comp = attempt(lambda: transformer_torch(layers, 4, 64, d, compiled=True))
            assert n in (None, ours["steps"]), (n, ours["steps"])
            report(f"transformer on words: {layers} block(s), 4 heads, dim 64, {ours['steps']} steps of "
                   f"{shared.TRANSFORMER_BATCH} words", ours, eager, comp)


if __name__ == "__main__":
    main()
