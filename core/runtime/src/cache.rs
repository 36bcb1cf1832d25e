//! The persistent compilation cache: compiled code kept on disk, keyed by
//! a hash of everything that decides it, shared by processes.
//!
//! An entry is one file `<dir>/<namespace>/<key>`: a header (a magic
//! number, the format version, the key, the payload's length), the
//! payload, and the SHA-256 of the payload. [`Cache::get`] returns a
//! payload only when all of these check out; anything else (a truncated
//! file, another format, a file of another key, bytes changed on disk) is
//! a miss, and the entry is removed so that the next [`Cache::put`]
//! replaces it. Entries are written to a temporary file in the directory
//! and renamed in place ([`crate::write_atomically`]): two processes
//! writing one entry at once each leave a whole entry, never a mix.
//!
//! Where the cache lives ([`CacheDir`]): by default `$OCANNL_CACHE_DIR`,
//! else `$XDG_CACHE_HOME/ocannl`, else `$HOME/.cache/ocannl`;
//! `OCANNL_CACHE=0` (or `off`, `false`, `no`) turns it off. A directory
//! that cannot be created or written means compiling without the cache,
//! with one warning on standard error per process.

use std::{
    fmt,
    path::{Path, PathBuf},
    sync::atomic::{AtomicBool, AtomicUsize, Ordering},
};

use sha2::{Digest, Sha256};

/// What an entry starts with.
const MAGIC: &[u8; 8] = b"OCNLCACH";
/// The entry format's version; entries of another version are misses.
const VERSION: u32 = 1;
/// Magic, version, key, payload length.
const HEADER: usize = 8 + 4 + 32 + 8;
/// The payload's SHA-256 after it.
const TRAILER: usize = 32;

/// Whether this process has warned about a cache it cannot write.
static WARNED: AtomicBool = AtomicBool::new(false);

/// A cache key: the SHA-256 of everything that decides an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

impl Key {
    /// The key of a sequence of parts (each hashed with its length, so
    /// that `["ab", "c"]` and `["a", "bc"]` differ).
    pub fn of(parts: &[&[u8]]) -> Key {
        let mut h = Sha256::new();
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        Key(h.finalize().into())
    }

    /// The key as 64 lowercase hex digits (an entry's file name).
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

/// Where a compiler keeps its cache.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CacheDir {
    /// `$OCANNL_CACHE_DIR`, else `$XDG_CACHE_HOME/ocannl`, else
    /// `$HOME/.cache/ocannl`; none when `OCANNL_CACHE` says off or no
    /// variable gives a directory.
    #[default]
    Default,
    /// No cache: everything is compiled.
    Off,
    /// This directory.
    At(PathBuf),
}

impl CacheDir {
    /// The directory this choice means, if any (reading the environment
    /// for [`CacheDir::Default`]).
    pub fn resolve(&self) -> Option<PathBuf> {
        match self {
            CacheDir::Off => None,
            CacheDir::At(d) => Some(d.clone()),
            CacheDir::Default => {
                let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
                if let Ok(v) = std::env::var("OCANNL_CACHE") {
                    if ["0", "off", "false", "no"].contains(&v.to_ascii_lowercase().as_str()) {
                        return None;
                    }
                }
                var("OCANNL_CACHE_DIR")
                    .map(PathBuf::from)
                    .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("ocannl")))
                    .or_else(|| var("HOME").map(|d| PathBuf::from(d).join(".cache/ocannl")))
            }
        }
    }
}

/// A cache of one kind of entries (a namespace: one per backend and kind
/// of compiled code), counting its hits and misses. Shared by threads.
#[derive(Debug)]
pub struct Cache {
    /// The namespace's directory; `None` when the cache is off.
    dir: Option<PathBuf>,
    /// Set when a write failed: no more writes.
    broken: AtomicBool,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

impl Cache {
    /// The cache of `namespace` (a directory name: letters, digits, `-`,
    /// `_`, `.`) under `dir`. Nothing is created until an entry is
    /// written.
    pub fn open(dir: &CacheDir, namespace: &str) -> Cache {
        debug_assert!(
            !namespace.is_empty()
                && namespace
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                && namespace != "."
                && namespace != "..",
            "a cache namespace is a plain directory name"
        );
        Cache {
            dir: dir.resolve().map(|d| d.join(namespace)),
            broken: AtomicBool::new(false),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
        }
    }

    /// Whether entries are read and written.
    pub fn enabled(&self) -> bool {
        self.dir.is_some() && !self.broken.load(Ordering::Relaxed)
    }

    /// The namespace's directory, when the cache is on.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// How many [`Cache::get`]s found their entry.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }

    /// How many [`Cache::get`]s found none (or a damaged one).
    pub fn misses(&self) -> usize {
        self.misses.load(Ordering::Relaxed)
    }

    fn path(&self, key: &Key) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(key.hex()))
    }

    /// The payload stored under `key`, if a whole, unchanged entry of this
    /// format and key is there. A damaged entry is removed.
    pub fn get(&self, key: &Key) -> Option<Vec<u8>> {
        let found = self.path(key).and_then(|path| {
            let bytes = std::fs::read(&path).ok()?;
            let payload = decode(key, &bytes);
            if payload.is_none() {
                // Damaged or foreign: removed, so that a put replaces it.
                let _ = std::fs::remove_file(&path);
            }
            payload
        });
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Stores `payload` under `key`. A failure (a directory that cannot be
    /// created or written, a full disk) turns writing off for this cache,
    /// with one warning per process; compiling goes on without it.
    pub fn put(&self, key: &Key, payload: &[u8]) {
        if !self.enabled() {
            return;
        }
        let (Some(dir), Some(path)) = (self.dir.as_ref(), self.path(key)) else {
            return;
        };
        let written = std::fs::create_dir_all(dir)
            .map_err(|e| crate::Error::io(format!("cannot create {}: {e}", dir.display()), e))
            .and_then(|()| {
                crate::write_atomically(&path, |w| {
                    w.write_all(&encode(key, payload))?;
                    Ok(())
                })
            });
        if let Err(e) = written {
            self.broken.store(true, Ordering::Relaxed);
            if !WARNED.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "warning: compiling without the compilation cache ({e}); set OCANNL_CACHE_DIR \
                     to a writable directory, or OCANNL_CACHE=0 to turn it off"
                );
            }
        }
    }
}

/// An entry's bytes.
fn encode(key: &Key, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len() + TRAILER);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&Sha256::digest(payload));
    out
}

/// An entry's payload, if `bytes` is a whole entry of this format for
/// `key` whose checksum matches.
fn decode(key: &Key, bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.len() < HEADER + TRAILER || &bytes[..8] != MAGIC {
        return None;
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().ok()?);
    let len = u64::from_le_bytes(bytes[44..52].try_into().ok()?);
    if version != VERSION || bytes[12..44] != key.0 {
        return None;
    }
    let end = HEADER.checked_add(usize::try_from(len).ok()?)?;
    if end.checked_add(TRAILER)? != bytes.len() {
        return None;
    }
    let payload = &bytes[HEADER..end];
    (Sha256::digest(payload).as_slice() == &bytes[end..]).then(|| payload.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_parts_are_delimited() {
        assert_ne!(Key::of(&[b"ab", b"c"]), Key::of(&[b"a", b"bc"]));
        assert_eq!(Key::of(&[b"ab", b"c"]), Key::of(&[b"ab", b"c"]));
        assert_eq!(Key::of(&[]).hex().len(), 64);
    }

    #[test]
    fn round_trip_and_every_damage_is_a_miss() {
        let key = Key::of(&[b"k"]);
        let entry = encode(&key, b"payload");
        assert_eq!(decode(&key, &entry).as_deref(), Some(&b"payload"[..]));
        // Truncated anywhere.
        for n in 0..entry.len() {
            assert_eq!(decode(&key, &entry[..n]), None, "truncated to {n}");
        }
        // A byte changed anywhere.
        for i in 0..entry.len() {
            let mut e = entry.clone();
            e[i] ^= 1;
            assert_eq!(decode(&key, &e), None, "byte {i} changed");
        }
        // Another key's entry, and trailing bytes.
        assert_eq!(decode(&Key::of(&[b"other"]), &entry), None);
        let mut longer = entry.clone();
        longer.push(0);
        assert_eq!(decode(&key, &longer), None);
    }
}
