//! IDX files (the format of MNIST and Fashion-MNIST), gzipped or plain: the
//! one reader of the project.
//!
//! An IDX file is a magic number `0x0000_08_NN` (two zero bytes, the type of
//! the cells, `0x08` for unsigned bytes, and `NN` the number of dims), the
//! dims as big-endian 32-bit integers, then the cells in row-major order and
//! nothing else. A file that starts with gzip's magic bytes (`1f 8b`) is
//! decompressed with `flate2` (gzip members one after the other, each with
//! its checksum checked) and the result read as above.
//!
//! Only unsigned bytes are read. The caller says how many dims it expects
//! and the sizes of those it knows ([`read`]'s `expect`); everything else is
//! checked against the file: the magic number, the number of dims, the dims,
//! and that the cells are exactly what the dims describe (a truncated file
//! and trailing bytes are both errors). Every error is a message naming the
//! file. Memory follows the file, never a corrupt header: a plain file's
//! size is checked against the dims before anything is allocated, and a
//! gzipped file's cells are allocated as they are decompressed (at most 16
//! times the compressed size up front).

use std::{
    io::{self, BufRead, BufReader, Read},
    path::Path,
};

use flate2::read::MultiGzDecoder;
use ocannl_runtime::Error;

use crate::file::{open, with_package_hint, Failed, Failure};

/// The IDX type code of unsigned bytes, the only cells read.
pub const UNSIGNED_BYTE: u8 = 0x08;

/// The first two bytes of a gzip file.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Up to this many times a gzipped file's size is allocated for its cells
/// before decompressing (more grows as the cells arrive).
const GZIP_RESERVE_FACTOR: u64 = 16;

/// The cells of an IDX file of unsigned bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Idx {
    /// The dims, as the header gives them.
    pub dims: Vec<usize>,
    /// The cells in row-major order (as many as the dims' product).
    pub data: Vec<u8>,
}

/// Reads the IDX file `path` of unsigned bytes, gzipped or plain. `expect`
/// has one entry per dim the file must have: the size it must have, or
/// `None` for any size. Errors name the file.
pub fn read(path: &Path, expect: &[Option<usize>]) -> Result<Idx, Error> {
    read_or_fail(path, expect).map_err(|(_, e)| e)
}

/// [`read`] for a file a Debian package installs: a message also says which
/// package to install (when the file is missing) or reinstall.
pub fn read_installed(path: &Path, expect: &[Option<usize>], package: &str) -> Result<Idx, Error> {
    read_or_fail(path, expect).map_err(|f| with_package_hint(f, package))
}

fn read_or_fail(path: &Path, expect: &[Option<usize>]) -> Result<Idx, Failed> {
    let file = open(path)?;
    let name = path.display().to_string();
    let other = |m: String| (Failure::Other, Error::format(m));
    let unreadable = |e: io::Error| {
        (
            Failure::Other,
            Error::io(format!("cannot read {name}: {e}"), e),
        )
    };
    let file_len = file.metadata().map_err(unreadable)?.len();
    let mut buffered = BufReader::new(file);
    let gzipped = buffered
        .fill_buf()
        .map_err(unreadable)?
        .starts_with(&GZIP_MAGIC);
    let mut source: Box<dyn Read> = if gzipped {
        Box::new(MultiGzDecoder::new(buffered))
    } else {
        Box::new(buffered)
    };
    // A read error: the file ends early, or its gzip data is not valid.
    let failed = |e: io::Error, within: &str| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            other(format!(
                "{name} is truncated: it ends within {within} ({e})"
            ))
        } else if gzipped {
            other(format!("{name} is not a valid gzip file: {e}"))
        } else {
            (
                Failure::Other,
                Error::io(format!("cannot read {name}: {e}"), e),
            )
        }
    };

    // The magic number.
    let mut magic = [0u8; 4];
    source
        .read_exact(&mut magic)
        .map_err(|e| failed(e, "the IDX header"))?;
    let magic_value = u32::from_be_bytes(magic);
    if magic[..2] != [0, 0] {
        return Err(other(format!(
            "{name} is not an IDX file: its magic number is 0x{magic_value:08x}, \
             where an IDX file's starts with two zero bytes (0x0000TTNN, TT the type of the \
             cells, NN the number of dims)"
        )));
    }
    if magic[2] != UNSIGNED_BYTE {
        return Err(other(format!(
            "{name} holds IDX cells of type 0x{:02x} ({}; magic number 0x{magic_value:08x}); \
             only unsigned bytes (0x{UNSIGNED_BYTE:02x}) are read",
            magic[2],
            type_name(magic[2])
        )));
    }
    let rank = usize::from(magic[3]);
    if rank != expect.len() {
        return Err(other(format!(
            "{name} has {rank} dim(s) (magic number 0x{magic_value:08x}) where {} are expected",
            expect.len()
        )));
    }

    // The dims.
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        let mut d = [0u8; 4];
        source
            .read_exact(&mut d)
            .map_err(|e| failed(e, "the IDX header"))?;
        dims.push(u32::from_be_bytes(d) as usize);
    }
    if dims
        .iter()
        .zip(expect)
        .any(|(&d, e)| e.is_some_and(|e| e != d))
    {
        return Err(other(format!(
            "{name} has dims {dims:?} where {} are expected",
            show_expected(expect)
        )));
    }
    let need = dims
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d as u64))
        .filter(|&n| n <= isize::MAX as u64)
        .ok_or_else(|| {
            other(format!(
                "{name}: its dims {dims:?} describe more cells than memory can hold"
            ))
        })?;

    // The cells: exactly as many as the dims describe, memory following the
    // file rather than the header.
    let header_len = 4 + 4 * rank as u64;
    let reserve = if gzipped {
        need.min(file_len.saturating_mul(GZIP_RESERVE_FACTOR))
    } else {
        let have = file_len.saturating_sub(header_len);
        if have != need {
            return Err(other(wrong_length(&name, &dims, need, have)));
        }
        need
    };
    let mut data = Vec::with_capacity(reserve as usize);
    source
        .take(need.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| failed(e, "the cells"))?;
    let got = data.len() as u64;
    if got < need {
        return Err(other(wrong_length(&name, &dims, need, got)));
    }
    if got > need {
        // Past `need`, only one more byte was read.
        return Err(other(format!(
            "{name} has trailing bytes: more cells than the {need} its dims {dims:?} describe"
        )));
    }
    Ok(Idx { dims, data })
}

/// The error for a file whose cells are not as many as its dims describe.
fn wrong_length(name: &str, dims: &[usize], need: u64, have: u64) -> String {
    if have < need {
        format!("{name} is truncated: its dims {dims:?} describe {need} cells but it holds {have}")
    } else {
        format!(
            "{name} has trailing bytes: it holds {have} cells but its dims {dims:?} describe {need}"
        )
    }
}

/// `[*, 28, 28]`: the expected dims, `*` for any size.
fn show_expected(expect: &[Option<usize>]) -> String {
    let dims: Vec<String> = expect
        .iter()
        .map(|e| e.map_or("*".to_string(), |d| d.to_string()))
        .collect();
    format!("[{}]", dims.join(", "))
}

/// The IDX name of a type code.
fn type_name(t: u8) -> &'static str {
    match t {
        0x08 => "unsigned byte",
        0x09 => "signed byte",
        0x0B => "short",
        0x0C => "int",
        0x0D => "float",
        0x0E => "double",
        _ => "not an IDX type",
    }
}
