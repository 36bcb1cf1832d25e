//! A character-level GPT trained on any text, as nanoGPT's
//! `train_shakespeare_char` (Karpathy): the sorted distinct characters are
//! the vocabulary, the first 90% of the text trains and the rest
//! validates; each step reads `batch` windows of `block` characters at
//! random offsets and predicts each next character. The model is GPT-2's
//! without biases: a token embedding tied to the output head (one param,
//! `wte`, used twice), learned positions, pre-norm blocks of causal
//! multi-head attention and a GELU MLP of 4x the embedding, a final layer
//! norm; every weight initialized normal(0, 0.02), the residual
//! projections normal(0, 0.02/sqrt(2 layers)). AdamW (betas 0.9/0.99,
//! weight decay on the matrices only), gradient clipping at 1, nanoGPT's
//! warmup and cosine decay to a minimum rate.
//!
//! The defaults are nanoGPT's configuration for a CPU (its README): block
//! 64, batch 12, 4 layers, 4 heads, embedding 128, 2000 steps, lr 1e-3 to
//! 1e-4 after 100 warmup steps. Every `--eval-every` steps it prints the
//! mean loss of `--eval-batches` batches of each split as nanoGPT prints
//! it (`step 2000: train loss 1.7648, val loss 1.8857` in nanoGPT's
//! published run).
//!
//! `cargo run --release -p ocannl --example gpt -- (--text input.txt |
//! --random-ids VOCAB) [--steps N] [--batch B] [--block T] [--layers L] [--heads H] [--dim D]
//! [--lr LR] [--min-lr LR] [--warmup N] [--seed S] [--checkpoint F]
//! [--init F] [--sample N] [--prompt TEXT]`.
//!
//! `--sample N` generates with a compiled decoding routine: one position
//! per call, each layer's keys and values kept in caches the routine
//! returns and the next call reads (`--compare-recompute` checks it,
//! greedy, against recomputing the whole context).
//!
//! Batches are drawn by SplitMix64 (`ocannl_ops::SplitMix64`): the training
//! offsets from `--seed`, each evaluation's from `seed * 1000003 + step + 1`
//! (train batches, then validation batches), each offset `below(len -
//! block)` of its split. `--init F` starts from the params of a
//! safetensors file (a checkpoint, or another framework's weights under
//! these names), so that a twin in another framework can run the same
//! computation step for step (`benches/vs_torch_gpt.py`).

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use clap::Parser;
use ocannl::{nn, *};
use ocannl_ops::SplitMix64;

/// Any error, shown as its message (the library's are `ocannl::Error`).
type Error = Box<dyn std::error::Error>;

// The tools' allocator (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(about = "Trains a character-level GPT on a text, as nanoGPT's shakespeare_char")]
struct Cli {
    /// The text to train on (UTF-8).
    #[arg(
        long,
        required_unless_present = "random_ids",
        conflicts_with = "random_ids"
    )]
    text: Option<PathBuf>,
    /// No text: train on uniformly random ids of this vocabulary (a
    /// model-shape benchmark, e.g. GPT-2's 50257).
    #[arg(long)]
    random_ids: Option<u64>,
    /// Train steps (nanoGPT's max_iters).
    #[arg(long, default_value_t = 2000)]
    steps: usize,
    /// Windows per train step.
    #[arg(long, default_value_t = 12)]
    batch: u64,
    /// Characters per window (the context).
    #[arg(long, default_value_t = 64)]
    block: u64,
    #[arg(long, default_value_t = 4)]
    layers: u64,
    #[arg(long, default_value_t = 4)]
    heads: u64,
    /// Features per position.
    #[arg(long, default_value_t = 128)]
    dim: u64,
    /// The peak learning rate.
    #[arg(long, default_value_t = 1e-3)]
    lr: f64,
    /// The learning rate at the end of the cosine decay.
    #[arg(long, default_value_t = 1e-4)]
    min_lr: f64,
    /// Warmup steps: step `it` gets `lr * (it + 1) / (warmup + 1)`.
    #[arg(long, default_value_t = 100)]
    warmup: usize,
    /// The step where the decay reaches `min-lr` (nanoGPT's
    /// lr_decay_iters; the number of steps by default).
    #[arg(long)]
    decay_steps: Option<usize>,
    /// AdamW's decoupled weight decay, on the matrices only.
    #[arg(long, default_value_t = 0.1)]
    weight_decay: f64,
    #[arg(long, default_value_t = 0.9)]
    beta1: f64,
    #[arg(long, default_value_t = 0.99)]
    beta2: f64,
    /// The global gradient norm is clipped to this (0: no clipping).
    #[arg(long, default_value_t = 1.0)]
    clip: f64,
    /// Steps between two evaluations (and checkpoints).
    #[arg(long, default_value_t = 250)]
    eval_every: usize,
    /// Batches of each split in an evaluation.
    #[arg(long, default_value_t = 20)]
    eval_batches: usize,
    /// Steps between two prints of the step's loss and time.
    #[arg(long, default_value_t = 10)]
    log_every: usize,
    #[arg(long, default_value_t = 1337)]
    seed: u64,
    /// Start from the params in this safetensors file.
    #[arg(long)]
    init: Option<PathBuf>,
    /// Write the params into this safetensors file at each evaluation.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Characters to generate at the end.
    #[arg(long, default_value_t = 0)]
    sample: usize,
    /// The text generation starts from.
    #[arg(long, default_value = "\n")]
    prompt: String,
    /// Sampling temperature (0: the most likely character each time).
    #[arg(long, default_value_t = 0.8)]
    temperature: f64,
    /// Also generate `--sample` characters by recomputing the whole
    /// context for each (a forward routine of one window), both greedy:
    /// fail unless the two texts are equal; print both speeds.
    #[arg(long)]
    compare_recompute: bool,
    /// Fail when the last validation loss is above this.
    #[arg(long)]
    max_val_loss: Option<f64>,
    /// Print the `ocannl_shape` module and stop.
    #[arg(long)]
    print_module: bool,
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// The text as ids of its sorted distinct characters, split 90/10.
struct Corpus {
    /// The characters of the ids (empty for random ids).
    chars: Vec<char>,
    vocab: u64,
    train: Vec<u32>,
    val: Vec<u32>,
}

impl Corpus {
    /// `--random-ids`: splits of ids drawn uniformly from `0..vocab`, long
    /// enough for distinct windows.
    fn random(vocab: u64, block: u64, batch: u64, seed: u64) -> Result<Corpus, Error> {
        if vocab == 0 || vocab > 1 << 24 {
            return Err(format!("--random-ids {vocab}: the vocabulary has 1 to 2^24 ids").into());
        }
        let mut rng = SplitMix64::new(seed ^ 0x1d5);
        let mut draw = |n: u64| -> Vec<u32> { (0..n).map(|_| rng.below(vocab) as u32).collect() };
        let n = 64 * block * batch + block + 1;
        let (train, val) = (draw(n), draw(n));
        Ok(Corpus {
            chars: vec![],
            vocab,
            train,
            val,
        })
    }

    fn load(path: &std::path::Path, block: u64) -> Result<Corpus, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the text {}: {e}", path.display()))?;
        let mut chars: Vec<char> = text.chars().collect();
        chars.sort_unstable();
        chars.dedup();
        let id = |c: char| chars.binary_search(&c).expect("a character of the text") as u32;
        let ids: Vec<u32> = text.chars().map(id).collect();
        let n = ids.len() * 9 / 10;
        let (train, val) = (ids[..n].to_vec(), ids[n..].to_vec());
        for (name, split) in [("training", &train), ("validation", &val)] {
            if split.len() as u64 <= block {
                return Err(format!(
                    "{}: the {name} split has {} characters, not more than a block of {block}",
                    path.display(),
                    split.len()
                )
                .into());
            }
        }
        Ok(Corpus {
            vocab: chars.len() as u64,
            chars,
            train,
            val,
        })
    }
}

/// A batch of `b` windows of `block` ids from `split` at offsets drawn by
/// `rng` (each `below(len - block)`), and the ids one position later: two
/// `b x block x 1` tensors.
fn batch(split: &[u32], b: u64, block: u64, rng: &mut SplitMix64) -> [HostTensor; 2] {
    let t = block as usize;
    let (mut x, mut y) = (vec![], vec![]);
    for _ in 0..b {
        let i = rng.below(split.len() as u64 - block) as usize;
        x.extend(split[i..i + t].iter().map(|&c| c as f32));
        y.extend(split[i + 1..i + 1 + t].iter().map(|&c| c as f32));
    }
    let dims = vec![b, block, 1];
    [HostTensor::f32(dims.clone(), x), HostTensor::f32(dims, y)]
}

/// The model's sizes.
#[derive(Clone, Copy)]
struct Config {
    vocab: u64,
    block: u64,
    dim: u64,
    heads: u64,
    layers: u64,
    seed: u64,
}

impl Config {
    /// A param named and shaped, initialized normal(0, `std`) and seeded
    /// by its name and the run's seed.
    fn init(&self, p: Param, std: f64) -> Param {
        let h = p.name().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        p.init(ParamInit::normal(std))
            .seed(((h ^ self.seed.wrapping_mul(ocannl_ops::rng::GOLDEN)) >> 1) as i64)
    }

    /// The param `name` (`input -> output`), as [`Config::init`].
    fn param(&self, name: &str, input: &[u64], output: &[u64], std: f64) -> Param {
        self.init(param(name).input(input).output(output), std)
    }

    /// The standard deviation of the residual projections (GPT-2's
    /// 0.02/sqrt(2 layers)).
    fn residual_std(&self) -> f64 {
        0.02 / ((2 * self.layers) as f64).sqrt()
    }

    /// The token embedding (`vocab x dim` in memory, as PyTorch's; also
    /// the head) and the learned positions (`block x dim`).
    fn embeddings(&self) -> (Param, Param) {
        let wte = self.param("wte", &[self.dim], &[self.vocab], 0.02);
        let wpe = self.param("wpe", &[self.dim], &[self.block], 0.02);
        (wte, wpe)
    }

    /// Layer `l`'s second half: `h + mlp(layer_norm(h))`, a GELU MLP of 4x.
    fn mlp(&self, l: u64, h: &Tensor) -> Tensor {
        let x = nn::layer_norm_without_bias(&format!("h.{l}.ln_2"), h, 1e-5);
        let fc = self.param(&format!("h.{l}.mlp.fc"), &[self.dim], &[4 * self.dim], 0.02);
        let proj = self.param(
            &format!("h.{l}.mlp.proj"),
            &[4 * self.dim],
            &[self.dim],
            self.residual_std(),
        );
        h + &(&proj * &nn::gelu(&(&fc * &x)))
    }

    /// The logits of `h` after the last layer: the final layer norm, then
    /// the embedding's param as the head (weight tying).
    fn head(&self, wte: &Param, h: &Tensor) -> Tensor {
        wte * &nn::layer_norm_without_bias("ln_f", h, 1e-5)
    }

    /// The logits (`"...,t|vocab"`) of the next character at each position
    /// of `ids` (`"...,t|1"`).
    fn logits(&self, ids: &Tensor) -> Tensor {
        let c = *self;
        let (wte, wpe) = c.embeddings();
        let tokens = einsum("...|v; d->v => ...|d", &[&one_hot(ids, c.vocab), &wte]);
        let mut h = einsum_with(
            "...,t|d; d->t => ...,t|d",
            Accum::Add,
            BinaryOp::Add,
            &[&tokens, &wpe],
        );
        let mask = nn::causal_mask(c.block);
        for l in 0..c.layers {
            let name = |p: &str| format!("h.{l}.{p}");
            let x = nn::layer_norm_without_bias(&name("ln_1"), &h, 1e-5);
            let a = nn::multi_head_attention_with(
                &name("attn"),
                &x,
                c.dim,
                c.heads,
                Some(&mask),
                &|p| c.init(p, 0.02),
                &|p| c.init(p, c.residual_std()),
            );
            h = c.mlp(l, &(&h + &a));
        }
        c.head(&wte, &h)
    }

    /// One decoding step with key/value caches: the id `token` (`"1"`) at
    /// the position whose one-hot row is `position` (`"block"`), attending
    /// to the positions `visible` marks (`"block,1"`: 1 up to the
    /// position); each layer's cached keys and values (`"block,heads,e"`)
    /// get this position's row. Returns the next character's logits
    /// (`"vocab"`) and the updated caches, layer by layer (keys, values).
    /// The params are the training model's, declared the same way.
    fn decode(
        &self,
        token: &Tensor,
        position: &Tensor,
        visible: &Tensor,
        caches: &[(Tensor, Tensor)],
    ) -> (Tensor, Vec<(Tensor, Tensor)>) {
        let c = *self;
        let (heads, e) = (c.heads, c.dim / c.heads);
        let (wte, wpe) = c.embeddings();
        let mut h = einsum("v; d->v => d", &[&one_hot(token, c.vocab), &wte])
            + einsum("t; d->t => d", &[position, &wpe]);
        let rest = 1.0 - position;
        let mut updated = vec![];
        for (l, (keys, values)) in caches.iter().enumerate() {
            let name = |p: &str| format!("h.{l}.{p}");
            let x = nn::layer_norm_without_bias(&name("ln_1"), &h, 1e-5);
            let project = |p: &str| {
                let w = c.init(
                    param(&name(&format!("attn.{p}")))
                        .input(&[c.dim])
                        .output(&[heads, e]),
                    0.02,
                );
                &w * &x
            };
            // The cache with this position's row replaced.
            let write = |cache: &Tensor, row: &Tensor| {
                einsum("t,h,e; t => t,h,e", &[cache, &rest])
                    + einsum("t; h,e => t,h,e", &[position, row])
            };
            let (keys, values) = (write(keys, &project("k")), write(values, &project("v")));
            let scores =
                einsum("h,e; t,h,e => t,h", &[&project("q"), &keys]) * (1.0 / (e as f64).sqrt());
            let scores = where_(visible, &scores, &number(-1e9));
            let attn = nn::softmax_over(&scores, "t,h => 0,h");
            let mixed = einsum("t,h; t,h,e => h,e", &[&attn, &values]);
            let o = c.init(
                param(&name("attn.o")).input(&[heads, e]).output(&[c.dim]),
                c.residual_std(),
            );
            h = c.mlp(l as u64, &(&h + &(&o * &mixed)));
            updated.push((keys, values));
        }
        (c.head(&wte, &h), updated)
    }

    /// The params' cells: all, and without the position embedding
    /// (nanoGPT's count).
    fn params(&self) -> (u64, u64) {
        let (d, v, b) = (self.dim, self.vocab, self.block);
        let per_layer = 4 * d * d + 8 * d * d + 2 * d;
        let all = v * d + b * d + self.layers * per_layer + d;
        (all, all - b * d)
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    let corpus = match (&cli.text, cli.random_ids) {
        (Some(path), _) => Corpus::load(path, cli.block)?,
        (None, Some(v)) => Corpus::random(v, cli.block, cli.batch, cli.seed)?,
        (None, None) => return Err("give --text PATH or --random-ids VOCAB".into()),
    };
    let c = Config {
        vocab: corpus.vocab,
        block: cli.block,
        dim: cli.dim,
        heads: cli.heads,
        layers: cli.layers,
        seed: cli.seed,
    };
    if cli.heads == 0 || !cli.dim.is_multiple_of(cli.heads) {
        return Err(format!(
            "--dim {} is not a multiple of --heads {}",
            cli.dim, cli.heads
        )
        .into());
    }
    let (b, t) = (cli.batch, cli.block);
    let ids = data("ids", &format!("{b},{t}|1"));
    let targets = data("targets", &format!("{b},{t}|1"));
    let loss = nn::cross_entropy(&c.logits(&ids), &targets, c.vocab);
    let forward = c.logits(&data("ids", &format!("{b},{t}|1")));
    // Generation: one window's logits (the whole context recomputed), and
    // one decoding step with key/value caches.
    let context = c.logits(&data("ids", &format!("1,{t}|1")));
    let (heads, e) = (c.heads, c.dim / c.heads);
    let token = data("token", "1");
    let position = data("position", &t.to_string());
    let visible = data("visible", &format!("{t},1"));
    let caches: Vec<(Tensor, Tensor)> = (0..c.layers)
        .map(|l| {
            let cache = |kind: &str| data(&format!("{kind}{l}"), &format!("{t},{heads},{e}"));
            (cache("keys"), cache("values"))
        })
        .collect();
    let (next, updated) = c.decode(&token, &position, &visible, &caches);
    let mut decode: Vec<&Tensor> = vec![&next];
    for (k, v) in &updated {
        decode.extend([k, v]);
    }
    let routines: [(&str, &[&Tensor]); 2] = [("context", &[&context]), ("decode", &decode)];
    if cli.print_module {
        print!("{}", Trainer::module_with(&loss, &forward, &routines)?);
        return Ok(());
    }
    let (all, counted) = c.params();
    println!(
        "vocab {}, {} training and {} validation characters; number of parameters: {:.2}M ({all} with the positions)",
        c.vocab,
        corpus.train.len(),
        corpus.val.len(),
        counted as f64 / 1e6
    );
    let optimizer = Optimizer::AdamW(Adam {
        beta1: cli.beta1,
        beta2: cli.beta2,
        eps: 1e-8,
        weight_decay: cli.weight_decay,
        decay_on: DecayOn::Matrices,
        clip_norm: (cli.clip > 0.0).then_some(cli.clip),
    });
    let t0 = Instant::now();
    let mut trainer = Trainer::with_routines(Device::CPU, &loss, &forward, &routines, optimizer)?;
    let times = trainer.times();
    println!(
        "compiled the train step in {:.2} s (passes {:.2} s, backend {:.2} s; cache: {:?}); params initialized in {:.1} ms",
        (t0.elapsed() - times.init).as_secs_f64(),
        times.passes.as_secs_f64(),
        times.train_step.as_secs_f64(),
        times.cache,
        times.init.as_secs_f64() * 1e3,
    );
    let params: u64 = trainer
        .param_names()
        .iter()
        .map(|n| trainer.param(n).map(|p| p.dims.iter().product::<u64>()))
        .sum::<Result<u64, _>>()?;
    if params != all {
        return Err(
            format!("internal error: the model has {params} param cells, not {all}").into(),
        );
    }
    if let Some(path) = &cli.init {
        trainer.load_checkpoint(path)?;
        println!("params from {}", path.display());
    }
    let schedule = Schedule::NanoGpt {
        peak: cli.lr,
        warmup: cli.warmup,
        steps: cli.decay_steps.unwrap_or(cli.steps),
        end: cli.min_lr,
    };
    let mut rng = SplitMix64::new(cli.seed);
    let mut training = Duration::ZERO;
    let mut last_val = None;
    for it in 0..=cli.steps {
        if cli.eval_every > 0 && (it % cli.eval_every == 0 || it == cli.steps) {
            let [train, val] = evaluate(&trainer, &corpus, &cli, it)?;
            println!("step {it}: train loss {train:.4}, val loss {val:.4}");
            last_val = Some(val);
            if let Some(path) = &cli.checkpoint {
                trainer.save_checkpoint(path)?;
            }
        }
        if it == cli.steps {
            break;
        }
        let start = Instant::now();
        let loss = trainer.step(&batch(&corpus.train, b, t, &mut rng), schedule.lr(it))?;
        let dt = start.elapsed();
        training += dt;
        if !loss.is_finite() {
            return Err(format!("the loss is {loss} at step {it}").into());
        }
        if cli.log_every > 0 && it % cli.log_every == 0 {
            println!(
                "iter {it}: loss {loss:.4}, time {:.2}ms",
                dt.as_secs_f64() * 1e3
            );
        }
    }
    if cli.steps > 0 {
        println!(
            "trained {} steps in {:.1} s ({:.2} ms per step, the evaluations not counted)",
            cli.steps,
            training.as_secs_f64(),
            training.as_secs_f64() * 1e3 / cli.steps as f64
        );
        if let Some(profile) = trainer.profile() {
            // OCANNL_PROFILE_TOP=N: how many kernels to list (10).
            let top = std::env::var("OCANNL_PROFILE_TOP")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(10);
            print!("{}", profile.report(top));
        }
    }
    if let Some(kib) = peak_memory_kib() {
        println!("peak memory {:.0} MiB", kib as f64 / 1024.0);
    }
    if cli.sample > 0 {
        // (Random ids: the prompt is id 0, and the ids are not printed.)
        let prompt = if corpus.chars.is_empty() {
            vec![0]
        } else {
            encode(&corpus, &cli.prompt)?
        };
        let greedy = if cli.compare_recompute {
            0.0
        } else {
            cli.temperature
        };
        // The two generation routines compiled first (each on its first
        // call), so that the speeds below are of generating.
        let start = Instant::now();
        generate_cached(&trainer, &c, &prompt[..1], 1, 0.0, cli.seed)?;
        generate_recomputed(&trainer, &c, &prompt[..1], 1)?;
        println!(
            "compiled the decoding and context routines in {:.2} s",
            start.elapsed().as_secs_f64()
        );
        let start = Instant::now();
        let ids = generate_cached(&trainer, &c, &prompt, cli.sample, greedy, cli.seed)?;
        let cached = start.elapsed().as_secs_f64();
        let text: String = ids
            .iter()
            .filter_map(|&i| corpus.chars.get(i as usize))
            .collect();
        if !corpus.chars.is_empty() {
            println!("{}{text}", cli.prompt);
        }
        println!(
            "generated {} ids in {cached:.3} s ({:.0} per second, with key/value caches)",
            cli.sample,
            cli.sample as f64 / cached
        );
        if cli.compare_recompute {
            let start = Instant::now();
            let again = generate_recomputed(&trainer, &c, &prompt, cli.sample)?;
            let whole = start.elapsed().as_secs_f64();
            println!(
                "recomputing the context: {:.0} ids per second; the caches are {:.1}x faster",
                cli.sample as f64 / whole,
                whole / cached
            );
            if again != ids {
                return Err(format!(
                    "greedy generation with caches differs from recomputing the context:\n{ids:?}\n{again:?}"
                )
                .into());
            }
            println!("the same {} ids both ways (greedy)", cli.sample);
        }
    }
    match (cli.max_val_loss, last_val) {
        (Some(max), Some(v)) if v > max => {
            Err(format!("the validation loss {v:.4} is above {max} (--max-val-loss)").into())
        }
        _ => Ok(()),
    }
}

/// The mean loss of `--eval-batches` batches of the training split, then
/// of the validation split, drawn from `seed * 1000003 + step + 1`.
fn evaluate(trainer: &Trainer, corpus: &Corpus, cli: &Cli, step: usize) -> Result<[f64; 2], Error> {
    let mut rng = SplitMix64::new(
        cli.seed
            .wrapping_mul(1_000_003)
            .wrapping_add(step as u64 + 1),
    );
    let mut out = [0.0; 2];
    for (k, split) in [&corpus.train, &corpus.val].into_iter().enumerate() {
        let mut total = 0.0;
        for _ in 0..cli.eval_batches {
            let [x, y] = batch(split, cli.batch, cli.block, &mut rng);
            let logits = trainer.forward(&[x])?.to_f64();
            total += cross_entropy(&logits, &y.to_f64(), corpus.vocab as usize);
        }
        out[k] = total / cli.eval_batches.max(1) as f64;
    }
    Ok(out)
}

/// The mean cross-entropy of rows of `v` logits against target ids.
fn cross_entropy(logits: &[f64], targets: &[f64], v: usize) -> f64 {
    let rows = logits.chunks(v).zip(targets);
    let n = targets.len() as f64;
    rows.map(|(row, &t)| {
        let m = row.iter().cloned().fold(f64::MIN, f64::max);
        let lse = m + row.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
        lse - row[t as usize]
    })
    .sum::<f64>()
        / n
}

/// The ids of `text`'s characters (each must be in the corpus).
fn encode(corpus: &Corpus, text: &str) -> Result<Vec<u32>, Error> {
    if text.is_empty() {
        return Err("--prompt is empty".into());
    }
    text.chars()
        .map(|ch| {
            corpus
                .chars
                .binary_search(&ch)
                .map(|i| i as u32)
                .map_err(|_| format!("the prompt's character {ch:?} is not in the text").into())
        })
        .collect()
}

/// `n` ids after `prompt`, each from the decoding routine (`decode`): one
/// position per call, its keys and values appended to caches that the
/// next call reads, so that within the block the context is never
/// recomputed. Beyond the block the context is cropped to its last `block`
/// ids, as nanoGPT does: every position then moves, and with it every key
/// and value (the positions are learned embeddings), so each id beyond
/// the block comes from the whole window recomputed (`context`). Drawn at
/// `temperature` (the most likely id at 0).
fn generate_cached(
    trainer: &Trainer,
    c: &Config,
    prompt: &[u32],
    n: usize,
    temperature: f64,
    seed: u64,
) -> Result<Vec<u32>, Error> {
    let t = c.block as usize;
    let cells = t * c.dim as usize;
    let dims = vec![c.block, c.heads, c.dim / c.heads];
    // The caches stay in the decode routine's buffers from call to call
    // (results 1.. carried into inputs 3..); the first call gives zeros.
    let n_caches = 2 * c.layers as usize;
    let carry: Vec<(usize, usize)> = (0..n_caches).map(|k| (1 + k, 3 + k)).collect();
    let zeros = HostTensor::f32(dims, vec![0.0; cells]);
    let mut first = true;
    let mut rng = SplitMix64::new(seed ^ 0x5a5a_5a5a);
    let mut context = prompt.to_vec();
    // How many ids of the context are in the caches.
    let mut filled = 0;
    let mut out = vec![];
    for _ in 0..n {
        if context.len() > t {
            let window = &context[context.len() - t..];
            let ids: Vec<f32> = window.iter().map(|&id| id as f32).collect();
            let logits = trainer.call("context", &[HostTensor::f32(vec![1, c.block, 1], ids)])?;
            let logits = logits.first().ok_or("no logits")?.to_f64();
            let v = c.vocab as usize;
            let next = pick(&logits[(t - 1) * v..t * v], temperature, &mut rng) as u32;
            context.push(next);
            out.push(next);
            continue;
        }
        let mut logits = vec![];
        while filled < context.len() {
            let p = filled;
            let one_hot: Vec<f32> = (0..t).map(|k| if k == p { 1.0 } else { 0.0 }).collect();
            let visible: Vec<f32> = (0..t).map(|k| if k <= p { 1.0 } else { 0.0 }).collect();
            let mut inputs = vec![
                Some(HostTensor::f32(vec![1], vec![context[p] as f32])),
                Some(HostTensor::f32(vec![c.block], one_hot)),
                Some(HostTensor::f32(vec![c.block, 1], visible)),
            ];
            inputs.extend((0..n_caches).map(|_| first.then(|| zeros.clone())));
            first = false;
            let results = trainer.call_carrying("decode", &inputs, &carry)?;
            logits = results.first().ok_or("no logits")?.to_f64();
            filled += 1;
        }
        let next = pick(&logits, temperature, &mut rng) as u32;
        context.push(next);
        out.push(next);
    }
    Ok(out)
}

/// `n` ids after `prompt`, greedy, each from the logits of the whole
/// context (its last `block` ids) recomputed by the `context` routine.
fn generate_recomputed(
    trainer: &Trainer,
    c: &Config,
    prompt: &[u32],
    n: usize,
) -> Result<Vec<u32>, Error> {
    let (t, v) = (c.block as usize, c.vocab as usize);
    let mut context = prompt.to_vec();
    let mut rng = SplitMix64::new(0);
    let mut out = vec![];
    for _ in 0..n {
        let window = &context[context.len().saturating_sub(t)..];
        let mut ids = vec![0f32; t];
        for (k, &id) in window.iter().enumerate() {
            ids[k] = id as f32;
        }
        let logits = trainer.call("context", &[HostTensor::f32(vec![1, c.block, 1], ids)])?;
        let logits = logits.first().ok_or("no logits")?.to_f64();
        let p = window.len() - 1;
        let next = pick(&logits[p * v..(p + 1) * v], 0.0, &mut rng) as u32;
        context.push(next);
        out.push(next);
    }
    Ok(out)
}

/// The process's peak resident memory (Linux's `VmHWM`), if known.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A draw from the softmax of `row / temperature` (the largest at 0).
fn pick(row: &[f64], temperature: f64, rng: &mut SplitMix64) -> usize {
    let m = row.iter().cloned().fold(f64::MIN, f64::max);
    if temperature <= 0.0 {
        return row.iter().position(|&x| x == m).unwrap_or(0);
    }
    let w: Vec<f64> = row.iter().map(|x| ((x - m) / temperature).exp()).collect();
    let mut u = rng.next_f64() * w.iter().sum::<f64>();
    for (k, x) in w.iter().enumerate() {
        if u < *x {
            return k;
        }
        u -= x;
    }
    row.len() - 1
}
