//! Learning-rate schedules: the learning rate of each step, given to
//! [`crate::Trainer::step`].

use std::f64::consts::PI;

/// A learning rate per step (counted from 0). Warmups rise linearly from 0
/// (step 0 has learning rate 0) to `peak` at step `warmup`, as optax's and
/// Hugging Face's schedules do; decays go from `peak` at their first step
/// to `end` at step `steps`, and stay at `end` after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// The same learning rate at every step.
    Constant(f64),
    /// Linear decay from `peak` at step 0 to `end` at step `steps`
    /// (OCANNL's demos: `peak * (steps - step) / steps` when `end` is 0).
    Linear { peak: f64, end: f64, steps: usize },
    /// Linear warmup to `peak` over `warmup` steps, then cosine decay to
    /// `end` at step `steps`.
    WarmupCosine {
        peak: f64,
        warmup: usize,
        steps: usize,
        end: f64,
    },
    /// nanoGPT's `get_lr`: step `it` of the warmup gets
    /// `peak * (it + 1) / (warmup + 1)` (never 0), then the cosine decay of
    /// [`Schedule::WarmupCosine`] to `end` at step `steps`.
    NanoGpt {
        peak: f64,
        warmup: usize,
        steps: usize,
        end: f64,
    },
    /// Linear warmup to `peak` over `warmup` steps, then linear decay to
    /// `end` at step `steps`.
    WarmupLinear {
        peak: f64,
        warmup: usize,
        steps: usize,
        end: f64,
    },
    /// Warmup-stable-decay (MiniCPM's WSD; Hugging Face's
    /// `get_wsd_schedule`): linear warmup to `peak` over `warmup` steps,
    /// `peak` until the last `decay` steps before `steps`, then a decay of
    /// the given shape to `end` at step `steps`. A run can stop at any
    /// stable step and decay from there; the stable phase is what makes
    /// continued training cheap.
    Wsd {
        peak: f64,
        warmup: usize,
        decay: usize,
        steps: usize,
        end: f64,
        shape: Decay,
    },
}

/// The shape of a [`Schedule::Wsd`] decay, over its progress `p` from 0
/// to 1: the fraction of `peak - end` left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decay {
    /// `1 - p`.
    Linear,
    /// `(1 + cos(pi p)) / 2`.
    Cosine,
    /// `1 - sqrt(p)` (Hägele et al. 2024, "Scaling Laws and
    /// Compute-Optimal Training Beyond Fixed Training Durations").
    OneMinusSqrt,
}

impl Schedule {
    /// The learning rate of step `step`.
    pub fn lr(&self, step: usize) -> f64 {
        match *self {
            Schedule::Constant(lr) => lr,
            Schedule::Linear { peak, end, steps } => linear(peak, end, step, 0, steps),
            Schedule::WarmupLinear {
                peak,
                warmup,
                steps,
                end,
            } => match warm(peak, warmup, step) {
                Some(lr) => lr,
                None => linear(peak, end, step, warmup, steps),
            },
            Schedule::WarmupCosine {
                peak,
                warmup,
                steps,
                end,
            } => warm(peak, warmup, step).unwrap_or_else(|| cosine(peak, end, step, warmup, steps)),
            Schedule::NanoGpt {
                peak,
                warmup,
                steps,
                end,
            } => {
                if step < warmup {
                    peak * (step + 1) as f64 / (warmup + 1) as f64
                } else {
                    cosine(peak, end, step, warmup, steps)
                }
            }
            Schedule::Wsd {
                peak,
                warmup,
                decay,
                steps,
                end,
                shape,
            } => {
                let from = steps.saturating_sub(decay).max(warmup);
                if let Some(lr) = warm(peak, warmup, step) {
                    lr
                } else if step < from {
                    peak
                } else if step >= steps {
                    end
                } else {
                    let p = (step - from) as f64 / (steps - from) as f64;
                    let left = match shape {
                        Decay::Linear => 1.0 - p,
                        Decay::Cosine => 0.5 * (1.0 + (PI * p).cos()),
                        Decay::OneMinusSqrt => 1.0 - p.sqrt(),
                    };
                    end + (peak - end) * left
                }
            }
        }
    }
}

/// Cosine decay from `peak` at step `from` to `end` at step `to` (`end`
/// from then on).
fn cosine(peak: f64, end: f64, step: usize, from: usize, to: usize) -> f64 {
    if step >= to {
        return end;
    }
    let progress = (step - from) as f64 / (to - from) as f64;
    end + (peak - end) * 0.5 * (1.0 + (PI * progress).cos())
}

/// The warmup's learning rate, while it lasts.
fn warm(peak: f64, warmup: usize, step: usize) -> Option<f64> {
    (step < warmup).then(|| peak * step as f64 / warmup as f64)
}

/// From `peak` at step `from` to `end` at step `to` (`end` from then on).
fn linear(peak: f64, end: f64, step: usize, from: usize, to: usize) -> f64 {
    if step >= to {
        return end;
    }
    // Written so that `end = 0` gives exactly `peak * left / span`.
    let (left, span) = ((to - step) as f64, (to - from) as f64);
    (peak - end) * left / span + end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn linear_decay_is_the_demos_schedule() {
        let steps = 4000;
        let s = Schedule::Linear {
            peak: 0.1,
            end: 0.0,
            steps,
        };
        for step in 0..steps {
            // Bit for bit: the moons demo keeps its results.
            assert_eq!(s.lr(step), 0.1 * (steps - step) as f64 / steps as f64);
        }
        assert_eq!(s.lr(steps), 0.0);
        assert_eq!(s.lr(steps + 10), 0.0);
        let s = Schedule::Linear {
            peak: 1.0,
            end: 0.5,
            steps: 10,
        };
        assert!(close(s.lr(0), 1.0) && close(s.lr(5), 0.75) && close(s.lr(10), 0.5));
    }

    /// nanoGPT's `train_shakespeare_char` schedule (lr 1e-3, 100 warmup
    /// steps, cosine to 1e-4 at 5000), as its Python `get_lr` computes it.
    #[test]
    fn nanogpt_schedule_is_its_get_lr() {
        let s = Schedule::NanoGpt {
            peak: 1e-3,
            warmup: 100,
            steps: 5000,
            end: 1e-4,
        };
        let get_lr = |it: usize| -> f64 {
            let (lr, warmup, decay, min) = (1e-3, 100.0, 5000.0, 1e-4);
            let it = it as f64;
            if it < warmup {
                return lr * (it + 1.0) / (warmup + 1.0);
            }
            if it > decay {
                return min;
            }
            let ratio = (it - warmup) / (decay - warmup);
            min + 0.5 * (1.0 + (PI * ratio).cos()) * (lr - min)
        };
        for it in [0, 1, 50, 99, 100, 101, 2000, 4999, 5000, 5001, 9000] {
            assert!(
                close(s.lr(it), get_lr(it)),
                "step {it}: {} vs {}",
                s.lr(it),
                get_lr(it)
            );
        }
        // Never 0 during the warmup, the peak at its end.
        assert!(close(s.lr(0), 1e-3 / 101.0) && close(s.lr(100), 1e-3));
    }

    #[test]
    fn warmups_then_decays() {
        let cos = Schedule::WarmupCosine {
            peak: 1.0,
            warmup: 10,
            steps: 110,
            end: 0.1,
        };
        let lin = Schedule::WarmupLinear {
            peak: 1.0,
            warmup: 10,
            steps: 110,
            end: 0.1,
        };
        for s in [cos, lin] {
            assert_eq!(s.lr(0), 0.0);
            assert!(close(s.lr(5), 0.5));
            assert!(close(s.lr(10), 1.0));
            // Halfway through the decay: the middle, for both.
            assert!(close(s.lr(60), 0.55), "{s:?}: {}", s.lr(60));
            assert!(close(s.lr(110), 0.1) && close(s.lr(1000), 0.1));
            // Never increasing after the warmup.
            for step in 10..120 {
                assert!(s.lr(step + 1) <= s.lr(step), "{s:?} at {step}");
            }
        }
        // The cosine's quarter point: (1 + cos(pi / 4)) / 2 of the way.
        let q = 0.1 + 0.9 * 0.5 * (1.0 + (PI / 4.0).cos());
        assert!(close(cos.lr(35), q));
        assert!(close(lin.lr(35), 0.1 + 0.9 * 0.75));
        assert_eq!(Schedule::Constant(0.3).lr(12345), 0.3);
    }

    #[test]
    fn warmup_stable_decay() {
        let wsd = |shape| Schedule::Wsd {
            peak: 1.0,
            warmup: 10,
            decay: 20,
            steps: 100,
            end: 0.0,
            shape,
        };
        for shape in [Decay::Linear, Decay::Cosine, Decay::OneMinusSqrt] {
            let s = wsd(shape);
            assert_eq!(s.lr(0), 0.0);
            assert!(close(s.lr(5), 0.5));
            // Stable from the warmup's end to the decay's start.
            for step in 10..=80 {
                assert_eq!(s.lr(step), 1.0, "{shape:?} at {step}");
            }
            // Decaying to the end, and staying there.
            for step in 80..100 {
                assert!(s.lr(step + 1) < s.lr(step), "{shape:?} at {step}");
            }
            assert_eq!(s.lr(100), 0.0);
            assert_eq!(s.lr(150), 0.0);
        }
        // Halfway through the decay: what each shape leaves.
        assert!(close(wsd(Decay::Linear).lr(90), 0.5));
        assert!(close(wsd(Decay::Cosine).lr(90), 0.5));
        assert!(close(wsd(Decay::OneMinusSqrt).lr(90), 1.0 - 0.5f64.sqrt()));
        // A decay longer than what follows the warmup starts at its end.
        let short = Schedule::Wsd {
            peak: 1.0,
            warmup: 10,
            decay: 500,
            steps: 20,
            end: 0.0,
            shape: Decay::Linear,
        };
        assert!(close(short.lr(10), 1.0) && close(short.lr(15), 0.5));
        // No warmup: the decay from step 0; a decay of no steps: the end.
        let s = Schedule::WarmupCosine {
            peak: 2.0,
            warmup: 0,
            steps: 0,
            end: 0.5,
        };
        assert_eq!(s.lr(0), 0.5);
        let s = Schedule::WarmupLinear {
            peak: 2.0,
            warmup: 0,
            steps: 4,
            end: 0.0,
        };
        assert_eq!(s.lr(0), 2.0);
    }
}
