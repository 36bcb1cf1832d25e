//! Named sections of bytes in one buffer: the one encoding of what a
//! compiled executable or a trainer keeps in the compilation cache.
//!
//! A bundle is `u32` count, then per section its name's length (`u32`),
//! its name (UTF-8), its length (`u64`) and its bytes, all little-endian.
//! Decoding checks every length against what is left; anything malformed
//! is `None`, never a panic (the cache checks its entries' checksums, and
//! this checks their structure).

use crate::{Elt, Signature, Slot};

/// Sections by name, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bundle {
    pub sections: Vec<(String, Vec<u8>)>,
}

impl Bundle {
    /// Appends a section.
    pub fn push(&mut self, name: &str, bytes: impl Into<Vec<u8>>) {
        self.sections.push((name.to_string(), bytes.into()));
    }

    /// The first section named `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }

    /// The first section named `name`, as UTF-8 text.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|b| std::str::from_utf8(b).ok())
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = (self.sections.len() as u32).to_le_bytes().to_vec();
        for (name, bytes) in &self.sections {
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        out
    }

    /// The bundle `bytes` encode, if they are exactly one.
    pub fn from_bytes(bytes: &[u8]) -> Option<Bundle> {
        let mut rest = bytes;
        let mut take = |n: usize| -> Option<&[u8]> {
            if rest.len() < n {
                return None;
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Some(head)
        };
        let count = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let mut sections = vec![];
        for _ in 0..count {
            let n = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
            let name = String::from_utf8(take(n)?.to_vec()).ok()?;
            let len = usize::try_from(u64::from_le_bytes(take(8)?.try_into().ok()?)).ok()?;
            sections.push((name, take(len)?.to_vec()));
        }
        rest.is_empty().then_some(Bundle { sections })
    }
}

impl Slot {
    /// The slot as a word: `index`, or the element type and the sizes
    /// joined by `x` (`f32x2x3`; `f32` for a 0-d tensor).
    pub fn encode(&self) -> String {
        match self {
            Slot::Index => "index".into(),
            Slot::MemRef { elt, dims } => std::iter::once(elt.name().to_string())
                .chain(dims.iter().map(u64::to_string))
                .collect::<Vec<_>>()
                .join("x"),
        }
    }

    /// The slot [`Slot::encode`] wrote.
    pub fn decode(word: &str) -> Option<Slot> {
        if word == "index" {
            return Some(Slot::Index);
        }
        let mut parts = word.split('x');
        let elt = Elt::parse(parts.next()?)?;
        let dims = parts
            .map(|d| d.parse().ok())
            .collect::<Option<Vec<u64>>>()?;
        Some(Slot::MemRef { elt, dims })
    }
}

impl Signature {
    /// The signature as one line: inputs, `->`, outputs, each slot
    /// [`Slot::encode`]d and separated by spaces.
    pub fn encode(&self) -> String {
        let words = |s: &[Slot]| s.iter().map(Slot::encode).collect::<Vec<_>>().join(" ");
        format!("{} -> {}", words(&self.inputs), words(&self.outputs))
    }

    /// The signature [`Signature::encode`] wrote.
    pub fn decode(line: &str) -> Option<Signature> {
        let (i, o) = line.split_once("->")?;
        let slots = |s: &str| {
            s.split_whitespace()
                .map(Slot::decode)
                .collect::<Option<Vec<_>>>()
        };
        Some(Signature {
            inputs: slots(i)?,
            outputs: slots(o)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_round_trip_and_reject_anything_else() {
        let mut b = Bundle::default();
        b.push("meta", "x");
        b.push("object", vec![0u8, 1, 2, 255]);
        b.push("", vec![]);
        let bytes = b.to_bytes();
        assert_eq!(Bundle::from_bytes(&bytes), Some(b.clone()));
        assert_eq!(b.get("object"), Some(&[0u8, 1, 2, 255][..]));
        assert_eq!(b.text("meta"), Some("x"));
        for n in 0..bytes.len() {
            assert_eq!(Bundle::from_bytes(&bytes[..n]), None, "truncated to {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Bundle::from_bytes(&longer), None);
        // A huge length is rejected, not allocated.
        let mut huge = 1u32.to_le_bytes().to_vec();
        huge.extend_from_slice(&0u32.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(Bundle::from_bytes(&huge), None);
    }

    #[test]
    fn signatures_round_trip() {
        let s = Signature {
            inputs: vec![
                Slot::MemRef {
                    elt: Elt::F32,
                    dims: vec![2, 3],
                },
                Slot::Index,
                Slot::MemRef {
                    elt: Elt::F64,
                    dims: vec![],
                },
            ],
            outputs: vec![Slot::MemRef {
                elt: Elt::F32,
                dims: vec![1],
            }],
        };
        assert_eq!(s.encode(), "f32x2x3 index f64 -> f32x1");
        assert_eq!(Signature::decode(&s.encode()), Some(s));
        let none = Signature {
            inputs: vec![],
            outputs: vec![],
        };
        assert_eq!(Signature::decode(&none.encode()), Some(none));
        let half = Signature {
            inputs: vec![Slot::MemRef {
                elt: Elt::BF16,
                dims: vec![4],
            }],
            outputs: vec![Slot::MemRef {
                elt: Elt::F16,
                dims: vec![],
            }],
        };
        assert_eq!(half.encode(), "bf16x4 -> f16");
        assert_eq!(Signature::decode(&half.encode()), Some(half));
        for bad in ["", "f32", "i8 -> ", "f32xa -> ", "index -> q"] {
            assert_eq!(Signature::decode(bad), None, "{bad}");
        }
    }
}
