//! The two-moons demo, as OCANNL's `moons_demo`: a 2-16-16-1 MLP with relu,
//! a hinge loss and SGD (learning-rate decay, weight decay), trained through
//! the whole pipeline on the CPU; then the learned decision boundary plotted
//! in the terminal and the training accuracy.
//!
//! `cargo run --release -p ocannl --example moons [-- --epochs N --seed S]`

use std::time::Instant;

use ocannl::*;

// The tools' allocator (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BATCH: usize = 10;
const HIDDEN: u64 = 16;

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
        xs.push([1.0 - t.cos() + noise * gauss(), 0.5 - t.sin() + noise * gauss()]);
        ys.push(-1.0);
    }
    (xs, ys)
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn tensor(dims: Vec<u64>, data: Vec<f64>) -> HostTensor {
    HostTensor {
        elt: Elt::F32,
        dims,
        data,
    }
}

fn main() -> Result<(), Error> {
    let epochs = arg("--epochs", 40) as usize;
    let mut rng = ocannl_ops::SplitMix64::new(arg("--seed", 5));
    let (points, labels) = moons(1000, 0.1, &mut rng);
    let n = points.len();
    let grid = (36u64, 72u64);

    // let%op mlp x = "b3" 1 + "w3" 1 * relu ("b2" 16 + "w2" * relu ("b1" 16 + "w1" * x))
    let mlp = |x: &Tensor| {
        let h1 = relu(&(param("b1").output(&[HIDDEN]) + param("w1") * x));
        let h2 = relu(&(param("b2").output(&[HIDDEN]) + param("w2") * &h1));
        param("b3").output(&[1]) + param("w3").output(&[1]) * &h2
    };
    let x = data("x", &format!("{BATCH}|2"));
    let y = data("y", &format!("{BATCH}|1"));
    // The hinge loss, averaged over the batch.
    let margin = relu(&(1.0 - pointmul(&y, &mlp(&x))));
    let loss = sum(&margin) * (1.0 / BATCH as f64);
    let points_in = data("points", &format!("{}|2", grid.0 * grid.1));
    let forward = mlp(&points_in);

    let t = Instant::now();
    let mut trainer = Trainer::new(
        &loss,
        &forward,
        Sgd {
            weight_decay: 0.0001,
            ..Sgd::default()
        },
    )?;
    println!(
        "compiled the train step and the forward pass in {:.0} ms (passes {:.0} ms, LLVM {:.0} ms)",
        t.elapsed().as_secs_f64() * 1e3,
        trainer.times.passes.as_secs_f64() * 1e3,
        trainer.times.llvm.as_secs_f64() * 1e3
    );
    let steps = epochs * n / BATCH;
    let t = Instant::now();
    let mut order: Vec<usize> = (0..n).collect();
    for epoch in 0..epochs {
        // Shuffle.
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut total = 0.0;
        for b in 0..n / BATCH {
            let step = epoch * (n / BATCH) + b;
            // OCANNL's schedule: linear decay from 0.1.
            let lr = 0.1 * (steps - step) as f64 / steps as f64;
            let idx = &order[b * BATCH..(b + 1) * BATCH];
            let xb = tensor(
                vec![BATCH as u64, 2],
                idx.iter().flat_map(|&i| points[i]).collect(),
            );
            let yb = tensor(vec![BATCH as u64, 1], idx.iter().map(|&i| labels[i]).collect());
            total += trainer.step(&[xb, yb], lr)?;
        }
        println!(
            "epoch {:>3}/{epochs}  loss {:.4}",
            epoch + 1,
            total / (n / BATCH) as f64
        );
    }
    let train_time = t.elapsed();
    println!(
        "trained {steps} steps in {:.2} s ({:.1} us per step)",
        train_time.as_secs_f64(),
        train_time.as_secs_f64() * 1e6 / steps as f64
    );

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
    let mut canvas: Vec<Vec<char>> = (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| if pred.data[r * cols + c] > 0.0 { '.' } else { ' ' })
                .collect()
        })
        .collect();
    for (p, &l) in points.iter().zip(&labels) {
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

    // Training accuracy, with the same forward routine over all points.
    let mut correct = 0;
    for chunk in points.chunks(rows * cols).zip(labels.chunks(rows * cols)) {
        let (ps, ls) = chunk;
        let mut cells: Vec<f64> = ps.iter().flat_map(|p| *p).collect();
        cells.resize(rows * cols * 2, 0.0);
        let out = trainer.forward(&[tensor(vec![(rows * cols) as u64, 2], cells)])?;
        correct += ls
            .iter()
            .zip(&out.data)
            .filter(|(l, o)| (**l > 0.0) == (**o > 0.0))
            .count();
    }
    let accuracy = correct as f64 / n as f64;
    println!("training accuracy: {accuracy:.3} ({correct}/{n})");
    if accuracy < 0.95 {
        return Err(format!("the training accuracy {accuracy:.3} is below 0.95").into());
    }
    Ok(())
}
