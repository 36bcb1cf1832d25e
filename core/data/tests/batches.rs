//! Minibatches: every index once per epoch, a new order each epoch, the
//! same order for the same seed, the last partial batch dropped or kept;
//! batches gathered into tensors.

use ocannl_data::batches::{gather, one_hot, Batches, Last};
use ocannl_runtime::HostTensor;

/// The batches of epoch `e`, copied.
fn epoch(b: &mut Batches, e: u64) -> Vec<Vec<usize>> {
    b.epoch(e).map(<[usize]>::to_vec).collect()
}

#[test]
fn every_index_once_per_epoch() {
    let mut b = Batches::new(103, 10, 7).expect("batches").last(Last::Keep);
    for e in 0..5 {
        let batches = epoch(&mut b, e);
        assert_eq!(batches.len(), 11);
        assert_eq!(b.per_epoch(), 11);
        let mut all: Vec<usize> = batches.concat();
        all.sort_unstable();
        assert_eq!(all, (0..103).collect::<Vec<_>>(), "epoch {e}");
    }
}

#[test]
fn last_partial_batch() {
    // Dropped by default: 10 full batches, 3 items left out, a different 3
    // each epoch.
    let mut b = Batches::new(103, 10, 7).expect("batches");
    assert_eq!(b.per_epoch(), 10);
    let mut left_out = vec![];
    for e in 0..3 {
        let batches = epoch(&mut b, e);
        assert_eq!(batches.len(), 10);
        assert!(batches.iter().all(|x| x.len() == 10));
        let mut seen: Vec<usize> = batches.concat();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 100, "an index repeated in epoch {e}");
        left_out.push((0..103).filter(|i| !seen.contains(i)).collect::<Vec<_>>());
    }
    assert!(left_out[0] != left_out[1] || left_out[1] != left_out[2]);
    // Kept: the same order, then a last batch of the 3.
    let mut k = Batches::new(103, 10, 7).expect("batches").last(Last::Keep);
    let kept = epoch(&mut k, 4);
    let dropped = epoch(&mut b, 4);
    assert_eq!(kept.len(), 11);
    assert_eq!(kept[..10], dropped[..]);
    assert_eq!(kept[10].len(), 3);
    // A batch size that divides the items: no partial batch either way.
    let mut d = Batches::new(100, 10, 7).expect("batches").last(Last::Keep);
    assert_eq!(d.per_epoch(), 10);
    assert!(epoch(&mut d, 0).iter().all(|x| x.len() == 10));
    // More than the items: nothing when dropped, one batch of all when kept.
    let mut big = Batches::new(5, 8, 1).expect("batches");
    assert_eq!(big.per_epoch(), 0);
    assert!(epoch(&mut big, 0).is_empty());
    let mut big = big.last(Last::Keep);
    assert_eq!(big.per_epoch(), 1);
    let one = epoch(&mut big, 0);
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].len(), 5);
    // No items, no batches.
    let mut none = Batches::new(0, 4, 1).expect("batches").last(Last::Keep);
    assert!(none.is_empty());
    assert!(epoch(&mut none, 0).is_empty());
}

#[test]
fn orders_by_seed_and_epoch() {
    let mut a = Batches::new(50, 5, 42).expect("batches");
    let mut same = Batches::new(50, 5, 42).expect("batches");
    let mut other = Batches::new(50, 5, 43).expect("batches");
    let first = epoch(&mut a, 0);
    let second = epoch(&mut a, 1);
    assert_ne!(first, second, "the same order in two epochs");
    assert_ne!(first, epoch(&mut other, 0), "two seeds give the same order");
    // The order of an epoch depends only on the seed and the epoch: not on
    // what was asked before.
    assert_eq!(epoch(&mut same, 1), second);
    assert_eq!(epoch(&mut same, 0), first);
    assert_eq!(epoch(&mut a, 0), first);
    // Shuffled, not the identity.
    assert_ne!(first.concat(), (0..50).collect::<Vec<_>>());
}

#[test]
fn batch_size_zero_is_an_error() {
    let e = Batches::new(10, 0, 1)
        .expect_err("batch size 0")
        .to_string();
    assert!(e.contains("the batch size is 0"), "{e}");
}

#[test]
fn gathered_tensors() {
    // Three rows of 2x2 cells.
    let table: Vec<u8> = (0..12).collect();
    let t = gather(&table, &[2, 2], &[2, 0], |c| f32::from(c) / 2.0).expect("gather");
    assert_eq!(
        t,
        HostTensor::f32(vec![2, 2, 2], vec![4.0, 4.5, 5.0, 5.5, 0.0, 0.5, 1.0, 1.5])
    );
    let e = gather(&table, &[2, 2], &[3], f32::from)
        .expect_err("past the end")
        .to_string();
    assert!(
        e.contains("index 3 in a batch of a table of 3 items"),
        "{e}"
    );

    let labels = [2u8, 0, 1];
    let t = one_hot(&labels, 3, &[0, 2, 2]).expect("one-hot");
    assert_eq!(t.dims, vec![3, 3]);
    assert_eq!(
        t.to_f64(),
        vec![0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    );
    let e = one_hot(&labels, 2, &[0])
        .expect_err("label 2 of 2 classes")
        .to_string();
    assert!(
        e.contains("label 2 of item 0 is not one of 2 classes"),
        "{e}"
    );
    let e = one_hot(&labels, 3, &[5])
        .expect_err("past the end")
        .to_string();
    assert!(e.contains("index 5 in a batch of 3 labels"), "{e}");
}

#[test]
fn dropout_masks_keep_their_share_and_change_each_step() {
    use ocannl_data::batches::dropout_mask;
    let a = dropout_mask(&[100, 50], 0.25, 7, 0).unwrap();
    assert_eq!(a.dims, [100, 50]);
    let kept = a.to_f64().iter().filter(|&&x| x == 1.0).count();
    assert!(a.to_f64().iter().all(|&x| x == 0.0 || x == 1.0));
    assert!((3550..=3950).contains(&kept), "{kept} of 5000 kept");
    assert_eq!(a, dropout_mask(&[100, 50], 0.25, 7, 0).unwrap());
    assert_ne!(a, dropout_mask(&[100, 50], 0.25, 7, 1).unwrap());
    assert_ne!(a, dropout_mask(&[100, 50], 0.25, 8, 0).unwrap());
    assert!(dropout_mask(&[2], 0.0, 1, 1)
        .unwrap()
        .to_f64()
        .iter()
        .all(|&x| x == 1.0));
    assert!(dropout_mask(&[2], 1.0, 1, 1)
        .unwrap_err()
        .to_string()
        .contains("[0, 1)"));
    assert!(dropout_mask(&[2], -0.1, 1, 1).is_err());
}
