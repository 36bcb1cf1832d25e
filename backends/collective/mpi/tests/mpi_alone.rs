//! MPI in one process started without a launcher (a job of one rank), and
//! NCCL where it cannot run: errors, not panics.

use std::time::Duration;

use ocannl_collective::{check_same, nccl_unavailable, Buffer, Collective};
use ocannl_collective_mpi::{nccl, Mpi};

#[test]
fn one_rank_without_a_launcher_and_nccl_refused_cleanly() {
    let mut mpi = Mpi::init(Duration::from_secs(30)).expect("MPI initializes alone");
    assert_eq!((mpi.rank(), mpi.size(), mpi.local_rank()), (0, 1, 0));
    let mut x = [1.5f32, -2.0];
    mpi.all_reduce_sum(Buffer::F32(&mut x)).unwrap();
    assert_eq!(x, [1.5, -2.0]);
    let mut y = [4.0f64];
    mpi.broadcast(Buffer::F64(&mut y)).unwrap();
    assert_eq!(y, [4.0]);
    assert_eq!(mpi.all_gather(b"abc").unwrap(), vec![b"abc".to_vec()]);
    check_same(&mut mpi, "the options", b"x").unwrap();
    let s = mpi.stats();
    assert_eq!((s.calls, s.bytes), (1, 8));
    // MPI cannot be initialized twice.
    let e = Mpi::init(Duration::from_secs(1))
        .err()
        .expect("a second init");
    assert_eq!(e.kind(), ocannl_collective::Kind::Join);
    match nccl_unavailable() {
        // No GPU, driver or NCCL here: joining says why.
        Some(why) => {
            assert!(why.starts_with("no "), "{why}");
            let e = nccl(mpi).err().expect("NCCL cannot run here");
            assert_eq!(e.to_string(), why);
            assert_eq!(e.kind(), ocannl_collective::Kind::Join);
        }
        // A GPU with NCCL: one rank reduces to itself.
        None => {
            let mut nccl = nccl(mpi).unwrap();
            let mut z = [3.0f32, 1.0];
            nccl.all_reduce_sum(Buffer::F32(&mut z)).unwrap();
            assert_eq!(z, [3.0, 1.0]);
        }
    }
}
