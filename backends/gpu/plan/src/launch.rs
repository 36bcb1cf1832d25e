//! Launch shapes: one thread per cell (or per output cell), in blocks of
//! up to [`BLOCK`] threads along `x`.

/// Threads per block of the one-thread-per-cell kernels: eight warps, a
/// size every NVIDIA GPU since sm_30 runs several blocks of at once.
pub const BLOCK: u64 = 256;
/// Threads per warp.
pub const WARP: u64 = 32;
/// The largest grid along `x`.
pub const MAX_GRID_X: u64 = (1 << 31) - 1;
/// The largest grid along `y` and `z`.
pub const MAX_GRID_YZ: u64 = 65535;

/// The PTX ISA version (times ten) to generate for an architecture
/// (`sm_90`): 8.0 up to Hopper, the first version that knows the
/// architecture after it.
pub fn ptx_version(chip: &str) -> u32 {
    let major: u32 = chip
        .trim_start_matches("sm_")
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse::<u32>()
        .map(|n| n / 10)
        .unwrap_or(9);
    match major {
        0..=9 => 80,
        10 | 11 => 86,
        _ => 87,
    }
}

/// The grid and block of a kernel launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub grid: [u64; 3],
    pub block: [u64; 3],
}

impl Launch {
    /// Threads launched in all.
    pub fn threads(&self) -> u64 {
        self.grid.iter().chain(&self.block).product()
    }
}

/// The launch of a kernel with one thread per cell of `cells` cells:
/// blocks of [`BLOCK`] threads (fewer, a whole number of warps, when there
/// are fewer cells), as many as the cells need. `None` when the cells do
/// not fit in one grid.
pub fn per_cell(cells: u64) -> Option<Launch> {
    let block = cells.max(1).div_ceil(WARP).saturating_mul(WARP).min(BLOCK);
    let grid = cells.max(1).div_ceil(block);
    (grid <= MAX_GRID_X).then_some(Launch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
    })
}

/// Whether the threads of `launch` cover exactly `cells` cells (no thread
/// beyond the last cell, so no bounds check is needed).
pub fn exact(launch: &Launch, cells: u64) -> bool {
    launch.threads() == cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_versions() {
        assert_eq!(ptx_version("sm_80"), 80);
        assert_eq!(ptx_version("sm_90"), 80);
        assert_eq!(ptx_version("sm_90a"), 80);
        assert_eq!(ptx_version("sm_100"), 86);
        assert_eq!(ptx_version("sm_120"), 87);
    }

    #[test]
    fn per_cell_shapes() {
        // (cells, grid x, block x)
        for (cells, grid, block) in [
            (1, 1, 32),
            (32, 1, 32),
            (33, 1, 64),
            (256, 1, 256),
            (257, 2, 256),
            (1 << 20, 4096, 256),
        ] {
            let l = per_cell(cells).unwrap();
            assert_eq!(
                (l.grid, l.block),
                ([grid, 1, 1], [block, 1, 1]),
                "{cells} cells"
            );
            assert!(l.threads() >= cells && l.threads() - cells < l.block[0]);
        }
        assert!(exact(&per_cell(512).unwrap(), 512));
        assert!(!exact(&per_cell(500).unwrap(), 500));
        assert_eq!(per_cell(MAX_GRID_X * BLOCK + 1), None);
    }
}
