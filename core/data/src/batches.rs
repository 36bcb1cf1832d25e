//! Minibatches: the items of a dataset in a new seeded order each epoch,
//! cut into batches of a fixed size, and batches gathered into host tensors.
//!
//! A compiled train step has a fixed batch size, so the last, partial batch
//! of an epoch is dropped by default ([`Last::Drop`]); [`Last::Keep`] yields
//! it too (for evaluation, where every item counts and the forward function
//! can be called with a smaller batch, or padded). Dropped items are not
//! lost for good: each epoch's order is new, so they are in other epochs'
//! batches.
//!
//! The order of epoch `e` depends only on the seed and `e`
//! ([`Batches::epoch`]): a run resumed at epoch `e` sees the batches it would
//! have seen. The shuffle is Fisher-Yates driven by the project's generator,
//! [`ocannl_ops::SplitMix64`].

use ocannl_ops::{rng::mix, SplitMix64};
use ocannl_runtime::{Error, HostTensor};

/// What to do with the last batch of an epoch when the batch size does not
/// divide the number of items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Last {
    /// Leave the remaining items out of this epoch (every batch is full).
    #[default]
    Drop,
    /// Yield them as a smaller last batch.
    Keep,
}

/// Batches of indices `0..len` in a seeded order, new each epoch.
#[derive(Clone, Debug)]
pub struct Batches {
    len: usize,
    batch_size: usize,
    last: Last,
    seed: u64,
    order: Vec<usize>,
}

impl Batches {
    /// Batches of `batch_size` indices of `len` items, shuffled by `seed`,
    /// the last partial batch dropped. A batch size of 0 is an error.
    pub fn new(len: usize, batch_size: usize, seed: u64) -> Result<Self, Error> {
        if batch_size == 0 {
            return Err(Error::argument(
                "the batch size is 0; a batch has at least one item",
            ));
        }
        Ok(Batches {
            len,
            batch_size,
            last: Last::Drop,
            seed,
            order: (0..len).collect(),
        })
    }

    /// The same batches, with the last partial batch handled as `last` says.
    pub fn last(mut self, last: Last) -> Self {
        self.last = last;
        self
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The size of a full batch.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// The number of batches of an epoch (a last partial batch counted only
    /// when kept).
    pub fn per_epoch(&self) -> usize {
        match self.last {
            Last::Drop => self.len / self.batch_size,
            Last::Keep => self.len.div_ceil(self.batch_size),
        }
    }

    /// The batches of epoch `epoch`: every index once (the last partial
    /// batch's left out when dropped), in an order that depends only on the
    /// seed and `epoch`.
    pub fn epoch(&mut self, epoch: u64) -> std::slice::Chunks<'_, usize> {
        // Each epoch shuffles the identity, so its order depends on nothing
        // before it.
        for (i, o) in self.order.iter_mut().enumerate() {
            *o = i;
        }
        let mut rng = SplitMix64::new(mix(self.seed ^ mix(epoch.wrapping_add(1))));
        for i in (1..self.len).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            self.order.swap(i, j);
        }
        let used = match self.last {
            Last::Drop => self.len - self.len % self.batch_size,
            Last::Keep => self.len,
        };
        self.order[..used].chunks(self.batch_size)
    }
}

/// The rows `indices` of a table of rows of `row_dims` cells each, as an
/// f32 tensor of dims `[indices.len(), row_dims...]`, each cell converted by
/// `value`. An index past the table is an error.
pub fn gather<T: Copy>(
    table: &[T],
    row_dims: &[usize],
    indices: &[usize],
    value: impl Fn(T) -> f32,
) -> Result<HostTensor, Error> {
    let row: usize = row_dims.iter().product();
    let rows = table.len().checked_div(row).unwrap_or(0);
    if let Some(&i) = indices.iter().find(|&&i| i >= rows) {
        return Err(Error::argument(format!(
            "index {i} in a batch of a table of {rows} items"
        )));
    }
    let mut data = Vec::with_capacity(indices.len().saturating_mul(row));
    for &i in indices {
        data.extend(table[i * row..(i + 1) * row].iter().map(|&c| value(c)));
    }
    let mut dims = vec![indices.len() as u64];
    dims.extend(row_dims.iter().map(|&d| d as u64));
    Ok(HostTensor::f32(dims, data))
}

/// The class ids `labels[indices]` as a one-hot f32 tensor of dims
/// `[indices.len(), classes]` (1 at the item's class, 0 elsewhere). An index
/// past the labels, or a label not below `classes`, is an error.
pub fn one_hot(labels: &[u8], classes: usize, indices: &[usize]) -> Result<HostTensor, Error> {
    let mut data = vec![0.0; indices.len() * classes];
    for (b, &i) in indices.iter().enumerate() {
        let label = *labels.get(i).ok_or_else(|| {
            Error::argument(format!("index {i} in a batch of {} labels", labels.len()))
        })? as usize;
        if label >= classes {
            return Err(Error::argument(format!(
                "label {label} of item {i} is not one of {classes} classes"
            )));
        }
        data[b * classes + label] = 1.0;
    }
    Ok(HostTensor::f32(
        vec![indices.len() as u64, classes as u64],
        data,
    ))
}

/// A dropout mask of `dims`: each cell 1 (kept) with probability
/// `1 - rate`, else 0, from the generator seeded by `seed` and `step`, so
/// that each train step draws a new mask and a run is reproducible. Passed
/// as a data input to `ocannl::nn::dropout` in the training loss (the
/// forward routine for inference has no dropout). A rate outside `[0, 1)`
/// is an error.
pub fn dropout_mask(dims: &[u64], rate: f64, seed: u64, step: u64) -> Result<HostTensor, Error> {
    if !(0.0..1.0).contains(&rate) {
        return Err(Error::argument(format!(
            "a dropout rate is in [0, 1), not {rate}"
        )));
    }
    let cells = dims
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::argument(format!("a mask of dims {dims:?} has too many cells")))?;
    let mut rng = SplitMix64::new(mix(seed ^ mix(step.wrapping_add(0x5eed))));
    let data = (0..cells)
        .map(|_| if rng.next_f64() < rate { 0.0 } else { 1.0 })
        .collect();
    Ok(HostTensor::f32(dims.to_vec(), data))
}
