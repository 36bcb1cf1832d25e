//! [`Nccl`]: the all-reduce on NCCL across GPUs (through `cudarc`, the
//! library loaded at run time), one process per GPU; the ranks are
//! bootstrapped, and the small collectives (broadcast, all-gather) run,
//! through MPI.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use cudarc::nccl::{Comm, Id, ReduceOp};

use crate::{Buffer, Collective, Mpi, Stats};

/// NCCL's communicator over the ranks of an MPI job, each on GPU number
/// [`Mpi::local_rank`] of its host.
pub struct Nccl {
    comm: Comm,
    stream: Arc<CudaStream>,
    mpi: Mpi,
    stats: Stats,
}

/// Why NCCL cannot run here, if it cannot (the driver or the library is
/// missing, or there is no GPU).
pub fn unavailable() -> Option<String> {
    // SAFETY: only tries to load the driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Some(
            "no CUDA driver: libcuda.so was not found (NCCL needs an NVIDIA GPU and its driver)"
                .into(),
        );
    }
    // SAFETY: only tries to load the NCCL library.
    if !unsafe { cudarc::nccl::sys::is_culib_present() } {
        return Some("no NCCL: libnccl.so.2 was not found (install NCCL, e.g. the nvidia-nccl-cu12 wheel, and put its lib directory on LD_LIBRARY_PATH)".into());
    }
    match CudaContext::device_count() {
        Ok(n) if n > 0 => None,
        Ok(_) => Some("no CUDA device".into()),
        Err(e) => Some(format!("no CUDA device: {e}")),
    }
}

impl Nccl {
    /// NCCL's communicator over the ranks of `mpi`: rank 0 makes the
    /// unique id, MPI broadcasts it, every rank joins on its host's GPU
    /// number [`Mpi::local_rank`].
    pub fn new(mut mpi: Mpi) -> Result<Nccl, String> {
        // Every rank decides alike whether to go on: one that cannot run
        // NCCL would leave the others waiting in the join.
        let why = unavailable();
        let verdicts = mpi.all_gather(&[u8::from(why.is_some())])?;
        if let Some(r) = verdicts.iter().position(|v| v[0] != 0) {
            return Err(match why {
                Some(w) => w,
                None => format!("rank {r} cannot run NCCL"),
            });
        }
        let ctx = CudaContext::new(mpi.local_rank())
            .map_err(|e| format!("cannot open GPU {}: {e}", mpi.local_rank()))?;
        let stream = ctx.default_stream();
        let mut id = [0u8; 128];
        if mpi.rank() == 0 {
            let made = Id::new().map_err(|e| format!("NCCL cannot make an id: {e:?}"))?;
            for (b, c) in id.iter_mut().zip(made.internal()) {
                *b = *c as u8;
            }
        }
        mpi.broadcast_bytes(&mut id)?;
        let id = Id::uninit(id.map(|b| b as std::ffi::c_char));
        let comm = Comm::from_rank(stream.clone(), mpi.rank(), mpi.size(), id)
            .map_err(|e| format!("NCCL cannot join the ranks: {e:?}"))?;
        Ok(Nccl {
            comm,
            stream,
            mpi,
            stats: Stats::default(),
        })
    }

    /// Sums `host` across the GPUs: copied to this GPU, reduced there by
    /// NCCL, copied back; the wait bounded by MPI's timeout.
    fn reduce<T>(&self, host: &mut [T]) -> Result<(), String>
    where
        T: cudarc::driver::DeviceRepr + cudarc::nccl::NcclType + Copy,
    {
        let err = |e: cudarc::driver::DriverError| format!("NCCL all-reduce: {e}");
        let mut dev: CudaSlice<T> = self.stream.clone_htod(host).map_err(err)?;
        self.comm
            .all_reduce_in_place(&mut dev, &ReduceOp::Sum)
            .map_err(|e| format!("NCCL all-reduce: {e:?}"))?;
        let done = self.stream.record_event(None).map_err(err)?;
        let start = Instant::now();
        while !done.is_complete() {
            if start.elapsed() > self.mpi.timeout() {
                self.mpi.fail(&format!(
                    "an NCCL all-reduce did not complete within {:.1} s: another rank died, hangs or left the job ({} sets the limit in seconds)",
                    self.mpi.timeout().as_secs_f64(),
                    crate::TIMEOUT_VAR
                ));
            }
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
        self.stream.memcpy_dtoh(&dev, host).map_err(err)?;
        Ok(())
    }
}

impl Collective for Nccl {
    fn name(&self) -> &'static str {
        "nccl"
    }

    fn rank(&self) -> usize {
        self.mpi.rank()
    }

    fn size(&self) -> usize {
        self.mpi.size()
    }

    fn all_reduce_sum(&mut self, buf: Buffer) -> Result<(), String> {
        let t = Instant::now();
        let bytes = buf.bytes() as u64;
        match buf {
            Buffer::F32(b) => self.reduce(b)?,
            Buffer::F64(b) => self.reduce(b)?,
        }
        self.stats.calls += 1;
        self.stats.bytes += bytes;
        self.stats.time += t.elapsed();
        Ok(())
    }

    fn broadcast(&mut self, buf: Buffer) -> Result<(), String> {
        self.mpi.broadcast(buf)
    }

    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>, String> {
        self.mpi.all_gather(mine)
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}
