#!/usr/bin/env python3
"""nanoGPT's character-level Shakespeare run side by side with a PyTorch
twin (CPU), eager and `torch.compile`.

The twin is written here (not nanoGPT's code) as the `gpt` example's model:
GPT-2 without biases, the token embedding tied to the output head, learned
positions, pre-norm blocks of causal attention (separate q, k, v
projections: nanoGPT's fused `c_attn` split in three) and a GELU MLP of 4x,
normal(0, 0.02) init with the residual projections at 0.02/sqrt(2 layers),
AdamW (betas 0.9/0.99, weight decay 0.1 on params of two axes or more, as
nanoGPT's groups), global-norm clipping at 1, nanoGPT's warmup and cosine
schedule. Batches come from the example's generator (SplitMix64, below), so
both sides read the same windows.

Modes (one invocation runs every side on the same threads):
- `--parity`: the twin writes its initial weights (safetensors, under the
  example's param names and memory layouts); the example starts from them
  (`--init`) and the first 20 training losses of the two must agree within
  1e-3 relative (as llm.c checks itself against PyTorch).
- default: nanoGPT's CPU configuration (block 64, batch 12, 4 layers, 4
  heads, embedding 128, 2000 steps, evaluation every 250 steps of 20
  batches) for each seed of `--seeds` (default 1337,1338,1339), the example
  and the eager twin from their own initializations; prints each side's
  validation losses at every evaluation, their means over the seeds at the
  last step, the time per iteration and the compile time. `torch.compile`
  trains the first seed's first `--compiled-steps` steps (default 200) for
  its step time and compile time.
- `--quick`: 200 steps, one seed (a smoke run).
- `--gpt2`: a GPT-2-small-shaped train step (12 layers, 12 heads,
  embedding 768, vocab 50257, context 256, batch 4, AdamW, random ids: the
  example's `--random-ids`), `--steps` steps (default 4) on each side: the
  compile time, the time per step after the first and the peak resident
  memory of the process (each torch side in a process of its own).

Usage: python3 benches/vs_torch_gpt.py --text PATH [--parity] [--quick]
           [--steps N] [--seeds 1337,1338,1339] [--isa avx2]
       python3 benches/vs_torch_gpt.py --gpt2 [--steps N] [--isa avx2]
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

import benchvenv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL_DIR = os.environ.get("OCANNL_TOOL_DIR")
EXAMPLES = os.path.join(os.path.abspath(TOOL_DIR or os.path.join(ROOT, "target", "release")),
                        "examples")

# nanoGPT's configuration for a CPU (its README) and train_shakespeare_char's.
CONFIG = dict(block=64, batch=12, layers=4, heads=4, dim=128, lr=1e-3, min_lr=1e-4,
              warmup=100, weight_decay=0.1, beta1=0.9, beta2=0.99, clip=1.0,
              eval_every=250, eval_batches=20)

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class SplitMix64:
    """The example's generator (ocannl_ops::SplitMix64)."""

    def __init__(self, seed):
        self.s = seed & MASK

    def next_u64(self):
        self.s = (self.s + GOLDEN) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next_u64() % n


GPT2 = dict(CONFIG, block=256, batch=4, layers=12, heads=12, dim=768, eval_every=0)
GPT2_VOCAB = 50257


def random_ids(vocab, c, seed):
    """The example's `--random-ids` splits (Corpus::random)."""
    rng = SplitMix64(seed ^ 0x1D5)
    n = 64 * c["block"] * c["batch"] + c["block"] + 1
    train = [rng.below(vocab) for _ in range(n)]
    val = [rng.below(vocab) for _ in range(n)]
    return [None] * vocab, train, val


def load_text(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    ids = [index[c] for c in text]
    n = len(ids) * 9 // 10
    return chars, ids[:n], ids[n:]


def batch(torch, split, b, block, rng):
    offsets = [rng.below(len(split) - block) for _ in range(b)]
    x = torch.tensor([split[i:i + block] for i in offsets], dtype=torch.long)
    y = torch.tensor([split[i + 1:i + 1 + block] for i in offsets], dtype=torch.long)
    return x, y


def nanogpt_lr(it, c, steps):
    if it < c["warmup"]:
        return c["lr"] * (it + 1) / (c["warmup"] + 1)
    if it > steps:
        return c["min_lr"]
    ratio = (it - c["warmup"]) / (steps - c["warmup"])
    return c["min_lr"] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (c["lr"] - c["min_lr"])


def make_model(torch, vocab, c, seed):
    nn, F = torch.nn, torch.nn.functional
    d, h, L = c["dim"], c["heads"], c["layers"]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(d, bias=False)
            self.q = nn.Linear(d, d, bias=False)
            self.k = nn.Linear(d, d, bias=False)
            self.v = nn.Linear(d, d, bias=False)
            self.o = nn.Linear(d, d, bias=False)
            self.ln_2 = nn.LayerNorm(d, bias=False)
            self.fc = nn.Linear(d, 4 * d, bias=False)
            self.proj = nn.Linear(4 * d, d, bias=False)

        def forward(self, x):
            B, T, _ = x.shape
            y = self.ln_1(x)
            q, k, v = (p(y).view(B, T, h, d // h).transpose(1, 2) for p in (self.q, self.k, self.v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.o(a.transpose(1, 2).reshape(B, T, d))
            return x + self.proj(F.gelu(self.fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, d)
            self.wpe = nn.Embedding(c["block"], d)
            self.blocks = nn.ModuleList([Block() for _ in range(L)])
            self.ln_f = nn.LayerNorm(d, bias=False)

        def forward(self, idx, targets):
            T = idx.shape[1]
            x = self.wte(idx) + self.wpe(torch.arange(T))
            for b in self.blocks:
                x = b(x)
            logits = self.ln_f(x) @ self.wte.weight.T
            return F.cross_entropy(logits.view(-1, vocab), targets.view(-1))

    torch.manual_seed(seed)
    m = GPT()
    for name, p in m.named_parameters():
        if p.dim() >= 2:
            std = 0.02 / math.sqrt(2 * L) if name.endswith((".o.weight", ".proj.weight")) else 0.02
            torch.nn.init.normal_(p, 0.0, std)
    return m


def ours_names(model, c):
    """The example's params (name -> array in its memory layout) from the
    twin's."""
    d, h = c["dim"], c["heads"]
    out = {"wte": model.wte.weight, "wpe": model.wpe.weight, "ln_f.gain": model.ln_f.weight - 1}
    for l, b in enumerate(model.blocks):
        p = f"h.{l}."
        for n in "qkv":
            out[p + "attn." + n] = getattr(b, n).weight.reshape(h, d // h, d)
        out[p + "attn.o"] = b.o.weight.reshape(d, h, d // h)
        out[p + "ln_1.gain"] = b.ln_1.weight - 1
        out[p + "ln_2.gain"] = b.ln_2.weight - 1
        out[p + "mlp.fc"] = b.fc.weight
        out[p + "mlp.proj"] = b.proj.weight
    return {k: v.detach().float().contiguous() for k, v in out.items()}


def write_safetensors(path, tensors):
    """The safetensors format: a little-endian u64 header size, the JSON
    header, then the f32 data."""
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        data = t.numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [at, at + len(data)]}
        blobs.append(data)
        at += len(data)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def train_torch(torch, text, c, steps, seed, compiled, log_losses=0, init_path=None, decay=None):
    """Trains the twin; returns (per-step losses of the first `log_losses`
    steps, [(step, train, val)], ms per step after the first, first step s,
    steps run)."""
    chars, train, val = text
    model = make_model(torch, len(chars), c, seed)
    if init_path:
        write_safetensors(init_path, ours_names(model, c))
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    others = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": matrices, "weight_decay": c["weight_decay"]},
                             {"params": others, "weight_decay": 0.0}],
                            lr=c["lr"], betas=(c["beta1"], c["beta2"]), eps=1e-8)
    fn = torch.compile(model) if compiled else model
    rng = SplitMix64(seed)
    losses, evals, times = [], [], []

    def evaluate(it):
        erng = SplitMix64((seed * 1_000_003 + it + 1) & MASK)
        out = []
        model.eval()
        with torch.no_grad():
            for split in (train, val):
                out.append(sum(float(model(*batch(torch, split, c["batch"], c["block"], erng)))
                               for _ in range(c["eval_batches"])) / c["eval_batches"])
        model.train()
        return out

    for it in range(steps + 1):
        if c["eval_every"] and (it % c["eval_every"] == 0 or it == steps):
            tr, va = evaluate(it)
            evals.append((it, tr, va))
        if it == steps:
            break
        t0 = time.perf_counter()
        x, y = batch(torch, train, c["batch"], c["block"], rng)
        for g in opt.param_groups:
            g["lr"] = nanogpt_lr(it, c, decay or steps)
        loss = fn(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), c["clip"])
        opt.step()
        opt.zero_grad(set_to_none=True)
        lf = loss.item()
        times.append(time.perf_counter() - t0)
        if it < log_losses:
            losses.append(lf)
    rest = times[1:] or times
    return losses, evals, 1e3 * sum(rest) / len(rest), times[0], len(times)


def run_ours(text_path, c, steps, seed, extra):
    source = ["--text", text_path] if text_path else []
    args = [os.path.join(EXAMPLES, "gpt")] + source + ["--steps", str(steps),
            "--seed", str(seed), "--batch", str(c["batch"]), "--block", str(c["block"]),
            "--layers", str(c["layers"]), "--heads", str(c["heads"]), "--dim", str(c["dim"]),
            "--eval-every", str(c["eval_every"]), "--eval-batches", str(c["eval_batches"])] + extra
    out = subprocess.run(args, capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, OCANNL_CACHE="0"))
    if out.returncode != 0:
        sys.exit(f"gpt failed:\n{out.stdout}\n{out.stderr}")
    s = out.stdout
    compile_s = float(re.search(r"compiled the train step in ([0-9.]+) s", s).group(1))
    ms = float(re.search(r"\(([0-9.]+) ms per step", s).group(1))
    evals = [(int(a), float(b), float(v)) for a, b, v in
             re.findall(r"step (\d+): train loss ([0-9.]+), val loss ([0-9.]+)", s)]
    losses = [float(x) for x in re.findall(r"iter \d+: loss ([0-9.]+)", s)]
    times = [float(x) for x in re.findall(r"iter \d+: loss [0-9.]+, time ([0-9.]+)ms", s)]
    if len(times) > 1 and len(times) == steps:
        # Every step logged: the mean after the first, as the twin's.
        ms = sum(times[1:]) / (len(times) - 1)
    peak = re.search(r"peak memory ([0-9.]+) MiB", s)
    return dict(compile_s=compile_s, step_ms=ms, evals=evals, losses=losses,
                peak_mib=float(peak.group(1)) if peak else float("nan"))


def peak_kib():
    """This process's peak resident memory (KiB)."""
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def gpt2_child(mode, steps):
    """One torch side of `--gpt2` in a process of its own; prints JSON."""
    import torch
    torch.set_num_threads(os.cpu_count())
    text = random_ids(GPT2_VOCAB, GPT2, 1337)
    _, _, ms, first, n = train_torch(torch, text, GPT2, steps, 1337, mode == "compiled")
    print(json.dumps(dict(ms=ms, first=first, steps=n, peak_kib=peak_kib())))


def gpt2(steps):
    ours = run_ours(None, GPT2, steps, 1337,
                    ["--random-ids", str(GPT2_VOCAB), "--log-every", "1"])
    sides = {}
    for mode in ("eager", "compiled"):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--gpt2-child", mode,
                              "--steps", str(steps)], capture_output=True, text=True)
        if out.returncode != 0:
            sides[mode] = f"failed: {out.stderr.strip().splitlines()[-1][:100]}"
        else:
            sides[mode] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"\nGPT-2-small-shaped train step (12 layers, 12 heads, 768, vocab {GPT2_VOCAB}, "
          f"context 256, batch 4, AdamW), {steps} steps")
    print(f"  {'':14} {'compile s':>10} {'s/step':>8} {'peak MiB':>9}")
    print(f"  {'ocannl':14} {ours['compile_s']:10.2f} {ours['step_ms'] / 1e3:8.2f} {ours['peak_mib']:9.0f}")
    eager = sides["eager"]
    for mode, who in (("eager", "torch eager"), ("compiled", "torch.compile")):
        r = sides[mode]
        if isinstance(r, str):
            print(f"  {who:14} {r}")
            continue
        comp = 0.0 if mode == "eager" or isinstance(eager, str) else max(0.0, r["first"] - eager["first"])
        print(f"  {who:14} {comp:10.2f} {r['ms'] / 1e3:8.2f} {r['peak_kib'] / 1024:9.0f}")


def main():
    if "--gpt2-child" in sys.argv:
        steps = int(sys.argv[sys.argv.index("--steps") + 1])
        return gpt2_child(sys.argv[sys.argv.index("--gpt2-child") + 1], steps)
    benchvenv.restrict_isa()
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
    os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "0")
    benchvenv.ensure("torch", ["torch", "numpy"])
    import torch
    if "--text" not in sys.argv and "--gpt2" not in sys.argv:
        sys.exit("usage: vs_torch_gpt.py --text PATH [--parity] [--quick] [--steps N] [--seeds A,B,C]"
                 " | --gpt2 [--steps N]")
    if not TOOL_DIR:
        subprocess.check_call(["cargo", "build", "--quiet", "--release", "-p", "ocannl",
                               "--example", "gpt"], cwd=ROOT)
    torch.set_num_threads(os.cpu_count())
    print(benchvenv.cpu_banner())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"ATen CPU capability {torch.backends.cpu.get_cpu_capability()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    if "--gpt2" in sys.argv:
        return gpt2(int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 4)
    text_path = os.path.abspath(sys.argv[sys.argv.index("--text") + 1])
    text = load_text(text_path)
    c = dict(CONFIG)
    quick = "--quick" in sys.argv
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else (200 if quick else 2000)
    seeds = ([int(s) for s in sys.argv[sys.argv.index("--seeds") + 1].split(",")]
             if "--seeds" in sys.argv else ([1337] if quick else [1337, 1338, 1339]))
    if "--parity" in sys.argv:
        n = 20
        pc = dict(c, eval_every=0)
        with tempfile.TemporaryDirectory() as d:
            init = os.path.join(d, "init.safetensors")
            theirs, _, _, _, _ = train_torch(torch, text, pc, n, seeds[0], False, log_losses=n,
                                             init_path=init, decay=steps)
            ours = run_ours(text_path, pc, n, seeds[0],
                            ["--init", init, "--log-every", "1", "--decay-steps", str(steps)])
        # Both sides decay over `steps`, as a full run's first 20 steps.
        worst = 0.0
        print(f"\nstep-for-step parity: the first {n} losses from the twin's initial weights")
        print(f"  {'step':>4} {'ocannl':>9} {'torch':>9} {'rel. diff':>10}")
        for k, (a, b) in enumerate(zip(ours["losses"], theirs)):
            rel = abs(a - b) / abs(b)
            worst = max(worst, rel)
            print(f"  {k:4} {a:9.4f} {b:9.4f} {rel:10.2e}")
        print(f"  worst relative difference {worst:.2e} ({'within' if worst <= 1e-3 else 'ABOVE'} 1e-3)")
        return
    rows = []
    for seed in seeds:
        ours = run_ours(text_path, c, steps, seed, ["--log-every", "0"])
        _, evals, ms, first, _ = train_torch(torch, text, c, steps, seed, False)
        print(f"\nseed {seed}: validation loss by step (ocannl / torch eager)")
        for (s, _, va), (_, _, vb) in zip(ours["evals"], evals):
            print(f"  step {s:5}: {va:.4f} / {vb:.4f}")
        print(f"  ms per iteration: ocannl {ours['step_ms']:.2f}, torch eager {ms:.2f}; "
              f"compile: ocannl {ours['compile_s']:.2f} s")
        rows.append((ours["evals"][-1][2], evals[-1][2], ours["step_ms"], ms, ours["compile_s"]))
    csteps = int(sys.argv[sys.argv.index("--compiled-steps") + 1]) if "--compiled-steps" in sys.argv else 200
    cc = dict(c, eval_every=0)
    _, _, eager_ms, eager_first, _ = train_torch(torch, text, cc, min(csteps, steps), seeds[0], False)
    _, _, comp_ms, comp_first, _ = train_torch(torch, text, cc, min(csteps, steps), seeds[0], True)
    compile_s = max(0.0, comp_first - eager_first)
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    vo, vt = mean([r[0] for r in rows]), mean([r[1] for r in rows])
    print(f"\nnanoGPT's CPU configuration, {steps} steps, seeds {','.join(map(str, seeds))}")
    print(f"  {'':14} {'val loss':>9} {'ms/iter':>8} {'compile s':>10}")
    print(f"  {'ocannl':14} {vo:9.4f} {mean([r[2] for r in rows]):8.2f} {mean([r[4] for r in rows]):10.2f}")
    print(f"  {'torch eager':14} {vt:9.4f} {mean([r[3] for r in rows]):8.2f} {0.0:10.2f}")
    print(f"  {'torch.compile':14} {'':>9} {comp_ms:8.2f} {compile_s:10.2f}  "
          f"(first {min(csteps, steps)} steps of seed {seeds[0]}; eager on the same: {eager_ms:.2f})")
    print(f"  validation loss, ocannl over torch: {vo / vt:.4f}")


if __name__ == "__main__":
    main()
