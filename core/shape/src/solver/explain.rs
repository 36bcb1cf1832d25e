//! How the solver records the assumptions it makes while closing.

use super::*;
use assumption::Subject;

impl Solver {
    pub(super) fn note(&mut self, terminal: usize, note: Note) {
        let t = &self.terminals[terminal];
        let subject = match &t.param {
            Some(name) => Subject::Param(name.clone()),
            None => Subject::Other(t.origin.what),
        };
        self.assumptions.push(Assumption {
            op: t.origin.op,
            subject,
            note,
        });
    }
}
