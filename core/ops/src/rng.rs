//! SplitMix64 (Steele, Lea and Flood), the project's one random generator.
//!
//! `uniform` and `normal` initializations are counter-based: the value of
//! cell `i` is [`Dist::value`]`(generator, seed, i)` (the generator's value
//! at the cell's index, or Box–Muller of its values at `2i` and `2i + 1`),
//! so it depends on nothing else (not on the order the cells are computed
//! in, nor on the target). The loop lowering emits the same arithmetic with
//! the constants below; the interpreter calls [`Dist::value`]. [`SplitMix64`] is the sequential
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
    normal_of(Generator::SplitMix64, seed, index)
}

/// [`normal01`] from the values of `generator`.
pub fn normal_of(generator: Generator, seed: u64, index: u64) -> f64 {
    let u1 = generator.unit(seed, index.wrapping_mul(2));
    let u2 = generator.unit(seed, index.wrapping_mul(2).wrapping_add(1));
    (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Threefry-4x32's rotation constants (Salmon et al., 2011; Random123's
/// `R_32x4`), by round modulo 8: the first applies to the word mixed into
/// `x0`, the second to the one mixed into `x2`.
pub const THREEFRY_ROTATIONS: [[u32; 2]; 8] = [
    [10, 26],
    [11, 21],
    [13, 27],
    [23, 5],
    [6, 20],
    [17, 11],
    [25, 10],
    [18, 20],
];
/// The parity constant of Threefry's key schedule (Skein's `C240` for 32
/// bits).
pub const THREEFRY_PARITY: u32 = 0x1BD1_1BDA;
/// The rounds of the generator's Threefry (Random123's default for 4x32).
pub const THREEFRY_ROUNDS: u32 = 20;

/// Threefry-4x32 with `rounds` rounds (Random123's `threefry4x32_R`): the
/// counter `ctr` encrypted under `key`. Even rounds mix `x0 += x1` and
/// `x2 += x3`, odd ones `x0 += x3` and `x2 += x1`, each followed by a
/// rotation and an xor of the other word; the key schedule (the key words
/// and their xor with [`THREEFRY_PARITY`]) is injected before the first
/// round and after every fourth, with the injection's number added to the
/// last word.
pub fn threefry4x32(rounds: u32, key: [u32; 4], ctr: [u32; 4]) -> [u32; 4] {
    let ks = [
        key[0],
        key[1],
        key[2],
        key[3],
        THREEFRY_PARITY ^ key[0] ^ key[1] ^ key[2] ^ key[3],
    ];
    let mut x = [
        ctr[0].wrapping_add(ks[0]),
        ctr[1].wrapping_add(ks[1]),
        ctr[2].wrapping_add(ks[2]),
        ctr[3].wrapping_add(ks[3]),
    ];
    for r in 0..rounds {
        let [ra, rb] = THREEFRY_ROTATIONS[(r % 8) as usize];
        // Even rounds pair (0, 1) and (2, 3); odd ones (0, 3) and (2, 1).
        let (a, b) = if r % 2 == 0 { (1, 3) } else { (3, 1) };
        x[0] = x[0].wrapping_add(x[a]);
        x[a] = x[a].rotate_left(ra) ^ x[0];
        x[2] = x[2].wrapping_add(x[b]);
        x[b] = x[b].rotate_left(rb) ^ x[2];
        if r % 4 == 3 {
            let s = (r / 4 + 1) as usize;
            for (i, w) in x.iter_mut().enumerate() {
                *w = w.wrapping_add(ks[(s + i) % 5]);
            }
            x[3] = x[3].wrapping_add(s as u32);
        }
    }
    x
}

/// The value of cell `index` of Threefry's stream in `[0, 1)`: the
/// counter block `index / 4` (its low and high 32 bits as the first two
/// counter words) encrypted under the key of `seed` (low, high, 0, 0) by
/// [`THREEFRY_ROUNDS`] rounds, word `index % 4` of it, its top
/// [`FLOAT_BITS`] bits as the fraction: one 32-bit word per cell, every
/// word of a block used (OCANNL's `uint4x32_to_prec` for f32).
pub fn threefry01(seed: u64, index: u64) -> f64 {
    let block = index / 4;
    let key = [seed as u32, (seed >> 32) as u32, 0, 0];
    let ctr = [block as u32, (block >> 32) as u32, 0, 0];
    let word = threefry4x32(THREEFRY_ROUNDS, key, ctr)[(index % 4) as usize];
    (word >> (32 - FLOAT_BITS)) as f64 / (1u64 << FLOAT_BITS) as f64
}

/// The counter-based generator of an initialization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Generator {
    /// SplitMix64 of the seed and the index ([`uniform01`]).
    #[default]
    SplitMix64,
    /// Threefry-4x32-20 ([`threefry01`]).
    Threefry,
}

impl Generator {
    pub const ALL: [Generator; 2] = [Generator::SplitMix64, Generator::Threefry];

    /// The name of the `generator` attribute.
    pub fn name(self) -> &'static str {
        match self {
            Generator::SplitMix64 => "splitmix64",
            Generator::Threefry => "threefry",
        }
    }

    pub fn parse(s: &str) -> Option<Generator> {
        Self::ALL.into_iter().find(|g| g.name() == s)
    }

    /// Value `index` of the stream of `seed` in `[0, 1)`, with
    /// [`FLOAT_BITS`] bits.
    pub fn unit(self, seed: u64, index: u64) -> f64 {
        match self {
            Generator::SplitMix64 => uniform01(seed, index),
            Generator::Threefry => threefry01(seed, index),
        }
    }
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
    /// The value of cell `index` drawn with `seed` by `generator`.
    pub fn value(self, generator: Generator, seed: u64, index: u64) -> f64 {
        match self {
            Dist::Uniform { low, high } => low + (high - low) * generator.unit(seed, index),
            Dist::Normal { mean, std } => mean + std * normal_of(generator, seed, index),
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
        assert_eq!(
            d.value(Generator::SplitMix64, 7, 5),
            1.0 + 0.02 * normal01(7, 5)
        );
    }

    /// Four 32-bit words: a counter, a key or a result.
    type Words = [u32; 4];

    /// Random123's known-answer vectors for Threefry-4x32 (`kat_vectors`):
    /// rounds, counter, key, result.
    const KAT: [(u32, Words, Words, Words); 9] = {
        const Z: [u32; 4] = [0; 4];
        const F: [u32; 4] = [u32::MAX; 4];
        const PI_CTR: [u32; 4] = [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344];
        const PI_KEY: [u32; 4] = [0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89];
        [
            (13, Z, Z, [0x531c7e4f, 0x39491ee5, 0x2c855a92, 0x3d6abf9a]),
            (13, F, F, [0xc4189358, 0x1c9cc83a, 0xd5881c67, 0x6a0a89e0]),
            (
                13,
                PI_CTR,
                PI_KEY,
                [0x4aa71d8f, 0x734738c2, 0x431fc6a8, 0xae6debf1],
            ),
            (20, Z, Z, [0x9c6ca96a, 0xe17eae66, 0xfc10ecd4, 0x5256a7d8]),
            (20, F, F, [0x2a881696, 0x57012287, 0xf6c7446e, 0xa16a6732]),
            (
                20,
                PI_CTR,
                PI_KEY,
                [0x59cd1dbb, 0xb8879579, 0x86b5d00c, 0xac8b6d84],
            ),
            (72, Z, Z, [0x93171da6, 0x9220326d, 0xb392b7b1, 0xff58a002]),
            (72, F, F, [0x60743f3d, 0x9961e684, 0xaab21c34, 0x8c65fb7d]),
            (
                72,
                PI_CTR,
                PI_KEY,
                [0x09930adf, 0x7f27bd55, 0x9ed68ce1, 0x97f803f6],
            ),
        ]
    };

    #[test]
    fn threefry_known_answers() {
        for (rounds, ctr, key, want) in KAT {
            assert_eq!(
                threefry4x32(rounds, key, ctr),
                want,
                "{rounds} rounds, {ctr:x?}"
            );
        }
    }

    #[test]
    fn two_round_threefry_is_its_definition() {
        // Two rounds written out: the key added, round 0 ((0, 1), (2, 3)
        // rotated by 10 and 26), round 1 ((0, 3), (2, 1) by 11 and 21), no
        // injection before the fourth round.
        let reference = |k: [u32; 4], c: [u32; 4]| {
            let mut x: Vec<u32> = c.iter().zip(k).map(|(c, k)| c.wrapping_add(k)).collect();
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(10) ^ x[0];
            x[2] = x[2].wrapping_add(x[3]);
            x[3] = x[3].rotate_left(26) ^ x[2];
            x[0] = x[0].wrapping_add(x[3]);
            x[3] = x[3].rotate_left(11) ^ x[0];
            x[2] = x[2].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(21) ^ x[2];
            [x[0], x[1], x[2], x[3]]
        };
        let mut s = SplitMix64::new(9);
        for _ in 0..100 {
            let mut w = || s.next_u64() as u32;
            let (k, c) = ([w(), w(), w(), w()], [w(), w(), w(), w()]);
            assert_eq!(threefry4x32(2, k, c), reference(k, c));
        }
    }

    #[test]
    fn threefry_cells_use_every_word_of_a_block() {
        let key = [5, 0, 0, 0];
        for block in [0u64, 1, 1 << 33] {
            let words = threefry4x32(20, key, [block as u32, (block >> 32) as u32, 0, 0]);
            for (lane, w) in words.iter().enumerate() {
                let v = threefry01(5, block * 4 + lane as u64);
                assert_eq!(v, (w >> 8) as f64 / (1u64 << 24) as f64);
            }
        }
        // Uniform enough: the mean of 100k cells within 0.005 of 1/2.
        let mean = (0..100_000).map(|i| threefry01(77, i)).sum::<f64>() / 1e5;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }

    #[test]
    fn known_values() {
        // SplitMix64's reference output for seed 0 (first value).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let x = uniform01(42, 3);
        assert!((0.0..1.0).contains(&x));
    }
}
