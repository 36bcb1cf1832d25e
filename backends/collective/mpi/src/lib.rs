//! The collectives of `ocannl-collective` on MPI (the `mpi` crate, on the
//! system's MPI: Debian's OpenMPI, `openmpi-bin libopenmpi-dev`): [`Mpi`],
//! one rank per process, across cores and hosts (`mpirun -n N`); and
//! [`nccl`], NCCL's ranks over GPUs found through MPI.
//!
//! A separate crate so that what needs no MPI (the GPU's runtime CLI and
//! its NCCL check) links none.

use std::time::{Duration, Instant};

use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use ocannl_collective::{Buffer, Collective, Error, Nccl, Stats, DEFAULT_TIMEOUT, TIMEOUT_VAR};

/// MPI's world communicator: one rank per process. Every collective is
/// started non-blocking and polled until it completes or its bound
/// passes; then the job ends ([`Mpi::fail`]). The all-reduces, which
/// ranks in step reach together, are bounded by the timeout; the
/// start-up's broadcasts and all-gathers, which wait for the slowest
/// rank's compile, by at least [`DEFAULT_TIMEOUT`].
pub struct Mpi {
    // (Dropped before the universe, which finalizes MPI.)
    world: SimpleCommunicator,
    local_rank: usize,
    timeout: Duration,
    stats: Stats,
    _universe: Universe,
}

impl Mpi {
    /// Initializes MPI (once per process) with collectives bounded by
    /// `timeout`.
    pub fn init(timeout: Duration) -> Result<Mpi, Error> {
        let universe = mpi::initialize()
            .ok_or_else(|| Error::join("MPI cannot be initialized twice in one process"))?;
        let world = universe.world();
        // The ranks on this host, for a rank's GPU.
        let local_rank = world.split_shared(world.rank()).rank() as usize;
        Ok(Mpi {
            world,
            local_rank,
            timeout,
            stats: Stats::default(),
            _universe: universe,
        })
    }

    /// This rank's position among the ranks on its host.
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// The bound on each collective.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Ends the whole job after printing why: every rank stops (MPI's
    /// launcher ends the others), none waits forever.
    pub fn fail(&self, why: &str) -> ! {
        eprintln!(
            "error: rank {} of {}: {why}; ending the job",
            self.world.rank(),
            self.world.size()
        );
        self.world.abort(1)
    }

    /// The bound on the start-up's collectives.
    fn startup_timeout(&self) -> Duration {
        self.timeout.max(DEFAULT_TIMEOUT)
    }

    /// Polls `req` until it completes, or ends the job once `bound`
    /// passes.
    fn wait<'a, D: ?Sized, S: Scope<'a>>(
        &self,
        mut req: Request<'a, D, S>,
        what: &str,
        bound: Duration,
    ) {
        let start = Instant::now();
        let mut polls = 0u32;
        loop {
            match req.test() {
                Ok(_) => return,
                Err(r) => req = r,
            }
            if start.elapsed() > bound {
                self.fail(&format!(
                    "{what} did not complete within {:.1} s: another rank died, hangs or left the job ({} sets the limit in seconds)",
                    bound.as_secs_f64(),
                    TIMEOUT_VAR
                ));
            }
            // Spin briefly (a collective between ranks in step completes in
            // microseconds), then yield the core to the ranks still
            // computing.
            polls += 1;
            if polls < 2000 {
                std::hint::spin_loop();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    fn all_reduce<T: Equivalence + Copy>(&self, buf: &mut [T], what: &str) {
        let send = buf.to_vec();
        mpi::request::scope(|scope| {
            let req =
                self.world
                    .immediate_all_reduce_into(scope, &send[..], buf, SystemOperation::sum());
            self.wait(req, what, self.timeout);
        });
    }

    fn bcast<T: Equivalence>(&self, buf: &mut [T], what: &str) {
        let root = self.world.process_at_rank(0);
        mpi::request::scope(|scope| {
            let req = root.immediate_broadcast_into(scope, buf);
            self.wait(req, what, self.startup_timeout());
        });
    }

    /// Rank 0's bytes, on every rank (of one length on every rank).
    pub fn broadcast_bytes(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.bcast(buf, "a broadcast");
        Ok(())
    }
}

impl Collective for Mpi {
    fn name(&self) -> &'static str {
        "mpi"
    }

    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn all_reduce_sum(&mut self, buf: Buffer) -> Result<(), Error> {
        let t = Instant::now();
        let bytes = buf.bytes() as u64;
        match buf {
            Buffer::F32(b) => self.all_reduce(b, "an all-reduce"),
            Buffer::F64(b) => self.all_reduce(b, "an all-reduce"),
        }
        self.stats.calls += 1;
        self.stats.bytes += bytes;
        self.stats.time += t.elapsed();
        Ok(())
    }

    fn broadcast(&mut self, buf: Buffer) -> Result<(), Error> {
        match buf {
            Buffer::F32(b) => self.bcast(b, "a broadcast"),
            Buffer::F64(b) => self.bcast(b, "a broadcast"),
        }
        Ok(())
    }

    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        let n = mine.len();
        let mut all = vec![0u8; n * self.size()];
        mpi::request::scope(|scope| {
            let req = self
                .world
                .immediate_all_gather_into(scope, mine, &mut all[..]);
            self.wait(req, "an all-gather", self.startup_timeout());
        });
        Ok(all.chunks(n.max(1)).map(<[u8]>::to_vec).collect())
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}

/// NCCL's communicator over the ranks of an MPI job: every rank checks it
/// can run NCCL (all decide alike, so that none waits alone in the join),
/// rank 0 makes the unique id, MPI broadcasts it, every rank joins on its
/// host's GPU number [`Mpi::local_rank`]. Each collective is bounded by
/// MPI's timeout, past which MPI's abort ends every rank.
pub fn nccl(mut mpi: Mpi) -> Result<Box<dyn Collective>, Error> {
    let why = ocannl_collective::nccl_unavailable();
    let verdicts = mpi.all_gather(&[u8::from(why.is_some())])?;
    if let Some(r) = verdicts.iter().position(|v| v[0] != 0) {
        return Err(Error::join(match why {
            Some(w) => w,
            None => format!("rank {r} cannot run NCCL"),
        }));
    }
    let mut id = [0u8; 128];
    if mpi.rank() == 0 {
        id = Nccl::new_id()?;
    }
    mpi.broadcast_bytes(&mut id)?;
    let nccl = Nccl::join(id, mpi.rank(), mpi.size(), mpi.local_rank(), mpi.timeout())?
        .on_timeout(Box::new(|_| SimpleCommunicator::world().abort(1)));
    Ok(Box::new(NcclOverMpi { nccl, _mpi: mpi }))
}

/// NCCL's ranks, with the MPI job that found them kept alive (MPI is
/// finalized when it drops).
struct NcclOverMpi {
    nccl: Nccl,
    _mpi: Mpi,
}

impl Collective for NcclOverMpi {
    fn name(&self) -> &'static str {
        self.nccl.name()
    }
    fn rank(&self) -> usize {
        self.nccl.rank()
    }
    fn size(&self) -> usize {
        self.nccl.size()
    }
    fn all_reduce_sum(&mut self, buf: Buffer) -> Result<(), Error> {
        self.nccl.all_reduce_sum(buf)
    }
    fn broadcast(&mut self, buf: Buffer) -> Result<(), Error> {
        self.nccl.broadcast(buf)
    }
    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        self.nccl.all_gather(mine)
    }
    fn stats(&self) -> Stats {
        self.nccl.stats()
    }
}
