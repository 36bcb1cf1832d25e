#!/usr/bin/env python3
"""Training speed and results side by side with JAX (CPU): LeNet-5 on
Fashion-MNIST and the character transformer on words.

In one invocation, for each model, trains it here and in JAX on the same
batches (written by the example with --save-data: the training and test
data as the model reads them and the items of every step) with the same
init scheme (each param's distribution and bounds; not its values), the
same optimizer, learning-rate schedule and loss:
  - LeNet: `cargo run --release -p ocannl --example fashion_mnist`
    (`nn::lenet`: 5x5 conv to 6 channels with same padding, relu, 2x2
    max-pool, 5x5 conv to 16 valid, relu, max-pool, relu layers of 120 and
    84, 10 logits; mean cross-entropy; SGD with momentum 0.9, the learning
    rate decayed linearly from 0.05 to 0; batches of 64); the final metric
    is the accuracy on the 10,000 test images;
  - the transformer: `cargo run --release -p ocannl --example names`
    (`nn::decoder_only`: embedding, learned positions, pre-norm blocks of
    causal attention and a relu MLP of 4 * dim, a final layer norm, a
    linear head; the cross-entropy of the positions up to each word's end;
    AdamW with weight decay 0.01, betas 0.9/0.999, eps 1e-8, a linear
    warmup over the first 5% of the steps then a cosine decay from 5e-4 to
    5e-5; batches of 32 words); the final metric is the loss over every
    test word.
JAX jits the whole train step (forward, gradients, update; the params and
the optimizer's state donated) and is written with plain `jax` (no optax or
flax), mirroring the Rust layers. Prints, for both, the compile time of the
train step, the time per step (the mean over every step, each with its
batch gathered on the host; compiling and evaluating not counted), the
mean training loss (LeNet: of the last epoch; the transformer: of every
step) and the final metric, and the ratios. JAX is installed with pip into
a local virtual environment, target/bench-venv.

Usage: python3 benches/vs_jax_models.py [--quick] [--only lenet|transformer]
"""
import math
import os
import re
import subprocess
import sys
import tempfile
import time

import benchvenv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# OCANNL_TOOL_DIR runs another build's examples (e.g. to compare two commits).
TOOL_DIR = os.environ.get("OCANNL_TOOL_DIR")
EXAMPLES = os.path.join(os.path.abspath(TOOL_DIR or os.path.join(ROOT, "target", "release")),
                        "examples")

# LeNet: (epochs, training images; None: all 60,000), quick and full.
LENET = {"quick": (1, 12800), "full": (2, None)}
LENET_LR, LENET_BATCH = 0.05, 64
# The transformer: (steps, layers, heads, dim), quick and full.
TRANSFORMER = {"quick": (300, 1, 4, 64), "full": (2000, 4, 4, 64)}
TRANSFORMER_LR, TRANSFORMER_BATCH = 5e-4, 32


def ensure_jax():
    """Re-runs this script inside the benchmarks' venv, which has jax."""
    benchvenv.ensure("jax", ["jax[cpu]", "numpy"])


def build():
    if TOOL_DIR:
        return
    subprocess.check_call(
        ["cargo", "build", "--quiet", "--release", "-p", "ocannl",
         "--example", "fashion_mnist", "--example", "names"], cwd=ROOT
    )


def run_example(name, args):
    # Cold compiles: the compilation cache off (JAX's is not used either).
    out = subprocess.run(
        [os.path.join(EXAMPLES, name)] + args, capture_output=True, text=True, cwd=ROOT,
        env=dict(os.environ, OCANNL_CACHE="0"),
    )
    if out.returncode != 0:
        sys.exit(f"{name} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def steps_line(out):
    m = re.search(r"trained (\d+) steps in ([0-9.]+) s \(([0-9.]+) ms per step", out)
    return int(m.group(1)), float(m.group(3))


# Learning-rate schedules, as `api/src/schedule.rs` computes them.
def linear_lr(peak, steps, step):
    return peak * (steps - step) / steps


def warmup_cosine_lr(peak, warmup, steps, end, step):
    if step < warmup:
        return peak * step / warmup
    if step >= steps:
        return end
    progress = (step - warmup) / (steps - warmup)
    return end + (peak - end) * 0.5 * (1.0 + math.cos(math.pi * progress))


def uniform(key, shape, bound):
    import jax
    import jax.numpy as jnp
    return jax.random.uniform(key, shape, jnp.float32, -bound, bound)


def he(fan_in):
    return math.sqrt(6.0 / fan_in)


def glorot(fan_in, fan_out):
    return math.sqrt(6.0 / (fan_in + fan_out))


def sgd_momentum(p, m, g, lr):
    """SGD with momentum 0.9, no weight decay (`Sgd`): m = 0.9 m + g;
    p -= lr m."""
    import jax
    m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, m, g)
    p = jax.tree_util.tree_map(lambda p, m: p - lr * m, p, m)
    return p, m


def adamw(p, m, v, t, g, lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01):
    """AdamW as PyTorch and `core/assign/src/optim.rs` compute it (`t`
    counts the steps from 1, incremented first)."""
    import jax
    import jax.numpy as jnp
    t = t + 1.0
    step_size = lr / (1.0 - beta1 ** t)
    bias2 = jnp.sqrt(1.0 - beta2 ** t)
    m = jax.tree_util.tree_map(lambda m, g: beta1 * m + (1.0 - beta1) * g, m, g)
    v = jax.tree_util.tree_map(lambda v, g: beta2 * v + (1.0 - beta2) * g * g, v, g)
    p = jax.tree_util.tree_map(
        lambda p, m, v: p * (1.0 - lr * weight_decay) - step_size * m / (jnp.sqrt(v) / bias2 + eps),
        p, m, v)
    return p, m, v, t


def timed_loop(compiled, state, steps, batch_of, lr_of):
    """Runs `steps` train steps; returns the state, the losses and the time."""
    import jax
    losses = []
    t = time.perf_counter()
    for s in range(steps):
        *state, loss = compiled(*state, *batch_of(s), lr_of(s))
        losses.append(loss)
    jax.block_until_ready(state)
    return state, [float(l) for l in losses], time.perf_counter() - t


# --- LeNet -----------------------------------------------------------------

def lenet_model(p, x):
    """`nn::lenet`'s logits of NHWC images `x` (kernels HWIO)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, k, b, padding):
        return lax.conv_general_dilated(
            x, k, (1, 1), padding, dimension_numbers=("NHWC", "HWIO", "NHWC")) + b

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    # `=+` pads (kernel - 1) / 2 cells on each side: XLA's SAME for 5x5.
    h = pool(jax.nn.relu(conv(x, p["conv1.kernel"], p["conv1.bias"], "SAME")))
    h = pool(jax.nn.relu(conv(h, p["conv2.kernel"], p["conv2.bias"], "VALID")))
    h = h.reshape(h.shape[0], -1)
    h = jax.nn.relu(h @ p["fc1.w"] + p["fc1.b"])
    h = jax.nn.relu(h @ p["fc2.w"] + p["fc2.b"])
    return h @ p["logits.w"] + p["logits.b"]


def lenet_ours(epochs, train_items, data_dir):
    args = ["--epochs", str(epochs), "--batch", str(LENET_BATCH), "--lr", str(LENET_LR),
            "--min-accuracy", "0", "--save", os.path.join(data_dir, "params.safetensors"),
            "--save-data", data_dir]
    if train_items:
        args += ["--train-items", str(train_items)]
    out = run_example("fashion_mnist", args)
    steps, step_ms = steps_line(out)
    return {
        "compile_s": float(re.search(r"compiled the train step in ([0-9.]+) ms", out).group(1)) / 1e3,
        "steps": steps, "step_ms": step_ms,
        "train_loss": float(re.findall(r"epoch \d+/\d+: loss ([0-9.]+)", out)[-1]),
        "metric": float(re.search(r"test accuracy: ([0-9.]+)", out).group(1)),
    }


def lenet_jax(epochs, data_dir):
    import jax
    import jax.numpy as jnp
    import numpy as np

    train_x = np.load(os.path.join(data_dir, "train_images.npy"))
    train_y = np.load(os.path.join(data_dir, "train_labels.npy")).astype(np.int32)
    test_x = np.load(os.path.join(data_dir, "test_images.npy"))
    test_y = np.load(os.path.join(data_dir, "test_labels.npy")).astype(np.int32)
    order = np.load(os.path.join(data_dir, "batches.npy")).astype(np.int64)
    steps = order.shape[0]

    # `nn::lenet`: convolutions and relu layers He-initialized, the logits
    # Glorot, every bias zeros.
    ks = jax.random.split(jax.random.PRNGKey(0), 5)
    z = lambda n: jnp.zeros((n,), jnp.float32)
    params = {
        "conv1.kernel": uniform(ks[0], (5, 5, 1, 6), he(5 * 5 * 1)), "conv1.bias": z(6),
        "conv2.kernel": uniform(ks[1], (5, 5, 6, 16), he(5 * 5 * 6)), "conv2.bias": z(16),
        "fc1.w": uniform(ks[2], (5 * 5 * 16, 120), he(5 * 5 * 16)), "fc1.b": z(120),
        "fc2.w": uniform(ks[3], (120, 84), he(120)), "fc2.b": z(84),
        "logits.w": uniform(ks[4], (84, 10), glorot(84, 10)), "logits.b": z(10),
    }

    def loss_fn(p, x, y):
        logp = jax.nn.log_softmax(lenet_model(p, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(p, m, x, y, lr):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return (*sgd_momentum(p, m, g, lr), loss)

    momentum = jax.tree_util.tree_map(jnp.zeros_like, params)
    t = time.perf_counter()
    compiled = jax.jit(step, donate_argnums=(0, 1)).lower(
        params, momentum, train_x[order[0]], train_y[order[0]], np.float32(0)).compile()
    compile_s = time.perf_counter() - t

    (params, momentum), losses, total_s = timed_loop(
        compiled, (params, momentum), steps,
        lambda s: (train_x[order[s]], train_y[order[s]]),
        lambda s: np.float32(linear_lr(LENET_LR, steps, s)))

    predict = jax.jit(lambda p, x: jnp.argmax(lenet_model(p, x), axis=1))
    correct = 0
    for start in range(0, len(test_y), 500):
        correct += int(np.sum(np.asarray(predict(params, test_x[start:start + 500]))
                              == test_y[start:start + 500]))
    per_epoch = steps // epochs
    return {"compile_s": compile_s, "steps": steps, "step_ms": total_s * 1e3 / steps,
            "train_loss": float(np.mean(losses[-per_epoch:])), "metric": correct / len(test_y)}


# --- The transformer --------------------------------------------------------

def transformer_model(p, ids, layers, heads):
    """`nn::decoder_only`'s logits of token ids `ids` (`batch x length`)."""
    import jax
    import jax.numpy as jnp

    length, dim = p["pos"].shape
    head_dim = dim // heads
    causal = jnp.tril(jnp.ones((length, length), bool))

    def layer_norm(name, x):
        d = x - jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(d * d, axis=-1, keepdims=True)
        return (1.0 + p[f"{name}.gain"]) * (d / jnp.sqrt(var + 1e-5)) + p[f"{name}.bias"]

    def attention(name, x):
        b = x.shape[0]
        q, k, v = (
            (x @ p[f"{name}.{w}"]).reshape(b, length, heads, head_dim) for w in ("q", "k", "v"))
        scores = jnp.einsum("bshe,bthe->bsth", q, k) * (1.0 / math.sqrt(head_dim))
        scores = jnp.where(causal[None, :, :, None], scores, -1e9)
        attn = jax.nn.softmax(scores, axis=2)
        mixed = jnp.einsum("bsth,bthe->bshe", attn, v).reshape(b, length, dim)
        return mixed @ p[f"{name}.o"]

    h = p["embed"][ids] + p["pos"]
    for l in range(layers):
        h = h + attention(f"{l}.attn", layer_norm(f"{l}.ln1", h))
        f = jax.nn.relu(layer_norm(f"{l}.ln2", h) @ p[f"{l}.mlp.0.w"] + p[f"{l}.mlp.0.b"])
        h = h + f @ p[f"{l}.mlp.out.w"] + p[f"{l}.mlp.out.b"]
    return layer_norm("ln", h) @ p["head.w"] + p["head.b"]


def transformer_ours(steps, layers, heads, dim, data_dir):
    out = run_example("names", [
        "--steps", str(steps), "--every", str(steps), "--batch", str(TRANSFORMER_BATCH),
        "--layers", str(layers), "--heads", str(heads), "--dim", str(dim),
        "--lr", str(TRANSFORMER_LR), "--samples", "0", "--save-data", data_dir])
    n, step_ms = steps_line(out)
    m = re.findall(r"train loss ([0-9.]+), test loss ([0-9.]+)", out)[-1]
    return {
        "compile_s": float(re.search(r"compiled the train step in ([0-9.]+) s", out).group(1)),
        "steps": n, "step_ms": step_ms, "train_loss": float(m[0]), "metric": float(m[1]),
    }


def transformer_jax(layers, heads, dim, data_dir):
    import jax
    import jax.numpy as jnp
    import numpy as np

    load = lambda name: np.load(os.path.join(data_dir, f"{name}.npy"))
    train = [load(f"train_{k}") for k in ("ids", "targets", "mask")]
    test = [load(f"test_{k}") for k in ("ids", "targets", "mask")]
    train[0], train[1] = train[0].astype(np.int32), train[1].astype(np.int32)
    test[0], test[1] = test[0].astype(np.int32), test[1].astype(np.int32)
    order = load("batches").astype(np.int64)
    steps, batch = order.shape
    vocab, length = 27, train[0].shape[1]

    # `nn::decoder_only`: the embedding, the positions, attention's
    # projections, the MLP's output and the head Glorot-initialized, the
    # MLP's hidden layer He, biases zeros; a layer norm's gain is
    # `1 + gain` with `gain` zeros (so AdamW's decay pulls it to 1).
    keys = iter(jax.random.split(jax.random.PRNGKey(0), 3 + 6 * layers))
    z = lambda n: jnp.zeros((n,), jnp.float32)
    p = {"embed": uniform(next(keys), (vocab, dim), glorot(vocab, dim)),
         "pos": uniform(next(keys), (length, dim), glorot(length, dim))}
    for l in range(layers):
        for ln in ("ln1", "ln2"):
            p[f"{l}.{ln}.gain"], p[f"{l}.{ln}.bias"] = z(dim), z(dim)
        for w in ("q", "k", "v", "o"):
            p[f"{l}.attn.{w}"] = uniform(next(keys), (dim, dim), glorot(dim, dim))
        p[f"{l}.mlp.0.w"] = uniform(next(keys), (dim, 4 * dim), he(dim))
        p[f"{l}.mlp.0.b"] = z(4 * dim)
        p[f"{l}.mlp.out.w"] = uniform(next(keys), (4 * dim, dim), glorot(4 * dim, dim))
        p[f"{l}.mlp.out.b"] = z(dim)
    p["ln.gain"], p["ln.bias"] = z(dim), z(dim)
    p["head.w"] = uniform(next(keys), (dim, vocab), glorot(dim, vocab))
    p["head.b"] = z(vocab)
    params = p

    model = lambda p, ids: transformer_model(p, ids, layers, heads)

    def nll(p, ids, targets):
        logp = jax.nn.log_softmax(model(p, ids))
        return -jnp.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]

    def loss_fn(p, ids, targets, mask):
        return jnp.sum(nll(p, ids, targets) * mask) / jnp.sum(mask)

    def step(p, m, v, t, ids, targets, mask, lr):
        loss, g = jax.value_and_grad(loss_fn)(p, ids, targets, mask)
        return (*adamw(p, m, v, t, g, lr), loss)

    zeros = lambda: jax.tree_util.tree_map(jnp.zeros_like, params)
    state = (params, zeros(), zeros(), jnp.float32(0))
    batch_of = lambda s: tuple(a[order[s]] for a in train)
    t = time.perf_counter()
    compiled = jax.jit(step, donate_argnums=(0, 1, 2)).lower(
        *state, *batch_of(0), np.float32(0)).compile()
    compile_s = time.perf_counter() - t

    warmup, end = steps // 20, TRANSFORMER_LR / 10
    (params, *_), losses, total_s = timed_loop(
        compiled, state, steps, batch_of,
        lambda s: np.float32(warmup_cosine_lr(TRANSFORMER_LR, warmup, steps, end, s)))

    # The loss over every test word, in batches of `batch` (the last one
    # padded with words not counted).
    sums = jax.jit(lambda p, ids, targets, mask: jnp.sum(nll(p, ids, targets) * mask))
    n = len(test[0])
    total, count = 0.0, 0.0
    for start in range(0, n, batch):
        rows = np.arange(start, start + batch) % n
        ids, targets, mask = (a[rows] for a in test)
        mask = mask * (np.arange(start, start + batch) < n)[:, None]
        total += float(sums(params, ids, targets, mask))
        count += float(mask.sum())
    return {"compile_s": compile_s, "steps": steps, "step_ms": total_s * 1e3 / steps,
            "train_loss": float(np.mean(losses)), "metric": total / count}


def table(name, metric, a, b):
    print(f"\n{name}")
    print(f"  {'':6} {'compile s':>10} {'ms/step':>9} {'train loss':>11} {metric:>14}")
    for who, r in (("ocannl", a), ("jax", b)):
        print(f"  {who:6} {r['compile_s']:10.2f} {r['step_ms']:9.2f} "
              f"{r['train_loss']:11.4f} {r['metric']:14.4f}")
    print(f"  {'ratio':6} {a['compile_s'] / b['compile_s']:10.2f} "
          f"{a['step_ms'] / b['step_ms']:9.2f}   (ocannl / jax; below 1: faster)")


def main():
    ensure_jax()
    build()
    import jax
    quick = "--quick" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    mode = "quick" if quick else "full"
    print(f"jax {jax.__version__} ({jax.devices()[0].platform}), {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    if only in (None, "lenet"):
        epochs, items = LENET[mode]
        with tempfile.TemporaryDirectory() as d:
            a = lenet_ours(epochs, items, d)
            b = lenet_jax(epochs, d)
        assert a["steps"] == b["steps"], (a["steps"], b["steps"])
        table(f"LeNet-5 on Fashion-MNIST: {epochs} epoch(s) of {items or 60000} images, "
              f"{a['steps']} steps of {LENET_BATCH}", "test accuracy", a, b)
    if only in (None, "transformer"):
        steps, layers, heads, dim = TRANSFORMER[mode]
        with tempfile.TemporaryDirectory() as d:
            a = transformer_ours(steps, layers, heads, dim, d)
            b = transformer_jax(layers, heads, dim, d)
        assert a["steps"] == b["steps"], (a["steps"], b["steps"])
        table(f"transformer on words: {layers} layer(s), {heads} heads, dim {dim}, "
              f"{steps} steps of {TRANSFORMER_BATCH} words", "test loss", a, b)


if __name__ == "__main__":
    main()
