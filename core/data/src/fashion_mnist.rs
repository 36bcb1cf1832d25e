//! Fashion-MNIST (Zalando): 28x28 grayscale images of clothes in 10
//! classes, 60,000 for training and 10,000 for testing, as Debian's package
//! `dataset-fashion-mnist` installs them under
//! `/usr/share/datasets/fashion-mnist` (four gzipped IDX files).
//!
//! Images are kept as the files' bytes and become tensors batch by batch:
//! f32 values in `[0, 1]` (a byte over 255), channels last
//! ([`Layout::Hwc`]: `B x 28 x 28 x 1`) or flat ([`Layout::Flat`]:
//! `B x 784`, the same cells in the same order). Labels are class ids
//! `0..10` ([`CLASSES`] names them), as tensors of ids or one-hot.

use std::path::{Path, PathBuf};

use ocannl_runtime::{Error, HostTensor};

use crate::{
    batches::{gather, one_hot},
    file::{with_package_hint, Failure},
    idx,
};

/// Where Debian's package installs the files.
pub const DEFAULT_DIR: &str = "/usr/share/datasets/fashion-mnist";
/// The Debian package that installs them.
pub const PACKAGE: &str = "dataset-fashion-mnist";
/// The files of a split: images, labels (looked for as `NAME.gz`, then as
/// `NAME` uncompressed).
pub const TRAIN_FILES: [&str; 2] = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte"];
pub const TEST_FILES: [&str; 2] = ["t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"];
/// The sizes of an image.
pub const ROWS: usize = 28;
pub const COLS: usize = 28;
pub const PIXELS: usize = ROWS * COLS;
/// The classes, by id.
pub const CLASSES: [&str; 10] = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
];

/// How a batch of images is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// `B x 784`: each image's rows one after the other (for an MLP:
    /// `data("x", "B|784")`).
    #[default]
    Flat,
    /// `B x 28 x 28 x 1`: height, width, one channel (for convolutions:
    /// `data("x", "B|28,28,1")`). The same cells as `Flat`.
    Hwc,
}

/// How a batch of labels is given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Labels {
    /// `B x 10`: 1 at the item's class, 0 elsewhere.
    #[default]
    OneHot,
    /// `B x 1`: the class id as a number.
    ClassIds,
}

/// The images and labels of a split (every label below 10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    images: Vec<u8>,
    labels: Vec<u8>,
}

impl Split {
    /// A split from images (`PIXELS` bytes each, row-major) and their
    /// labels; a length that does not fit or a label not below 10 is an
    /// error.
    pub fn new(images: Vec<u8>, labels: Vec<u8>) -> Result<Self, Error> {
        if Some(images.len()) != labels.len().checked_mul(PIXELS) {
            return Err(Error::argument(format!(
                "{} bytes of images for {} labels; an image has {PIXELS} bytes",
                images.len(),
                labels.len()
            )));
        }
        if let Some(i) = labels.iter().position(|&l| usize::from(l) >= CLASSES.len()) {
            return Err(Error::argument(format!(
                "label {} of item {i} is not a class (0 to {})",
                labels[i],
                CLASSES.len() - 1
            )));
        }
        Ok(Split { images, labels })
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The bytes of image `i` (0 black ... 255 white, row-major); `None`
    /// past the end.
    pub fn image(&self, i: usize) -> Option<&[u8]> {
        self.images.get(i * PIXELS..(i + 1) * PIXELS)
    }

    /// The class id of item `i`; `None` past the end.
    pub fn label(&self, i: usize) -> Option<u8> {
        self.labels.get(i).copied()
    }

    /// Every image's bytes, one after the other.
    pub fn image_bytes(&self) -> &[u8] {
        &self.images
    }

    /// Every label.
    pub fn labels(&self) -> &[u8] {
        &self.labels
    }

    /// The images of a batch as f32 values in `[0, 1]`, laid out as `layout`
    /// says. An index past the end is an error.
    pub fn images_batch(&self, indices: &[usize], layout: Layout) -> Result<HostTensor, Error> {
        let dims: &[usize] = match layout {
            Layout::Flat => &[PIXELS],
            Layout::Hwc => &[ROWS, COLS, 1],
        };
        gather(&self.images, dims, indices, |p| f32::from(p) / 255.0)
    }

    /// The labels of a batch as f32 tensors, as `labels` says. An index past
    /// the end is an error.
    pub fn labels_batch(&self, indices: &[usize], labels: Labels) -> Result<HostTensor, Error> {
        match labels {
            Labels::OneHot => one_hot(&self.labels, CLASSES.len(), indices),
            Labels::ClassIds => gather(&self.labels, &[1], indices, f32::from),
        }
    }
}

/// Fashion-MNIST's two splits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FashionMnist {
    pub train: Split,
    pub test: Split,
}

impl FashionMnist {
    /// Reads the four files from `dir` (each `NAME.gz`, or `NAME` when only
    /// that exists): Fashion-MNIST's are 60,000 training and 10,000 test
    /// items (MNIST's files read as well). A split's images file must have
    /// dims `[N, 28, 28]` and its labels file `[N]`.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        Self::load_with(dir, None)
    }

    /// Reads the files Debian's package installs ([`DEFAULT_DIR`]); an
    /// error also says to install (or reinstall) the package.
    pub fn load_default() -> Result<Self, Error> {
        Self::load_with(Path::new(DEFAULT_DIR), Some(PACKAGE))
    }

    fn load_with(dir: &Path, package: Option<&str>) -> Result<Self, Error> {
        Ok(FashionMnist {
            train: read_split(dir, TRAIN_FILES, package)?,
            test: read_split(dir, TEST_FILES, package)?,
        })
    }
}

/// `dir/NAME.gz`, or `dir/NAME` when only that exists.
fn file(dir: &Path, name: &str) -> PathBuf {
    let gz = dir.join(format!("{name}.gz"));
    let plain = dir.join(name);
    if !gz.exists() && plain.exists() {
        plain
    } else {
        gz
    }
}

fn read_split(
    dir: &Path,
    [images, labels]: [&str; 2],
    package: Option<&str>,
) -> Result<Split, Error> {
    let (images, labels) = (file(dir, images), file(dir, labels));
    let hint = |error: Error| match package {
        Some(p) => with_package_hint((Failure::Other, error), p),
        None => error,
    };
    let read = |path: &Path, expect: &[Option<usize>]| match package {
        Some(p) => idx::read_installed(path, expect, p),
        None => idx::read(path, expect),
    };
    let image_data = read(&images, &[None, Some(ROWS), Some(COLS)])?.data;
    let label_data = read(&labels, &[None])?.data;
    if image_data.len() / PIXELS != label_data.len() {
        return Err(hint(Error::format(format!(
            "{} has {} labels but {} has {} images",
            labels.display(),
            label_data.len(),
            images.display(),
            image_data.len() / PIXELS
        ))));
    }
    Split::new(image_data, label_data).map_err(|e| {
        hint(
            e.as_kind(ocannl_runtime::Kind::Format)
                .prefixed(labels.display()),
        )
    })
}
