//! A character-level transformer on words, in the style of makemore: a
//! decoder-only transformer (`ocannl::nn::decoder_only`) predicts each next
//! letter of the words of Debian's `wamerican` list (lowercase a-z, split
//! into training and test words by `ocannl::data::words`), trained with
//! AdamW and cross-entropy, the positions after a word's end token masked.
//! It prints the training and test loss at intervals, then samples words
//! from the model: a compiled forward routine with the current params, the
//! sampling on the host.
//!
//! `cargo run --release -p ocannl --example names -- [--steps N] [--batch B]
//! [--layers L] [--heads H] [--dim D] [--lr LR] [--samples N]
//! [--max-test-loss X] [--save-data DIR]`: 6000 steps reach a test loss of
//! about 1.95 nats. `--save-data DIR` writes the words as the model reads
//! them and the words of each step as `.npy` files (for comparisons with
//! other frameworks on the same batches, as `benches/vs_jax_models.py`
//! does).

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use clap::Parser;
use ocannl::{
    data::words::{self, Words},
    nn, *,
};

/// Any error, shown as its message (the library's are `ocannl::Error`).
type Error = Box<dyn std::error::Error>;

// The tools' allocator (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(about = "Trains a character-level transformer on words and samples new ones")]
struct Cli {
    /// Train steps.
    #[arg(long, default_value_t = 6000)]
    steps: usize,
    /// Words per train step.
    #[arg(long, default_value_t = 32)]
    batch: u64,
    #[arg(long, default_value_t = 4)]
    layers: u64,
    #[arg(long, default_value_t = 4)]
    heads: u64,
    /// Features per position.
    #[arg(long, default_value_t = 64)]
    dim: u64,
    /// AdamW's peak learning rate (warmup, then cosine decay).
    #[arg(long, default_value_t = 5e-4)]
    lr: f64,
    /// Steps between two reports of the training loss and of the loss
    /// on every test word.
    #[arg(long, default_value_t = 1000)]
    every: usize,
    /// Words to sample at the end.
    #[arg(long, default_value_t = 20)]
    samples: usize,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Fail when the final test loss is above this.
    #[arg(long)]
    max_test_loss: Option<f64>,
    /// Write every training and test word as the model reads them
    /// (`train_ids.npy`, `train_targets.npy`, `train_mask.npy`, each
    /// `words x context`, and the same for `test`) and each step's
    /// training words (`batches.npy`, `steps x batch` indices into the
    /// training words) into DIR.
    #[arg(long)]
    save_data: Option<PathBuf>,
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

/// A batch of words as the model's inputs: the end token then the letters
/// (`ids`), the letters then the end token (`targets`), and 1 at the
/// positions up to the end token (`mask`), each `batch x len x 1`.
fn batch(words: &[&String], len: usize) -> Result<[HostTensor; 3], Error> {
    let (mut ids, mut targets, mut mask) = (vec![], vec![], vec![]);
    for w in words {
        let tokens = words::encode(w)?;
        for p in 0..len {
            let input = if p == 0 {
                words::END
            } else {
                tokens.get(p - 1).copied().unwrap_or(words::END)
            };
            ids.push(input as f32);
            targets.push(tokens.get(p).copied().unwrap_or(words::END) as f32);
            mask.push(if p < tokens.len() { 1.0 } else { 0.0 });
        }
    }
    let t = |data: Vec<f32>| HostTensor::f32(vec![words.len() as u64, len as u64, 1], data);
    Ok([t(ids), t(targets), t(mask)])
}

/// `--save-data`: the training and test words as [`batch`] encodes them,
/// then `order` (the training words' indices of each step) as `.npy` files
/// in `dir`.
fn save_data(dir: &Path, words: &Words, len: usize, order: &[Vec<usize>]) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, split) in [("train", &words.train), ("test", &words.test)] {
        let all: Vec<&String> = split.iter().collect();
        let parts = ["ids", "targets", "mask"]
            .into_iter()
            .zip(batch(&all, len)?);
        for (part, mut t) in parts {
            t.dims.truncate(2);
            npy::write(&dir.join(format!("{name}_{part}.npy")), &t)?;
        }
    }
    let b = order.first().map_or(0, Vec::len);
    let order = HostTensor::f64(
        vec![order.len() as u64, b as u64],
        order.iter().flatten().map(|&i| i as f64).collect(),
    );
    npy::write(&dir.join("batches.npy"), &order)?;
    Ok(())
}

fn run(cli: Cli) -> Result<(), Error> {
    let words = Words::load_default()?;
    // The context: the longest word and its end token.
    let len = words
        .train
        .iter()
        .chain(&words.test)
        .map(|w| w.len())
        .max()
        .unwrap_or(1)
        + 1;
    if !cli.print_module {
        println!(
            "{} training and {} test words, context {len}",
            words.train.len(),
            words.test.len()
        );
    }
    let vocab = words::VOCAB as u64;
    let (b, l) = (cli.batch, len as u64);
    let model =
        |ids: &Tensor| nn::decoder_only("lm", ids, vocab, l, cli.dim, cli.heads, cli.layers);
    let ids = data("ids", &format!("{b},{l}|1"));
    let targets = data("targets", &format!("{b},{l}|1"));
    let mask = data("mask", &format!("{b},{l}|1"));
    let loss = nn::masked_cross_entropy(&model(&ids), &targets, vocab, &mask);
    // Sampling and evaluation read the same model through a forward
    // routine of `b` words.
    let forward = model(&data("ids", &format!("{b},{l}|1")));
    if cli.print_module {
        print!("{}", Trainer::module(&loss, &forward)?);
        return Ok(());
    }
    let t = Instant::now();
    let optimizer = Optimizer::AdamW(Adam {
        weight_decay: 0.01,
        ..Adam::default()
    });
    let mut trainer = Trainer::new(&loss, &forward, optimizer)?;
    let times = trainer.times();
    println!(
        "compiled the train step in {:.2} s (passes {:.2} s, backend {:.2} s; cache: {:?}); params initialized in {:.1} ms",
        (t.elapsed() - times.init).as_secs_f64(),
        times.passes.as_secs_f64(),
        times.train_step.as_secs_f64(),
        times.cache,
        times.init.as_secs_f64() * 1e3,
    );
    if !times.phases.is_empty() {
        let phases: Vec<String> = times
            .phases
            .iter()
            .map(|(n, d)| format!("{n} {:.3} s", d.as_secs_f64()))
            .collect();
        println!("  backend phases: {}", phases.join(", "));
    }
    if !times.counts.is_empty() {
        let counts: Vec<String> = times
            .counts
            .iter()
            .map(|(n, c)| format!("{n} {c}"))
            .collect();
        println!("  backend counts: {}", counts.join(", "));
    }
    let schedule = Schedule::WarmupCosine {
        peak: cli.lr,
        warmup: cli.steps / 20,
        steps: cli.steps,
        end: cli.lr / 10.0,
    };
    let mut rng = ocannl_ops::SplitMix64::new(cli.seed);
    let pick = |rng: &mut ocannl_ops::SplitMix64, from: &[String]| -> Vec<usize> {
        (0..b)
            .map(|_| rng.below(from.len() as u64) as usize)
            .collect()
    };
    // The time of the train steps (with their batches), evaluation left out.
    let mut training = Duration::ZERO;
    let mut running = 0.0;
    let mut last_test = None;
    // The training words of each step, for `--save-data`.
    let mut order = vec![];
    for step in 0..cli.steps {
        let t = Instant::now();
        let picked = pick(&mut rng, &words.train);
        let chosen: Vec<&String> = picked.iter().map(|&i| &words.train[i]).collect();
        running += trainer.step(&batch(&chosen, len)?, schedule.lr(step))?;
        training += t.elapsed();
        if cli.save_data.is_some() {
            order.push(picked);
        }
        if (step + 1) % cli.every == 0 || step + 1 == cli.steps {
            let test = test_loss(&trainer, &words.test, len, b as usize)?;
            last_test = Some(test);
            let done = (step + 1) % cli.every;
            let n = if done == 0 { cli.every } else { done };
            println!(
                "step {:>6}: train loss {:.4}, test loss {test:.4} ({:.1} ms per step)",
                step + 1,
                running / n as f64,
                training.as_secs_f64() * 1e3 / (step + 1) as f64
            );
            running = 0.0;
        }
    }
    if cli.steps > 0 {
        println!(
            "trained {} steps in {:.1} s ({:.3} ms per step, the evaluations not counted)",
            cli.steps,
            training.as_secs_f64(),
            training.as_secs_f64() * 1e3 / cli.steps as f64
        );
        // With OCANNL_PROFILE=1: the slowest kernels of the train step.
        if let Some(profile) = trainer.profile() {
            print!("{}", profile.report(10));
        }
    }
    if let Some(dir) = &cli.save_data {
        save_data(dir, &words, len, &order)?;
    }
    println!("\nsampled words:");
    for w in sample(&trainer, cli.samples, len, b as usize, &mut rng)? {
        println!("  {w}");
    }
    match (cli.max_test_loss, last_test) {
        (Some(max), Some(test)) if test > max => {
            Err(format!("the test loss {test:.4} is above {max} (--max-test-loss)").into())
        }
        _ => Ok(()),
    }
}

/// The masked cross-entropy over every test word (in batches of `b`, the
/// last one padded with words not counted), computed on the host from the
/// forward routine's logits.
fn test_loss(trainer: &Trainer, test: &[String], len: usize, b: usize) -> Result<f64, Error> {
    let (mut total, mut count) = (0.0, 0usize);
    for start in (0..test.len()).step_by(b) {
        let chosen: Vec<&String> = (start..start + b).map(|i| &test[i % test.len()]).collect();
        let [ids, targets, mask] = batch(&chosen, len)?;
        let logits = trainer.forward(&[ids])?.to_f64();
        let (targets, mask) = (targets.to_f64(), mask.to_f64());
        let v = words::VOCAB;
        let counted = (test.len() - start).min(b) * len;
        for (k, row) in logits.chunks(v).enumerate().take(counted) {
            if mask[k] == 0.0 {
                continue;
            }
            let m = row.iter().cloned().fold(f64::MIN, f64::max);
            let lse = m + row.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
            total += lse - row[targets[k] as usize];
            count += 1;
        }
    }
    Ok(total / count.max(1) as f64)
}

/// `n` words sampled letter by letter from the model's next-letter
/// distributions (each word one row of a forward call of `b` rows).
fn sample(
    trainer: &Trainer,
    n: usize,
    len: usize,
    b: usize,
    rng: &mut ocannl_ops::SplitMix64,
) -> Result<Vec<String>, Error> {
    let v = words::VOCAB;
    let mut out = vec![];
    while out.len() < n {
        let rows = (n - out.len()).min(b);
        // Row r holds the end token then the letters sampled so far.
        let mut seqs: Vec<Vec<usize>> = vec![vec![]; rows];
        let mut done = vec![false; rows];
        for p in 0..len {
            let mut ids = vec![words::END as f32; b * len];
            for (r, s) in seqs.iter().enumerate() {
                for (k, &t) in s.iter().enumerate() {
                    ids[r * len + k + 1] = t as f32;
                }
            }
            let logits = trainer
                .forward(&[HostTensor::f32(vec![b as u64, len as u64, 1], ids)])?
                .to_f64();
            for r in 0..rows {
                if done[r] {
                    continue;
                }
                let row = &logits[(r * len + p) * v..(r * len + p + 1) * v];
                let m = row.iter().cloned().fold(f64::MIN, f64::max);
                let weights: Vec<f64> = row.iter().map(|x| (x - m).exp()).collect();
                let mut u = rng.next_f64() * weights.iter().sum::<f64>();
                let mut t = v - 1;
                for (k, w) in weights.iter().enumerate() {
                    if u < *w {
                        t = k;
                        break;
                    }
                    u -= w;
                }
                if t == words::END || p + 1 == len {
                    done[r] = true;
                } else {
                    seqs[r].push(t);
                }
            }
            if done.iter().all(|&d| d) {
                break;
            }
        }
        for s in seqs {
            out.push(words::decode(&s).unwrap_or_default());
        }
    }
    Ok(out)
}
