//! The two-moons demo, as OCANNL's `moons_demo`: a 2-16-16-1 MLP with relu,
//! a hinge loss and SGD (learning-rate decay, weight decay), trained through
//! the whole pipeline on the CPU; then the learned decision boundary plotted
//! in the terminal and the training accuracy.
//!
//! `cargo run --release -p ocannl --example moons [-- --epochs N --seed S]`
//! (`--hidden W --batch B --samples N` change the size, as
//! `benches/vs_jax.py` does; `--no-plot` skips the plot; the demo fails when
//! the training accuracy is below 0.95, unless `--no-accuracy-check`;
//! `--save DIR` writes the trained params as `.npy` files, `--load DIR`
//! starts from them: `--load DIR --epochs 0` evaluates a saved model;
//! `--device cuda` trains on an NVIDIA GPU; `--optimizer adam` or
//! `--optimizer adamw` trains with Adam or AdamW, with a warmup and cosine
//! decay from 0.01, instead of SGD with linear decay from 0.1).
//!
//! Data-parallel: `mpirun -n N target/release/examples/moons
//! --data-parallel --batch B` trains on N ranks, each stepping on its B
//! items of every global batch of N×B (the gradients all-reduced through
//! MPI), as one process with `--batch` N×B does; rank 0 prints, evaluates
//! and saves.

use std::time::Instant;

use ocannl::*;

/// Any error, shown as its message (the library's are `ocannl::Error`).
type Error = Box<dyn std::error::Error>;

// The tools' allocator (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The two moons: `n` points of 2 features with noise, labels ±1.
fn moons(n: usize, noise: f64, rng: &mut ocannl_ops::SplitMix64) -> (Vec<[f64; 2]>, Vec<f64>) {
    // Gaussian noise (Box-Muller).
    let mut gauss = || {
        let (u, v) = (rng.next_f64().max(1e-12), rng.next_f64());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    };
    let half = n / 2;
    let (mut xs, mut ys) = (vec![], vec![]);
    for i in 0..half {
        let t = std::f64::consts::PI * i as f64 / (half - 1) as f64;
        xs.push([t.cos() + noise * gauss(), t.sin() + noise * gauss()]);
        ys.push(1.0);
        xs.push([
            1.0 - t.cos() + noise * gauss(),
            0.5 - t.sin() + noise * gauss(),
        ]);
        ys.push(-1.0);
    }
    (xs, ys)
}

fn save_data(dir: &std::path::Path, points: &[[f64; 2]], labels: &[f64]) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let n = points.len() as u64;
    npy::write(
        &dir.join("points.npy"),
        &tensor(vec![n, 2], points.iter().flat_map(|p| *p).collect()),
    )?;
    npy::write(
        &dir.join("labels.npy"),
        &tensor(vec![n, 1], labels.to_vec()),
    )?;
    Ok(())
}

/// The predictions over the grid as a terminal plot, with the data on top.
fn draw(
    pred: &[f64],
    points: &[[f64; 2]],
    labels: &[f64],
    rows: usize,
    cols: usize,
    (xmin, xmax, ymin, ymax): (f64, f64, f64, f64),
) {
    let mut canvas: Vec<Vec<char>> = (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| if pred[r * cols + c] > 0.0 { '.' } else { ' ' })
                .collect()
        })
        .collect();
    for (p, &l) in points.iter().zip(labels) {
        let c = ((p[0] - xmin) / (xmax - xmin) * cols as f64) as isize;
        let r = ((ymax - p[1]) / (ymax - ymin) * rows as f64) as isize;
        if (0..rows as isize).contains(&r) && (0..cols as isize).contains(&c) {
            canvas[r as usize][c as usize] = if l > 0.0 { '*' } else { '#' };
        }
    }
    println!("\ndecision boundary ('.': predicted +1; data: '*' +1, '#' -1)");
    println!("+{}+", "-".repeat(cols));
    for row in canvas {
        println!("|{}|", row.into_iter().collect::<String>());
    }
    println!("+{}+", "-".repeat(cols));
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The value after `name` on the command line.
fn option(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn tensor(dims: Vec<u64>, data: Vec<f64>) -> HostTensor {
    HostTensor::from_f64(Elt::F32, dims, data)
}

fn main() {
    // Errors as their messages, one per line.
    if let Err(e) = run() {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Error> {
    let epochs = arg("--epochs", 40) as usize;
    let hidden = arg("--hidden", 16);
    let batch = arg("--batch", 10) as usize;
    let samples = arg("--samples", 1000) as usize;
    let plot = !std::env::args().any(|a| a == "--no-plot");
    let data_parallel = std::env::args().any(|a| a == "--data-parallel");
    ocannl::parallel::check_launch(data_parallel)?;
    let mut rng = ocannl_ops::SplitMix64::new(arg("--seed", 5));
    let (points, labels) = moons(samples, 0.1, &mut rng);
    // `--save-data DIR`: the dataset as DIR/points.npy and DIR/labels.npy
    // (for comparisons with other frameworks on the same data).
    let args: Vec<String> = std::env::args().collect();
    if let Some(dir) = args
        .iter()
        .position(|a| a == "--save-data")
        .and_then(|i| args.get(i + 1))
    {
        save_data(std::path::Path::new(dir), &points, &labels)?;
    }
    let n = points.len();
    let grid = (36u64, 72u64);

    // let%op mlp x = "b3" 1 + "w3" 1 * relu ("b2" 16 + "w2" * relu ("b1" 16 + "w1" * x))
    let mlp = |x: &Tensor| {
        let h1 = relu(&(param("b1").output(&[hidden]) + param("w1") * x));
        let h2 = relu(&(param("b2").output(&[hidden]) + param("w2") * &h1));
        param("b3").output(&[1]) + param("w3").output(&[1]) * &h2
    };
    let x = data("x", &format!("{batch}|2"));
    let y = data("y", &format!("{batch}|1"));
    // The hinge loss, averaged over the batch.
    let margin = relu(&(1.0 - pointmul(&y, &mlp(&x))));
    let loss = sum(&margin) * (1.0 / batch as f64);
    let points_in = data("points", &format!("{}|2", grid.0 * grid.1));
    let forward = mlp(&points_in);

    if std::env::args().any(|a| a == "--print-module") {
        print!(
            "{}{}",
            Tensor::module("loss", &[&loss])?,
            Tensor::module("forward", &[&forward])?
        );
        return Ok(());
    }
    let t = Instant::now();
    let device =
        if std::env::args().any(|a| a == "cuda") && std::env::args().any(|a| a == "--device") {
            ocannl::Device::CUDA
        } else {
            ocannl::Device::CPU
        };
    let collective = if data_parallel {
        Some(ocannl::parallel::join(&device)?)
    } else {
        None
    };
    let (rank, ranks) = collective.as_ref().map_or((0, 1), |c| (c.rank(), c.size()));
    // Rank 0 prints.
    let root = rank == 0;
    // Each step takes a global batch of `ranks × batch` items.
    let global = batch * ranks;
    let steps = epochs * (n / global);
    let (optimizer, schedule) = match option("--optimizer").as_deref() {
        None | Some("sgd") => (
            Optimizer::Sgd(Sgd {
                weight_decay: 0.0001,
                ..Sgd::default()
            }),
            // OCANNL's schedule: linear decay from 0.1.
            Schedule::Linear {
                peak: 0.1,
                end: 0.0,
                steps,
            },
        ),
        Some(name @ ("adam" | "adamw")) => {
            let adam = Adam {
                weight_decay: 0.0001,
                ..Adam::default()
            };
            let schedule = Schedule::WarmupCosine {
                peak: 0.01,
                warmup: steps / 20,
                steps,
                end: 0.0,
            };
            if name == "adam" {
                (Optimizer::Adam(adam), schedule)
            } else {
                (Optimizer::AdamW(adam), schedule)
            }
        }
        Some(other) => {
            return Err(format!("--optimizer: sgd, adam or adamw, not '{other}'").into());
        }
    };
    let options = format!(
        "{:?}",
        (epochs, hidden, batch, samples, arg("--seed", 5), &optimizer)
    );
    let mut trainer = match collective {
        None => Trainer::new_on(device, &loss, &forward, optimizer)?,
        Some(c) => Trainer::new_data_parallel(device, &loss, &forward, optimizer, c)?,
    };
    if let Some(c) = trainer.collective() {
        ocannl::collective::check_same(c, "the options", options.as_bytes())?;
    }
    let times = trainer.times();
    if root {
        println!(
            "compiled the train step in {:.0} ms (the project's passes {:.0} ms, LLVM {:.0} ms); params initialized in {:.1} ms",
            (t.elapsed() - times.init).as_secs_f64() * 1e3,
            times.passes.as_secs_f64() * 1e3,
            times.train_step.as_secs_f64() * 1e3,
            times.init.as_secs_f64() * 1e3
        );
    }
    // `--load DIR`: start from params saved by `--save DIR`.
    if let Some(dir) = args
        .iter()
        .position(|a| a == "--load")
        .and_then(|i| args.get(i + 1))
    {
        trainer.load(std::path::Path::new(dir))?;
        if root {
            println!("loaded the params from {dir}");
        }
    }
    let t = Instant::now();
    let mut order: Vec<usize> = (0..n).collect();
    for epoch in 0..epochs {
        // Shuffle.
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut total = 0.0;
        for b in 0..n / global {
            let step = epoch * (n / global) + b;
            let lr = schedule.lr(step);
            let idx = &order[ocannl::parallel::shard(b * global, batch, rank)];
            let xb = tensor(
                vec![batch as u64, 2],
                idx.iter().flat_map(|&i| points[i]).collect(),
            );
            let yb = tensor(
                vec![batch as u64, 1],
                idx.iter().map(|&i| labels[i]).collect(),
            );
            total += trainer.step(&[xb, yb], lr)?;
        }
        if root {
            println!(
                "epoch {:>3}/{epochs}  loss {:.4}",
                epoch + 1,
                total / (n / global).max(1) as f64
            );
        }
    }
    let train_time = t.elapsed();
    if root {
        println!(
            "trained {steps} steps in {:.3} s ({:.1} us per step, {:.0} examples/s)",
            train_time.as_secs_f64(),
            train_time.as_secs_f64() * 1e6 / steps.max(1) as f64,
            (steps * global) as f64 / train_time.as_secs_f64()
        );
        // With OCANNL_PROFILE=1: the slowest kernels of the train step.
        if let Some(profile) = trainer.profile() {
            print!("{}", profile.report(10));
        }
        if let Some(s) = trainer.collective_stats() {
            println!(
                "{ranks} ranks: {} all-reduces of {} bytes, {:.1} us each ({:.1}% of the training time)",
                s.calls,
                s.bytes / s.calls.max(1),
                s.time.as_secs_f64() * 1e6 / s.calls.max(1) as f64,
                100.0 * s.time.as_secs_f64() / train_time.as_secs_f64()
            );
        }
    }
    // The other ranks are done: rank 0 saves and evaluates.
    if !root {
        return Ok(());
    }

    if let Some(dir) = args
        .iter()
        .position(|a| a == "--save")
        .and_then(|i| args.get(i + 1))
    {
        trainer.save(std::path::Path::new(dir))?;
        println!("saved the params to {dir}");
    }

    // The decision boundary over a grid, with the data on top.
    let (xmin, xmax, ymin, ymax) = (-1.6, 2.6, -1.1, 1.6);
    let (rows, cols) = (grid.0 as usize, grid.1 as usize);
    let mut cells = vec![];
    for r in 0..rows {
        for c in 0..cols {
            let px = xmin + (xmax - xmin) * (c as f64 + 0.5) / cols as f64;
            let py = ymax - (ymax - ymin) * (r as f64 + 0.5) / rows as f64;
            cells.extend([px, py]);
        }
    }
    let pred = trainer.forward(&[tensor(vec![(rows * cols) as u64, 2], cells)])?;
    if plot {
        draw(
            &pred.to_f64(),
            &points,
            &labels,
            rows,
            cols,
            (xmin, xmax, ymin, ymax),
        );
    }
    // Training accuracy, with the same forward routine over all points.
    let mut correct = 0;
    for chunk in points.chunks(rows * cols).zip(labels.chunks(rows * cols)) {
        let (ps, ls) = chunk;
        let mut cells: Vec<f64> = ps.iter().flat_map(|p| *p).collect();
        cells.resize(rows * cols * 2, 0.0);
        let out = trainer.forward(&[tensor(vec![(rows * cols) as u64, 2], cells)])?;
        correct += ls
            .iter()
            .zip(&out.to_f64())
            .filter(|(l, o)| (**l > 0.0) == (**o > 0.0))
            .count();
    }
    let accuracy = correct as f64 / n as f64;
    println!("training accuracy: {accuracy:.3} ({correct}/{n})");
    if accuracy < 0.95 && !std::env::args().any(|a| a == "--no-accuracy-check") {
        return Err(format!("the training accuracy {accuracy:.3} is below 0.95").into());
    }
    Ok(())
}
