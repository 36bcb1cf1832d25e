//! Shape inference on generated graphs of about 1,000, 10,000 and 100,000
//! nodes: deep MLPs and transformer-like blocks.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ocannl_shape::{gen, infer};

// The allocator of the tools (`ocannl-opt`, `ocannl-run`), so that the
// figures are those of the pass. With glibc's malloc, inference takes about
// twice as long: it allocates many small rows.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("infer");
    group.sample_size(10);
    for &n in &[1_000usize, 10_000, 100_000] {
        let mlp = gen::mlp(n / 5, 64);
        group.throughput(Throughput::Elements(mlp.len() as u64));
        group.bench_with_input(BenchmarkId::new("mlp", mlp.len()), &mlp, |b, g| {
            b.iter(|| infer(g).unwrap())
        });
        let tr = gen::transformer(n / 25);
        group.throughput(Throughput::Elements(tr.len() as u64));
        group.bench_with_input(BenchmarkId::new("transformer", tr.len()), &tr, |b, g| {
            b.iter(|| infer(g).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
