//! The machine the CPU's kernels are planned for: its vector width, vector
//! registers, multiply-add units and caches, read from LLVM's description
//! of a CPU (its features) and, for the host, from the caches the OS
//! reports. Every kernel decision of this crate takes one.
//!
//! The rules, from the instruction sets (each CPU of a set has at least
//! these):
//!
//! | features | vector bytes | vector registers |
//! |---|---|---|
//! | x86-64 with `avx512f` | 64 | 32 (`zmm0`–`zmm31`) |
//! | x86-64 with `avx` | 32 | 16 (`ymm0`–`ymm15`) |
//! | other x86-64 (SSE2) | 16 | 16 |
//! | AArch64 (NEON; SVE code is not emitted) | 16 | 32 (`v0`–`v31`) |
//!
//! Two multiply-add units are assumed where no better figure is known
//! (every AVX2 and AVX-512 server core since Haswell but some Xeon Silver
//! and Bronze parts, Neoverse N1 and V1); the profile measures the real
//! peak.

/// The instruction-set family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    X86_64,
    AArch64,
    /// Any other: 16-byte vectors and 16 registers are assumed.
    Other,
}

/// Cache sizes in bytes (per core for L1 and L2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Caches {
    pub l1d: u64,
    pub l2: u64,
    pub l3: u64,
}

impl Caches {
    /// What is assumed when the OS reports nothing (a CPU named for
    /// another machine): 32 KiB, 1 MiB, 32 MiB.
    pub const DEFAULT: Caches = Caches {
        l1d: 32 << 10,
        l2: 1 << 20,
        l3: 32 << 20,
    };
}

/// A CPU as the kernels see it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub arch: Arch,
    /// LLVM's name of the CPU (`sapphirerapids`, `x86-64-v3`,
    /// `neoverse-n1`).
    pub cpu: String,
    /// Bytes of the widest vector the kernels use.
    pub vector_bytes: u64,
    /// Architectural vector registers of that width.
    pub vector_registers: u64,
    /// Vector multiply-add instructions issued per cycle.
    pub fma_units: u64,
    pub caches: Caches,
}

impl Target {
    /// The target of a CPU of `triple` named `cpu` with LLVM's `features`
    /// (`+avx2`, `-avx512f`, or bare names; the others are ignored).
    pub fn from_features(triple: &str, cpu: &str, features: &[&str], caches: Caches) -> Target {
        let has = |f: &str| {
            features
                .iter()
                .any(|g| g.strip_prefix('+').unwrap_or(g) == f)
        };
        let arch = if triple.starts_with("x86_64") {
            Arch::X86_64
        } else if triple.starts_with("aarch64") || triple.starts_with("arm64") {
            Arch::AArch64
        } else {
            Arch::Other
        };
        let (vector_bytes, vector_registers) = match arch {
            Arch::X86_64 if has("avx512f") => (64, 32),
            Arch::X86_64 if has("avx") => (32, 16),
            Arch::AArch64 => (16, 32),
            _ => (16, 16),
        };
        Target {
            arch,
            cpu: cpu.to_string(),
            vector_bytes,
            vector_registers,
            fma_units: 2,
            caches,
        }
    }

    /// An AVX-512 server core (Sapphire Rapids, Zen 4).
    pub fn avx512() -> Target {
        Target::from_features(
            "x86_64",
            "x86-64-v4",
            &["+avx", "+avx2", "+fma", "+avx512f"],
            Caches::DEFAULT,
        )
    }

    /// An AVX2 core (Haswell to Alder Lake, Zen 1 to 3): `x86-64-v3`.
    pub fn avx2() -> Target {
        Target::from_features(
            "x86_64",
            "x86-64-v3",
            &["+avx", "+avx2", "+fma"],
            Caches::DEFAULT,
        )
    }

    /// A NEON core (Neoverse N1, Apple M1, Graviton 2).
    pub fn neon() -> Target {
        Target::from_features(
            "aarch64",
            "neoverse-n1",
            &["+neon"],
            Caches {
                l1d: 64 << 10,
                ..Caches::DEFAULT
            },
        )
    }

    /// Cells of `bytes` bytes per vector.
    pub fn lanes(&self, bytes: u64) -> u64 {
        (self.vector_bytes / bytes.max(1)).max(1)
    }

    /// Multiply-adds per cycle per core on elements of `bytes` bytes.
    pub fn fma_per_cycle(&self, bytes: u64) -> u64 {
        self.fma_units * self.lanes(bytes)
    }

    /// One line: the CPU, its vectors and caches (logs, `explain`).
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {}-byte vectors, {} vector registers, L1d {} KiB, L2 {} KiB, L3 {} MiB)",
            self.cpu,
            self.arch,
            self.vector_bytes,
            self.vector_registers,
            self.caches.l1d >> 10,
            self.caches.l2 >> 10,
            self.caches.l3 >> 20
        )
    }
}

/// The data caches an OS reports in `sysfs` (Linux:
/// `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}`), over
/// [`Caches::DEFAULT`] for any it does not.
pub fn host_caches() -> Caches {
    let mut caches = Caches::DEFAULT;
    let base = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let Ok(entries) = std::fs::read_dir(base) else {
        return caches;
    };
    for e in entries.flatten() {
        let read =
            |f: &str| std::fs::read_to_string(e.path().join(f)).map(|s| s.trim().to_string());
        let (Ok(level), Ok(kind), Ok(size)) = (read("level"), read("type"), read("size")) else {
            continue;
        };
        let Some(bytes) = parse_size(&size) else {
            continue;
        };
        match (level.as_str(), kind.as_str()) {
            ("1", "Data") => caches.l1d = bytes,
            ("2", "Unified" | "Data") => caches.l2 = bytes,
            ("3", "Unified" | "Data") => caches.l3 = bytes,
            _ => {}
        }
    }
    caches
}

/// `48K`, `2048K`, `32M` or a number of bytes.
fn parse_size(text: &str) -> Option<u64> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let shift = match unit.trim() {
        "" => 0,
        "K" | "KB" | "KiB" => 10,
        "M" | "MB" | "MiB" => 20,
        "G" | "GB" | "GiB" => 30,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_and_registers_follow_the_instruction_set() {
        let t = Target::from_features(
            "x86_64-unknown-linux-gnu",
            "sapphirerapids",
            &["+avx2", "+avx", "+avx512f"],
            Caches::DEFAULT,
        );
        assert_eq!(
            (t.vector_bytes, t.vector_registers, t.lanes(4)),
            (64, 32, 16)
        );
        // `-avx512f` is not `avx512f`.
        let t = Target::from_features(
            "x86_64-unknown-linux-gnu",
            "znver3",
            &["+avx", "+avx2", "-avx512f"],
            Caches::DEFAULT,
        );
        assert_eq!(
            (t.vector_bytes, t.vector_registers, t.lanes(4)),
            (32, 16, 8)
        );
        let t = Target::from_features(
            "x86_64-unknown-linux-gnu",
            "x86-64",
            &["+sse2"],
            Caches::DEFAULT,
        );
        assert_eq!((t.vector_bytes, t.vector_registers), (16, 16));
        let t = Target::from_features(
            "aarch64-unknown-linux-gnu",
            "neoverse-n1",
            &["+neon"],
            Caches::DEFAULT,
        );
        assert_eq!(
            (t.arch, t.vector_bytes, t.vector_registers, t.lanes(8)),
            (Arch::AArch64, 16, 32, 2)
        );
        // AVX-512 features on another architecture mean nothing.
        let t = Target::from_features("riscv64", "x", &["+avx512f"], Caches::DEFAULT);
        assert_eq!((t.vector_bytes, t.vector_registers), (16, 16));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("2048K"), Some(2 << 20));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(parse_size(""), None);
    }
}
