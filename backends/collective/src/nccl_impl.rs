//! [`Nccl`]: the collectives on NCCL across GPUs (through `cudarc`, the
//! library loaded at run time), one process per GPU. The ranks find each
//! other through NCCL's unique id, which rank 0 makes ([`Nccl::new_id`])
//! and hands to the others: through a file ([`Nccl::from_id_file`]) or
//! any other channel ([`Nccl::join`]; `ocannl-collective-mpi` uses MPI).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr, DriverError};
use cudarc::nccl::{Comm, Id, NcclType, ReduceOp};

use crate::{Buffer, Collective, Error, Stats};

/// What ends a job, given why.
pub type EndJob = Box<dyn Fn(&str)>;

/// NCCL's communicator: this process's rank, on one GPU.
pub struct Nccl {
    comm: Comm,
    stream: Arc<CudaStream>,
    rank: usize,
    size: usize,
    timeout: Duration,
    /// What ends the job after a collective timed out, given why (MPI's
    /// abort, when the ranks were found through MPI); then this process
    /// exits.
    end_job: Option<EndJob>,
    stats: Stats,
}

/// Why NCCL cannot run here, if it cannot (the driver or the library is
/// missing, or there is no GPU).
pub fn unavailable() -> Option<String> {
    if let Some(why) = ocannl_gpu_runtime::unavailable() {
        return Some(why);
    }
    // SAFETY: only tries to load the NCCL library.
    if !unsafe { cudarc::nccl::sys::is_culib_present() } {
        return Some("no NCCL: libnccl.so.2 was not found (install NCCL, e.g. the nvidia-nccl-cu12 wheel, and put its lib directory on LD_LIBRARY_PATH)".into());
    }
    None
}

fn id_bytes(id: &Id) -> [u8; 128] {
    id.internal().map(|c| c as u8)
}

fn id_of(bytes: [u8; 128]) -> Id {
    Id::uninit(bytes.map(|b| b as std::ffi::c_char))
}

impl Nccl {
    /// A new unique id, to hand to every rank (made by one of them).
    pub fn new_id() -> Result<[u8; 128], Error> {
        if let Some(why) = unavailable() {
            return Err(Error::join(why));
        }
        Ok(id_bytes(&Id::new().map_err(|e| {
            Error::join(format!("NCCL cannot make an id: {e:?}"))
        })?))
    }

    /// What ends the job when a collective times out, called with why
    /// before this process exits (MPI's abort ends every rank).
    pub fn on_timeout(mut self, end_job: EndJob) -> Nccl {
        self.end_job = Some(end_job);
        self
    }

    /// NCCL's communicator over `size` processes that share a directory:
    /// rank 0 makes the unique id and writes it to `path` (atomically);
    /// the others wait for the file (at most `timeout`). This rank runs on
    /// GPU `ordinal`. Past the timeout a collective ends this process
    /// (there is no launcher to end the others: each sees its own).
    pub fn from_id_file(
        path: &Path,
        rank: usize,
        size: usize,
        ordinal: usize,
        timeout: Duration,
    ) -> Result<Nccl, Error> {
        if let Some(why) = unavailable() {
            return Err(Error::join(why));
        }
        let id = if rank == 0 {
            let id = Nccl::new_id()?;
            let tmp = path.with_extension("partial");
            std::fs::write(&tmp, id)
                .and_then(|()| std::fs::rename(&tmp, path))
                .map_err(|e| Error::join(format!("cannot write {}: {e}", path.display())))?;
            id
        } else {
            let start = Instant::now();
            loop {
                if let Ok(bytes) = std::fs::read(path) {
                    let bytes: [u8; 128] = bytes.try_into().map_err(|_| {
                        Error::join(format!("{} is not an NCCL id (128 bytes)", path.display()))
                    })?;
                    break bytes;
                }
                if start.elapsed() > timeout {
                    return Err(Error::join(format!(
                        "rank 0 wrote no NCCL id to {} within {:.1} s",
                        path.display(),
                        timeout.as_secs_f64()
                    )));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        Nccl::join(id, rank, size, ordinal, timeout)
    }

    /// Joins the `size` ranks that share the unique id `id`, as rank
    /// `rank`, on GPU `ordinal`; each collective bounded by `timeout`.
    pub fn join(
        id: [u8; 128],
        rank: usize,
        size: usize,
        ordinal: usize,
        timeout: Duration,
    ) -> Result<Nccl, Error> {
        if let Some(why) = unavailable() {
            return Err(Error::join(why));
        }
        if rank >= size {
            return Err(Error::join(format!("rank {rank} of {size} ranks")));
        }
        let id = id_of(id);
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| Error::join(format!("cannot open GPU {ordinal}: {e}")))?;
        let stream = ctx.default_stream();
        let comm = Comm::from_rank(stream.clone(), rank, size, id)
            .map_err(|e| Error::join(format!("NCCL cannot join the ranks: {e:?}")))?;
        Ok(Nccl {
            comm,
            stream,
            rank,
            size,
            timeout,
            end_job: None,
            stats: Stats::default(),
        })
    }

    /// Ends the job (what [`Nccl::on_timeout`] gave, then this process)
    /// after printing why.
    fn fail(&self, why: &str) -> ! {
        eprintln!(
            "error: rank {} of {}: {why}; ending the job",
            self.rank, self.size
        );
        if let Some(end) = &self.end_job {
            end(why);
        }
        std::process::exit(1)
    }

    /// Waits for the stream's work, or ends the job once the timeout
    /// passes.
    fn wait(&self, what: &str) -> Result<(), String> {
        let done = self.stream.record_event(None).map_err(driver)?;
        let start = Instant::now();
        while !done.is_complete() {
            if start.elapsed() > self.timeout {
                self.fail(&format!(
                    "an NCCL {what} did not complete within {:.1} s: another rank died, hangs or left the job ({} sets the limit in seconds)",
                    self.timeout.as_secs_f64(),
                    crate::TIMEOUT_VAR
                ));
            }
            std::thread::sleep(Duration::from_micros(20));
        }
        Ok(())
    }

    /// `op` on a copy of `host` on this GPU, then copied back.
    fn on_device<T: DeviceRepr + NcclType + Copy>(
        &self,
        host: &mut [T],
        what: &str,
        op: impl FnOnce(&Comm, &mut CudaSlice<T>) -> Result<(), String>,
    ) -> Result<(), String> {
        if host.is_empty() {
            return Ok(());
        }
        let mut dev: CudaSlice<T> = self.stream.clone_htod(host).map_err(driver)?;
        op(&self.comm, &mut dev)?;
        self.wait(what)?;
        self.stream.memcpy_dtoh(&dev, host).map_err(driver)?;
        Ok(())
    }
}

fn driver(e: DriverError) -> String {
    format!("CUDA: {e}")
}

fn nccl(what: &'static str) -> impl Fn(cudarc::nccl::result::NcclError) -> String {
    move |e| format!("NCCL {what}: {e:?}")
}

fn reduce<T: DeviceRepr + NcclType + Copy>(n: &Nccl, host: &mut [T]) -> Result<(), String> {
    n.on_device(host, "all-reduce", |comm, dev| {
        comm.all_reduce_in_place(dev, &ReduceOp::Sum)
            .map(drop)
            .map_err(nccl("all-reduce"))
    })
}

fn bcast<T: DeviceRepr + NcclType + Copy>(n: &Nccl, host: &mut [T]) -> Result<(), String> {
    n.on_device(host, "broadcast", |comm, dev| {
        comm.broadcast_in_place(dev, 0)
            .map(drop)
            .map_err(nccl("broadcast"))
    })
}

impl Collective for Nccl {
    fn name(&self) -> &'static str {
        "nccl"
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn all_reduce_sum(&mut self, buf: Buffer) -> Result<(), Error> {
        let t = Instant::now();
        let bytes = buf.bytes() as u64;
        match buf {
            Buffer::F32(b) => reduce(self, b),
            Buffer::F64(b) => reduce(self, b),
        }
        .map_err(Error::exchange)?;
        self.stats.calls += 1;
        self.stats.bytes += bytes;
        self.stats.time += t.elapsed();
        Ok(())
    }

    fn broadcast(&mut self, buf: Buffer) -> Result<(), Error> {
        match buf {
            Buffer::F32(b) => bcast(self, b),
            Buffer::F64(b) => bcast(self, b),
        }
        .map_err(Error::exchange)
    }

    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        self.gather(mine).map_err(Error::exchange)
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}

impl Nccl {
    fn gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, String> {
        let n = mine.len();
        if n == 0 {
            return Ok(vec![vec![]; self.size]);
        }
        let send: CudaSlice<u8> = self.stream.clone_htod(mine).map_err(driver)?;
        let mut all: CudaSlice<u8> = self.stream.alloc_zeros(n * self.size).map_err(driver)?;
        self.comm
            .all_gather(&send, &mut all)
            .map_err(nccl("all-gather"))?;
        self.wait("all-gather")?;
        let host = self.stream.clone_dtoh(&all).map_err(driver)?;
        Ok(host.chunks(n).map(<[u8]>::to_vec).collect())
    }
}
