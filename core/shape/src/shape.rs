//! The shape model: three rows (batch, input, output) of dims, each row with
//! an optional row variable that may sit in the middle.

use std::fmt;

use crate::notation::{self, AxisSpec, Context, Kind, RowVarSpec, SlotSpec, SpecError};

/// A dimension variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DimVar(pub u32);

/// A row variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowVar(pub u32);

/// An interned dimension label (`rgb` in `rgb=3`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Label(u32);

static LABELS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

impl Label {
    pub fn intern(name: &str) -> Label {
        let mut table = LABELS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = table.iter().position(|l| *l == name) {
            return Label(i as u32);
        }
        table.push(Box::leak(name.to_string().into_boxed_str()));
        Label(table.len() as u32 - 1)
    }

    pub fn as_str(self) -> &'static str {
        LABELS.lock().unwrap_or_else(|e| e.into_inner())[self.0 as usize]
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// A dimension: a size with an optional label, or a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Var(DimVar),
    Known { size: u64, label: Option<Label> },
}

impl Dim {
    pub fn size(size: u64) -> Dim {
        Dim::Known { size, label: None }
    }

    pub fn known_size(&self) -> Option<u64> {
        match self {
            Dim::Known { size, .. } => Some(*size),
            Dim::Var(_) => None,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known { size, label: None } => write!(f, "{size}"),
            Dim::Known {
                size,
                label: Some(l),
            } => write!(f, "{l}={size}"),
            Dim::Var(v) => write!(f, "d{}", v.0),
        }
    }
}

/// A row: `beg` dims anchored to the left, an optional row variable standing
/// for any number of further axes, and `end` dims anchored to the right.
/// Without a variable the row is closed: exactly `beg ++ end`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Row {
    pub beg: Vec<Dim>,
    pub var: Option<RowVar>,
    pub end: Vec<Dim>,
}

impl Row {
    pub fn closed(dims: Vec<Dim>) -> Row {
        Row {
            beg: vec![],
            var: None,
            end: dims,
        }
    }

    pub fn open(var: RowVar) -> Row {
        Row {
            beg: vec![],
            var: Some(var),
            end: vec![],
        }
    }

    /// The dims of a closed row.
    pub fn dims(&self) -> impl Iterator<Item = &Dim> {
        self.beg.iter().chain(self.end.iter())
    }

    pub fn num_fixed(&self) -> usize {
        self.beg.len() + self.end.len()
    }

    pub fn is_concrete(&self) -> bool {
        self.var.is_none() && self.dims().all(|d| matches!(d, Dim::Known { .. }))
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self.beg.iter().map(|d| d.to_string()).collect();
        if let Some(v) = self.var {
            parts.push(format!("..r{}..", v.0));
        }
        parts.extend(self.end.iter().map(|d| d.to_string()));
        f.write_str(&parts.join(","))
    }
}

/// A tensor shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    pub batch: Row,
    pub input: Row,
    pub output: Row,
}

impl Shape {
    pub fn row(&self, kind: Kind) -> &Row {
        match kind {
            Kind::Batch => &self.batch,
            Kind::Input => &self.input,
            Kind::Output => &self.output,
        }
    }

    pub fn row_mut(&mut self, kind: Kind) -> &mut Row {
        match kind {
            Kind::Batch => &mut self.batch,
            Kind::Input => &mut self.input,
            Kind::Output => &mut self.output,
        }
    }

    pub fn is_concrete(&self) -> bool {
        Kind::ALL.iter().all(|&k| self.row(k).is_concrete())
    }

    /// The sizes in memory order: batch, output, input (input innermost).
    /// `None` unless the shape is concrete.
    pub fn to_dims(&self) -> Option<Vec<u64>> {
        if !self.is_concrete() {
            return None;
        }
        [&self.batch, &self.output, &self.input]
            .iter()
            .flat_map(|r| r.dims())
            .map(|d| d.known_size())
            .collect()
    }
}

/// The canonical notation: `B|I->O`, `B|` omitted when the batch row is empty
/// and `I->` when the input row is empty. Variables print as `d7` and `..r3..`.
impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let open = |r: &Row| r.var.is_some() || r.num_fixed() > 0;
        if open(&self.batch) {
            write!(f, "{}|", self.batch)?;
        }
        if open(&self.input) {
            write!(f, "{}->", self.input)?;
        }
        write!(f, "{}", self.output)
    }
}

/// Names of variables written in shape annotations, shared within one scope
/// (a function): the same `..v..` or dim name is the same variable.
#[derive(Default, Debug)]
pub struct VarScope {
    pub dims: std::collections::HashMap<String, DimVar>,
    pub rows: std::collections::HashMap<String, RowVar>,
}

/// Allocates fresh variables.
pub trait Fresh {
    fn fresh_dim(&mut self) -> DimVar;
    fn fresh_row(&mut self) -> RowVar;
}

/// Parses a shape annotation. `?` means nothing is known: all three rows are
/// fresh row variables. `...` in a row is a fresh variable of that row;
/// `..v..` and dim names are looked up in (and added to) `scope`.
pub fn parse_shape(
    text: &str,
    scope: &mut VarScope,
    fresh: &mut impl Fresh,
) -> Result<Shape, SpecError> {
    if text.trim() == "?" {
        return Ok(Shape {
            batch: Row::open(fresh.fresh_row()),
            input: Row::open(fresh.fresh_row()),
            output: Row::open(fresh.fresh_row()),
        });
    }
    let slot = notation::parse_slot(text, Context::Shape)?;
    shape_of_slot(&slot, text, scope, fresh)
}

/// The shape a parsed shape annotation (`text`, for errors) stands for, with
/// fresh variables for `...` and the names looked up in `scope`. Parsing
/// once and calling this per use gives the same as `parse_shape` per use.
pub fn shape_of_slot(
    slot: &SlotSpec,
    text: &str,
    scope: &mut VarScope,
    fresh: &mut impl Fresh,
) -> Result<Shape, SpecError> {
    let clash = |name: &str| SpecError {
        pos: 0,
        message: format!("name '{name}' is used as both a dimension variable and a row variable"),
        text: text.to_string(),
    };
    let mut shape = Shape::default();
    for kind in Kind::ALL {
        let spec = slot.row(kind);
        let mut conv = |a: &AxisSpec| -> Result<Dim, SpecError> {
            Ok(match a {
                AxisSpec::Size { size, label } => Dim::Known {
                    size: *size,
                    label: label.as_deref().map(Label::intern),
                },
                AxisSpec::Var(name) => {
                    if scope.rows.contains_key(name) {
                        return Err(clash(name));
                    }
                    Dim::Var(
                        *scope
                            .dims
                            .entry(name.clone())
                            .or_insert_with(|| fresh.fresh_dim()),
                    )
                }
                _ => unreachable!("the shape context admits only sizes and variables"),
            })
        };
        let beg = spec.beg.iter().map(&mut conv).collect::<Result<_, _>>()?;
        let end = spec.end.iter().map(&mut conv).collect::<Result<_, _>>()?;
        let var = match &spec.var {
            None => None,
            Some(RowVarSpec::Ellipsis) => Some(fresh.fresh_row()),
            Some(RowVarSpec::Named(n)) => {
                if scope.dims.contains_key(n) {
                    return Err(clash(n));
                }
                Some(
                    *scope
                        .rows
                        .entry(n.clone())
                        .or_insert_with(|| fresh.fresh_row()),
                )
            }
        };
        *shape.row_mut(kind) = Row { beg, var, end };
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Counter(u32, u32);
    impl Fresh for Counter {
        fn fresh_dim(&mut self) -> DimVar {
            self.0 += 1;
            DimVar(self.0)
        }
        fn fresh_row(&mut self) -> RowVar {
            self.1 += 1;
            RowVar(self.1)
        }
    }

    #[test]
    fn canonical_printing() {
        let cases = [
            ("2,3|4->5", "2,3|4->5"),
            ("3->4", "3->4"),
            ("7", "7"),
            ("10|2", "10|2"),
            ("2 | 3 -> 4", "2|3->4"),
            ("rgb=3, 4", "rgb=3,4"),
            ("|->5", "5"),
            ("", ""),
        ];
        for (text, want) in cases {
            let s = parse_shape(text, &mut VarScope::default(), &mut Counter::default()).unwrap();
            assert_eq!(s.to_string(), want, "{text}");
            assert!(s.is_concrete());
        }
    }

    #[test]
    fn variables_and_scope() {
        let mut scope = VarScope::default();
        let mut fresh = Counter::default();
        let a = parse_shape("..v..|...->h", &mut scope, &mut fresh).unwrap();
        let b = parse_shape("..v..|h", &mut scope, &mut fresh).unwrap();
        assert_eq!(a.batch.var, b.batch.var);
        assert_eq!(a.output.end, b.output.end);
        assert!(a.input.var.is_some() && a.input.var != a.batch.var);
        let q = parse_shape("?", &mut scope, &mut fresh).unwrap();
        assert!(Kind::ALL.iter().all(|&k| q.row(k).var.is_some()));
        assert!(!q.is_concrete());
        // A name is a dim or a row variable, across shapes and within one.
        assert!(parse_shape("..h..|3", &mut scope, &mut fresh).is_err());
        assert!(parse_shape("v", &mut scope, &mut fresh).is_err());
        let e = parse_shape("n|..n..", &mut scope, &mut fresh).unwrap_err();
        assert!(e.message.contains("name 'n'"), "{}", e.message);
    }

    #[test]
    fn memory_order() {
        let s = parse_shape(
            "2,3|4->5",
            &mut VarScope::default(),
            &mut Counter::default(),
        )
        .unwrap();
        assert_eq!(s.to_dims(), Some(vec![2, 3, 5, 4]));
    }
}
