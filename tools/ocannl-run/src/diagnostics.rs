//! Diagnostics printed as MLIR's tools print them: `FILE:LINE:COL:
//! error: message`, then the source line and a caret under the column, and
//! the same for each note.

use std::{cell::RefCell, collections::HashMap, rc::Rc};

use melior::{diagnostic::Diagnostic, ir::Location, Context};

/// The text of the files diagnostics point into, by name: the input given
/// in memory, other files read when first needed.
#[derive(Default)]
struct Sources {
    files: RefCell<HashMap<String, Option<Rc<str>>>>,
}

impl Sources {
    fn line(&self, file: &str, line: usize) -> Option<String> {
        let mut files = self.files.borrow_mut();
        let text = files
            .entry(file.to_string())
            .or_insert_with(|| std::fs::read_to_string(file).ok().map(Rc::from))
            .clone()?;
        text.lines().nth(line.checked_sub(1)?).map(str::to_string)
    }
}

/// `loc("f.mlir":3:5)` as (`f.mlir`, 3, 5); the text of other locations.
fn place(l: Location) -> Result<(String, usize, usize), String> {
    let text = l.to_string();
    let inner = text
        .strip_prefix("loc(\"")
        .and_then(|l| l.strip_suffix(')'))
        .ok_or_else(|| text.clone())?;
    let (file, rest) = inner.split_once('"').ok_or_else(|| text.clone())?;
    let mut nums = rest.trim_start_matches(':').split(':');
    let line = nums.next().and_then(|n| n.parse().ok());
    let col = nums.next().and_then(|n| n.parse().ok());
    match (line, col) {
        (Some(line), Some(col)) => Ok((file.to_string(), line, col)),
        _ => Err(text),
    }
}

fn print(sources: &Sources, location: Location, severity: &str, message: &str) {
    match place(location) {
        Ok((file, line, col)) => {
            eprintln!("{file}:{line}:{col}: {severity}: {message}");
            if let Some(text) = sources.line(&file, line) {
                eprintln!("{text}");
                eprintln!("{}^", " ".repeat(col.saturating_sub(1)));
            }
        }
        Err(other) => eprintln!("{other}: {severity}: {message}"),
    }
}

/// Prints the context's diagnostics; `name` (the name the input was parsed
/// under) has the text `source`.
pub fn attach(context: &Context, name: &str, source: String) {
    let sources = Sources::default();
    sources
        .files
        .borrow_mut()
        .insert(name.to_string(), Some(Rc::from(source)));
    context.attach_diagnostic_handler(move |d: Diagnostic| {
        let severity = format!("{:?}", d.severity()).to_lowercase();
        print(&sources, d.location(), &severity, &d.to_string());
        for i in 0..d.note_count() {
            if let Ok(n) = d.note(i) {
                print(&sources, n.location(), "note", &n.to_string());
            }
        }
        true
    });
}
