//! The machine's multiply-add roof: f32 GFLOP/s of independent `vector.fma`
//! chains at the target's vector width, measured once per machine (and
//! process) and kept in the compilation cache (namespace `roof`, keyed by
//! the machine), for the profile's share of the roof.
//!
//! One core is measured (a loop of as many independent chains as the
//! registers hold beside two operands, long enough to hide the
//! multiply-add's latency), then multiplied by the cores the process may
//! use: what the parallel kernels can reach at best. On a machine whose
//! cores are shared the figure is the measured one, not the datasheet's.

use std::sync::Mutex;

use melior::ir::Module;
use ocannl_runtime::{
    cache::{Cache, CacheDir, Key},
    CompileOptions, HostValue,
};

use crate::{jit::Machine, runtime::Program};

/// Iterations of the measured loop.
const STEPS: i64 = 2_000_000;

/// The module: `@roof(%n)` runs `chains` multiply-add chains (each from
/// its own start, so that none is merged with another) of
/// `vector<lanes x f32>` for `%n` steps and stores their sum.
fn module(chains: usize, lanes: u64) -> String {
    let v = format!("vector<{lanes}xf32>");
    let list = |f: &dyn Fn(usize) -> String| (0..chains).map(f).collect::<Vec<_>>().join(", ");
    let body: String = (0..chains)
        .map(|i| format!("    %n{i} = vector.fma %a{i}, %m, %c : {v}\n"))
        .collect();
    let mut sum = "%r#0".to_string();
    let mut adds = String::new();
    for i in 1..chains {
        adds += &format!("  %s{i} = arith.addf {sum}, %r#{i} : {v}\n");
        sum = format!("%s{i}");
    }
    format!(
        r#"func.func @roof(%n: index) -> memref<{lanes}xf32> {{
  %out = memref.alloc() : memref<{lanes}xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
{starts}  %m = arith.constant dense<0.9999> : {v}
  %c = arith.constant dense<0.0001> : {v}
  %r:{chains} = scf.for %i = %c0 to %n step %c1 iter_args({inits}) -> ({types}) {{
{body}    scf.yield {next} : {types}
  }}
{adds}  vector.store {sum}, %out[%c0] : memref<{lanes}xf32>, {v}
  return %out : memref<{lanes}xf32>
}}
"#,
        starts = (0..chains)
            .map(|i| format!(
                "  %x{i} = arith.constant dense<{:.6}> : {v}\n",
                1.0 + i as f64 / 64.0
            ))
            .collect::<String>(),
        inits = list(&|i| format!("%a{i} = %x{i}")),
        types = list(&|_| v.clone()),
        next = list(&|i| format!("%n{i}")),
    )
}

/// Measures one core: GFLOP/s.
fn measure(machine: &Machine) -> Result<f64, String> {
    let target = machine.target();
    let lanes = target.lanes(4);
    let chains = (target.vector_registers.saturating_sub(2)).clamp(8, 16) as usize;
    let context = ocannl_passes::new_context().map_err(|e| e.to_string())?;
    let text = module(chains, lanes);
    let mut module = Module::parse(&context, &text).ok_or("the roof's module does not parse")?;
    let mut options = CompileOptions {
        cache: CacheDir::Off,
        ..CompileOptions::default()
    };
    if !machine.host {
        options.set("target-cpu", &machine.cpu);
    }
    options.set("profile", "off");
    let program = Program::compile(&context, &mut module, &options).map_err(|e| e.to_string())?;
    let run = |n: i64| -> Result<f64, String> {
        let t = std::time::Instant::now();
        program
            .call("roof", &[HostValue::Index(n)])
            .map_err(|e| e.to_string())?;
        Ok(t.elapsed().as_secs_f64())
    };
    run(1000)?;
    let best = (0..3)
        .map(|_| run(STEPS))
        .collect::<Result<Vec<f64>, _>>()?;
    let seconds = best.into_iter().fold(f64::INFINITY, f64::min);
    let flops = 2.0 * STEPS as f64 * chains as f64 * lanes as f64;
    Ok(flops / seconds / 1e9)
}

/// The roof of `machine` with every core the process may use, measured
/// once (per machine and process, and kept in the cache); `None` when it
/// cannot be measured (a machine of another architecture).
pub fn fma_peak_gflops(machine: &Machine) -> Option<f64> {
    static KNOWN: Mutex<Vec<(String, Option<f64>)>> = Mutex::new(Vec::new());
    let key_text = machine.key();
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, r)) = known.iter().find(|(k, _)| *k == key_text) {
        return *r;
    }
    let cache = Cache::open(&CacheDir::Default, "roof");
    let key = Key::of(&[
        b"roof 2",
        key_text.as_bytes(),
        crate::jit::llvm_version().as_bytes(),
    ]);
    let one_core = cache
        .get(&key)
        .and_then(|b| String::from_utf8(b).ok()?.parse::<f64>().ok())
        .or_else(|| {
            machine.check_runs_here().ok()?;
            let g = measure(machine)
                .map_err(|e| tracing::warn!("cannot measure the multiply-add roof: {e}"))
                .ok()?;
            cache.put(&key, g.to_string().as_bytes());
            Some(g)
        });
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let r = one_core.map(|g| g * cores);
    known.push((key_text, r));
    r
}
