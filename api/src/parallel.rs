//! Joining a data-parallel job: the collective a program's ranks train
//! through ([`crate::Trainer::new_data_parallel`]), and the checks a
//! program launched by `mpirun` makes.
//!
//! A job is `mpirun -n N PROGRAM --data-parallel ...`: N processes, one
//! rank each, on one host or several (`--host`, `--hostfile`). On the CPU
//! the ranks all-reduce through MPI; on CUDA through NCCL, one GPU per
//! rank (GPU number k for the k-th rank on its host, for training and for
//! NCCL alike), the ranks found through MPI.
//! Every collective is bounded by `OCANNL_COLLECTIVE_TIMEOUT` seconds (300
//! by default): past it, the job ends with an error naming the collective,
//! never hangs.

use ocannl_collective::Collective;

use crate::{Device, Error};

/// The collective of this process's rank for training on `device`: MPI's
/// ranks on the CPU, NCCL over them on CUDA. Run without a launcher, it is
/// a job of one rank.
pub fn join(device: &Device) -> Result<Box<dyn Collective>, Error> {
    #[cfg(feature = "mpi")]
    {
        use ocannl_collective_mpi::{nccl, Mpi};
        let timeout = ocannl_collective::timeout_from_env()?;
        let mpi = Mpi::init(timeout).map_err(Error::from)?;
        if device.name() == Device::CUDA.name() {
            // One GPU per rank: its place among the ranks on its host.
            ocannl_gpu::use_device(mpi.local_rank())
                .map_err(|e| Error::DeviceUnavailable(e.to_string()))?;
            nccl(mpi).map_err(Error::from)
        } else {
            Ok(Box::new(mpi))
        }
    }
    #[cfg(not(feature = "mpi"))]
    {
        let _ = device;
        Err(Error::Collective(
            "data-parallel training needs MPI: this build of ocannl has no `mpi` feature".into(),
        ))
    }
}

/// Fails when this process is one of several ranks an MPI launcher started
/// but `data_parallel` is off: each rank would train the whole model
/// alone, and they would write the same files.
pub fn check_launch(data_parallel: bool) -> Result<(), Error> {
    match ocannl_collective::launched_ranks() {
        Some(n) if n > 1 && !data_parallel => Err(Error::Invalid(format!(
            "this process is one of {n} ranks started by an MPI launcher, but data parallelism is off: add --data-parallel (or run one process)"
        ))),
        _ => Ok(()),
    }
}

/// The items of rank `rank` in a global batch that starts at item
/// `start`, `per_rank` items per rank, rank after rank.
pub fn shard(start: usize, per_rank: usize, rank: usize) -> std::ops::Range<usize> {
    let s = start + rank * per_rank;
    s..s + per_rank
}
