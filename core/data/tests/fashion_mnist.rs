//! Fashion-MNIST: a small dataset of the same files written here (read
//! exactly, batched; each inconsistency one error naming the file), and the
//! files Debian's package `dataset-fashion-mnist` installs.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use flate2::{write::GzEncoder, Compression};
use ocannl_data::{
    batches::Batches,
    fashion_mnist::{FashionMnist, Labels, Layout, Split, CLASSES, PIXELS},
};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fashion-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn idx_bytes(dims: &[u32], cells: &[u8]) -> Vec<u8> {
    let mut b = vec![0, 0, 0x08, dims.len() as u8];
    for d in dims {
        b.extend(d.to_be_bytes());
    }
    b.extend(cells);
    b
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(vec![], Compression::fast());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}

/// `n` images whose pixel `p` of image `i` is `(i * 7 + p) % 256`.
fn images(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| (0..PIXELS).map(move |p| ((i * 7 + p) % 256) as u8))
        .collect()
}

/// A dataset directory: 3 training items (gzipped files) and 2 test items
/// (plain files, named without `.gz`).
fn small_dataset(name: &str) -> PathBuf {
    let dir = scratch(name);
    let w = |file: &str, bytes: Vec<u8>| std::fs::write(dir.join(file), bytes).expect("write");
    w(
        "train-images-idx3-ubyte.gz",
        gzip(&idx_bytes(&[3, 28, 28], &images(3))),
    );
    w(
        "train-labels-idx1-ubyte.gz",
        gzip(&idx_bytes(&[3], &[9, 0, 4])),
    );
    w(
        "t10k-images-idx3-ubyte",
        idx_bytes(&[2, 28, 28], &images(2)),
    );
    w("t10k-labels-idx1-ubyte", idx_bytes(&[2], &[1, 7]));
    dir
}

#[test]
fn a_small_dataset_reads_exactly() {
    let dir = small_dataset("small");
    let data = FashionMnist::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        data.train,
        Split::new(images(3), vec![9, 0, 4]).expect("split")
    );
    assert_eq!(data.test, Split::new(images(2), vec![1, 7]).expect("split"));
    assert_eq!(data.train.len(), 3);
    assert_eq!(data.train.label(2), Some(4));
    assert_eq!(data.train.label(3), None);
    assert_eq!(
        data.test.image(1).map(|p| p[..3].to_vec()),
        Some(vec![7, 8, 9])
    );
    assert_eq!(data.test.image(2), None);

    // Batches: images in [0, 1], flat or channels last; labels one-hot or
    // as ids.
    let x = data
        .train
        .images_batch(&[2, 0], Layout::Flat)
        .expect("images");
    assert_eq!(x.dims, vec![2, 784]);
    assert_eq!(x.to_f64()[0], f64::from(14f32 / 255.0));
    assert_eq!(x.to_f64()[784], 0.0);
    assert_eq!(x.to_f64()[784 + 255], 1.0);
    assert!(x.to_f64().iter().all(|v| (0.0..=1.0).contains(v)));
    let hwc = data
        .train
        .images_batch(&[2, 0], Layout::Hwc)
        .expect("images");
    assert_eq!(hwc.dims, vec![2, 28, 28, 1]);
    assert_eq!(hwc.to_f64(), x.to_f64());
    let y = data
        .train
        .labels_batch(&[2, 0], Labels::OneHot)
        .expect("labels");
    assert_eq!(y.dims, vec![2, 10]);
    let mut want = vec![0.0; 20];
    want[4] = 1.0;
    want[10 + 9] = 1.0;
    assert_eq!(y.to_f64(), want);
    let ids = data
        .train
        .labels_batch(&[2, 0], Labels::ClassIds)
        .expect("labels");
    assert_eq!(
        (ids.dims.clone(), ids.to_f64()),
        (vec![2, 1], vec![4.0, 9.0])
    );
    let e = data
        .train
        .images_batch(&[3], Layout::Flat)
        .expect_err("past the end")
        .to_string();
    assert!(e.contains("index 3"), "{e}");
}

#[test]
fn inconsistent_datasets() {
    // A label that is not a class.
    let dir = small_dataset("label");
    let labels = dir.join("train-labels-idx1-ubyte.gz");
    std::fs::write(&labels, gzip(&idx_bytes(&[3], &[9, 10, 4]))).expect("write");
    let e = FashionMnist::load(&dir).expect_err("label 10").to_string();
    assert_eq!(
        e,
        format!(
            "{}: label 10 of item 1 is not a class (0 to 9)",
            labels.display()
        )
    );
    // Fewer labels than images.
    std::fs::write(&labels, gzip(&idx_bytes(&[2], &[9, 0]))).expect("write");
    let e = FashionMnist::load(&dir)
        .expect_err("2 labels, 3 images")
        .to_string();
    assert_eq!(
        e,
        format!(
            "{} has 2 labels but {} has 3 images",
            labels.display(),
            dir.join("train-images-idx3-ubyte.gz").display()
        )
    );
    // Images that are not 28x28.
    let dir = small_dataset("size");
    let images_file = dir.join("t10k-images-idx3-ubyte");
    std::fs::write(
        &images_file,
        idx_bytes(&[2, 28, 27], &images(2)[..2 * 28 * 27]),
    )
    .expect("write");
    let e = FashionMnist::load(&dir)
        .expect_err("27 columns")
        .to_string();
    assert!(
        e.starts_with(&format!(
            "{} has dims [2, 28, 27] where [*, 28, 28] are expected",
            images_file.display()
        )),
        "{e}"
    );
    // A missing file: named as looked for, gzipped.
    let dir = scratch("empty");
    let e = FashionMnist::load(&dir).expect_err("no files").to_string();
    assert!(
        e.starts_with(&format!(
            "cannot read {}",
            dir.join("train-images-idx3-ubyte.gz").display()
        )),
        "{e}"
    );
    assert!(
        !e.contains("apt-get"),
        "a directory of the user's has no package: {e}"
    );
}

/// The files Debian's package installs (`scripts/bootstrap.sh` installs
/// it; without it this fails, saying which package to install).
#[test]
fn the_installed_dataset() {
    let data = FashionMnist::load_default().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(data.train.len(), 60_000);
    assert_eq!(data.test.len(), 10_000);
    assert_eq!(data.train.image_bytes().len(), 60_000 * 784);
    assert_eq!(data.train.labels()[..10], [9, 0, 0, 3, 0, 2, 7, 2, 5, 5]);
    assert_eq!(data.test.labels()[..10], [9, 2, 1, 1, 6, 1, 4, 6, 5, 7]);
    assert_eq!(CLASSES[9], "Ankle boot");
    // Balanced classes: 6,000 training and 1,000 test items each.
    for (split, each) in [(&data.train, 6_000), (&data.test, 1_000)] {
        let mut counts = [0usize; 10];
        for &l in split.labels() {
            counts[usize::from(l)] += 1;
        }
        assert_eq!(counts, [each; 10]);
    }
    // The first training image (an ankle boot), by the sum of its bytes.
    let first = data.train.image(0).expect("image 0");
    assert_eq!(first.iter().map(|&p| u64::from(p)).sum::<u64>(), 76_247);
    // One epoch of batches of 256 covers 234 full batches.
    let mut batches = Batches::new(data.train.len(), 256, 1).expect("batches");
    let mut n = 0;
    for indices in batches.epoch(0) {
        n += indices.len();
    }
    assert_eq!(n, 234 * 256);
}
