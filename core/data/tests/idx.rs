//! IDX files written here, plain and gzipped: good ones read exactly; each
//! kind of damage is one error naming the file.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use flate2::{write::GzEncoder, Compression};
use ocannl_data::idx::{self, Idx};

/// A fresh directory under the target's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("idx-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The bytes of an IDX file: magic `00 00 type rank`, the dims, the cells.
fn idx_bytes(cell_type: u8, dims: &[u32], cells: &[u8]) -> Vec<u8> {
    let mut b = vec![0, 0, cell_type, dims.len() as u8];
    for d in dims {
        b.extend(d.to_be_bytes());
    }
    b.extend(cells);
    b
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(vec![], Compression::default());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

/// The error reading `path`, which must name it.
fn error(path: &Path, expect: &[Option<usize>]) -> String {
    let e = idx::read(path, expect).expect_err("an error").to_string();
    assert!(
        e.contains(&path.display().to_string()),
        "the error does not name the file: {e}"
    );
    e
}

fn cells(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 37 % 256) as u8).collect()
}

#[test]
fn good_files_read_exactly() {
    let dir = scratch("good");
    let data = cells(3 * 4 * 5);
    let bytes = idx_bytes(0x08, &[3, 4, 5], &data);
    let want = Idx {
        dims: vec![3, 4, 5],
        data: data.clone(),
    };
    let plain = write(&dir, "plain", &bytes);
    assert_eq!(
        idx::read(&plain, &[None, Some(4), Some(5)]),
        Ok(want.clone())
    );
    // Gzipped, whatever the name says.
    let gz = write(&dir, "images.gz", &gzip(&bytes));
    assert_eq!(idx::read(&gz, &[Some(3), None, None]), Ok(want.clone()));
    let gz_unnamed = write(&dir, "images", &gzip(&bytes));
    assert_eq!(
        idx::read(&gz_unnamed, &[None, None, None]),
        Ok(want.clone())
    );
    // A gzip file of several members (as `cat a.gz b.gz` makes) is their
    // concatenation.
    let (a, b) = bytes.split_at(17);
    let two = write(&dir, "two.gz", &[gzip(a), gzip(b)].concat());
    assert_eq!(idx::read(&two, &[None, None, None]), Ok(want));
    // One dim, and no cells at all.
    let labels = write(&dir, "labels", &idx_bytes(0x08, &[4], &[9, 0, 3, 255]));
    assert_eq!(
        idx::read(&labels, &[Some(4)]),
        Ok(Idx {
            dims: vec![4],
            data: vec![9, 0, 3, 255]
        })
    );
    let empty = write(&dir, "empty.gz", &gzip(&idx_bytes(0x08, &[0, 28], &[])));
    assert_eq!(
        idx::read(&empty, &[None, Some(28)]),
        Ok(Idx {
            dims: vec![0, 28],
            data: vec![]
        })
    );
}

#[test]
fn missing_file() {
    let dir = scratch("missing");
    let e = error(&dir.join("nothing.gz"), &[None]);
    assert!(e.starts_with("cannot read "), "{e}");
    assert!(e.contains("No such file"), "{e}");
    // A directory is not a file either.
    let e = error(&dir, &[None]);
    assert!(e.starts_with("cannot read "), "{e}");
}

#[test]
fn truncated_files() {
    let dir = scratch("truncated");
    let bytes = idx_bytes(0x08, &[3, 2, 2], &cells(12));
    for (name, cut) in [("cells", 11), ("no-cells", 0)] {
        let short = &bytes[..bytes.len() - 12 + cut];
        let plain = write(&dir, name, short);
        let e = error(&plain, &[None, None, None]);
        assert!(
            e.contains(&format!(
                "is truncated: its dims [3, 2, 2] describe 12 cells but it holds {cut}"
            )),
            "{e}"
        );
        let gz = write(&dir, &format!("{name}.gz"), &gzip(short));
        assert_eq!(
            error(&gz, &[None, None, None]),
            e.replace(&plain.display().to_string(), &gz.display().to_string())
        );
    }
    // Within the header: in the dims, in the magic number, an empty file.
    for (name, len) in [("dims", 10), ("magic", 3), ("empty", 0)] {
        let plain = write(&dir, name, &bytes[..len]);
        let e = error(&plain, &[None, None, None]);
        assert!(
            e.contains("is truncated: it ends within the IDX header"),
            "{e}"
        );
        let gz = write(&dir, &format!("{name}.gz"), &gzip(&bytes[..len]));
        let e = error(&gz, &[None, None, None]);
        assert!(
            e.contains("is truncated: it ends within the IDX header"),
            "{e}"
        );
    }
    // The gzip stream itself cut short.
    let big = idx_bytes(0x08, &[100, 28, 28], &cells(100 * 28 * 28));
    let compressed = gzip(&big);
    for cut in [compressed.len() / 2, compressed.len() - 4, 12] {
        let gz = write(&dir, "cut.gz", &compressed[..cut]);
        let e = error(&gz, &[None, None, None]);
        assert!(
            e.contains("is truncated") || e.contains("is not a valid gzip file"),
            "{e}"
        );
    }
}

#[test]
fn trailing_bytes() {
    let dir = scratch("trailing");
    let mut bytes = idx_bytes(0x08, &[2, 3], &cells(6));
    bytes.push(7);
    let plain = write(&dir, "long", &bytes);
    let e = error(&plain, &[None, None]);
    assert!(
        e.contains("has trailing bytes: it holds 7 cells but its dims [2, 3] describe 6"),
        "{e}"
    );
    let gz = write(&dir, "long.gz", &gzip(&bytes));
    let e = error(&gz, &[None, None]);
    assert!(
        e.contains("has trailing bytes: more cells than the 6 its dims [2, 3] describe"),
        "{e}"
    );
    // Something after the gzip stream that is not gzip.
    let mut after = gzip(&bytes[..bytes.len() - 1]);
    after.extend(b"not a gzip member");
    let gz = write(&dir, "after.gz", &after);
    let e = error(&gz, &[None, None]);
    assert!(e.contains("is not a valid gzip file"), "{e}");
}

#[test]
fn foreign_files() {
    let dir = scratch("foreign");
    // Not IDX at all: text, a PNG signature.
    for (name, bytes) in [
        ("text", b"hello, world\n".to_vec()),
        ("png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec()),
    ] {
        let plain = write(&dir, name, &bytes);
        let e = error(&plain, &[None]);
        assert!(
            e.contains("is not an IDX file: its magic number is 0x"),
            "{e}"
        );
        let gz = write(&dir, &format!("{name}.gz"), &gzip(&bytes));
        let e = error(&gz, &[None]);
        assert!(e.contains("is not an IDX file"), "{e}");
    }
    // IDX, but of floats.
    let floats = write(&dir, "floats", &idx_bytes(0x0D, &[2], &[0; 8]));
    let e = error(&floats, &[None]);
    assert!(
        e.contains("holds IDX cells of type 0x0d (float; magic number 0x00000d01); only unsigned bytes (0x08) are read"),
        "{e}"
    );
    // A gzip file whose checksum does not match.
    let mut bad = gzip(&idx_bytes(0x08, &[4], &[1, 2, 3, 4]));
    let crc = bad.len() - 8;
    bad[crc] ^= 0xff;
    let gz = write(&dir, "crc.gz", &bad);
    let e = error(&gz, &[None]);
    assert!(e.contains("is not a valid gzip file"), "{e}");
}

#[test]
fn wrong_number_of_dims() {
    let dir = scratch("rank");
    let path = write(&dir, "labels", &idx_bytes(0x08, &[2, 3], &cells(6)));
    let e = error(&path, &[None]);
    assert!(
        e.contains("has 2 dim(s) (magic number 0x00000802) where 1 are expected"),
        "{e}"
    );
    let e = error(&path, &[None, None, None]);
    assert!(
        e.contains("has 2 dim(s) (magic number 0x00000802) where 3 are expected"),
        "{e}"
    );
}

#[test]
fn dims_not_as_expected() {
    let dir = scratch("dims");
    let path = write(
        &dir,
        "images.gz",
        &gzip(&idx_bytes(0x08, &[2, 28, 27], &cells(2 * 28 * 27))),
    );
    let e = error(&path, &[None, Some(28), Some(28)]);
    assert!(
        e.contains("has dims [2, 28, 27] where [*, 28, 28] are expected"),
        "{e}"
    );
    let e = error(&path, &[Some(3), Some(28), Some(27)]);
    assert!(
        e.contains("has dims [2, 28, 27] where [3, 28, 27] are expected"),
        "{e}"
    );
}

/// A header whose dims describe far more than the file holds is an error
/// before anything that size is allocated (else this test would abort).
#[test]
fn dims_larger_than_the_file() {
    let dir = scratch("huge");
    let huge = [u32::MAX, 1 << 31, 1 << 30];
    let plain = write(&dir, "huge", &idx_bytes(0x08, &huge[..2], &cells(5)));
    let e = error(&plain, &[None, None]);
    assert!(
        e.contains("is truncated: its dims [4294967295, 2147483648] describe 9223372034707292160 cells but it holds 5"),
        "{e}"
    );
    let gz = write(
        &dir,
        "huge.gz",
        &gzip(&idx_bytes(0x08, &huge[..2], &cells(5))),
    );
    let e = error(&gz, &[None, None]);
    assert!(
        e.contains("is truncated: its dims [4294967295, 2147483648]"),
        "{e}"
    );
    // More cells than memory can address.
    let gz = write(&dir, "beyond.gz", &gzip(&idx_bytes(0x08, &huge, &[])));
    let e = error(&gz, &[None, None, None]);
    assert!(
        e.contains("its dims [4294967295, 2147483648, 1073741824] describe more cells than memory can hold"),
        "{e}"
    );
}

#[test]
fn installed_files_name_their_package() {
    let dir = scratch("installed");
    let e = idx::read_installed(&dir.join("gone.gz"), &[None], "dataset-x")
        .expect_err("missing")
        .to_string();
    assert!(
        e.contains(&dir.join("gone.gz").display().to_string()),
        "{e}"
    );
    assert!(
        e.contains(
            "the file is installed by Debian's package dataset-x (apt-get install dataset-x;"
        ),
        "{e}"
    );
    let bad = write(&dir, "bad", b"not idx");
    let e = idx::read_installed(&bad, &[None], "dataset-x")
        .expect_err("foreign")
        .to_string();
    assert!(e.contains(&bad.display().to_string()), "{e}");
    assert!(e.contains("(apt-get install --reinstall dataset-x)"), "{e}");
}

/// Errors have kinds: a missing file is an I/O error with the system's
/// error as its source (the package hint keeps both), a damaged one a
/// format error.
#[test]
fn errors_have_kinds() {
    use ocannl_runtime::Kind;
    let dir = std::env::temp_dir().join(format!("ocannl-idx-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = ocannl_data::idx::read_installed(&dir.join("gone"), &[None], "pkg").unwrap_err();
    assert_eq!(missing.kind(), Kind::Io);
    assert!(std::error::Error::source(&missing).is_some());
    assert!(
        missing.to_string().contains("apt-get install pkg"),
        "{missing}"
    );
    let bad = dir.join("bad");
    std::fs::write(&bad, [1u8, 2, 3, 4, 5]).unwrap();
    let e = ocannl_data::idx::read(&bad, &[None]).unwrap_err();
    assert_eq!(e.kind(), Kind::Format);
    std::fs::remove_dir_all(&dir).ok();
}
