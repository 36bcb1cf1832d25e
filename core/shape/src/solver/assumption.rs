//! Explanations: the assumptions made while closing (for `explain`
//! remarks), and shapes printed with their unknown parts.

use super::constraint::What;
use crate::{
    notation::Kind,
    shape::{Dim, Row, Shape},
};

/// An assumption made while closing, for `explain` reports: the op of the
/// terminal it is about and what was assumed. Its `Display` is the message
/// (formatted only when asked for: most runs never show it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    pub op: usize,
    pub(super) subject: Subject,
    pub(super) note: Note,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Subject {
    Param(std::sync::Arc<str>),
    Other(What),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Note {
    RowToLub(Kind, Row),
    NoMoreAxes(Kind),
    OneAxisToSlice(Kind),
    Unused(Kind),
    DimTo(Kind, usize, u64),
    ParamDimToIndexBound(Kind, usize, u64),
}

impl std::fmt::Display for Assumption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.subject {
            Subject::Param(name) => format!("param '{name}'"),
            Subject::Other(what) => what.to_string(),
        };
        match &self.note {
            Note::RowToLub(kind, lub) => {
                write!(
                    f,
                    "closed the {kind} row of {what} to its least upper bound [{lub}]"
                )
            }
            Note::NoMoreAxes(kind) => {
                write!(f, "assumed the {kind} row of {what} has no more axes")
            }
            Note::OneAxisToSlice(kind) => {
                write!(
                    f,
                    "assumed the {kind} row of {what} has one axis, the one batch_slice slices"
                )
            }
            Note::Unused(kind) => {
                write!(f, "{what} has no uses: its {kind} row is [1]")
            }
            Note::DimTo(kind, i, size) => write!(
                f,
                "assumed axis {i} of the {kind} row of {what} has dimension {size}"
            ),
            Note::ParamDimToIndexBound(kind, i, at_least) => write!(
                f,
                "set axis {i} of the {kind} row of {what} to its least index bound {at_least}"
            ),
        }
    }
}

/// A shape with variables, printed with `?` for unknown dims and `...` for
/// unknown rows.
pub fn display_partial(s: &Shape) -> String {
    let row = |r: &Row| {
        let mut parts: Vec<String> = r.beg.iter().map(dim_partial).collect();
        if r.var.is_some() {
            parts.push("...".into());
        }
        parts.extend(r.end.iter().map(dim_partial));
        // A row grown without bound (a rank cycle) is shown by its ends.
        const SHOWN: usize = 16;
        if parts.len() > SHOWN {
            let n = parts.len();
            let tail = parts.split_off(n - SHOWN / 2);
            parts.truncate(SHOWN / 2);
            parts.push(format!("<{} more axes>", n - SHOWN));
            parts.extend(tail);
        }
        parts.join(",")
    };
    let mut out = String::new();
    if s.batch.var.is_some() || s.batch.num_fixed() > 0 {
        out += &format!("{}|", row(&s.batch));
    }
    if s.input.var.is_some() || s.input.num_fixed() > 0 {
        out += &format!("{}->", row(&s.input));
    }
    out + &row(&s.output)
}

pub(super) fn dim_partial(d: &Dim) -> String {
    match d {
        Dim::Var(_) => "?".into(),
        d => d.to_string(),
    }
}
