//! OCANNL's shape and generalized-einsum notation.
//!
//! A *slot* spec describes one tensor: `batch|input->output`, where `B|` is
//! omitted when there is no batch row and `I->` when there is no input row.
//! A row is a list of axis specs with at most one row variable (`...` or
//! `..v..`), which may sit anywhere: the axes before it are anchored to the
//! left of the row, the axes after it to the right.
//!
//! Two modes: in *multichar* mode axes are comma-separated identifiers; it is
//! used when the text contains any of `, * + ^ & <` or an `=` that is not part
//! of `=>`. Otherwise every letter is one axis, a digit run is one integer and
//! whitespace separates.
//!
//! Two contexts: in an *einsum* spec (`rhs => lhs`, `rhs1; rhs2 => lhs`) an
//! integer is a fixed index and `_` a placeholder; in a *shape* (a type
//! annotation) an integer is a dimension size and `label=N` a labelled size.

use std::fmt;

/// A parse error: byte offset into the parsed text and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub pos: usize,
    pub message: String,
    pub text: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at position {} in \"{}\"",
            self.message, self.pos, self.text
        )
    }
}

impl std::error::Error for SpecError {}

/// Where a spec is written: it decides what integers mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// A shape annotation: integers are sizes, `label=N` is allowed.
    Shape,
    /// A slot of an einsum spec: integers are fixed indices, `_` and conv
    /// expressions are allowed.
    Einsum,
}

/// The three row kinds, in the order the notation writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Batch,
    Input,
    Output,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Batch, Kind::Input, Kind::Output];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Batch => "batch",
            Kind::Input => "input",
            Kind::Output => "output",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One axis of a row spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisSpec {
    /// A dimension variable (an einsum label, or an unknown size in a shape).
    Var(String),
    /// A size (shape context), optionally labelled: `5`, `rgb=3`.
    Size { size: u64, label: Option<String> },
    /// A fixed index (einsum context): `0`, `2`.
    Fixed(u64),
    /// `_`: aligns the other axes, constrains nothing.
    Placeholder,
    /// `stride*output+dilation*kernel`; `use_padding` is `Some(false)` for
    /// `<+` (valid), `Some(true)` for `=+` (same), `None` for plain `+`. A pure
    /// stride `2*i` has no kernel; `2*i+1` has an offset.
    Affine {
        stride: u64,
        over: String,
        dilation: u64,
        kernel: Option<String>,
        offset: u64,
        use_padding: Option<bool>,
    },
}

/// A row variable: `...` (the row kind's own variable) or `..name..`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowVarSpec {
    Ellipsis,
    Named(String),
}

impl RowVarSpec {
    /// The variable's name, resolving `...` by the row kind.
    pub fn name(&self, kind: Kind) -> &str {
        match self {
            RowVarSpec::Ellipsis => kind.name(),
            RowVarSpec::Named(n) => n,
        }
    }
}

/// A row spec: `beg` axes, an optional row variable, then `end` axes. Without
/// a row variable all axes are in `end` (anchored to the right).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RowSpec {
    pub beg: Vec<AxisSpec>,
    pub var: Option<RowVarSpec>,
    pub end: Vec<AxisSpec>,
}

impl RowSpec {
    pub fn axes(&self) -> impl Iterator<Item = &AxisSpec> {
        self.beg.iter().chain(self.end.iter())
    }

    pub fn is_empty(&self) -> bool {
        self.beg.is_empty() && self.var.is_none() && self.end.is_empty()
    }
}

/// The spec of one tensor (one einsum slot, or one shape annotation).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SlotSpec {
    pub batch: RowSpec,
    pub input: RowSpec,
    pub output: RowSpec,
    /// `|` was written.
    pub has_batch: bool,
    /// `->` was written.
    pub has_input: bool,
}

impl SlotSpec {
    pub fn row(&self, kind: Kind) -> &RowSpec {
        match kind {
            Kind::Batch => &self.batch,
            Kind::Input => &self.input,
            Kind::Output => &self.output,
        }
    }
}

/// A generalized einsum spec: `rhs => lhs` or `rhs1; rhs2 => lhs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EinsumSpec {
    pub rhs: Vec<SlotSpec>,
    pub lhs: SlotSpec,
}

impl EinsumSpec {
    /// The names of its dimension labels and of its row variables (`...`
    /// as its row kind's name), each once, in order of appearance: what
    /// an einsum can capture.
    pub fn names(&self) -> (Vec<String>, Vec<String>) {
        let mut dims: Vec<String> = vec![];
        let mut rows: Vec<String> = vec![];
        let add = |list: &mut Vec<String>, n: &str| {
            if !list.iter().any(|x| x == n) {
                list.push(n.to_string());
            }
        };
        for slot in self.rhs.iter().chain(std::iter::once(&self.lhs)) {
            for kind in Kind::ALL {
                let row = slot.row(kind);
                if let Some(v) = &row.var {
                    add(&mut rows, v.name(kind));
                }
                for a in row.axes() {
                    match a {
                        AxisSpec::Var(n) => add(&mut dims, n),
                        AxisSpec::Affine { over, kernel, .. } => {
                            add(&mut dims, over);
                            if let Some(k) = kernel {
                                add(&mut dims, k);
                            }
                        }
                        AxisSpec::Size { .. } | AxisSpec::Fixed(_) | AxisSpec::Placeholder => {}
                    }
                }
            }
        }
        (dims, rows)
    }
}

/// Whether `text` uses the multichar mode.
pub fn is_multichar(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, &c)| match c {
        b',' | b'*' | b'+' | b'^' | b'&' | b'<' => true,
        b'=' => b.get(i + 1) != Some(&b'>'),
        _ => false,
    })
}

/// The largest size, index, stride or dilation written in the notation:
/// a buffer's axis has at most 2^63 - 1 cells (its offsets are signed
/// 64-bit integers), so nothing larger is meaningful.
pub const MAX_SIZE: u64 = i64::MAX as u64;

struct Parser<'a> {
    text: &'a str,
    ctx: Context,
    multichar: bool,
}

impl<'a> Parser<'a> {
    fn err(&self, pos: usize, message: impl Into<String>) -> SpecError {
        SpecError {
            pos,
            message: message.into(),
            text: self.text.to_string(),
        }
    }

    /// Parses the slot in `text[start..end]`.
    fn slot(&self, start: usize, end: usize) -> Result<SlotSpec, SpecError> {
        let s = &self.text[start..end];
        let mut spec = SlotSpec::default();
        let (batch_part, rest, rest_off) = match s.find('|') {
            Some(i) => {
                if let Some(j) = s[i + 1..].find('|') {
                    return Err(self.err(
                        start + i + 1 + j,
                        "unexpected second '|' (a shape has one batch row)",
                    ));
                }
                spec.has_batch = true;
                (Some((start, start + i)), &s[i + 1..], start + i + 1)
            }
            None => (None, s, start),
        };
        let (input_part, output_part) = match rest.find("->") {
            Some(i) => {
                if let Some(j) = rest[i + 2..].find("->") {
                    return Err(self.err(
                        rest_off + i + 2 + j,
                        "unexpected second '->' (a shape has one input row)",
                    ));
                }
                spec.has_input = true;
                (
                    Some((rest_off, rest_off + i)),
                    (rest_off + i + 2, rest_off + rest.len()),
                )
            }
            None => (None, (rest_off, rest_off + rest.len())),
        };
        if let Some((a, b)) = batch_part {
            spec.batch = self.row(a, b)?;
        }
        if let Some((a, b)) = input_part {
            spec.input = self.row(a, b)?;
        }
        spec.output = self.row(output_part.0, output_part.1)?;
        Ok(spec)
    }

    fn row(&self, start: usize, end: usize) -> Result<RowSpec, SpecError> {
        let mut items: Vec<(usize, Item)> = Vec::new();
        if self.multichar {
            let s = &self.text[start..end];
            let mut off = 0;
            for piece in s.split(',') {
                let trimmed = piece.trim();
                let lead = piece.len() - piece.trim_start().len();
                if !trimmed.is_empty() {
                    let pos = start + off + lead;
                    items.push((pos, self.multichar_item(pos, trimmed)?));
                }
                off += piece.len() + 1;
            }
        } else {
            self.singlechar_items(start, end, &mut items)?;
        }
        let mut row = RowSpec::default();
        for (pos, item) in items {
            match item {
                Item::RowVar(v) => {
                    if row.var.is_some() {
                        return Err(self.err(pos, "a row can have at most one row variable"));
                    }
                    row.var = Some(v);
                    row.beg = std::mem::take(&mut row.end);
                }
                Item::Axis(a) => row.end.push(a),
            }
        }
        Ok(row)
    }

    fn multichar_item(&self, pos: usize, item: &str) -> Result<Item, SpecError> {
        if let Some(v) = row_var(item) {
            return v.map(Item::RowVar).map_err(|m| self.err(pos, m));
        }
        if item == "_" {
            return self.placeholder(pos);
        }
        if let Some(eq) = item.find('=') {
            if self.ctx == Context::Einsum && item[eq + 1..].starts_with('+') {
                return self.affine(pos, item);
            }
            let (label, size) = (item[..eq].trim(), item[eq + 1..].trim());
            if self.ctx == Context::Einsum {
                return Err(self.err(
                    pos,
                    "labelled sizes (label=N) are only allowed in shapes, not in einsum specs",
                ));
            }
            if !is_ident(label) {
                return Err(self.err(
                    pos,
                    format!("expected a label before '=', found \"{label}\""),
                ));
            }
            let size = size.parse::<u64>().map_err(|_| {
                self.err(
                    pos + eq + 1,
                    format!("expected a dimension size after '{label}=', found \"{size}\""),
                )
            })?;
            return Ok(Item::Axis(AxisSpec::Size {
                size: self.size(pos + eq + 1, size)?,
                label: Some(label.to_string()),
            }));
        }
        if item.contains('*') || item.contains('+') || item.contains('<') {
            return self.affine(pos, item);
        }
        if let Ok(n) = item.parse::<u64>() {
            return Ok(Item::Axis(self.integer(pos, n)?));
        }
        if is_ident(item) {
            return Ok(Item::Axis(AxisSpec::Var(item.to_string())));
        }
        Err(self.err(
            pos,
            format!(
                "expected an axis (identifier, integer, '_' or row variable), found \"{item}\""
            ),
        ))
    }

    /// An integer: a size in a shape (at least 1), a fixed index in an
    /// einsum spec.
    fn integer(&self, pos: usize, n: u64) -> Result<AxisSpec, SpecError> {
        match self.ctx {
            Context::Shape => Ok(AxisSpec::Size {
                size: self.size(pos, n)?,
                label: None,
            }),
            Context::Einsum => {
                if n >= MAX_SIZE {
                    return Err(self.err(
                        pos,
                        format!(
                            "the fixed index {n} is beyond the largest axis ({MAX_SIZE} cells)"
                        ),
                    ));
                }
                Ok(AxisSpec::Fixed(n))
            }
        }
    }

    /// A dimension size: every axis has at least one cell.
    fn size(&self, pos: usize, n: u64) -> Result<u64, SpecError> {
        if n == 0 {
            return Err(self.err(
                pos,
                "a dimension of size 0: every axis has at least one cell",
            ));
        }
        if n > MAX_SIZE {
            return Err(self.err(
                pos,
                format!("the dimension size {n} is larger than any axis can be ({MAX_SIZE} cells)"),
            ));
        }
        Ok(n)
    }

    fn placeholder(&self, pos: usize) -> Result<Item, SpecError> {
        match self.ctx {
            Context::Einsum => Ok(Item::Axis(AxisSpec::Placeholder)),
            Context::Shape => {
                Err(self.err(pos, "'_' placeholders are only allowed in einsum specs"))
            }
        }
    }

    /// `[s*]o` `(+ | <+ | =+)` `[d*]k`, or `s*o`, or `s*o+c`.
    fn affine(&self, pos: usize, item: &str) -> Result<Item, SpecError> {
        if self.ctx != Context::Einsum {
            return Err(self.err(
                pos,
                "affine (convolution) axes are only allowed in einsum specs",
            ));
        }
        let compact: String = item.chars().filter(|c| !c.is_whitespace()).collect();
        let (first, second, use_padding) = if let Some(i) = compact.find("<+") {
            (&compact[..i], Some(&compact[i + 2..]), Some(false))
        } else if let Some(i) = compact.find("=+") {
            (&compact[..i], Some(&compact[i + 2..]), Some(true))
        } else if let Some(i) = compact.find('+') {
            (&compact[..i], Some(&compact[i + 1..]), None)
        } else {
            (&compact[..], None, None)
        };
        let term = |t: &str| -> Result<(u64, Option<String>), SpecError> {
            let (coeff, name) = match t.find('*') {
                Some(i) => {
                    let c = t[..i].parse::<u64>().map_err(|_| {
                        self.err(
                            pos,
                            format!("expected an integer coefficient before '*' in \"{item}\""),
                        )
                    })?;
                    (c, &t[i + 1..])
                }
                None => (1, t),
            };
            if coeff > MAX_SIZE {
                return Err(self.err(
                    pos,
                    format!("the coefficient {coeff} is larger than any axis can be in \"{item}\""),
                ));
            }
            if name.is_empty() {
                return Err(self.err(pos, format!("expected an axis identifier in \"{item}\"")));
            }
            if let Ok(n) = name.parse::<u64>() {
                if coeff != 1 {
                    return Err(self.err(
                        pos,
                        format!("a constant offset cannot have a coefficient in \"{item}\""),
                    ));
                }
                if n > MAX_SIZE {
                    return Err(self.err(
                        pos,
                        format!("the offset {n} is larger than any axis can be in \"{item}\""),
                    ));
                }
                return Ok((n, None));
            }
            if !is_ident(name) {
                return Err(self.err(
                    pos,
                    format!("expected an axis identifier, found \"{name}\" in \"{item}\""),
                ));
            }
            Ok((coeff, Some(name.to_string())))
        };
        let (stride, over) = term(first)?;
        let over = over.ok_or_else(|| {
            self.err(
                pos,
                format!("expected an output axis identifier first in \"{item}\""),
            )
        })?;
        if stride == 0 {
            return Err(self.err(pos, format!("the stride must be positive in \"{item}\"")));
        }
        let (dilation, kernel, offset) = match second {
            None => (1, None, 0),
            Some(s) => match term(s)? {
                (c, None) => {
                    if use_padding.is_some() {
                        return Err(self.err(pos, format!("expected a kernel axis after the convolution operator in \"{item}\"")));
                    }
                    if c >= stride {
                        return Err(self.err(pos, format!("the offset {c} must be smaller than the stride {stride} in \"{item}\"")));
                    }
                    (1, None, c)
                }
                (d, Some(k)) => {
                    if d == 0 {
                        return Err(
                            self.err(pos, format!("the dilation must be positive in \"{item}\""))
                        );
                    }
                    (d, Some(k), 0)
                }
            },
        };
        Ok(Item::Axis(AxisSpec::Affine {
            stride,
            over,
            dilation,
            kernel,
            offset,
            use_padding,
        }))
    }

    fn singlechar_items(
        &self,
        start: usize,
        end: usize,
        items: &mut Vec<(usize, Item)>,
    ) -> Result<(), SpecError> {
        let b = self.text.as_bytes();
        let mut i = start;
        while i < end {
            let c = b[i];
            if c.is_ascii_whitespace() || c == b'(' || c == b')' {
                i += 1;
            } else if c == b'.' {
                let rest = &self.text[i..end];
                if rest.starts_with("...") {
                    items.push((i, Item::RowVar(RowVarSpec::Ellipsis)));
                    i += 3;
                } else if let Some(after) = rest.strip_prefix("..") {
                    let close = after.find("..").ok_or_else(|| {
                        self.err(i, "unterminated row variable: expected '..' after '..name'")
                    })?;
                    let name = &after[..close];
                    if !is_ident(name) {
                        return Err(self.err(i + 2, format!("expected a row variable name between '..' and '..', found \"{name}\"")));
                    }
                    items.push((i, Item::RowVar(RowVarSpec::Named(name.to_string()))));
                    i += close + 4;
                } else {
                    return Err(self.err(
                        i,
                        "unexpected '.': a row variable is written '...' or '..name..'",
                    ));
                }
            } else if c == b'_' {
                items.push((i, self.placeholder(i)?));
                i += 1;
            } else if c.is_ascii_digit() {
                let s = i;
                while i < end && b[i].is_ascii_digit() {
                    i += 1;
                }
                let n = self.text[s..i]
                    .parse::<u64>()
                    .map_err(|_| self.err(s, "integer too large"))?;
                items.push((s, Item::Axis(self.integer(s, n)?)));
            } else if c.is_ascii_alphabetic() {
                items.push((i, Item::Axis(AxisSpec::Var((c as char).to_string()))));
                i += 1;
            } else {
                let ch = self.text[i..].chars().next().unwrap_or('?');
                return Err(self.err(i, format!("unexpected character '{ch}'")));
            }
        }
        Ok(())
    }
}

enum Item {
    RowVar(RowVarSpec),
    Axis(AxisSpec),
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'')
}

/// `...` or `..name..` (multichar item), `None` if `item` is not a row variable.
fn row_var(item: &str) -> Option<Result<RowVarSpec, String>> {
    if item == "..." {
        return Some(Ok(RowVarSpec::Ellipsis));
    }
    if let Some(inner) = item.strip_prefix("..") {
        return Some(match inner.strip_suffix("..") {
            Some(name) if is_ident(name) => Ok(RowVarSpec::Named(name.to_string())),
            _ => Err(format!(
                "malformed row variable \"{item}\": expected '...' or '..name..'"
            )),
        });
    }
    None
}

/// Parses a shape annotation (the SHAPE of `!ocannl_shape.tensor<"SHAPE", f32>`).
/// `?` is not accepted here: see [`crate::shape::parse_shape`].
pub fn parse_slot(text: &str, ctx: Context) -> Result<SlotSpec, SpecError> {
    let p = Parser {
        text,
        ctx,
        multichar: is_multichar(text),
    };
    p.slot(0, text.len())
}

/// Parses a generalized einsum spec with `arity` right-hand sides (1 or 2).
pub fn parse_einsum(text: &str) -> Result<EinsumSpec, SpecError> {
    let p = Parser {
        text,
        ctx: Context::Einsum,
        multichar: is_multichar(text),
    };
    let arrow = text.find("=>").ok_or_else(|| {
        p.err(
            text.len(),
            "expected '=>' separating the operands from the result (\"rhs => lhs\")",
        )
    })?;
    if let Some(j) = text[arrow + 2..].find("=>") {
        return Err(p.err(arrow + 2 + j, "unexpected second '=>'"));
    }
    let lhs = p.slot(arrow + 2, text.len())?;
    let mut rhs = Vec::new();
    let mut start = 0;
    for piece in text[..arrow].split(';') {
        rhs.push(p.slot(start, start + piece.len())?);
        start += piece.len() + 1;
    }
    if rhs.len() > 3 {
        return Err(p.err(
            arrow,
            format!(
                "expected at most 3 operands before '=>', found {}",
                rhs.len()
            ),
        ));
    }
    let spec = EinsumSpec { rhs, lhs };
    check_var_kinds(&p, &spec)?;
    Ok(spec)
}

/// A name may not be both a dimension variable and a row variable.
fn check_var_kinds(p: &Parser, spec: &EinsumSpec) -> Result<(), SpecError> {
    let slots = spec.rhs.iter().chain(std::iter::once(&spec.lhs));
    let mut dims = std::collections::BTreeSet::new();
    let mut rows = std::collections::BTreeSet::new();
    for slot in slots {
        for kind in Kind::ALL {
            let row = slot.row(kind);
            if let Some(v) = &row.var {
                rows.insert(v.name(kind).to_string());
            }
            for a in row.axes() {
                match a {
                    AxisSpec::Var(v) => {
                        dims.insert(v.clone());
                    }
                    AxisSpec::Affine { over, kernel, .. } => {
                        dims.insert(over.clone());
                        if let Some(k) = kernel {
                            dims.insert(k.clone());
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    if let Some(both) = dims.intersection(&rows).next() {
        return Err(p.err(
            0,
            format!("name '{both}' is used as both a dimension variable and a row variable"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> AxisSpec {
        AxisSpec::Var(s.into())
    }

    fn fmt_row(r: &RowSpec) -> String {
        let ax = |a: &AxisSpec| match a {
            AxisSpec::Var(s) => s.clone(),
            AxisSpec::Size { size, label: None } => format!("#{size}"),
            AxisSpec::Size {
                size,
                label: Some(l),
            } => format!("{l}=#{size}"),
            AxisSpec::Fixed(n) => format!("@{n}"),
            AxisSpec::Placeholder => "_".into(),
            AxisSpec::Affine {
                stride,
                over,
                dilation,
                kernel,
                offset,
                use_padding,
            } => format!(
                "{stride}*{over}{}{}{}",
                match use_padding {
                    None => "+",
                    Some(false) => "<+",
                    Some(true) => "=+",
                },
                kernel
                    .as_ref()
                    .map(|k| format!("{dilation}*{k}"))
                    .unwrap_or_default(),
                if *offset > 0 {
                    offset.to_string()
                } else {
                    String::new()
                }
            ),
        };
        let mut parts: Vec<String> = r.beg.iter().map(ax).collect();
        if let Some(var) = &r.var {
            parts.push(match var {
                RowVarSpec::Ellipsis => "...".into(),
                RowVarSpec::Named(n) => format!("..{n}.."),
            });
        }
        parts.extend(r.end.iter().map(ax));
        parts.join(" ")
    }

    fn fmt_slot(s: &SlotSpec) -> String {
        format!(
            "[{}|{}->{}]",
            fmt_row(&s.batch),
            fmt_row(&s.input),
            fmt_row(&s.output)
        )
    }

    /// Each case: einsum spec => the parsed slots (rhs..., lhs).
    #[test]
    fn einsum_table() {
        let cases: &[(&str, &str)] = &[
            ("ij;jk=>ik", "[|->i j] [|->j k] => [|->i k]"),
            ("abc", ""),
            ("...|... => 0", "[...|->...] => [|->@0]"),
            ("... => 0", "[|->...] => [|->@0]"),
            (
                "2...|...->... => ...|...->...",
                "[@2 ...|...->...] => [...|...->...]",
            ),
            (
                "..v..|ijk => ..v..kji",
                "[..v..|->i j k] => [|->..v.. k j i]",
            ),
            ("a, ..r.., b => b, a", "[|->a ..r.. b] => [|->b a]"),
            ("i, j; j, k => i, k", "[|->i j] [|->j k] => [|->i k]"),
            ("b|i->o; o->p => b|i->p", "[b|i->o] [|o->p] => [b|i->p]"),
            ("ii=>i", "[|->i i] => [|->i]"),
            ("i_k=>ik", "[|->i _ k] => [|->i k]"),
            ("2*o+k; k => o", "[|->2*o+1*k] [|->k] => [|->o]"),
            (
                "2*oh<+3*kh, ow=+kw; kh, kw => oh, ow",
                "[|->2*oh<+3*kh 1*ow=+1*kw] [|->kh kw] => [|->oh ow]",
            ),
            ("2*i+1, j => i, j", "[|->2*i+1 j] => [|->i j]"),
            ("ab12c => c", "[|->a b @12 c] => [|->c]"),
        ];
        for (spec, want) in cases {
            if want.is_empty() {
                assert!(parse_einsum(spec).is_err(), "{spec} should fail");
                continue;
            }
            let e = parse_einsum(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            let got = format!(
                "{} => {}",
                e.rhs.iter().map(fmt_slot).collect::<Vec<_>>().join(" "),
                fmt_slot(&e.lhs)
            );
            assert_eq!(got, *want, "spec {spec}");
        }
    }

    /// Each case: malformed einsum spec => (position, message fragment).
    #[test]
    fn einsum_errors() {
        let cases: &[(&str, usize, &str)] = &[
            ("ij;jk", 5, "expected '=>'"),
            ("ij=>ik=>k", 6, "second '=>'"),
            ("i|j|k=>i", 3, "second '|'"),
            ("..a..b..c..=>a", 6, "at most one row variable"),
            (
                "..d.., d; d, e => ..d.., e",
                0,
                "both a dimension variable and a row variable",
            ),
            ("i.j=>i", 1, "unexpected '.'"),
            ("i,j#=>i", 2, "expected an axis"),
            ("a=3=>a", 0, "only allowed in shapes"),
            ("0*o+k=>o", 0, "stride must be positive"),
            ("2*o+3=>o", 0, "smaller than the stride"),
            ("..x=>x", 0, "unterminated row variable"),
            ("a;b;c;d=>a", 7, "at most 3 operands"),
        ];
        for (spec, pos, msg) in cases {
            let e = parse_einsum(spec).expect_err(spec);
            assert!(e.message.contains(msg), "{spec}: got {:?}", e.message);
            assert_eq!(e.pos, *pos, "{spec}: {}", e.message);
        }
    }

    #[test]
    fn shape_slots() {
        let s = parse_slot("2,3|4->5", Context::Shape).unwrap();
        assert_eq!(
            s.batch.end,
            vec![
                AxisSpec::Size {
                    size: 2,
                    label: None
                },
                AxisSpec::Size {
                    size: 3,
                    label: None
                }
            ]
        );
        assert_eq!(
            s.input.end,
            vec![AxisSpec::Size {
                size: 4,
                label: None
            }]
        );
        assert_eq!(
            s.output.end,
            vec![AxisSpec::Size {
                size: 5,
                label: None
            }]
        );
        let s = parse_slot("10|2", Context::Shape).unwrap();
        assert_eq!(
            s.batch.end,
            vec![AxisSpec::Size {
                size: 10,
                label: None
            }]
        );
        let s = parse_slot("rgb=3, 4", Context::Shape).unwrap();
        assert_eq!(
            s.output.end[0],
            AxisSpec::Size {
                size: 3,
                label: Some("rgb".into())
            }
        );
        let s = parse_slot("...->8", Context::Shape).unwrap();
        assert_eq!(s.input.var, Some(RowVarSpec::Ellipsis));
        let s = parse_slot("3, ..rho.., 7", Context::Shape).unwrap();
        assert_eq!(s.output.beg.len(), 1);
        assert_eq!(s.output.var, Some(RowVarSpec::Named("rho".into())));
        let s = parse_slot("b|i->o", Context::Shape).unwrap();
        assert_eq!(s.input.end, vec![v("i")]);
        assert!(parse_slot("_", Context::Shape).is_err());
        assert!(parse_slot("2*i", Context::Shape).is_err());
        assert!(parse_slot("a=x", Context::Shape)
            .unwrap_err()
            .message
            .contains("dimension size"));
    }
}
