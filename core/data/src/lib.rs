//! Datasets for training, in plain Rust (no MLIR): files read with every
//! check, and minibatches as the host tensors a train step takes.
//!
//! - [`idx`]: IDX files (MNIST's format), gzipped or plain, with the magic
//!   number, dims and length checked; an error names the file. Gzip is
//!   read with `flate2` (rust-lang's well-kept crate, on the pure-Rust
//!   `miniz_oxide` backend).
//! - [`fashion_mnist`]: Fashion-MNIST from Debian's package
//!   `dataset-fashion-mnist` ([`FashionMnist::load_default`]) or a
//!   directory; images as f32 in `[0, 1]`, channels last, labels as class
//!   ids or one-hot.
//! - [`words`]: the word list of Debian's package `wamerican`, lowercase
//!   words `a` to `z` split into training and test words, and their tokens.
//! - [`batches`]: batches of indices in a seeded order, new each epoch (the
//!   last partial batch dropped by default: a compiled train step has a
//!   fixed batch size), and batches gathered into [`HostTensor`]s.
//!
//! A file a Debian package installs that is missing or damaged is one error
//! naming the file and the package to install; `scripts/bootstrap.sh`
//! installs both packages.
//!
//! ```no_run
//! use ocannl_data::{batches::Batches, fashion_mnist::{FashionMnist, Labels, Layout}};
//!
//! let data = FashionMnist::load_default()?; // 60,000 training, 10,000 test items
//! let mut batches = Batches::new(data.train.len(), 64, 42)?; // batch 64, seed 42
//! for epoch in 0..2 {
//!     for indices in batches.epoch(epoch) {
//!         let x = data.train.images_batch(indices, Layout::Flat)?; // 64 x 784
//!         let y = data.train.labels_batch(indices, Labels::OneHot)?; // 64 x 10
//!         // trainer.step(&[x, y], lr)?;
//!         # let _ = (x, y);
//!     }
//! }
//! # Ok::<(), ocannl_runtime::Error>(())
//! ```
//!
//! Architecture invariant: no MLIR; the only random generator is
//! [`ocannl_ops::SplitMix64`].
//!
//! [`HostTensor`]: ocannl_runtime::HostTensor

pub mod batches;
pub mod fashion_mnist;
mod file;
pub mod idx;
pub mod words;

pub use batches::{Batches, Last};
pub use fashion_mnist::FashionMnist;
pub use words::Words;
