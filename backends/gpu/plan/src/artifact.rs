//! The GPU artifact: a compiled program in one file, written where it is
//! compiled (`ocannl-run --emit-artifact`, no GPU needed) and run where
//! there is a GPU by a runtime that links no MLIR (`ocannl-gpu`). The
//! format is documented in `docs/gpu-artifact.md`.
//!
//! A file is a header and a payload:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | the magic `OCNLGPUA` |
//! | 4 | the format version ([`VERSION`]), little-endian |
//! | 4 | 0 (reserved) |
//! | 8 | the payload's length in bytes, little-endian |
//! | 32 | the payload's SHA-256 |
//! | ... | the payload: an `ocannl_runtime::bundle::Bundle` |
//!
//! The bundle's sections: `manifest` (JSON: the producer, the chips, the
//! PTX modules' names, the constants' names and sizes, and per function its
//! signature, its arguments' names and roles, its results' names, its
//! steps and outputs), `ptx/<chip>/<k>` (the PTX text of module `k` for
//! each chip) and `global/<k>` (the bytes of constant `k`). The host
//! schedule is the same for every chip; only the PTX differs.
//!
//! Reading checks everything before anything runs: the magic, the version,
//! the length, the checksum, the bundle's structure, the manifest, every
//! section it names, and each function's steps ([`Function::check`]).

use std::{fmt, path::Path};

use ocannl_runtime::{bundle::Bundle, ArgInfo, Error, Role, Signature};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::schedule::{Function, Global, Output, Program, PtxModule, Step};

/// What an artifact starts with.
pub const MAGIC: &[u8; 8] = b"OCNLGPUA";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 1;
/// Magic, version, reserved word, payload length, checksum.
pub const HEADER_BYTES: usize = 8 + 4 + 4 + 8 + 32;

/// The PTX of a program's modules for one GPU architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChipCode {
    /// The architecture (`sm_80`).
    pub chip: String,
    /// The PTX ISA version times ten (80 for PTX 8.0).
    pub ptx_isa: u32,
    /// The PTX text of each of the program's modules, in order.
    pub modules: Vec<String>,
}

/// A compiled GPU program for one or more chips.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifact {
    /// What wrote it (`ocannl-mlir 0.1.0`).
    pub producer: String,
    /// The schedule, the constants and the modules' names (their PTX is in
    /// [`Artifact::chips`]; here it is empty).
    pub program: Program,
    /// The PTX for each chip, in the order they were asked for.
    pub chips: Vec<ChipCode>,
}

/// Why bytes are not an artifact this runtime can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Not an artifact at all (no magic number).
    NotAnArtifact,
    /// Another version of the format.
    Version { found: u32 },
    /// Fewer bytes than the header says.
    Truncated { expected: u64, found: u64 },
    /// More bytes than the header says.
    Trailing { expected: u64, found: u64 },
    /// The payload is not what was written.
    Checksum,
    /// The checksum holds but the contents make no sense (a writer's bug).
    Malformed(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotAnArtifact => write!(
                f,
                "not an ocannl GPU artifact (it does not start with {:?})",
                String::from_utf8_lossy(MAGIC)
            ),
            ReadError::Version { found } => write!(
                f,
                "artifact format version {found}, but this runtime reads version {VERSION} (write the artifact again with the ocannl-run of this version)"
            ),
            ReadError::Truncated { expected, found } => write!(
                f,
                "truncated: {expected} bytes of payload expected, {found} found (copy the file again)"
            ),
            ReadError::Trailing { expected, found } => write!(
                f,
                "damaged: {expected} bytes of payload expected, {found} found"
            ),
            ReadError::Checksum => write!(
                f,
                "damaged: the payload's SHA-256 is not the one in the header (copy the file again)"
            ),
            ReadError::Malformed(why) => write!(f, "malformed artifact: {why}"),
        }
    }
}

/// A GPU architecture's compute capability from its name: `sm_86` is 8.6,
/// `sm_100` 10.0; a trailing `a` (`sm_90a`) or `f` marks code that runs on
/// that architecture only.
pub fn compute_capability(chip: &str) -> Option<(u32, u32, bool)> {
    let rest = chip.strip_prefix("sm_")?;
    let (digits, specific) = match rest.strip_suffix(['a', 'f']) {
        Some(d) => (d, true),
        None => (rest, false),
    };
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    Some((n / 10, n % 10, specific))
}

// The manifest as JSON.

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    producer: String,
    chips: Vec<ManifestChip>,
    modules: Vec<String>,
    globals: Vec<ManifestGlobal>,
    functions: Vec<ManifestFunction>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestChip {
    chip: String,
    ptx_isa: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestGlobal {
    name: String,
    bytes: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestArg {
    name: String,
    role: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFunction {
    name: String,
    signature: String,
    args: Vec<ManifestArg>,
    results: Vec<String>,
    steps: Vec<Step>,
    outputs: Vec<Output>,
}

fn ptx_section(chip: &str, k: usize) -> String {
    format!("ptx/{chip}/{k}")
}

fn global_section(k: usize) -> String {
    format!("global/{k}")
}

impl Artifact {
    /// The artifact of one program compiled for several chips: the
    /// schedules must be the same, only the PTX differs.
    pub fn from_programs(
        producer: &str,
        compiled: Vec<(String, u32, Program)>,
    ) -> Result<Artifact, Error> {
        let mut chips: Vec<ChipCode> = vec![];
        let mut first: Option<Program> = None;
        for (chip, ptx_isa, program) in compiled {
            if chips.iter().any(|c| c.chip == chip) {
                return Err(Error::argument(format!(
                    "the chip {chip} is asked for twice"
                )));
            }
            let modules = program.modules.iter().map(|m| m.ptx.clone()).collect();
            let mut schedule = program;
            for m in &mut schedule.modules {
                m.ptx.clear();
            }
            match &first {
                None => first = Some(schedule),
                Some(f) if *f == schedule => {}
                Some(_) => {
                    return Err(Error::argument(format!(
                        "the host schedule for {chip} differs from the one for {}: one artifact holds one schedule",
                        chips[0].chip
                    )))
                }
            }
            chips.push(ChipCode {
                chip,
                ptx_isa,
                modules,
            });
        }
        let program =
            first.ok_or_else(|| Error::argument("an artifact needs at least one chip"))?;
        Ok(Artifact {
            producer: producer.to_string(),
            program,
            chips,
        })
    }

    /// The program with the PTX of chip `k` ([`Artifact::chips`]).
    pub fn program(&self, k: usize) -> Program {
        let mut p = self.program.clone();
        for (m, ptx) in p.modules.iter_mut().zip(&self.chips[k].modules) {
            m.ptx = ptx.clone();
        }
        p
    }

    /// The functions, by name.
    pub fn function_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.program.functions.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// Which chip's PTX a device of compute capability `major.minor`
    /// runs: the newest one not newer than the device (PTX is compiled for
    /// the device by the driver; an `sm_90a` chip only on 9.0 itself).
    pub fn choose_chip(&self, major: u32, minor: u32) -> Result<usize, Error> {
        let device = (major, minor);
        let best = self
            .chips
            .iter()
            .enumerate()
            .filter_map(|(k, c)| {
                let (ma, mi, specific) = compute_capability(&c.chip)?;
                let ok = if specific {
                    (ma, mi) == device
                } else {
                    (ma, mi) <= device
                };
                ok.then_some((ma, mi, !specific, k))
            })
            // The newest; on a tie, the architecture-specific one.
            .max_by_key(|&(ma, mi, general, k)| (ma, mi, !general, std::cmp::Reverse(k)));
        match best {
            Some((.., k)) => Ok(k),
            None => Err(Error::device(format!(
                "this device (sm_{major}{minor}) cannot run the artifact: its PTX is for {} (a GPU runs PTX of its own compute capability or an older one); write the artifact again with --chip sm_{major}{minor}",
                self.chips
                    .iter()
                    .map(|c| c.chip.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// The artifact as bytes (header and payload).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut functions: Vec<&Function> = self.program.functions.values().collect();
        functions.sort_by(|a, b| a.name.cmp(&b.name));
        let manifest = Manifest {
            producer: self.producer.clone(),
            chips: self
                .chips
                .iter()
                .map(|c| ManifestChip {
                    chip: c.chip.clone(),
                    ptx_isa: c.ptx_isa,
                })
                .collect(),
            modules: self
                .program
                .modules
                .iter()
                .map(|m| m.name.clone())
                .collect(),
            globals: self
                .program
                .globals
                .iter()
                .map(|g| ManifestGlobal {
                    name: g.name.clone(),
                    bytes: g.bytes.len() as u64,
                })
                .collect(),
            functions: functions
                .into_iter()
                .map(|f| ManifestFunction {
                    name: f.name.clone(),
                    signature: f.signature.encode(),
                    args: f
                        .args
                        .iter()
                        .map(|a| ManifestArg {
                            name: a.name.clone(),
                            role: a.role.encode(),
                        })
                        .collect(),
                    results: (0..f.results.len()).map(|k| format!("result{k}")).collect(),
                    steps: f.steps.clone(),
                    outputs: f.results.clone(),
                })
                .collect(),
        };
        let mut bundle = Bundle::default();
        bundle.push(
            "manifest",
            serde_json::to_vec(&manifest).expect("the manifest is plain data"),
        );
        for c in &self.chips {
            for (k, ptx) in c.modules.iter().enumerate() {
                bundle.push(&ptx_section(&c.chip, k), ptx.as_bytes());
            }
        }
        for (k, g) in self.program.globals.iter().enumerate() {
            bundle.push(&global_section(k), g.bytes.clone());
        }
        let payload = bundle.to_bytes();
        let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&Sha256::digest(&payload));
        out.extend_from_slice(&payload);
        out
    }

    /// The artifact `bytes` hold, checked.
    pub fn from_bytes(bytes: &[u8]) -> Result<Artifact, ReadError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(ReadError::NotAnArtifact);
        }
        let word = |at: usize, n: usize| -> Option<&[u8]> { bytes.get(at..at + n) };
        let version = word(8, 4).map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")));
        match version {
            Some(VERSION) => {}
            Some(found) => return Err(ReadError::Version { found }),
            None => {
                return Err(ReadError::Truncated {
                    expected: HEADER_BYTES as u64,
                    found: bytes.len() as u64,
                })
            }
        }
        if bytes.len() < HEADER_BYTES {
            return Err(ReadError::Truncated {
                expected: HEADER_BYTES as u64,
                found: bytes.len() as u64,
            });
        }
        let length = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let payload = &bytes[HEADER_BYTES..];
        let found = payload.len() as u64;
        if found < length {
            return Err(ReadError::Truncated {
                expected: length,
                found,
            });
        }
        if found > length {
            return Err(ReadError::Trailing {
                expected: length,
                found,
            });
        }
        if Sha256::digest(payload).as_slice() != &bytes[24..HEADER_BYTES] {
            return Err(ReadError::Checksum);
        }
        Self::from_payload(payload).map_err(ReadError::Malformed)
    }

    fn from_payload(payload: &[u8]) -> Result<Artifact, String> {
        let bundle = Bundle::from_bytes(payload).ok_or("its sections cannot be read")?;
        let manifest: Manifest =
            serde_json::from_slice(bundle.get("manifest").ok_or("no manifest")?)
                .map_err(|e| format!("manifest: {e}"))?;
        if manifest.chips.is_empty() {
            return Err("no chip".into());
        }
        let mut chips: Vec<ChipCode> = vec![];
        for c in &manifest.chips {
            if compute_capability(&c.chip).is_none() {
                return Err(format!("the chip {:?} is not an sm_XY name", c.chip));
            }
            if chips.iter().any(|d| d.chip == c.chip) {
                return Err(format!("the chip {} appears twice", c.chip));
            }
            let modules = (0..manifest.modules.len())
                .map(|k| {
                    let name = ptx_section(&c.chip, k);
                    bundle
                        .text(&name)
                        .map(str::to_string)
                        .ok_or_else(|| format!("no section {name}"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            chips.push(ChipCode {
                chip: c.chip.clone(),
                ptx_isa: c.ptx_isa,
                modules,
            });
        }
        let mut program = Program {
            modules: manifest
                .modules
                .into_iter()
                .map(|name| PtxModule {
                    name,
                    ptx: String::new(),
                })
                .collect(),
            ..Program::default()
        };
        for (k, g) in manifest.globals.into_iter().enumerate() {
            let name = global_section(k);
            let bytes = bundle
                .get(&name)
                .ok_or_else(|| format!("no section {name}"))?;
            if bytes.len() as u64 != g.bytes {
                return Err(format!(
                    "the constant {} has {} bytes, not {}",
                    g.name,
                    bytes.len(),
                    g.bytes
                ));
            }
            program.globals.push(Global {
                name: g.name,
                bytes: bytes.to_vec(),
            });
        }
        for f in manifest.functions {
            let signature = Signature::decode(&f.signature)
                .ok_or_else(|| format!("@{}: the signature {:?}", f.name, f.signature))?;
            if f.args.len() != signature.inputs.len() {
                return Err(format!(
                    "@{}: {} argument names for {} arguments",
                    f.name,
                    f.args.len(),
                    signature.inputs.len()
                ));
            }
            let args = f
                .args
                .into_iter()
                .map(|a| {
                    Ok(ArgInfo {
                        role: Role::decode(&a.role)
                            .ok_or_else(|| format!("@{}: the role {:?}", f.name, a.role))?,
                        name: a.name,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            if f.results.len() != f.outputs.len() {
                return Err(format!(
                    "@{}: {} result names for {} results",
                    f.name,
                    f.results.len(),
                    f.outputs.len()
                ));
            }
            let function = Function {
                name: f.name.clone(),
                signature,
                args,
                steps: f.steps,
                results: f.outputs,
            };
            function
                .check(program.globals.len(), program.modules.len())
                .map_err(|e| e.to_string())?;
            if program.functions.insert(f.name.clone(), function).is_some() {
                return Err(format!("@{} appears twice", f.name));
            }
        }
        Ok(Artifact {
            producer: manifest.producer,
            program,
            chips,
        })
    }

    /// Writes the artifact to `path` atomically (a temporary file renamed
    /// in place).
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let bytes = self.to_bytes();
        ocannl_runtime::write_atomically(path, |w| w.write_all(&bytes))
    }

    /// Reads the artifact at `path`; errors name the file.
    pub fn read(path: &Path) -> Result<Artifact, Error> {
        let bytes = std::fs::read(path)
            .map_err(|e| Error::io(format!("cannot read {}: {e}", path.display()), e))?;
        Artifact::from_bytes(&bytes).map_err(|e| Error::format(format!("{}: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{Arg, Buffer};
    use ocannl_runtime::{Elt, Slot};

    fn program(ptx: &str) -> Program {
        let mut p = Program::default();
        p.modules.push(PtxModule {
            name: "m".into(),
            ptx: ptx.into(),
        });
        p.globals.push(Global {
            name: "__ocannl_literal_1".into(),
            bytes: vec![0, 0, 128, 63],
        });
        let slot = |dims: Vec<u64>| Slot::MemRef {
            elt: Elt::F32,
            dims,
        };
        p.functions.insert(
            "step".into(),
            Function {
                name: "step".into(),
                signature: Signature {
                    inputs: vec![slot(vec![4]), slot(vec![4]), slot(vec![]), Slot::Index],
                    outputs: vec![
                        slot(vec![1]),
                        Slot::MemRef {
                            elt: Elt::F32,
                            dims: vec![4],
                        },
                    ],
                },
                args: vec![
                    ArgInfo {
                        name: "arg0".into(),
                        role: Role::Data,
                    },
                    ArgInfo {
                        name: "w".into(),
                        role: Role::Param,
                    },
                    ArgInfo {
                        name: "learning_rate".into(),
                        role: Role::LearningRate,
                    },
                    ArgInfo {
                        name: "arg3".into(),
                        role: Role::Data,
                    },
                ],
                steps: vec![
                    Step::Alloc { id: 0, bytes: 4 },
                    Step::Launch {
                        module: 0,
                        kernel: "k".into(),
                        grid: [1, 2, 3],
                        block: [32, 1, 1],
                        shared_bytes: 8192,
                        args: vec![
                            Arg::Buffer(Buffer::Arg(0)),
                            Arg::Buffer(Buffer::Global(0)),
                            Arg::IndexArg(3),
                            Arg::Bits {
                                bits: u64::MAX,
                                bytes: 8,
                            },
                            Arg::Buffer(Buffer::Local(0)),
                        ],
                    },
                ],
                results: vec![
                    Output::Buffer(Buffer::Local(0)),
                    Output::Buffer(Buffer::Arg(1)),
                ],
            },
        );
        p
    }

    fn artifact() -> Artifact {
        Artifact::from_programs(
            "test",
            vec![
                ("sm_80".into(), 80, program(".version 8.0\n.target sm_80\n")),
                ("sm_90".into(), 80, program(".version 8.0\n.target sm_90\n")),
            ],
        )
        .unwrap()
    }

    #[test]
    fn round_trips_through_bytes_and_files() {
        let a = artifact();
        let bytes = a.to_bytes();
        assert_eq!(&bytes[..8], b"OCNLGPUA");
        let b = Artifact::from_bytes(&bytes).unwrap();
        assert_eq!(b, a);
        assert_eq!(b.program(1), program(".version 8.0\n.target sm_90\n"));
        assert_eq!(b.function_names(), vec!["step"]);
        // The same artifact, the same bytes.
        assert_eq!(b.to_bytes(), bytes);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ocgpu");
        a.write(&path).unwrap();
        assert_eq!(Artifact::read(&path).unwrap(), a);
        // Nothing else is left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing = Artifact::read(&dir.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), ocannl_runtime::Kind::Io);
        let missing = missing.to_string();
        assert!(missing.starts_with("cannot read "), "{missing}");
    }

    #[test]
    fn damage_is_reported() {
        let bytes = artifact().to_bytes();
        // Every truncation is an error, never a panic.
        for n in 0..bytes.len() {
            assert!(Artifact::from_bytes(&bytes[..n]).is_err(), "{n}");
        }
        assert_eq!(
            Artifact::from_bytes(&bytes[..bytes.len() - 1]),
            Err(ReadError::Truncated {
                expected: (bytes.len() - HEADER_BYTES) as u64,
                found: (bytes.len() - HEADER_BYTES - 1) as u64,
            })
        );
        assert_eq!(
            Artifact::from_bytes(&bytes[..20]),
            Err(ReadError::Truncated {
                expected: HEADER_BYTES as u64,
                found: 20
            })
        );
        assert_eq!(
            Artifact::from_bytes(b"\x7fELF"),
            Err(ReadError::NotAnArtifact)
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            Artifact::from_bytes(&longer),
            Err(ReadError::Trailing { .. })
        ));
        // A changed byte anywhere in the payload.
        for at in [HEADER_BYTES, bytes.len() / 2, bytes.len() - 1] {
            let mut changed = bytes.clone();
            changed[at] ^= 1;
            assert_eq!(Artifact::from_bytes(&changed), Err(ReadError::Checksum));
        }
        // Another version.
        let mut v2 = bytes.clone();
        v2[8..12].copy_from_slice(&2u32.to_le_bytes());
        let e = Artifact::from_bytes(&v2).unwrap_err();
        assert_eq!(e, ReadError::Version { found: 2 });
        assert!(e.to_string().contains("this runtime reads version 1"));
        assert!(ReadError::Checksum.to_string().contains("SHA-256"));
    }

    /// A payload whose checksum holds but whose contents are wrong.
    fn with_payload(payload: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&Sha256::digest(payload));
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn malformed_contents_are_reported() {
        let malformed = |b: &Bundle| match Artifact::from_bytes(&with_payload(&b.to_bytes())) {
            Err(ReadError::Malformed(why)) => why,
            other => panic!("{other:?}"),
        };
        let good = Bundle::from_bytes(&artifact().to_bytes()[HEADER_BYTES..]).unwrap();
        // A section missing.
        let mut b = good.clone();
        b.sections.retain(|(n, _)| n != "ptx/sm_90/0");
        assert_eq!(malformed(&b), "no section ptx/sm_90/0");
        let mut b = good.clone();
        b.sections.retain(|(n, _)| n != "global/0");
        assert_eq!(malformed(&b), "no section global/0");
        // A manifest that is not one.
        let mut b = good.clone();
        b.sections[0].1 = b"{}".to_vec();
        assert!(malformed(&b).starts_with("manifest: "));
        // A step using a buffer that does not exist.
        let text = good
            .text("manifest")
            .unwrap()
            .replace("\"local\":0", "\"local\":7");
        let mut b = good.clone();
        b.sections[0].1 = text.into_bytes();
        assert!(malformed(&b).contains("buffer #"), "{}", malformed(&b));
        assert!(matches!(
            Artifact::from_bytes(&with_payload(b"xyz")),
            Err(ReadError::Malformed(_))
        ));
    }

    #[test]
    fn chips_are_chosen_by_compute_capability() {
        assert_eq!(compute_capability("sm_86"), Some((8, 6, false)));
        assert_eq!(compute_capability("sm_100"), Some((10, 0, false)));
        assert_eq!(compute_capability("sm_90a"), Some((9, 0, true)));
        for bad in ["sm_9", "gfx90a", "sm_", "sm_x0", "80"] {
            assert_eq!(compute_capability(bad), None, "{bad}");
        }
        let a = artifact();
        assert_eq!(a.choose_chip(8, 0), Ok(0));
        assert_eq!(a.choose_chip(8, 9), Ok(0));
        assert_eq!(a.choose_chip(9, 0), Ok(1));
        assert_eq!(a.choose_chip(12, 0), Ok(1));
        let e = a.choose_chip(7, 5).unwrap_err();
        assert_eq!(e.kind(), ocannl_runtime::Kind::Device);
        let e = e.to_string();
        assert!(e.contains("sm_75") && e.contains("sm_80, sm_90"), "{e}");
        let specific =
            Artifact::from_programs("t", vec![("sm_90a".into(), 80, program(""))]).unwrap();
        assert_eq!(specific.choose_chip(9, 0), Ok(0));
        assert!(specific.choose_chip(10, 0).is_err());
    }

    #[test]
    fn one_schedule_for_all_chips() {
        let mut other = program("");
        other.functions.get_mut("step").unwrap().steps.pop();
        let e = Artifact::from_programs(
            "t",
            vec![
                ("sm_80".into(), 80, program("")),
                ("sm_90".into(), 80, other),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("differs"), "{e}");
        let e = Artifact::from_programs(
            "t",
            vec![
                ("sm_80".into(), 80, program("")),
                ("sm_80".into(), 80, program("")),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("twice"), "{e}");
        assert!(Artifact::from_programs("t", vec![]).is_err());
    }
}
