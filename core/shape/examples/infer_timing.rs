//! Times shape inference on generated graphs: `cargo run --release -p
//! ocannl-shape --example infer_timing -- mlp 2000 [runs]`. With several
//! runs it prints the fastest and the median.
use std::time::Instant;

// The allocator the tools use (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map(String::as_str).unwrap_or("mlp");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let g = match kind {
        "mlp" => ocannl_shape::gen::mlp(n / 5, 64),
        _ => ocannl_shape::gen::transformer(n / 25),
    };
    let runs: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            ocannl_shape::infer(&g).unwrap();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{kind} {} nodes: {:.2} ms (fastest of {}; median {:.2} ms)",
        g.len(),
        times[0],
        times.len(),
        times[times.len() / 2]
    );
}
