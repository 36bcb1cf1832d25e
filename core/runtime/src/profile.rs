//! A per-kernel profile: what each compiled kernel cost over the calls
//! made so far, and how close it came to the machine's roof, as tinygrad's
//! `DEBUG=2` reports kernels. Backends fill it
//! ([`crate::Executable::profile`]); `ocannl-run --profile`, the Trainer and
//! the examples print it with [`Profile::report`].

use std::fmt::Write;

/// One kernel's calls and time.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelProfile {
    /// The kernel's name in the compiled code.
    pub name: String,
    /// `contraction` (its work is multiply-adds) or `elementwise` (bound
    /// by memory).
    pub kind: String,
    pub calls: u64,
    /// Time in it, all calls together.
    pub seconds: f64,
    /// Multiply-adds per call (0 for a kernel that does none).
    pub work: u64,
    /// Bytes of its buffers per call.
    pub bytes: u64,
    /// What it computes: the location of the op it was lowered from (in
    /// a module the API writes, the tensor's name; a file's line
    /// otherwise), and how many more ops share its code (`+N`).
    pub site: String,
}

impl KernelProfile {
    /// GFLOP/s of a contraction (two operations per multiply-add).
    pub fn gflops(&self) -> Option<f64> {
        (self.kind == "contraction" && self.work > 0 && self.seconds > 0.0)
            .then(|| 2.0 * self.work as f64 * self.calls as f64 / self.seconds / 1e9)
    }

    /// GB/s of its buffers (each byte counted once per call).
    pub fn gbytes(&self) -> Option<f64> {
        (self.seconds > 0.0).then(|| self.bytes as f64 * self.calls as f64 / self.seconds / 1e9)
    }
}

/// The kernels of an executable, and the machine's multiply-add roof.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    pub kernels: Vec<KernelProfile>,
    /// The machine's peak in GFLOP/s of f32 multiply-adds (measured), when
    /// known.
    pub roof_gflops: Option<f64>,
}

impl Profile {
    /// Time in every kernel.
    pub fn seconds(&self) -> f64 {
        self.kernels.iter().map(|k| k.seconds).sum()
    }

    /// The `top` kernels by time, one line each: calls, milliseconds, the
    /// share of the kernels' time, GFLOP/s and the share of the roof (a
    /// contraction) or GB/s, then the total.
    pub fn report(&self, top: usize) -> String {
        let mut kernels: Vec<&KernelProfile> =
            self.kernels.iter().filter(|k| k.calls > 0).collect();
        kernels.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        let total = self.seconds();
        let mut out = String::new();
        let roof = match self.roof_gflops {
            Some(r) => format!("roof {r:.1} GFLOP/s"),
            None => "roof unknown".to_string(),
        };
        let _ = writeln!(
            out,
            "profile: {} kernels called, {:.3} ms in kernels; {roof}",
            kernels.len(),
            total * 1e3
        );
        let mut kinds: Vec<(&str, u64, f64)> = Vec::new();
        for k in &kernels {
            match kinds.iter_mut().find(|(kind, _, _)| *kind == k.kind) {
                Some(row) => {
                    row.1 += k.calls;
                    row.2 += k.seconds;
                }
                None => kinds.push((&k.kind, k.calls, k.seconds)),
            }
        }
        kinds.sort_by(|a, b| b.2.total_cmp(&a.2));
        for (kind, calls, seconds) in kinds {
            let _ = writeln!(
                out,
                "  {kind}: {calls} calls, {:.3} ms ({:.1} us per call)",
                seconds * 1e3,
                seconds * 1e6 / calls.max(1) as f64
            );
        }
        let _ = writeln!(
            out,
            "  {:<32} {:<12} {:>7} {:>10} {:>6} {:>16} {:>7}  computes",
            "kernel", "kind", "calls", "ms", "share", "speed", "roof"
        );
        for k in kernels.iter().take(top) {
            let (speed, share) = match (k.gflops(), self.roof_gflops) {
                (Some(g), Some(r)) if r > 0.0 => {
                    (format!("{g:.1} GFLOP/s"), format!("{:.0}%", 100.0 * g / r))
                }
                (Some(g), _) => (format!("{g:.1} GFLOP/s"), String::new()),
                _ => (
                    k.gbytes().map_or(String::new(), |b| format!("{b:.1} GB/s")),
                    String::new(),
                ),
            };
            let _ = writeln!(
                out,
                "  {:<32} {:<12} {:>7} {:>10.3} {:>5.1}% {:>16} {:>7}  {}",
                k.name,
                k.kind,
                k.calls,
                k.seconds * 1e3,
                if total > 0.0 {
                    100.0 * k.seconds / total
                } else {
                    0.0
                },
                speed,
                share,
                k.site
            );
        }
        if kernels.len() > top {
            let _ = writeln!(out, "  ... {} more", kernels.len() - top);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_top_kernels_with_their_speed() {
        let k = |name: &str, kind: &str, seconds: f64| KernelProfile {
            name: name.into(),
            kind: kind.into(),
            calls: 10,
            seconds,
            work: 1_000_000,
            bytes: 4_000_000,
            site: format!("{name}.grad +1"),
        };
        let p = Profile {
            kernels: vec![
                k("a", "elementwise", 0.001),
                k("b", "contraction", 0.002),
                k("c", "contraction", 0.0005),
            ],
            roof_gflops: Some(100.0),
        };
        assert_eq!(p.kernels[1].gflops(), Some(10.0));
        assert_eq!(p.kernels[0].gbytes(), Some(40.0));
        assert_eq!(p.kernels[0].gflops(), None);
        let r = p.report(2);
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[0].contains("3 kernels called, 3.500 ms"), "{r}");
        assert_eq!(
            lines[1].trim(),
            "contraction: 20 calls, 2.500 ms (125.0 us per call)"
        );
        assert_eq!(
            lines[2].trim(),
            "elementwise: 10 calls, 1.000 ms (100.0 us per call)"
        );
        let lines = &lines[2..];
        assert!(
            lines[2].trim_start().starts_with('b')
                && lines[2].contains("10.0 GFLOP/s")
                && lines[2].contains("10%")
                && lines[2].ends_with("  b.grad +1"),
            "{r}"
        );
        assert!(lines[1].ends_with("computes"), "{r}");
        assert!(
            lines[3].trim_start().starts_with('a') && lines[3].contains("40.0 GB/s"),
            "{r}"
        );
        assert_eq!(lines[4].trim(), "... 1 more");
    }
}
