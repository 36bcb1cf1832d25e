//! `ocannl-gpu nccl-check [--ranks N]`: NCCL's collectives across the
//! machine's GPUs, as data-parallel training runs them
//! (`ocannl-collective`'s `Nccl`), without MPI: N processes of this binary
//! (`nccl-rank`), one per GPU, find each other through NCCL's unique id in
//! a file; each all-reduces, broadcasts and all-gathers known values and
//! checks the results.

use std::{
    path::Path,
    process::{Command, ExitCode},
    time::{Duration, Instant},
};

use ocannl_collective::{nccl_unavailable, Buffer, Collective, Nccl};

/// Cells of the all-reduced buffer (16 MB of f32, a model's gradients).
const CELLS: usize = 1 << 22;

/// One rank: joins, checks every collective, says how long the
/// all-reduce took.
pub fn rank(id_file: &Path, rank: usize, size: usize, device: usize) -> Result<ExitCode, String> {
    let mut nccl = Nccl::from_id_file(id_file, rank, size, device, Duration::from_secs(60))
        .map_err(|e| e.to_string())?;
    // All-reduce: rank r gives r + 1 + i/CELLS in cell i.
    let mut x: Vec<f32> = (0..CELLS)
        .map(|i| (rank + 1) as f32 + i as f32 / CELLS as f32)
        .collect();
    let t = Instant::now();
    nccl.all_reduce_sum(Buffer::F32(&mut x))
        .map_err(|e| e.to_string())?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let n = size as f32;
    for (i, v) in x.iter().enumerate() {
        let want = n * (n + 1.0) / 2.0 + n * i as f32 / CELLS as f32;
        if (v - want).abs() > 1e-5 * want.abs().max(1.0) {
            return Err(format!(
                "rank {rank}: all-reduce cell {i} is {v}, not {want}"
            ));
        }
    }
    // Broadcast: rank 0's values everywhere.
    let mut y = vec![rank as f64 + 0.5; 1000];
    nccl.broadcast(Buffer::F64(&mut y))
        .map_err(|e| e.to_string())?;
    if y.iter().any(|&v| v != 0.5) {
        return Err(format!(
            "rank {rank}: the broadcast did not give rank 0's values"
        ));
    }
    // All-gather: every rank's bytes in rank order.
    let all = nccl
        .all_gather(&[rank as u8, 7])
        .map_err(|e| e.to_string())?;
    let want: Vec<Vec<u8>> = (0..size).map(|r| vec![r as u8, 7]).collect();
    if all != want {
        return Err(format!("rank {rank}: all-gather gave {all:?}"));
    }
    println!(
        "rank {rank}: ok (all-reduce of {} MB: {ms:.2} ms)",
        (CELLS * 4) >> 20
    );
    Ok(ExitCode::SUCCESS)
}

/// Starts `ranks` (default: one per GPU) processes of this binary and
/// reports PASS, FAIL or SKIP (exit 0, 1, 2).
pub fn check(ranks: Option<usize>) -> Result<ExitCode, String> {
    if let Some(why) = nccl_unavailable() {
        println!("SKIP nccl: {why}");
        return Ok(ExitCode::from(2));
    }
    let devices = ocannl_gpu_runtime::device_count().map_err(|e| e.to_string())?;
    let ranks = ranks.unwrap_or(devices).max(1);
    if ranks > devices {
        return Err(format!(
            "{ranks} ranks need {ranks} GPUs, the machine has {devices}"
        ));
    }
    let dir = tempfile_dir()?;
    let id_file = dir.join("nccl-id");
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let children: Vec<_> = (0..ranks)
        .map(|r| {
            Command::new(&exe)
                .args(["--device", &r.to_string(), "nccl-rank"])
                .arg(&id_file)
                .args(["--rank", &r.to_string(), "--size", &ranks.to_string()])
                .output()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    let mut failed = vec![];
    for (r, out) in children.into_iter().enumerate() {
        let out = out.map_err(|e| format!("cannot start rank {r}: {e}"))?;
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            failed.push(format!(
                "rank {r}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    if failed.is_empty() {
        println!("PASS nccl: {ranks} rank(s), all-reduce, broadcast and all-gather");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("FAIL nccl: {}", failed.join("; "));
        Ok(ExitCode::FAILURE)
    }
}

/// A fresh directory for the id file.
fn tempfile_dir() -> Result<std::path::PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("ocannl-nccl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}
