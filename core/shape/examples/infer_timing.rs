//! Times shape inference on generated graphs: `cargo run --release -p
//! ocannl-shape --example infer_timing -- mlp 2000`.
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
    let t = Instant::now();
    ocannl_shape::infer(&g).unwrap();
    println!(
        "{kind} {} nodes: {:.2} ms",
        g.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
}
