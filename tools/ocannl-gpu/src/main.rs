//! `ocannl-gpu`: runs GPU artifacts with the CUDA driver, linking no MLIR
//! or LLVM (a machine with a GPU needs only this binary, the artifacts and
//! an NVIDIA driver).
//!
//! An artifact is written where the project is built, without a GPU:
//! `ocannl-run FILE --entry F --device cuda --emit-artifact F.ocgpu --chip
//! sm_80 --chip sm_90` (see `docs/gpu-artifact.md`). Then:
//!
//! - `ocannl-gpu run F.ocgpu --entry F --arg x.npy ... [--out-dir DIR]
//!   [--out-args] [--repeat N]`: runs a function; arguments as `ocannl-run`
//!   takes them (`.npy`, `range`, `random:SEED`, `fill:X`, integers);
//!   params and optimizer state stay on the device across the runs, so a
//!   train step repeated N times continues from the params it updated.
//! - `ocannl-gpu info F.ocgpu`, `ocannl-gpu schedule F.ocgpu --entry F`,
//!   `ocannl-gpu ptx F.ocgpu --chip sm_80`: what an artifact holds (no GPU
//!   needed; the schedule is printed as `ocannl-run --print-schedule`
//!   prints it).
//! - `ocannl-gpu selfcheck DIR`: every case of a self-check bundle
//!   (`scripts/gpu-selfcheck-bundle.sh`), one line each and a summary.
//! - `ocannl-gpu nccl-check [--ranks N]`: NCCL's all-reduce, broadcast and
//!   all-gather across the GPUs, one process each (no MPI), as
//!   data-parallel training runs them; SKIP without NCCL.
//! - `ocannl-gpu --device-info`: the GPU, or why there is none (exit 1).
//!
//! Exit status: 0 when everything asked for ran (the self-check: every
//! case passed), 1 on an error or a failed case, 2 when the self-check
//! skipped cases (no GPU) and none failed.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::{Args, Parser, Subcommand};
use ocannl_gpu_plan::{artifact::Artifact, schedule, Function};
use ocannl_gpu_runtime::Device;
use ocannl_runtime::{args, HostTensor, HostValue, Session, Slot};

mod nccl;
mod selfcheck;

#[derive(Parser)]
#[command(
    name = "ocannl-gpu",
    about = "Run GPU artifacts written by `ocannl-run --emit-artifact` (no MLIR needed)",
    // `--arg -1` is an index argument, not a flag.
    allow_negative_numbers = true,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Print the GPU (name, architecture, memory, the driver's CUDA
    /// version) and exit; without one, say why and exit with 1.
    #[arg(long)]
    device_info: bool,
    /// The CUDA device's ordinal.
    #[arg(long, default_value_t = 0, global = true)]
    device: usize,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// What an artifact holds: its producer, chips and functions with their
    /// arguments (no GPU needed).
    Info {
        /// The artifact.
        artifact: PathBuf,
    },
    /// A function's host schedule, as `ocannl-run --print-schedule` prints
    /// it (no GPU needed).
    Schedule {
        /// The artifact.
        artifact: PathBuf,
        /// The function.
        #[arg(long, short = 'e')]
        entry: String,
    },
    /// The PTX of one of an artifact's modules for one of its chips (to
    /// check it with `ptxas`, or read it).
    Ptx {
        /// The artifact.
        artifact: PathBuf,
        /// The chip (`sm_80`): one the artifact holds.
        #[arg(long)]
        chip: String,
        /// The module's index.
        #[arg(long, default_value_t = 0)]
        module: usize,
    },
    /// Run a function of an artifact.
    Run(RunArgs),
    /// Run every case of a self-check bundle (the directories under DIR
    /// with a `case.txt`) and compare with the expected outputs; without a
    /// GPU, check the files and report each case as skipped (exit 2).
    Selfcheck {
        /// The bundle's directory.
        dir: PathBuf,
    },
    /// NCCL's collectives across the GPUs, as data-parallel training runs
    /// them: one process per GPU (or --ranks), no MPI; PASS, FAIL, or SKIP
    /// without NCCL (exit 2).
    NcclCheck {
        /// The number of ranks (one GPU each; default: every GPU).
        #[arg(long)]
        ranks: Option<usize>,
    },
    /// One rank of nccl-check (on GPU --device).
    #[command(hide = true)]
    NcclRank {
        /// Where rank 0 writes NCCL's unique id.
        id_file: PathBuf,
        #[arg(long)]
        rank: usize,
        #[arg(long)]
        size: usize,
    },
}

#[derive(Args)]
struct RunArgs {
    /// The artifact.
    artifact: PathBuf,
    /// The function to run.
    #[arg(long, short = 'e')]
    entry: String,
    /// One per argument, in order: a `.npy` file, `range`, `random:SEED`,
    /// `fill:X` (every cell X), or an integer (for `index` arguments).
    #[arg(long = "arg")]
    args: Vec<String>,
    /// Write the results as `result0.npy`, ... in this directory (created
    /// before the run).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// With `--out-dir`: also write the buffer arguments as they are after
    /// the runs (a train step's updated params and optimizer state), as
    /// `arg0.npy`, ...
    #[arg(long, requires = "out_dir")]
    out_args: bool,
    /// Do not print the results.
    #[arg(long)]
    quiet: bool,
    /// Run this many times on the same device buffers (a train step
    /// continues from the params the previous run left) and report the
    /// median and minimum time of a run.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match (&cli.command, cli.device_info) {
        (_, true) => Device::open(cli.device)
            .map(|d| {
                println!("cuda:{} {}", cli.device, d.info());
                ExitCode::SUCCESS
            })
            .map_err(|e| e.to_string()),
        (Some(Command::Info { artifact }), _) => info(artifact),
        (Some(Command::Schedule { artifact, entry }), _) => print_schedule(artifact, entry),
        (
            Some(Command::Ptx {
                artifact,
                chip,
                module,
            }),
            _,
        ) => print_ptx(artifact, chip, *module),
        (Some(Command::Run(r)), _) => run(r, cli.device),
        (Some(Command::Selfcheck { dir }), _) => selfcheck::run(dir, cli.device),
        (Some(Command::NcclCheck { ranks }), _) => nccl::check(*ranks),
        (Some(Command::NcclRank { id_file, rank, size }), _) => {
            nccl::rank(id_file, *rank, *size, cli.device)
        }
        (None, false) => Err("nothing to do: give a command (run, info, schedule, selfcheck) or --device-info; see --help".into()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Function `entry` of an artifact, or an error naming the ones it has.
fn function<'a>(artifact: &'a Artifact, entry: &str) -> Result<&'a Function, String> {
    artifact.program.functions.get(entry).ok_or_else(|| {
        format!(
            "no function @{entry} in the artifact (it has {})",
            artifact
                .function_names()
                .iter()
                .map(|n| format!("@{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

fn info(path: &Path) -> Result<ExitCode, String> {
    let a = Artifact::read(path).map_err(|e| e.to_string())?;
    println!(
        "artifact {} (format {})",
        path.display(),
        ocannl_gpu_plan::artifact::VERSION
    );
    println!("producer: {}", a.producer);
    for c in &a.chips {
        let bytes: usize = c.modules.iter().map(String::len).sum();
        println!(
            "chip {} (PTX ISA {}.{}): {} module(s), {bytes} bytes of PTX",
            c.chip,
            c.ptx_isa / 10,
            c.ptx_isa % 10,
            c.modules.len()
        );
    }
    let constant_bytes: usize = a.program.globals.iter().map(|g| g.bytes.len()).sum();
    println!(
        "constants: {} ({constant_bytes} bytes)",
        a.program.globals.len()
    );
    for name in a.function_names() {
        let f = &a.program.functions[name];
        let launches = f
            .steps
            .iter()
            .filter(|s| matches!(s, schedule::Step::Launch { .. }))
            .count();
        println!("function @{name}: {launches} launches");
        for (k, (slot, arg)) in f.signature.inputs.iter().zip(&f.args).enumerate() {
            let name = if arg.name == format!("arg{k}") || arg.name == arg.role.encode() {
                String::new()
            } else {
                format!(" {}", arg.name)
            };
            println!("  arg{k}: {} {}{name}", slot.encode(), arg.role.encode());
        }
        for (k, slot) in f.signature.outputs.iter().enumerate() {
            println!("  result{k}: {}", slot.encode());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_schedule(path: &Path, entry: &str) -> Result<ExitCode, String> {
    let a = Artifact::read(path).map_err(|e| e.to_string())?;
    print!("{}", schedule::describe(function(&a, entry)?, &a.program));
    Ok(ExitCode::SUCCESS)
}

fn print_ptx(path: &Path, chip: &str, module: usize) -> Result<ExitCode, String> {
    let a = Artifact::read(path).map_err(|e| e.to_string())?;
    let code = a.chips.iter().find(|c| c.chip == chip).ok_or_else(|| {
        format!(
            "the artifact has no PTX for {chip} (it has {})",
            a.chips
                .iter()
                .map(|c| c.chip.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let ptx = code.modules.get(module).ok_or_else(|| {
        format!(
            "the artifact has {} module(s): no module {module}",
            code.modules.len()
        )
    })?;
    print!("{ptx}");
    Ok(ExitCode::SUCCESS)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The median and the minimum of some times.
fn median_min(times: &[Duration]) -> (Duration, Duration) {
    let mut sorted = times.to_vec();
    sorted.sort();
    (sorted[sorted.len() / 2], sorted[0])
}

/// Runs a prepared function `repeat` times (at least once), timing each run
/// alone; returns the last run's results and the times.
fn run_repeated(
    call: &mut dyn Session,
    repeat: usize,
) -> Result<(Vec<HostValue>, Vec<Duration>), String> {
    let mut times = vec![];
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        call.run().map_err(|e| e.to_string())?;
        times.push(t.elapsed());
    }
    Ok((call.results().map_err(|e| e.to_string())?, times))
}

fn run(r: &RunArgs, ordinal: usize) -> Result<ExitCode, String> {
    // Everything about the artifact and the arguments is checked before
    // the device is opened.
    let artifact = Artifact::read(&r.artifact).map_err(|e| e.to_string())?;
    let f = function(&artifact, &r.entry)?;
    let values = args::from_specs(
        &r.entry,
        &r.args,
        &f.signature.inputs,
        ocannl_runtime::physical_memory(),
        None,
    )
    .map_err(|e| e.to_string())?;
    if let Some(dir) = &r.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--out-dir: cannot create {}: {e}", dir.display()))?;
    }
    let device = Device::open(ordinal).map_err(|e| e.to_string())?;
    let (loaded, _chip) = device.load_artifact(&artifact).map_err(|e| e.to_string())?;
    let mut call = loaded
        .prepare(&r.entry, &values)
        .map_err(|e| e.to_string())?;
    let (results, times) = run_repeated(&mut call, r.repeat)?;
    let write = |stem: String, t: &HostTensor| match &r.out_dir {
        Some(dir) => ocannl_runtime::args::write_tensor(dir, &stem, t).map(|_| ()),
        None => Ok(()),
    };
    if r.out_args {
        for (k, slot) in f.signature.inputs.iter().enumerate() {
            if let (Slot::MemRef { .. }, HostValue::Tensor(t)) =
                (slot, call.get(k).map_err(|e| e.to_string())?)
            {
                write(format!("arg{k}"), &t).map_err(|e| e.to_string())?;
            }
        }
    }
    for (k, v) in results.iter().enumerate() {
        match v {
            HostValue::Index(i) => {
                if !r.quiet {
                    println!("result{k}: index {i}");
                }
            }
            HostValue::Tensor(t) => {
                if !r.quiet {
                    println!("result{k}: shape {:?} dtype {}", t.dims, t.elt().name());
                    println!("{}", args::format_tensor(t));
                }
                write(format!("result{k}"), t).map_err(|e| e.to_string())?;
            }
        }
    }
    if r.repeat > 1 {
        let (median, min) = median_min(&times);
        println!(
            "runs: {}, median {:.4} ms, min {:.4} ms",
            times.len(),
            ms(median),
            ms(min)
        );
    }
    Ok(ExitCode::SUCCESS)
}
