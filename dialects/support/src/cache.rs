//! Types and attributes made from text once per run.
//!
//! The context uniques types and attributes, and printing or parsing one
//! costs microseconds, while a graph has thousands of ops and a few distinct
//! types: a pass keeps one cache per run.

use melior::{
    ir::{Attribute, Type},
    Context,
};
use rustc_hash::FxHashMap;

#[derive(Default)]
pub struct TextCache<'c> {
    types: FxHashMap<String, Type<'c>>,
    attrs: FxHashMap<String, Attribute<'c>>,
}

impl<'c> TextCache<'c> {
    /// The type of `text`, parsed on first use.
    pub fn ty(&mut self, ctx: &'c Context, text: &str) -> Option<Type<'c>> {
        if let Some(t) = self.types.get(text) {
            return Some(*t);
        }
        let t = Type::parse(ctx, text)?;
        self.types.insert(text.to_string(), t);
        Some(t)
    }

    /// The attribute of `text`, parsed on first use.
    pub fn attr(&mut self, ctx: &'c Context, text: &str) -> Result<Attribute<'c>, crate::Error> {
        self.attr_text(ctx, text).map_err(crate::Error::parse)
    }

    /// [`attr`](Self::attr), the reason as text.
    fn attr_text(&mut self, ctx: &'c Context, text: &str) -> Result<Attribute<'c>, String> {
        if let Some(a) = self.attrs.get(text) {
            return Ok(*a);
        }
        let a = Attribute::parse(ctx, text)
            .ok_or_else(|| format!("internal error: cannot parse attribute {text}"))?;
        self.attrs.insert(text.to_string(), a);
        Ok(a)
    }
}
