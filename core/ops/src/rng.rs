//! SplitMix64 (Steele, Lea and Flood), the project's one random generator.
//!
//! `uniform` and `normal` initializations are counter-based: the value of
//! cell `i` is [`Dist::value`]`(seed, i)` ([`uniform01`] of the cell's index,
//! or Box–Muller of the indices `2i` and `2i + 1`), so it depends on nothing
//! else (not on the order the cells are computed in, nor on the target).
//! The loop lowering emits the same arithmetic with the constants below;
//! the interpreter calls [`Dist::value`]. [`SplitMix64`] is the sequential
//! form, for generated data.

/// The increment of the state (the golden ratio in 64 bits).
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
/// The first and second multipliers of the finalizer.
pub const MIX1: u64 = 0xBF58_476D_1CE4_E5B9;
pub const MIX2: u64 = 0x94D0_49BB_1331_11EB;
/// The shifts of the finalizer: `x ^= x >> s` before each multiplication,
/// and once more at the end.
pub const SHIFTS: [u32; 3] = [30, 27, 31];
/// The number of top bits kept for a float in `[0, 1)`.
pub const FLOAT_BITS: u32 = 24;

/// SplitMix64's output function.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> SHIFTS[0])).wrapping_mul(MIX1);
    z = (z ^ (z >> SHIFTS[1])).wrapping_mul(MIX2);
    z ^ (z >> SHIFTS[2])
}

/// The top [`FLOAT_BITS`] bits of `z` as a float in `[0, 1)` (exact in f32).
pub fn to_unit(z: u64) -> f64 {
    (z >> (64 - FLOAT_BITS)) as f64 / (1u64 << FLOAT_BITS) as f64
}

/// The value of cell `index` of `uniform(seed)` in `[0, 1)`: the
/// `index + 1`-th output of a SplitMix64 stream started at
/// `seed + index * GOLDEN`.
pub fn uniform01(seed: u64, index: u64) -> f64 {
    to_unit(mix(index
        .wrapping_mul(GOLDEN)
        .wrapping_add(seed)
        .wrapping_add(GOLDEN)))
}

/// A standard normal value from the counters `2 * index` and
/// `2 * index + 1` (Box–Muller's cosine branch): with `u1 =
/// uniform01(seed, 2i)` and `u2 = uniform01(seed, 2i + 1)`,
/// `sqrt(-2 ln(1 - u1)) * cos(2π u2)`. `1 - u1` lies in `(0, 1]`, so the
/// logarithm is finite; with [`FLOAT_BITS`] bits the values stay within
/// `sqrt(2 · 24 ln 2)` ≈ 5.77 standard deviations.
pub fn normal01(seed: u64, index: u64) -> f64 {
    let u1 = uniform01(seed, index.wrapping_mul(2));
    let u2 = uniform01(seed, index.wrapping_mul(2).wrapping_add(1));
    (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The distribution of a counter-based initialization's cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    /// Uniform in `[low, high)` (the `uniform` op).
    Uniform { low: f64, high: f64 },
    /// Normal of mean `mean` and standard deviation `std` (the `normal` op).
    Normal { mean: f64, std: f64 },
}

impl Dist {
    /// The value of cell `index` drawn with `seed`.
    pub fn value(self, seed: u64, index: u64) -> f64 {
        match self {
            Dist::Uniform { low, high } => low + (high - low) * uniform01(seed, index),
            Dist::Normal { mean, std } => mean + std * normal01(seed, index),
        }
    }
}

/// A sequential SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix(self.0)
    }

    /// A float in `[0, 1)` with [`FLOAT_BITS`] bits.
    pub fn next_f64(&mut self) -> f64 {
        to_unit(self.next_u64())
    }

    /// An integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_and_counter_agree() {
        // The counter form is the stream's first output from a shifted seed.
        for seed in [0u64, 7, u64::MAX] {
            for i in [0u64, 1, 1000] {
                let mut s = SplitMix64::new(seed.wrapping_add(i.wrapping_mul(GOLDEN)));
                assert_eq!(s.next_f64(), uniform01(seed, i));
            }
        }
    }

    #[test]
    fn normal_moments() {
        // 200k draws: mean within 0.01, variance within 0.02 of 1 (the
        // standard errors are 0.0022 and 0.0032), and the tail as a normal's
        // (|z| > 2 in 4.55% of draws).
        let n = 200_000u64;
        let z: Vec<f64> = (0..n).map(|i| normal01(7, i)).collect();
        let mean = z.iter().sum::<f64>() / n as f64;
        let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        let tail = z.iter().filter(|x| x.abs() > 2.0).count() as f64 / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
        assert!((tail - 0.0455).abs() < 0.003, "tail {tail}");
        assert!(z.iter().all(|x| x.is_finite() && x.abs() < 5.8));
        let d = Dist::Normal {
            mean: 1.0,
            std: 0.02,
        };
        assert_eq!(d.value(7, 5), 1.0 + 0.02 * normal01(7, 5));
    }

    #[test]
    fn known_values() {
        // SplitMix64's reference output for seed 0 (first value).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let x = uniform01(42, 3);
        assert!((0.0..1.0).contains(&x));
    }
}
