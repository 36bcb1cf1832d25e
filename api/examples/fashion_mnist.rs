//! LeNet-5 on Fashion-MNIST, the main job: OCANNL's `lenet` (channels
//! last) trained with cross-entropy on the 60,000 training images of
//! Debian's `dataset-fashion-mnist` (which `scripts/bootstrap.sh`
//! installs), evaluated on the 10,000 test images after each epoch.
//!
//! `cargo run --release -p ocannl --example fashion_mnist -- [--epochs N]
//! [--batch B] [--lr LR] [--optimizer sgd|adam|adamw] [--device NAME]
//! [--train-items N] [--save FILE] [--load FILE] [--min-accuracy A]
//! [--save-data DIR]`
//!
//! A progress bar shows the loss and the examples per second; each epoch
//! prints the test accuracy; the end prints the loss curve, writes the
//! params as one `safetensors` file (`--save`, by default
//! `target/fashion-mnist.safetensors`) and fails when the final test
//! accuracy is below `--min-accuracy` (0.89). `--load FILE --epochs 0`
//! evaluates a saved model. `--save-data DIR` writes the training images
//! used, the test images and the order of the batches as `.npy` files (for
//! comparisons with other frameworks on the same batches, as
//! `benches/vs_jax_models.py` does).
//!
//! Data-parallel: `mpirun -n N target/release/examples/fashion_mnist
//! --data-parallel --batch B` trains on N ranks (processes, on one host or
//! several), each stepping on its B images of every global batch of N×B,
//! the gradients all-reduced through MPI (NCCL with `--device cuda`), as
//! one process with `--batch` N×B does; rank 0 prints, evaluates and saves.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use ocannl::{
    data::{
        fashion_mnist::{Labels, Layout, Split},
        Batches, FashionMnist,
    },
    nn, *,
};

/// Any error, shown as its message (the library's are `ocannl::Error`).
type Error = Box<dyn std::error::Error>;

// The tools' allocator (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(about = "Trains LeNet-5 on Fashion-MNIST")]
struct Cli {
    /// Passes over the training images.
    #[arg(long, default_value_t = 8)]
    epochs: u64,
    /// Images per train step (with --data-parallel: per rank and step).
    #[arg(long, default_value_t = 64)]
    batch: u64,
    /// Train as one rank of an MPI job (`mpirun -n N ... --data-parallel`).
    #[arg(long)]
    data_parallel: bool,
    /// Evaluate on the first N test images only (a quick run).
    #[arg(long)]
    test_items: Option<usize>,
    /// The learning rate at the start (decayed linearly to 0).
    #[arg(long, default_value_t = 0.05)]
    lr: f64,
    /// sgd (with momentum 0.9), adam or adamw (PyTorch's defaults; try
    /// `--lr 0.002`).
    #[arg(long, default_value = "sgd")]
    optimizer: String,
    /// The backend that trains (`cpu`, `cuda`).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Train on the first N training images only (a quick run).
    #[arg(long)]
    train_items: Option<usize>,
    /// The order of the batches.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Where the trained params go (one safetensors file).
    #[arg(long, default_value = "target/fashion-mnist.safetensors")]
    save: PathBuf,
    /// Start from params saved before.
    #[arg(long)]
    load: Option<PathBuf>,
    /// Fail when the final test accuracy is below this.
    #[arg(long, default_value_t = 0.89)]
    min_accuracy: f64,
    /// Write the training images used and their labels
    /// (`train_images.npy`, `N x 28 x 28 x 1` in `[0, 1]`, and
    /// `train_labels.npy`), the test split's (`test_images.npy`,
    /// `test_labels.npy`) and each step's image indices (`batches.npy`,
    /// `steps x batch`) into DIR.
    #[arg(long)]
    save_data: Option<PathBuf>,
    /// Print the `ocannl_shape` module and stop.
    #[arg(long)]
    print_module: bool,
}

/// Images per evaluation call.
const EVAL_BATCH: u64 = 500;

fn main() {
    // Errors as their messages, one per line.
    if let Err(e) = run(Cli::parse()) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// The share of the first `n` of `split`'s images the current params
/// classify right.
fn accuracy(trainer: &Trainer, split: &Split, n: usize) -> Result<f64, Error> {
    let n = n.min(split.len());
    let mut correct = 0;
    for start in (0..n).step_by(EVAL_BATCH as usize) {
        // The last call is padded with the first images, not counted.
        let indices: Vec<usize> = (start..start + EVAL_BATCH as usize)
            .map(|i| if i < n { i } else { i - start })
            .collect();
        let logits = trainer.forward(&[split.images_batch(&indices, Layout::Hwc)?])?;
        for (row, &i) in logits.to_f64().chunks(10).zip(&indices).take(n - start) {
            let predicted = (0..10)
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .expect("10 classes");
            correct += (Some(predicted as u8) == split.label(i)) as usize;
        }
    }
    Ok(correct as f64 / n as f64)
}

/// `--save-data`: the first `train_items` training images, the test split
/// and the image indices of every step of `epochs` epochs, as `.npy` files
/// in `dir`.
fn save_data(
    dir: &Path,
    data: &FashionMnist,
    train_items: usize,
    batches: &mut Batches,
    epochs: u64,
) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let train: Vec<usize> = (0..train_items).collect();
    let test: Vec<usize> = (0..data.test.len()).collect();
    for (name, split, indices) in [("train", &data.train, &train), ("test", &data.test, &test)] {
        let images = split.images_batch(indices, Layout::Hwc)?;
        npy::write(&dir.join(format!("{name}_images.npy")), &images)?;
        let mut labels = split.labels_batch(indices, Labels::ClassIds)?;
        labels.dims.truncate(1);
        npy::write(&dir.join(format!("{name}_labels.npy")), &labels)?;
    }
    let mut order = vec![];
    for epoch in 0..epochs {
        for indices in batches.epoch(epoch) {
            order.extend(indices.iter().map(|&i| i as f64));
        }
    }
    let steps = epochs * batches.per_epoch() as u64;
    let order = HostTensor::f64(vec![steps, batches.batch_size() as u64], order);
    npy::write(&dir.join("batches.npy"), &order)?;
    Ok(())
}

/// The loss per epoch as a small terminal chart.
fn plot(losses: &[f64]) {
    let (rows, width) = (8usize, losses.len());
    let (lo, hi) = losses
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &l| (a.min(l), b.max(l)));
    println!("\ntraining loss per epoch ({hi:.3} at the top, {lo:.3} at the bottom)");
    for r in 0..rows {
        let level = hi - (hi - lo) * r as f64 / (rows - 1).max(1) as f64;
        let line: String = losses
            .iter()
            .map(|&l| if l >= level - 1e-12 { "##" } else { "  " })
            .collect();
        println!("  |{line}");
    }
    println!("  +{}", "--".repeat(width));
}

fn run(cli: Cli) -> Result<(), Error> {
    ocannl::parallel::check_launch(cli.data_parallel)?;
    let b = cli.batch;
    let x = data("images", &format!("{b}|28,28,1"));
    let ids = data("labels", &format!("{b}|1"));
    let logits = nn::lenet("lenet", &x, 1, 10);
    let loss = nn::cross_entropy(&logits, &ids, 10);
    let eval_x = data("images", &format!("{EVAL_BATCH}|28,28,1"));
    let forward = nn::lenet("lenet", &eval_x, 1, 10);
    if cli.print_module {
        print!("{}", Trainer::module(&loss, &forward)?);
        return Ok(());
    }
    let collective = if cli.data_parallel {
        Some(ocannl::parallel::join(&Device::new(cli.device.clone()))?)
    } else {
        None
    };
    let (rank, ranks) = collective.as_ref().map_or((0, 1), |c| (c.rank(), c.size()));
    // Rank 0 prints, evaluates and saves.
    let root = rank == 0;
    let data = FashionMnist::load_default()?;
    let train_items = cli
        .train_items
        .unwrap_or(data.train.len())
        .min(data.train.len());
    let test_items = cli
        .test_items
        .unwrap_or(data.test.len())
        .min(data.test.len());
    if root {
        println!("Fashion-MNIST: {train_items} training and {test_items} test images");
    }
    let optimizer = match cli.optimizer.as_str() {
        "sgd" => Optimizer::Sgd(Sgd {
            momentum: 0.9,
            ..Sgd::default()
        }),
        "adam" => Optimizer::adam(),
        "adamw" => Optimizer::adamw(),
        other => return Err(format!("unknown optimizer '{other}' (sgd, adam, adamw)").into()),
    };
    let t = Instant::now();
    let options = format!(
        "{:?}",
        (
            cli.epochs,
            b,
            cli.lr,
            &cli.optimizer,
            train_items,
            cli.seed,
            &cli.load
        )
    );
    let mut trainer = match collective {
        None => Trainer::new_on(cli.device.as_str(), &loss, &forward, optimizer)?,
        Some(c) => Trainer::new_data_parallel(cli.device.as_str(), &loss, &forward, optimizer, c)?,
    };
    if let Some(c) = trainer.collective() {
        ocannl::collective::check_same(c, "the options", options.as_bytes())?;
    }
    if root {
        let init = trainer.times().init;
        println!(
            "compiled the train step in {:.0} ms; params initialized in {:.1} ms",
            (t.elapsed() - init).as_secs_f64() * 1e3,
            init.as_secs_f64() * 1e3
        );
    }
    if let Some(path) = &cli.load {
        trainer.load_checkpoint(path)?;
        if root {
            println!("loaded the params from {}", path.display());
        }
    }
    // Each step takes a global batch of `ranks × b` images, this rank its
    // `b` of them.
    let global = b as usize * ranks;
    let mut batches = Batches::new(train_items, global, cli.seed)?;
    if let Some(dir) = &cli.save_data {
        save_data(dir, &data, train_items, &mut batches, cli.epochs)?;
    }
    let steps = cli.epochs as usize * batches.per_epoch();
    let schedule = Schedule::Linear {
        peak: cli.lr,
        end: 0.0,
        steps,
    };
    let mut losses = vec![];
    let mut accuracy_now = None;
    let mut step = 0;
    // The time of the train steps (with their batches), evaluation left out.
    let mut training = Duration::ZERO;
    for epoch in 0..cli.epochs {
        let bar = if root {
            ProgressBar::new(batches.per_epoch() as u64)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template(
                "epoch {prefix} [{bar:30}] {pos}/{len} {msg} ({eta} left)",
            )
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
        );
        bar.set_prefix(format!("{}/{}", epoch + 1, cli.epochs));
        let (mut total, mut count) = (0.0, 0);
        let t = Instant::now();
        for indices in batches.epoch(epoch) {
            let indices = &indices[ocannl::parallel::shard(0, b as usize, rank)];
            let lr = schedule.lr(step);
            let images = data.train.images_batch(indices, Layout::Hwc)?;
            let labels = data.train.labels_batch(indices, Labels::ClassIds)?;
            total += trainer.step(&[images, labels], lr)?;
            count += 1;
            step += 1;
            if count % 20 == 0 {
                bar.set_message(format!(
                    "loss {:.4}, {:.0} examples/s",
                    total / count as f64,
                    (count * global) as f64 / t.elapsed().as_secs_f64()
                ));
            }
            bar.inc(1);
        }
        training += t.elapsed();
        bar.finish_and_clear();
        if !root {
            continue;
        }
        let acc = accuracy(&trainer, &data.test, test_items)?;
        accuracy_now = Some(acc);
        let mean = total / count.max(1) as f64;
        losses.push(mean);
        println!(
            "epoch {}/{}: loss {mean:.4}, test accuracy {acc:.4}, {:.1} s",
            epoch + 1,
            cli.epochs,
            t.elapsed().as_secs_f64()
        );
    }
    if !root {
        return Ok(());
    }
    if step > 0 {
        println!(
            "trained {step} steps in {:.1} s ({:.3} ms per step, {:.0} examples/s, the evaluations not counted)",
            training.as_secs_f64(),
            training.as_secs_f64() * 1e3 / step as f64,
            (step * global) as f64 / training.as_secs_f64()
        );
        // With OCANNL_PROFILE=1: the slowest kernels of the train step.
        if let Some(profile) = trainer.profile() {
            print!("{}", profile.report(10));
        }
        if let Some(s) = trainer.collective_stats() {
            println!(
                "{ranks} ranks: {} all-reduces of {} bytes, {:.3} ms each ({:.1}% of the training time)",
                s.calls,
                s.bytes / s.calls.max(1),
                s.time.as_secs_f64() * 1e3 / s.calls.max(1) as f64,
                100.0 * s.time.as_secs_f64() / training.as_secs_f64()
            );
        }
        plot(&losses);
        trainer.save_checkpoint(&cli.save)?;
        println!("saved the params to {}", cli.save.display());
    }
    let acc = match accuracy_now {
        Some(a) => a,
        None => accuracy(&trainer, &data.test, test_items)?,
    };
    println!("test accuracy: {acc:.4}");
    if acc < cli.min_accuracy {
        return Err(format!(
            "the test accuracy {acc:.4} is below {} (--min-accuracy)",
            cli.min_accuracy
        )
        .into());
    }
    Ok(())
}
