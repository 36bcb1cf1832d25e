//! Collectives for data-parallel training, behind one interface
//! ([`Collective`]): all-reduce (sum), broadcast from rank 0 and
//! all-gather, each bounded by a timeout.
//!
//! Implementations:
//! - [`Local`]: one process, nothing to exchange;
//! - [`Nccl`]: NCCL across GPUs through `cudarc` (the library loaded at
//!   run time), one process per GPU, the ranks found through a file of
//!   NCCL's unique id ([`Nccl::from_id_file`]) or any other channel
//!   ([`Nccl::join`]);
//! - in `ocannl-collective-mpi` (which links the system's MPI, so that
//!   this crate and the GPU's runtime CLI need none): `Mpi`, one process
//!   per rank across cores and hosts (`mpirun -n N`), and NCCL's ranks
//!   found through MPI.
//!
//! Faults: an all-reduce that does not complete within the timeout
//! ([`timeout_from_env`]: `OCANNL_COLLECTIVE_TIMEOUT` seconds) means a
//! rank died, hangs or left; the rank that sees it prints which collective
//! and why, then ends the whole job (`MPI_Abort`), so that no rank waits
//! forever. The start-up's collectives (the params' broadcast, the
//! configuration checks), which wait for the slowest rank's compile, are
//! bounded by the timeout or [`DEFAULT_TIMEOUT`], whichever is longer. A
//! rank that dies is also seen by MPI's launcher, which ends the job. Configurations that differ between ranks are found at start-up
//! by [`check_same`].

use std::time::Duration;

mod error;
mod nccl_impl;

pub use error::{Error, Kind};
pub use nccl_impl::{unavailable as nccl_unavailable, Nccl};

/// A buffer reduced or broadcast in place, of one element type.
pub enum Buffer<'a> {
    F32(&'a mut [f32]),
    F64(&'a mut [f64]),
}

impl Buffer<'_> {
    /// Its size in bytes.
    pub fn bytes(&self) -> usize {
        match self {
            Buffer::F32(b) => std::mem::size_of_val(*b),
            Buffer::F64(b) => std::mem::size_of_val(*b),
        }
    }
}

/// What the all-reduces of a collective took so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// The number of all-reduces.
    pub calls: u64,
    /// The bytes each rank contributed, in all.
    pub bytes: u64,
    /// The wall time spent in them (waiting for the slowest rank included).
    pub time: Duration,
}

/// The operations data-parallel training needs, between the ranks of one
/// job. Every rank calls the same operations in the same order.
pub trait Collective {
    /// What runs it (`local`, `mpi`, `nccl`).
    fn name(&self) -> &'static str;
    /// This process's rank, from 0.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Sums `buf` across ranks, in place: every rank gets the sum.
    fn all_reduce_sum(&mut self, buf: Buffer) -> Result<(), Error>;
    /// Replaces `buf` with rank 0's, on every rank.
    fn broadcast(&mut self, buf: Buffer) -> Result<(), Error>;
    /// Every rank's `mine` (of one length on every rank), in rank order.
    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error>;
    /// What the all-reduces took so far.
    fn stats(&self) -> Stats;
}

/// One process: every operation leaves the buffers as they are.
#[derive(Default)]
pub struct Local {
    stats: Stats,
}

impl Collective for Local {
    fn name(&self) -> &'static str {
        "local"
    }
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn all_reduce_sum(&mut self, buf: Buffer) -> Result<(), Error> {
        self.stats.calls += 1;
        self.stats.bytes += buf.bytes() as u64;
        Ok(())
    }
    fn broadcast(&mut self, _: Buffer) -> Result<(), Error> {
        Ok(())
    }
    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        Ok(vec![mine.to_vec()])
    }
    fn stats(&self) -> Stats {
        self.stats
    }
}

/// Checks that every rank has the same `value` (a configuration: the
/// model, the optimizer, the batch, the seed), comparing SHA-256 digests:
/// an error on every rank naming the ranks that differ from rank 0 and
/// `what` differs.
pub fn check_same(c: &mut dyn Collective, what: &str, value: &[u8]) -> Result<(), Error> {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(value);
    let all = c.all_gather(&digest)?;
    let differ: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(_, d)| *d != &all[0])
        .map(|(r, _)| r.to_string())
        .collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(Error::new(
            Kind::Disagree,
            format!(
                "the ranks differ in {what}: rank(s) {} against rank 0 (every rank must run the same configuration)",
                differ.join(", ")
            ),
        ))
    }
}

/// The environment variable that bounds every collective, in seconds.
pub const TIMEOUT_VAR: &str = "OCANNL_COLLECTIVE_TIMEOUT";

/// The default bound on a collective: long enough for a rank to compile
/// a model the others found in the cache.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// The timeout `OCANNL_COLLECTIVE_TIMEOUT` sets (seconds, a positive
/// number), else [`DEFAULT_TIMEOUT`].
pub fn timeout_from_env() -> Result<Duration, Error> {
    match std::env::var(TIMEOUT_VAR) {
        Err(_) => Ok(DEFAULT_TIMEOUT),
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                Error::new(
                    Kind::Setting,
                    format!("{TIMEOUT_VAR} must be a positive number of seconds, not '{text}'"),
                )
            }),
    }
}

/// The number of ranks of the job this process was launched in by an MPI
/// launcher (`mpirun`, `mpiexec`, `srun`), read from the environment it
/// sets (OpenMPI's, MPICH's or PMIx's), without initializing MPI.
pub fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_is_one_rank_that_changes_nothing() {
        let mut c = Local::default();
        let mut x = [1.0f32, 2.0];
        c.all_reduce_sum(Buffer::F32(&mut x)).unwrap();
        assert_eq!(x, [1.0, 2.0]);
        let mut y = [3.0f64];
        c.broadcast(Buffer::F64(&mut y)).unwrap();
        assert_eq!(y, [3.0]);
        assert_eq!(c.all_gather(b"ab").unwrap(), vec![b"ab".to_vec()]);
        assert_eq!((c.rank(), c.size()), (0, 1));
        let s = c.stats();
        assert_eq!((s.calls, s.bytes), (1, 8));
        assert!(check_same(&mut c, "the model", b"x").is_ok());
    }

    /// A collective whose other ranks hold given values.
    struct Fake(Vec<Vec<u8>>);

    impl Collective for Fake {
        fn name(&self) -> &'static str {
            "fake"
        }
        fn rank(&self) -> usize {
            0
        }
        fn size(&self) -> usize {
            self.0.len() + 1
        }
        fn all_reduce_sum(&mut self, _: Buffer) -> Result<(), Error> {
            Ok(())
        }
        fn broadcast(&mut self, _: Buffer) -> Result<(), Error> {
            Ok(())
        }
        fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
            use sha2::{Digest, Sha256};
            let mut all = vec![mine.to_vec()];
            all.extend(self.0.iter().map(|v| Sha256::digest(v).to_vec()));
            Ok(all)
        }
        fn stats(&self) -> Stats {
            Stats::default()
        }
    }

    #[test]
    fn a_rank_with_another_configuration_is_named() {
        let mut c = Fake(vec![b"batch 8".to_vec(), b"batch 16".to_vec()]);
        let e = check_same(&mut c, "the options", b"batch 8").unwrap_err();
        assert_eq!(e.kind(), Kind::Disagree);
        assert_eq!(
            e.to_string(),
            "the ranks differ in the options: rank(s) 2 against rank 0 (every rank must run the same configuration)"
        );
        assert!(check_same(&mut c, "the options", b"batch 16").is_err());
        let mut same = Fake(vec![b"a".to_vec()]);
        assert!(check_same(&mut same, "the options", b"a").is_ok());
    }

    #[test]
    fn timeouts_are_positive_seconds() {
        // (The one test that sets the variable.)
        std::env::set_var(TIMEOUT_VAR, "2.5");
        assert_eq!(timeout_from_env(), Ok(Duration::from_millis(2500)));
        std::env::set_var(TIMEOUT_VAR, "0");
        let e = timeout_from_env().unwrap_err();
        assert_eq!(e.kind(), Kind::Setting);
        assert!(e.to_string().contains("positive number"));
        std::env::set_var(TIMEOUT_VAR, "soon");
        assert!(timeout_from_env().is_err());
        std::env::remove_var(TIMEOUT_VAR);
        assert_eq!(timeout_from_env(), Ok(DEFAULT_TIMEOUT));
    }
}
