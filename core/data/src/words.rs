//! Words for character-level models: the list Debian's package `wamerican`
//! installs (`/usr/share/dict/words`), filtered to words of lowercase
//! letters `a` to `z` (no capitals, apostrophes or accents), deduplicated,
//! sorted, and split into training and test words.
//!
//! The split depends only on each word (a hash of it, [`is_test`]): about
//! [`TEST_PERCENT`] percent of the words are test words, the same ones on
//! every machine and whatever else the list holds.
//!
//! Tokens: [`END`] (0, written `.`) ends a word, letters `a` to `z` are 1 to
//! 26 ([`VOCAB`] tokens in all).

use std::path::Path;

use ocannl_ops::rng::mix;
use ocannl_runtime::Error;

use crate::file::{open, with_package_hint, Failed, Failure};

/// Where Debian's package installs the list.
pub const DEFAULT_PATH: &str = "/usr/share/dict/words";
/// The Debian package that installs it.
pub const PACKAGE: &str = "wamerican";
/// The letters, in token order (token `i + 1` is `ALPHABET[i]`).
pub const ALPHABET: &str = "abcdefghijklmnopqrstuvwxyz";
/// The token that ends a word, and how it is written.
pub const END: usize = 0;
pub const END_CHAR: char = '.';
/// The number of tokens: the end and the 26 letters.
pub const VOCAB: usize = 27;
/// The share of test words, in percent.
pub const TEST_PERCENT: u64 = 10;

/// The training and test words, each sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Words {
    pub train: Vec<String>,
    pub test: Vec<String>,
}

impl Words {
    /// The words of a list, one per line: those of lowercase letters `a` to
    /// `z` only, each once, split by [`is_test`]. Other lines (capitals,
    /// apostrophes, accents, bytes that are not UTF-8, empty lines) are left
    /// out.
    pub fn from_list(list: &[u8]) -> Self {
        let mut words: Vec<&str> = list
            .split(|&b| b == b'\n')
            .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
            .filter(|line| !line.is_empty() && line.iter().all(u8::is_ascii_lowercase))
            // Always UTF-8: ASCII letters.
            .filter_map(|line| std::str::from_utf8(line).ok())
            .collect();
        words.sort_unstable();
        words.dedup();
        let (test, train): (Vec<&str>, Vec<&str>) = words.into_iter().partition(|w| is_test(w));
        Words {
            train: train.into_iter().map(String::from).collect(),
            test: test.into_iter().map(String::from).collect(),
        }
    }

    /// The words of the list `path` (see [`Words::from_list`]); a list with
    /// no such word is an error.
    pub fn load(path: &Path) -> Result<Self, Error> {
        Self::load_or_fail(path).map_err(|(_, e)| e)
    }

    /// The words of the list Debian's package installs ([`DEFAULT_PATH`]);
    /// an error also says to install (or reinstall) the package.
    pub fn load_default() -> Result<Self, Error> {
        Self::load_or_fail(Path::new(DEFAULT_PATH)).map_err(|f| with_package_hint(f, PACKAGE))
    }

    fn load_or_fail(path: &Path) -> Result<Self, Failed> {
        let mut list = vec![];
        std::io::Read::read_to_end(&mut open(path)?, &mut list).map_err(|e| {
            (
                Failure::Other,
                Error::io(format!("cannot read {}: {e}", path.display()), e),
            )
        })?;
        let words = Self::from_list(&list);
        if words.train.is_empty() && words.test.is_empty() {
            return Err((
                Failure::Other,
                Error::format(format!(
                    "{} has no word of lowercase letters a to z only (one word per line)",
                    path.display()
                )),
            ));
        }
        Ok(words)
    }
}

/// Whether `word` is a test word: the top of a hash of its bytes (FNV-1a,
/// then SplitMix64's mixing), modulo 100, below [`TEST_PERCENT`].
pub fn is_test(word: &str) -> bool {
    let fnv = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    mix(fnv) % 100 < TEST_PERCENT
}

/// The token of a letter `a` to `z`, or of [`END_CHAR`].
pub fn token(c: char) -> Option<usize> {
    match c {
        END_CHAR => Some(END),
        'a'..='z' => Some(c as usize - 'a' as usize + 1),
        _ => None,
    }
}

/// The character of a token (`.` for [`END`]).
pub fn char_of(token: usize) -> Option<char> {
    match token {
        END => Some(END_CHAR),
        1..=26 => ALPHABET.chars().nth(token - 1),
        _ => None,
    }
}

/// The tokens of `word`'s letters, then [`END`]. A character other than
/// `a` to `z` is an error.
pub fn encode(word: &str) -> Result<Vec<usize>, Error> {
    let mut tokens = Vec::with_capacity(word.len() + 1);
    for (i, c) in word.chars().enumerate() {
        match token(c) {
            Some(t) if t != END => tokens.push(t),
            _ => {
                return Err(Error::argument(format!(
                    "{word:?}: character {i} ({c:?}) is not a letter a to z"
                )))
            }
        }
    }
    tokens.push(END);
    Ok(tokens)
}

/// The word that `tokens` spell, up to the first [`END`] (or all of them).
/// A token past the vocabulary is an error.
pub fn decode(tokens: &[usize]) -> Result<String, Error> {
    let mut word = String::new();
    for &t in tokens {
        match char_of(t) {
            Some(END_CHAR) => break,
            Some(c) => word.push(c),
            None => {
                return Err(Error::argument(format!(
                    "token {t} is not one of the {VOCAB} tokens"
                )))
            }
        }
    }
    Ok(word)
}
