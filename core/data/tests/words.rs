//! The word list: filtering, the deterministic split, tokens; and the list
//! Debian's package `wamerican` installs.

use std::path::Path;

use ocannl_data::words::{self, decode, encode, is_test, Words, END, VOCAB};

/// Every word of `n` letters, in order.
fn all_words(n: u32) -> Vec<String> {
    let alphabet: Vec<char> = words::ALPHABET.chars().collect();
    (0..26usize.pow(n))
        .map(|mut i| {
            let mut w = vec!['a'; n as usize];
            for c in w.iter_mut().rev() {
                *c = alphabet[i % 26];
                i /= 26;
            }
            w.into_iter().collect()
        })
        .collect()
}

#[test]
fn filtering() {
    let list = b"zoo\nApple\napple\napple's\nbanana\r\nbanana\ncaf\xc3\xa9\n\nx1\n \nwith space\n\xff\xfe\nzebra\nkiwi";
    let w = Words::from_list(list);
    let mut all: Vec<&str> = w.train.iter().chain(&w.test).map(String::as_str).collect();
    all.sort_unstable();
    assert_eq!(all, ["apple", "banana", "kiwi", "zebra", "zoo"]);
    // Each split sorted.
    assert!(w.train.windows(2).all(|p| p[0] < p[1]));
    assert!(w.test.windows(2).all(|p| p[0] < p[1]));
}

#[test]
fn deterministic_split() {
    let three = all_words(3);
    let text = three.join("\n");
    let w = Words::from_list(text.as_bytes());
    // A partition of the words, about a tenth of them for testing.
    assert_eq!(w.train.len() + w.test.len(), three.len());
    assert!(w.test.iter().all(|x| is_test(x)));
    assert!(w.train.iter().all(|x| !is_test(x)));
    let share = w.test.len() as f64 / three.len() as f64;
    assert!((0.08..0.12).contains(&share), "test share {share}");
    // The same split every time and everywhere: pinned, so that a change
    // of the hash (which would move words between the splits of a trained
    // model's data) shows.
    assert_eq!(w.test.len(), 1748);
    assert_eq!(&w.test[..3], ["aac", "aao", "aas"]);
    // A word's side does not depend on the rest of the list.
    let some = Words::from_list(b"aas\naac\nzzz\nabd\nabc");
    assert_eq!(some.test, ["aac", "aas", "abc"]);
    assert_eq!(some.train, ["abd", "zzz"]);
    // Order of the lines does not matter.
    let mut reversed = three.clone();
    reversed.reverse();
    assert_eq!(Words::from_list(reversed.join("\n").as_bytes()), w);
}

#[test]
fn tokens() {
    assert_eq!(encode("abz"), Ok(vec![1, 2, 26, END]));
    assert_eq!(encode(""), Ok(vec![END]));
    assert_eq!(decode(&[1, 2, 26, END, 5]), Ok("abz".to_string()));
    assert_eq!(decode(&[3, 1, 20]), Ok("cat".to_string()));
    for w in ["a", "zebra", "quixotic"] {
        assert_eq!(decode(&encode(w).expect("encode")).as_deref(), Ok(w));
    }
    let e = encode("cafe's").expect_err("an apostrophe").to_string();
    assert!(
        e.contains("character 4 ('\\'') is not a letter a to z"),
        "{e}"
    );
    assert!(encode("a.b").is_err());
    let e = decode(&[1, VOCAB])
        .expect_err("past the vocabulary")
        .to_string();
    assert!(e.contains("token 27 is not one of the 27 tokens"), "{e}");
    assert_eq!(words::token('.'), Some(END));
    assert_eq!(words::char_of(26), Some('z'));
}

#[test]
fn missing_or_empty_lists() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("words");
    std::fs::create_dir_all(&dir).expect("scratch");
    let missing = dir.join("no-such-list");
    let e = Words::load(&missing).expect_err("missing").to_string();
    assert!(
        e.contains(&format!("cannot read {}", missing.display())),
        "{e}"
    );
    let empty = dir.join("capitals");
    std::fs::write(&empty, "Paris\nO'Neill\n").expect("write");
    let e = Words::load(&empty).expect_err("no words").to_string();
    assert!(
        e.contains(&format!(
            "{} has no word of lowercase letters a to z only",
            empty.display()
        )),
        "{e}"
    );
}

/// The list Debian's package installs (`scripts/bootstrap.sh` installs it;
/// without it this fails, saying which package to install).
#[test]
fn wamerican() {
    let w = Words::load_default().unwrap_or_else(|e| panic!("{e}"));
    let n = w.train.len() + w.test.len();
    assert!(n > 50_000, "{n} words");
    let share = w.test.len() as f64 / n as f64;
    assert!((0.09..0.11).contains(&share), "test share {share}");
    assert!(w
        .train
        .iter()
        .chain(&w.test)
        .all(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_lowercase())));
    for known in ["apple", "zebra", "computer"] {
        assert!(
            w.train.iter().chain(&w.test).any(|x| x == known),
            "{known} is missing"
        );
    }
}
