//! `ocannl-gpu selfcheck DIR`: runs every case of a self-check bundle and
//! compares with the outputs computed where the bundle was built (on the
//! CPU).
//!
//! A case is a directory under DIR with a `case.txt`: lines `key value`
//! (`#` starts a comment):
//!
//! ```text
//! entry loss_train_step     # the function (required)
//! artifact artifact.ocgpu   # the artifact (this is the default)
//! arg random:1              # one per argument, in order, as `run --arg`;
//! arg w1.npy                #   files relative to the case's directory
//! repeat 20                 # runs on the same device buffers (default 1)
//! tolerance 1e-4            # the largest error that passes (default 1e-4)
//! ```
//!
//! and the expected outputs in `expected/`: `resultK.npy` (result K of the
//! last run) and `argK.npy` (argument K after the runs: a train step's
//! params). The error of a cell is `|gpu - cpu| / max(|cpu|, 1)` (relative,
//! absolute below 1); a case passes when every expected cell's error is at
//! most the tolerance.
//!
//! Without a GPU every case's files are still read and checked (a damaged
//! artifact fails), then the case is skipped.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use ocannl_gpu_plan::artifact::Artifact;
use ocannl_gpu_runtime::Device;
use ocannl_runtime::{args, HostTensor, HostValue, Slot};

/// A case as `case.txt` describes it.
#[derive(Debug)]
struct Case {
    name: String,
    dir: PathBuf,
    entry: String,
    artifact: PathBuf,
    args: Vec<String>,
    repeat: usize,
    tolerance: f64,
}

/// An expected output: a result or an argument after the runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expected {
    Result(usize),
    Arg(usize),
}

impl Expected {
    /// Its file's stem (`result0`, `arg3`).
    fn name(self) -> String {
        match self {
            Expected::Result(k) => format!("result{k}"),
            Expected::Arg(k) => format!("arg{k}"),
        }
    }
}

/// What became of a case.
enum Outcome {
    /// The largest error, and the median time of a run in ms.
    Pass {
        error: f64,
        median_ms: f64,
    },
    Fail(String),
    Skip(String),
}

fn read_case(dir: &Path) -> Result<Case, String> {
    let file = dir.join("case.txt");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut case = Case {
        name,
        dir: dir.to_path_buf(),
        entry: String::new(),
        artifact: dir.join("artifact.ocgpu"),
        args: vec![],
        repeat: 1,
        tolerance: 1e-4,
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = || format!("{}:{}", file.display(), n + 1);
        let (key, value) = line
            .split_once(char::is_whitespace)
            .map(|(k, v)| (k, v.trim()))
            .ok_or_else(|| format!("{}: expected `key value`, found {line:?}", at()))?;
        match key {
            "entry" => case.entry = value.to_string(),
            "artifact" => case.artifact = dir.join(value),
            "arg" => case.args.push(value.to_string()),
            "repeat" => {
                case.repeat = value
                    .parse()
                    .ok()
                    .filter(|&r| r > 0)
                    .ok_or_else(|| format!("{}: repeat is a positive integer", at()))?
            }
            "tolerance" => {
                case.tolerance = value
                    .parse()
                    .ok()
                    .filter(|t: &f64| *t >= 0.0)
                    .ok_or_else(|| format!("{}: tolerance is a number at least 0", at()))?
            }
            _ => {
                return Err(format!(
                    "{}: unknown key {key:?} (entry, artifact, arg, repeat, tolerance)",
                    at()
                ))
            }
        }
    }
    if case.entry.is_empty() {
        return Err(format!("{}: no entry", file.display()));
    }
    Ok(case)
}

/// The expected outputs of a case, from its `expected/` directory.
fn read_expected(case: &Case) -> Result<Vec<(Expected, HostTensor)>, String> {
    let dir = case.dir.join("expected");
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut out = vec![];
    for e in entries {
        let e = e.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".npy") else {
            continue;
        };
        let which = if let Some(k) = stem.strip_prefix("result").and_then(|k| k.parse().ok()) {
            Expected::Result(k)
        } else if let Some(k) = stem.strip_prefix("arg").and_then(|k| k.parse().ok()) {
            Expected::Arg(k)
        } else {
            return Err(format!(
                "{}: an expected output is resultK.npy or argK.npy",
                e.path().display()
            ));
        };
        out.push((
            which,
            ocannl_runtime::npy::read(&e.path()).map_err(|e| e.to_string())?,
        ));
    }
    if out.is_empty() {
        return Err(format!("{}: no expected outputs", dir.display()));
    }
    out.sort_by_key(|(w, _)| match w {
        Expected::Result(k) => (0, *k),
        Expected::Arg(k) => (1, *k),
    });
    Ok(out)
}

/// The largest error of `got` against `want` (see the module's doc), and
/// the cell where it is.
fn max_error(got: &HostTensor, want: &HostTensor) -> Result<(f64, usize), String> {
    if got.dims != want.dims || got.len() != want.len() {
        return Err(format!(
            "shape {:?} where {:?} is expected",
            got.dims, want.dims
        ));
    }
    let mut worst = (0.0f64, 0usize);
    for (i, (&g, &w)) in got.to_f64().iter().zip(&want.to_f64()).enumerate() {
        let e = if g == w || (g.is_nan() && w.is_nan()) {
            0.0
        } else if !g.is_finite() || !w.is_finite() {
            f64::INFINITY
        } else {
            (g - w).abs() / w.abs().max(1.0)
        };
        if e > worst.0 || (e.is_nan() && !worst.0.is_nan()) {
            worst = (e, i);
        }
    }
    Ok(worst)
}

/// Checks a case's files; runs it when there is a device.
fn run_case(case: &Case, device: Result<&Device, &str>) -> Outcome {
    let checked = (|| {
        let artifact = Artifact::read(&case.artifact).map_err(|e| e.to_string())?;
        let f =
            artifact.program.functions.get(&case.entry).ok_or_else(|| {
                format!("no function @{} in {}", case.entry, case.artifact.display())
            })?;
        let values = args::from_specs(
            &case.entry,
            &case.args,
            &f.signature.inputs,
            None,
            Some(&case.dir),
        )
        .map_err(|e| e.to_string())?;
        let expected = read_expected(case)?;
        for (which, t) in &expected {
            let slot = match which {
                Expected::Result(k) => f.signature.outputs.get(*k),
                Expected::Arg(k) => f.signature.inputs.get(*k),
            };
            let ok = matches!(slot, Some(Slot::MemRef { elt, dims }) if *elt == t.elt() && *dims == t.dims);
            if !ok {
                return Err(format!(
                    "the expected {} ({} {:?}) is not an output of @{} of that type",
                    which.name(),
                    t.elt().name(),
                    t.dims,
                    case.entry
                ));
            }
        }
        Ok((artifact, values, expected))
    })();
    let (artifact, values, expected) = match checked {
        Ok(c) => c,
        Err(e) => return Outcome::Fail(e),
    };
    let device = match device {
        Ok(d) => d,
        Err(why) => return Outcome::Skip(why.to_string()),
    };
    let ran = (|| {
        let (loaded, _chip) = device.load_artifact(&artifact).map_err(|e| e.to_string())?;
        let mut call = loaded
            .prepare(&case.entry, &values)
            .map_err(|e| e.to_string())?;
        let (results, times) = crate::run_repeated(&mut call, case.repeat)?;
        let mut worst = (0.0f64, String::new());
        for (which, want) in &expected {
            let got = match which {
                Expected::Result(k) => results.get(*k).cloned(),
                Expected::Arg(k) => {
                    Some(ocannl_runtime::Session::get(&call, *k).map_err(|e| e.to_string())?)
                }
            };
            let Some(HostValue::Tensor(got)) = got else {
                return Err(format!("{} is not a tensor", which.name()));
            };
            let (e, at) = max_error(&got, want).map_err(|e| format!("{}: {e}", which.name()))?;
            if e > worst.0 || worst.1.is_empty() {
                worst = (
                    e,
                    format!(
                        "{}[{at}]: {} vs {} expected",
                        which.name(),
                        got.to_f64()[at],
                        want.to_f64()[at]
                    ),
                );
            }
        }
        let (median, _) = crate::median_min(&times);
        Ok::<_, String>((worst, crate::ms(median)))
    })();
    match ran {
        Err(e) => Outcome::Fail(e),
        Ok(((error, _), median_ms)) if error <= case.tolerance => {
            Outcome::Pass { error, median_ms }
        }
        Ok(((error, at), _)) => Outcome::Fail(format!(
            "max rel err {error:.2e} > tolerance {:.0e} at {at}",
            case.tolerance
        )),
    }
}

/// Runs every case under `dir`; prints a line per case and a summary.
pub fn run(dir: &Path, ordinal: usize) -> Result<ExitCode, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.txt").is_file())
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        return Err(format!(
            "no self-check cases in {} (directories with a case.txt)",
            dir.display()
        ));
    }
    let device = Device::open(ordinal);
    match &device {
        Ok(d) => println!("device: cuda:{ordinal} {}", d.info()),
        Err(why) => println!("device: none ({why})"),
    }
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut skip_reason = None;
    for d in &dirs {
        let (name, outcome) = match read_case(d) {
            Ok(case) => (
                case.name.clone(),
                run_case(&case, device.as_ref().map_err(|e| e.message())),
            ),
            Err(e) => (
                d.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                Outcome::Fail(e),
            ),
        };
        match outcome {
            Outcome::Pass { error, median_ms } => {
                passed += 1;
                println!("PASS {name}: max rel err {error:.2e}, median {median_ms:.4} ms");
            }
            Outcome::Fail(why) => {
                failed += 1;
                println!("FAIL {name}: {why}");
            }
            Outcome::Skip(why) => {
                skipped += 1;
                println!("SKIP {name}: {why}");
                skip_reason = Some(why);
            }
        }
    }
    let reason = skip_reason.map(|r| format!(" ({r})")).unwrap_or_default();
    println!("selfcheck: {passed} passed, {failed} failed, {skipped} skipped{reason}");
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else if skipped > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ocannl_runtime::Elt;

    fn t(data: Vec<f64>) -> HostTensor {
        HostTensor::from_f64(Elt::F32, vec![data.len() as u64], data)
    }

    #[test]
    fn errors_are_relative_above_one() {
        let (e, at) = max_error(&t(vec![1.0, 101.0, 0.5]), &t(vec![1.0, 100.0, 0.25])).unwrap();
        assert_eq!(at, 2);
        assert!((e - 0.25).abs() < 1e-12);
        assert_eq!(
            max_error(&t(vec![f64::NAN]), &t(vec![f64::NAN])).unwrap().0,
            0.0
        );
        assert_eq!(
            max_error(&t(vec![f64::NAN]), &t(vec![1.0])).unwrap().0,
            f64::INFINITY
        );
        assert!(max_error(&t(vec![1.0]), &t(vec![1.0, 2.0])).is_err());
    }
}
