//! The compilation cache on disk: hits, misses, damaged entries, an
//! unwritable directory, writers racing on one entry.

use ocannl_runtime::cache::{Cache, CacheDir, Key};

fn cache(dir: &std::path::Path) -> Cache {
    Cache::open(&CacheDir::At(dir.to_path_buf()), "test")
}

#[test]
fn an_entry_written_by_one_cache_is_read_by_another() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::of(&[b"module", b"O3"]);
    let a = cache(dir.path());
    assert_eq!(a.get(&key), None);
    a.put(&key, b"object code");
    // Another process opens the same directory: a new cache.
    let b = cache(dir.path());
    assert_eq!(b.get(&key).as_deref(), Some(&b"object code"[..]));
    assert_eq!((a.hits(), a.misses()), (0, 1));
    assert_eq!((b.hits(), b.misses()), (1, 0));
    // Another key (another option, level, version or CPU) misses.
    assert_eq!(b.get(&Key::of(&[b"module", b"O2"])), None);
    // Namespaces are apart.
    let other = Cache::open(&CacheDir::At(dir.path().to_path_buf()), "other");
    assert_eq!(other.get(&key), None);
}

#[test]
fn damaged_entries_are_misses_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let c = cache(dir.path());
    let key = Key::of(&[b"k"]);
    let path = dir.path().join("test").join(key.hex());
    c.put(&key, b"0123456789");
    let whole = std::fs::read(&path).unwrap();
    // Truncated.
    std::fs::write(&path, &whole[..whole.len() - 3]).unwrap();
    assert_eq!(c.get(&key), None);
    assert!(!path.exists(), "a damaged entry is removed");
    // Corrupted payload.
    let mut bad = whole.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0xff;
    std::fs::write(&path, &bad).unwrap();
    assert_eq!(c.get(&key), None);
    // A foreign file: not an entry at all, or another key's entry.
    std::fs::write(&path, b"\x7fELF not an entry").unwrap();
    assert_eq!(c.get(&key), None);
    let other = Key::of(&[b"other"]);
    c.put(&other, b"0123456789");
    std::fs::copy(dir.path().join("test").join(other.hex()), &path).unwrap();
    assert_eq!(c.get(&key), None);
    // Written again, it is read again.
    c.put(&key, b"0123456789");
    assert_eq!(c.get(&key).as_deref(), Some(&b"0123456789"[..]));
}

#[test]
fn an_unwritable_directory_means_no_cache() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the directory should be: nothing can be created under it.
    let blocked = dir.path().join("blocked");
    std::fs::write(&blocked, b"").unwrap();
    let c = cache(&blocked);
    assert!(c.enabled());
    let key = Key::of(&[b"k"]);
    c.put(&key, b"x");
    assert!(!c.enabled(), "writing is off after a failed write");
    assert_eq!(c.get(&key), None);
    c.put(&key, b"x");
    assert!(std::fs::metadata(&blocked).unwrap().is_file());
}

#[test]
fn off_is_off() {
    let c = Cache::open(&CacheDir::Off, "test");
    assert!(!c.enabled());
    let key = Key::of(&[b"k"]);
    c.put(&key, b"x");
    assert_eq!(c.get(&key), None);
}

#[test]
fn writers_racing_on_one_entry_leave_a_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::of(&[b"raced"]);
    // Payloads of different lengths and contents: a mix of two would fail
    // the checksum or the length.
    let payloads: Vec<Vec<u8>> = (0..8u8)
        .map(|i| vec![i; 100_000 + i as usize * 7919])
        .collect();
    let payloads = &payloads;
    std::thread::scope(|s| {
        for p in payloads {
            let dir = dir.path().to_path_buf();
            s.spawn(move || {
                let c = cache(&dir);
                for _ in 0..20 {
                    c.put(&key, p);
                    if let Some(got) = c.get(&key) {
                        assert!(payloads.contains(&got), "a mixed entry was read");
                    }
                }
            });
        }
    });
    let got = cache(dir.path()).get(&key).expect("an entry");
    assert!(payloads.contains(&got));
    // No temporary files are left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path().join("test"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from(key.hex())]);
}
