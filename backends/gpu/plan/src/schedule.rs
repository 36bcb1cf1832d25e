//! What the host does to run a routine on the GPU, as data: the compiled
//! module's PTX, its constant buffers, and per function the steps
//! (allocations, kernel launches, frees) in program order and the results.
//! `ocannl-gpu` reads it from the MLIR of a compiled module;
//! `ocannl-gpu-runtime` carries it out with the CUDA driver.

use std::collections::HashMap;

pub use ocannl_runtime::{ArgInfo, Elt, Role, Signature, Slot};
use serde::{Deserialize, Serialize};

/// A buffer on the device, as the steps name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Buffer {
    /// The function's argument `#i` (the caller's, kept across calls).
    Arg(usize),
    /// The `i`-th allocation of the function.
    Local(usize),
    /// The program's constant buffer `#i` ([`Program::globals`]).
    Global(usize),
}

/// A kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arg {
    /// A buffer's device address.
    Buffer(Buffer),
    /// A 64-bit integer (an `index`): the function's index argument `#i`.
    IndexArg(usize),
    /// A constant: its bits and width in bytes (4 or 8).
    Bits { bits: u64, bytes: u8 },
}

/// One thing the host does, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Allocates local buffer `#id` of `bytes` bytes.
    Alloc { id: usize, bytes: u64 },
    /// Launches `kernel` of PTX module `module` ([`Program::modules`]).
    Launch {
        module: usize,
        kernel: String,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        args: Vec<Arg>,
    },
    /// Frees local buffer `#id`.
    Free { id: usize },
}

/// A result of a function.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    Buffer(Buffer),
    /// An index argument returned as is.
    IndexArg(usize),
    /// A constant index.
    Index(i64),
}

/// One function of the program.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub signature: Signature,
    /// Each argument's name and role (data, param, optimizer state,
    /// learning rate), one per input of the signature.
    pub args: Vec<ArgInfo>,
    pub steps: Vec<Step>,
    pub results: Vec<Output>,
}

/// A constant buffer (a literal), uploaded once when the program is loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A PTX module (the kernels of one `gpu.binary`).
#[derive(Clone, Debug, PartialEq)]
pub struct PtxModule {
    pub name: String,
    pub ptx: String,
}

/// A compiled module: the PTX of its kernels, its constant buffers and its
/// functions.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    pub modules: Vec<PtxModule>,
    pub globals: Vec<Global>,
    pub functions: HashMap<String, Function>,
}

impl Function {
    /// Checks that the steps use buffers that exist when they run: every
    /// local allocated once before its uses and freed at most once after
    /// them, results alive at the end, arguments and globals in range.
    pub fn check(&self, globals: usize, modules: usize) -> Result<(), ocannl_runtime::Error> {
        self.check_steps(globals, modules)
            .map_err(ocannl_runtime::Error::format)
    }

    fn check_steps(&self, globals: usize, modules: usize) -> Result<(), String> {
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            Live,
            Freed,
        }
        let mut locals: HashMap<usize, State> = HashMap::new();
        let what = |b: &Buffer| match b {
            Buffer::Arg(i) => format!("argument #{i}"),
            Buffer::Local(i) => format!("buffer #{i}"),
            Buffer::Global(i) => format!("constant #{i}"),
        };
        let usable = |b: &Buffer, locals: &HashMap<usize, State>| -> Result<(), String> {
            let ok = match b {
                Buffer::Arg(i) => {
                    matches!(self.signature.inputs.get(*i), Some(Slot::MemRef { .. }))
                }
                Buffer::Local(i) => locals.get(i) == Some(&State::Live),
                Buffer::Global(i) => *i < globals,
            };
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "@{}: {} is used where it does not exist",
                    self.name,
                    what(b)
                ))
            }
        };
        for step in &self.steps {
            match step {
                Step::Alloc { id, .. } => {
                    if locals.insert(*id, State::Live).is_some() {
                        return Err(format!("@{}: buffer #{id} is allocated twice", self.name));
                    }
                }
                Step::Free { id } => {
                    if locals.get(id) != Some(&State::Live) {
                        return Err(format!(
                            "@{}: buffer #{id} is freed while not allocated",
                            self.name
                        ));
                    }
                    locals.insert(*id, State::Freed);
                }
                Step::Launch {
                    args,
                    kernel,
                    module,
                    ..
                } => {
                    if *module >= modules {
                        return Err(format!("@{}: kernel {kernel} is in no module", self.name));
                    }
                    for a in args {
                        match a {
                            Arg::Buffer(b) => usable(b, &locals)?,
                            Arg::IndexArg(i) => {
                                if self.signature.inputs.get(*i) != Some(&Slot::Index) {
                                    return Err(format!(
                                        "@{}: kernel {kernel} reads argument #{i} as an index",
                                        self.name
                                    ));
                                }
                            }
                            Arg::Bits { .. } => {}
                        }
                    }
                }
            }
        }
        if self.results.len() != self.signature.outputs.len() {
            return Err(format!(
                "@{}: {} results for {} outputs",
                self.name,
                self.results.len(),
                self.signature.outputs.len()
            ));
        }
        for r in &self.results {
            match r {
                Output::Buffer(b) => usable(b, &locals)?,
                Output::IndexArg(i) => {
                    if self.signature.inputs.get(*i) != Some(&Slot::Index) {
                        return Err(format!(
                            "@{}: result reads argument #{i} as an index",
                            self.name
                        ));
                    }
                }
                Output::Index(_) => {}
            }
        }
        Ok(())
    }
}

/// A function's steps as text, one per line (`ocannl-run --print-schedule`):
///
/// ```text
/// @f(f32[4,3], index) -> (f32[4])
///   alloc %0 48 bytes
///   launch module0::f_kernel grid 1x1x1 block 32x1x1 (arg0, %0, index arg1, f32 0x3f800000)
///   free %0
///   return %1
/// ```
pub fn describe(f: &Function, program: &Program) -> String {
    let slot = |s: &Slot| match s {
        Slot::Index => "index".to_string(),
        Slot::MemRef { elt, dims } => format!(
            "{}[{}]",
            elt.name(),
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    let buffer = |b: &Buffer| match b {
        Buffer::Arg(i) => format!("arg{i}"),
        Buffer::Local(i) => format!("%{i}"),
        Buffer::Global(i) => format!(
            "@{}",
            program.globals.get(*i).map_or("?", |g| g.name.as_str())
        ),
    };
    let list = |v: Vec<String>| v.join(", ");
    let mut out = format!(
        "@{}({}) -> ({})\n",
        f.name,
        list(f.signature.inputs.iter().map(slot).collect()),
        list(f.signature.outputs.iter().map(slot).collect())
    );
    for s in &f.steps {
        let line = match s {
            Step::Alloc { id, bytes } => format!("alloc %{id} {bytes} bytes"),
            Step::Free { id } => format!("free %{id}"),
            Step::Launch {
                module,
                kernel,
                grid,
                block,
                shared_bytes,
                args,
            } => {
                let args = args
                    .iter()
                    .map(|a| match a {
                        Arg::Buffer(b) => buffer(b),
                        Arg::IndexArg(i) => format!("index arg{i}"),
                        Arg::Bits { bits, bytes: 4 } => format!("b32 {bits:#010x}"),
                        Arg::Bits { bits, .. } => format!("b64 {bits:#018x}"),
                    })
                    .collect();
                let m = program
                    .modules
                    .get(*module)
                    .map_or("?", |m| m.name.as_str());
                let shared = if *shared_bytes > 0 {
                    format!(" shared {shared_bytes}")
                } else {
                    String::new()
                };
                format!(
                    "launch {m}::{kernel} grid {}x{}x{} block {}x{}x{}{shared} ({})",
                    grid[0],
                    grid[1],
                    grid[2],
                    block[0],
                    block[1],
                    block[2],
                    list(args)
                )
            }
        };
        out.push_str("  ");
        out.push_str(&line);
        out.push('\n');
    }
    let results = f
        .results
        .iter()
        .map(|r| match r {
            Output::Buffer(b) => buffer(b),
            Output::IndexArg(i) => format!("index arg{i}"),
            Output::Index(x) => format!("index {x}"),
        })
        .collect();
    if f.results.is_empty() {
        out.push_str("  return\n");
    } else {
        out.push_str(&format!("  return {}\n", list(results)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(steps: Vec<Step>, results: Vec<Output>) -> Function {
        Function {
            name: "f".into(),
            signature: Signature {
                inputs: vec![
                    Slot::MemRef {
                        elt: Elt::F32,
                        dims: vec![4],
                    },
                    Slot::Index,
                ],
                outputs: results
                    .iter()
                    .map(|_| Slot::MemRef {
                        elt: Elt::F32,
                        dims: vec![4],
                    })
                    .collect(),
            },
            args: vec![],
            steps,
            results,
        }
    }

    fn launch(args: Vec<Arg>) -> Step {
        Step::Launch {
            module: 0,
            kernel: "k".into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
            args,
        }
    }

    #[test]
    fn checks_buffer_lifetimes() {
        let ok = f(
            vec![
                Step::Alloc { id: 0, bytes: 16 },
                Step::Alloc { id: 1, bytes: 16 },
                launch(vec![
                    Arg::Buffer(Buffer::Arg(0)),
                    Arg::Buffer(Buffer::Local(0)),
                    Arg::IndexArg(1),
                ]),
                launch(vec![
                    Arg::Buffer(Buffer::Local(0)),
                    Arg::Buffer(Buffer::Local(1)),
                    Arg::Buffer(Buffer::Global(0)),
                ]),
                Step::Free { id: 0 },
            ],
            vec![Output::Buffer(Buffer::Local(1))],
        );
        assert_eq!(ok.check_steps(1, 1), Ok(()));
        // A global that does not exist.
        assert!(ok.check_steps(0, 1).unwrap_err().contains("constant #0"));
        // A kernel of a module that does not exist.
        assert!(ok.check_steps(1, 0).unwrap_err().contains("in no module"));
        // Used after its free.
        let late = f(
            vec![
                Step::Alloc { id: 0, bytes: 16 },
                Step::Free { id: 0 },
                launch(vec![Arg::Buffer(Buffer::Local(0))]),
            ],
            vec![],
        );
        assert!(late
            .check_steps(0, 1)
            .unwrap_err()
            .contains("buffer #0 is used"));
        // Freed twice, allocated twice, returned after its free.
        let twice = f(
            vec![
                Step::Alloc { id: 0, bytes: 16 },
                Step::Free { id: 0 },
                Step::Free { id: 0 },
            ],
            vec![],
        );
        assert!(twice
            .check_steps(0, 1)
            .unwrap_err()
            .contains("freed while not allocated"));
        let alloc2 = f(
            vec![
                Step::Alloc { id: 0, bytes: 16 },
                Step::Alloc { id: 0, bytes: 16 },
            ],
            vec![],
        );
        assert!(alloc2
            .check_steps(0, 1)
            .unwrap_err()
            .contains("allocated twice"));
        let ret = f(
            vec![Step::Alloc { id: 0, bytes: 16 }, Step::Free { id: 0 }],
            vec![Output::Buffer(Buffer::Local(0))],
        );
        assert!(ret.check_steps(0, 1).is_err());
        // An index argument read as a buffer, a buffer argument as an index.
        assert!(f(vec![launch(vec![Arg::Buffer(Buffer::Arg(1))])], vec![])
            .check_steps(0, 1)
            .is_err());
        assert!(f(vec![launch(vec![Arg::IndexArg(0)])], vec![])
            .check_steps(0, 1)
            .is_err());
    }

    #[test]
    fn describes_steps() {
        let mut p = Program::default();
        p.modules.push(PtxModule {
            name: "m".into(),
            ptx: String::new(),
        });
        let f = f(
            vec![
                Step::Alloc { id: 0, bytes: 16 },
                launch(vec![
                    Arg::Buffer(Buffer::Arg(0)),
                    Arg::Buffer(Buffer::Local(0)),
                    Arg::IndexArg(1),
                    Arg::Bits {
                        bits: 0x3f80_0000,
                        bytes: 4,
                    },
                ]),
            ],
            vec![Output::Buffer(Buffer::Local(0))],
        );
        assert_eq!(
            describe(&f, &p),
            "@f(f32[4], index) -> (f32[4])\n  alloc %0 16 bytes\n  launch m::k grid 1x1x1 block 32x1x1 (arg0, %0, index arg1, b32 0x3f800000)\n  return %0\n"
        );
    }
}
