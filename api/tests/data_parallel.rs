//! Data-parallel training: the split step (gradients, a collective, the
//! update) steps as the fused one; ranks on shards of a batch step as one
//! process on the whole batch, in threads and under `mpirun`; a rank that
//! dies or hangs ends the job in bounded time; ranks configured
//! differently are refused at start-up.

use std::{
    io::{BufRead, BufReader, Read},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Barrier, Mutex},
    time::{Duration, Instant},
};

use ocannl::collective::{Buffer, Collective, Local, Stats};
use ocannl::*;

const BATCH: usize = 4;
const STEPS: usize = 6;

fn tensor(dims: Vec<u64>, data: Vec<f64>) -> HostTensor {
    HostTensor::from_f64(Elt::F32, dims, data)
}

/// `n` rows of inputs (n x 2) and targets (n x 1) for step `k`.
fn batch(k: usize, n: usize) -> (HostTensor, HostTensor) {
    let x: Vec<f64> = (0..n * 2)
        .map(|j| ((k * 31 + j * 7) as f64).sin())
        .collect();
    let t = (0..n)
        .map(|r| 0.3 * x[2 * r] - 0.7 * x[2 * r + 1] + 0.2)
        .collect();
    (tensor(vec![n as u64, 2], x), tensor(vec![n as u64, 1], t))
}

/// Rows `rows` of a batch.
fn rows(t: &HostTensor, rows: std::ops::Range<usize>) -> HostTensor {
    let w = t.dims[1] as usize;
    tensor(
        vec![rows.len() as u64, t.dims[1]],
        t.to_f64()[rows.start * w..rows.end * w].to_vec(),
    )
}

/// A 2-3-1 MLP's mean squared error over a batch of `n` rows, and its
/// prediction.
fn model(n: usize) -> (Tensor, Tensor) {
    let (x, t) = (data("x", &format!("{n}|2")), data("t", &format!("{n}|1")));
    let h = relu(&(param("b1").output(&[3]).seed(1) + param("w1").output(&[3]).seed(2) * &x));
    let pred = param("b2").output(&[1]).seed(3) + param("w2").output(&[1]).seed(4) * &h;
    let e = &pred - &t;
    (sum(&pointmul(&e, &e)) * (1.0 / n as f64), pred)
}

fn params(trainer: &Trainer) -> Vec<Vec<f64>> {
    trainer
        .param_names()
        .iter()
        .map(|n| trainer.param(n).unwrap().to_f64())
        .collect()
}

/// The largest difference of two sets of params, relative to the largest
/// magnitude of each param.
fn relative(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let scale = x.iter().fold(0f64, |m, v| m.max(v.abs())).max(1e-30);
            x.iter()
                .zip(y)
                .map(|(p, q)| (p - q).abs() / scale)
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

fn optimizers() -> Vec<Optimizer> {
    vec![
        Optimizer::Sgd(Sgd {
            momentum: 0.9,
            weight_decay: 0.01,
            decay_on: DecayOn::Matrices,
            nesterov: true,
            clip_norm: Some(0.5),
        }),
        Optimizer::adam(),
        Optimizer::AdamW(Adam {
            clip_norm: Some(1.0),
            ..Adam::adamw_default()
        }),
    ]
}

#[test]
fn the_split_step_alone_steps_as_the_fused_step() {
    for opt in optimizers() {
        let (loss, pred) = model(BATCH);
        let mut fused = Trainer::new(&loss, &pred, opt).unwrap();
        let mut split =
            Trainer::new_data_parallel(Device::CPU, &loss, &pred, opt, Box::new(Local::default()))
                .unwrap();
        assert_eq!((split.rank(), split.ranks()), (0, 1));
        for k in 0..STEPS {
            let (x, t) = batch(k, BATCH);
            let a = fused.step(&[x.clone(), t.clone()], 0.05).unwrap();
            let b = split.step(&[x, t], 0.05).unwrap();
            assert!(
                (a - b).abs() <= 1e-6 * a.abs().max(1.0),
                "{opt:?} step {k}: {a} vs {b}"
            );
        }
        let r = relative(&params(&fused), &params(&split));
        assert!(r <= 1e-6, "{opt:?}: {r}");
        // The state is the update routine's.
        if let Optimizer::Adam(_) = opt {
            let m = |t: &Trainer| t.optimizer_state(State::AdamM, "w1").unwrap().to_f64();
            assert_eq!(m(&fused).len(), 6);
            assert!(relative(&[m(&fused)], &[m(&split)]) <= 1e-6);
        }
        let stats = split.collective_stats().unwrap();
        assert_eq!(stats.calls, STEPS as u64);
        // The loss and the 3+6+1+3 gradient cells, in f32.
        assert_eq!(stats.bytes, (STEPS * 14 * 4) as u64);
        assert!(fused.collective_stats().is_none());
    }
}

/// Ranks in threads of one process, through shared memory.
struct Threads {
    rank: usize,
    size: usize,
    shared: Arc<(Mutex<Vec<Vec<f64>>>, Barrier)>,
    stats: Stats,
}

impl Threads {
    fn job(size: usize) -> Vec<Threads> {
        let shared = Arc::new((Mutex::new(vec![vec![]; size]), Barrier::new(size)));
        (0..size)
            .map(|rank| Threads {
                rank,
                size,
                shared: shared.clone(),
                stats: Stats::default(),
            })
            .collect()
    }

    /// Every rank's values, after each has given its own.
    fn exchange(&self, mine: Vec<f64>) -> Vec<Vec<f64>> {
        let (slots, barrier) = &*self.shared;
        slots.lock().unwrap()[self.rank] = mine;
        barrier.wait();
        let all = slots.lock().unwrap().clone();
        barrier.wait();
        all
    }
}

fn read(buf: &Buffer) -> Vec<f64> {
    match buf {
        Buffer::F32(b) => b.iter().map(|&x| f64::from(x)).collect(),
        Buffer::F64(b) => b.to_vec(),
    }
}

fn write(buf: Buffer, values: &[f64]) {
    match buf {
        Buffer::F32(b) => b.iter_mut().zip(values).for_each(|(c, v)| *c = *v as f32),
        Buffer::F64(b) => b.copy_from_slice(values),
    }
}

impl Collective for Threads {
    fn name(&self) -> &'static str {
        "threads"
    }
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn all_reduce_sum(&mut self, buf: Buffer) -> Result<(), ocannl::collective::Error> {
        self.stats.calls += 1;
        let all = self.exchange(read(&buf));
        let sum: Vec<f64> = (0..all[0].len())
            .map(|i| all.iter().map(|v| v[i]).sum())
            .collect();
        write(buf, &sum);
        Ok(())
    }
    fn broadcast(&mut self, buf: Buffer) -> Result<(), ocannl::collective::Error> {
        let all = self.exchange(read(&buf));
        write(buf, &all[0]);
        Ok(())
    }
    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, ocannl::collective::Error> {
        let all = self.exchange(mine.iter().map(|&b| f64::from(b)).collect());
        Ok(all
            .iter()
            .map(|v| v.iter().map(|&x| x as u8).collect())
            .collect())
    }
    fn stats(&self) -> Stats {
        self.stats
    }
}

#[test]
fn two_ranks_on_half_batches_step_as_one_process_on_the_whole_batch() {
    for opt in optimizers() {
        let (loss, pred) = model(2 * BATCH);
        let mut whole = Trainer::new(&loss, &pred, opt).unwrap();
        for k in 0..STEPS {
            let (x, t) = batch(k, 2 * BATCH);
            whole.step(&[x, t], 0.05).unwrap();
        }
        let ranks: Vec<_> = Threads::job(2)
            .into_iter()
            .map(|c| {
                std::thread::spawn(move || {
                    let rank = c.rank;
                    let (loss, pred) = model(BATCH);
                    let mut t =
                        Trainer::new_data_parallel(Device::CPU, &loss, &pred, opt, Box::new(c))
                            .unwrap();
                    for k in 0..STEPS {
                        let (x, y) = batch(k, 2 * BATCH);
                        let mine = rank * BATCH..(rank + 1) * BATCH;
                        t.step(&[rows(&x, mine.clone()), rows(&y, mine)], 0.05)
                            .unwrap();
                    }
                    params(&t)
                })
            })
            .collect();
        let ranks: Vec<Vec<Vec<f64>>> = ranks.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(ranks[0], ranks[1], "{opt:?}: the ranks agree");
        let r = relative(&params(&whole), &ranks[0]);
        assert!(r <= 1e-5, "{opt:?}: {r}");
    }
}

/// The examples built with this test (`target/<profile>/examples`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join(name);
    assert!(
        path.exists(),
        "{} is not built (`cargo test` builds the examples; alone: cargo build -p ocannl --examples)",
        path.display()
    );
    path
}

/// `mpirun` with `-n 2` (or the MPMD form of `args`), as root if need be.
fn mpirun(args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "--bind-to", "none"])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMP_NUM_THREADS", "1");
    c
}

fn run(mut c: Command) -> (bool, String, String) {
    let out = c.output().expect("mpirun (openmpi-bin) runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ocannl-dp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn npy_params(dir: &Path) -> Vec<Vec<f64>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
        .iter()
        .map(|f| npy::read(f).unwrap().to_f64())
        .collect()
}

fn safetensors_params(file: &Path) -> Vec<Vec<f64>> {
    let mut all = safetensors::read(file).unwrap();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all.into_iter().map(|(_, t)| t.to_f64()).collect()
}

#[test]
fn mpirun_two_ranks_train_moons_as_one_process_on_double_batches() {
    let moons = example("moons");
    let moons = moons.to_str().unwrap();
    for opt in ["sgd", "adam"] {
        let common = [
            "--no-plot",
            "--no-accuracy-check",
            "--epochs",
            "2",
            "--optimizer",
            opt,
        ];
        let (one, two) = (
            temp(&format!("moons-1-{opt}")),
            temp(&format!("moons-2-{opt}")),
        );
        let (ok, out, err) = run({
            let mut c = Command::new(moons);
            c.args(common)
                .args(["--batch", "20", "--save", one.to_str().unwrap()]);
            c
        });
        assert!(ok, "{out}{err}");
        let (ok, out, err) = run({
            let mut c = mpirun(&["-n", "2", moons, "--data-parallel"]);
            c.args(common)
                .args(["--batch", "10", "--save", two.to_str().unwrap()]);
            c
        });
        assert!(ok, "{out}{err}");
        assert!(out.contains("2 ranks: 100 all-reduces"), "{out}");
        // Rank 0 alone prints.
        assert_eq!(out.matches("epoch   2/2").count(), 1, "{out}");
        let r = relative(&npy_params(&one), &npy_params(&two));
        eprintln!("{opt}: params relative difference {r:.2e}");
        assert!(r <= 1e-5, "{opt}: {r}");
        let _ = std::fs::remove_dir_all(one);
        let _ = std::fs::remove_dir_all(two);
    }
}

#[test]
fn mpirun_two_ranks_train_lenet_on_fashion_mnist_as_one_process_on_double_batches() {
    let fashion = example("fashion_mnist");
    let fashion = fashion.to_str().unwrap();
    for (opt, lr) in [("sgd", "0.05"), ("adam", "0.002")] {
        let common = [
            "--epochs",
            "1",
            "--train-items",
            "512",
            "--test-items",
            "100",
            "--min-accuracy",
            "0",
            "--optimizer",
            opt,
            "--lr",
            lr,
        ];
        let dir = temp(&format!("fashion-{opt}"));
        std::fs::create_dir_all(&dir).unwrap();
        let (one, two) = (dir.join("one.safetensors"), dir.join("two.safetensors"));
        let (ok, out, err) = run({
            let mut c = Command::new(fashion);
            c.args(common)
                .args(["--batch", "32", "--save", one.to_str().unwrap()]);
            c
        });
        assert!(ok, "{out}{err}");
        let (ok, out, err) = run({
            let mut c = mpirun(&["-n", "2", fashion, "--data-parallel"]);
            c.args(common)
                .args(["--batch", "16", "--save", two.to_str().unwrap()]);
            c
        });
        assert!(ok, "{out}{err}");
        assert!(out.contains("2 ranks: 16 all-reduces"), "{out}");
        let r = relative(&safetensors_params(&one), &safetensors_params(&two));
        eprintln!("{opt}: params relative difference {r:.2e}");
        assert!(r <= 1e-5, "{opt}: {r}");
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn ranks_configured_differently_are_refused_at_start_up() {
    let moons = example("moons");
    let moons = moons.to_str().unwrap();
    let rank = |extra: &'static [&'static str]| {
        let mut v = vec![
            "-n",
            "1",
            moons,
            "--data-parallel",
            "--no-plot",
            "--epochs",
            "1",
        ];
        v.extend(extra);
        v
    };
    // Another seed: the same model, other batches.
    let mut args = rank(&["--seed", "1"]);
    args.push(":");
    args.extend(rank(&["--seed", "2"]));
    let (ok, out, err) = run(mpirun(&args));
    assert!(!ok, "{out}");
    assert!(
        err.contains("the ranks differ in the options: rank(s) 1 against rank 0"),
        "{err}"
    );
    // Another model.
    let mut args = rank(&["--hidden", "16"]);
    args.push(":");
    args.extend(rank(&["--hidden", "8"]));
    let (ok, out, err) = run(mpirun(&args));
    assert!(!ok, "{out}");
    assert!(
        err.contains("the ranks differ in the model, its optimizer or its device"),
        "{err}"
    );
    // Launched as ranks without --data-parallel.
    let (ok, _, err) = run(mpirun(&["-n", "2", moons, "--no-plot", "--epochs", "1"]));
    assert!(!ok);
    assert!(err.contains("add --data-parallel"), "{err}");
}

/// A long data-parallel moons job, its output collected by threads.
struct Job {
    child: Child,
    out: Arc<Mutex<String>>,
    err: Arc<Mutex<String>>,
}

impl Job {
    fn start(timeout: &str) -> Job {
        let moons = example("moons");
        let mut c = mpirun(&["-n", "2", moons.to_str().unwrap(), "--data-parallel"]);
        c.args([
            "--no-plot",
            "--no-accuracy-check",
            "--epochs",
            "1000000",
            "--samples",
            "200000",
        ])
        .env("OCANNL_COLLECTIVE_TIMEOUT", timeout)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = c.spawn().expect("mpirun runs");
        let drain = |r: Box<dyn Read + Send>| {
            let text = Arc::new(Mutex::new(String::new()));
            let sink = text.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(r).lines().map_while(Result::ok) {
                    sink.lock().unwrap().push_str(&(line + "\n"));
                }
            });
            text
        };
        let out = drain(Box::new(child.stdout.take().unwrap()));
        let err = drain(Box::new(child.stderr.take().unwrap()));
        Job { child, out, err }
    }

    /// Waits until the ranks train (rank 0 has compiled and every rank
    /// took part in a step).
    fn wait_training(&mut self) {
        let t = Instant::now();
        while !self.out.lock().unwrap().contains("compiled the train step") {
            assert!(
                t.elapsed() < Duration::from_secs(120),
                "{}",
                self.err.lock().unwrap()
            );
            assert!(
                self.child.try_wait().unwrap().is_none(),
                "{}",
                self.err.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(500));
    }

    /// The ranks' process ids: mpirun's children running the example.
    fn ranks(&self) -> Vec<u32> {
        let parent = self.child.id();
        let mut ranks = vec![];
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // pid (comm) state ppid ...
            let Some(close) = stat.rfind(')') else {
                continue;
            };
            let comm = &stat[stat.find('(').unwrap() + 1..close];
            let ppid: u32 = stat[close + 2..]
                .split(' ')
                .nth(1)
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            if ppid == parent && comm == "moons" {
                ranks.push(e.file_name().to_str().unwrap().parse().unwrap());
            }
        }
        ranks
    }

    /// The job's end: whether it succeeded, how long after `since`, and
    /// its error output. Fails past `limit`.
    fn end(mut self, since: Instant, limit: Duration) -> (bool, Duration, String) {
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(200));
                let err = self.err.lock().unwrap().clone();
                return (status.success(), since.elapsed(), err);
            }
            if since.elapsed() > limit {
                let _ = self.child.kill();
                panic!("the job did not end within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

#[test]
fn a_killed_rank_ends_the_job_with_an_error_in_bounded_time() {
    let mut job = Job::start("5");
    job.wait_training();
    let ranks = job.ranks();
    assert_eq!(ranks.len(), 2, "{ranks:?}");
    let t = Instant::now();
    signal(ranks[1], "-KILL");
    let (ok, took, err) = job.end(t, Duration::from_secs(60));
    assert!(!ok, "{err}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert!(!err.is_empty());
}

#[test]
fn a_hung_rank_ends_the_job_after_the_collective_timeout() {
    let mut job = Job::start("2");
    job.wait_training();
    let ranks = job.ranks();
    assert_eq!(ranks.len(), 2, "{ranks:?}");
    let t = Instant::now();
    // A rank that stops answering (stopped, not dead).
    signal(ranks[1], "-STOP");
    let (ok, took, err) = job.end(t, Duration::from_secs(60));
    assert!(!ok, "{err}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert!(
        err.contains("did not complete within 2.0 s: another rank died, hangs or left the job"),
        "{err}"
    );
}
