//! Diagnostics emitted by the passes: errors, warnings and remarks at an
//! op's location, with notes at other locations.

use melior::ir::Location;

use crate::ffi;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error = 0,
    Warning = 1,
    Remark = 2,
}

/// A diagnostic ready to be emitted through MLIR's diagnostic engine, so that
/// `--verify-diagnostics` and every handler see it.
#[derive(Clone, Debug)]
pub struct Diagnostic<'c> {
    pub severity: Severity,
    pub location: Location<'c>,
    pub message: String,
    pub notes: Vec<(Location<'c>, String)>,
}

impl<'c> Diagnostic<'c> {
    pub fn error(location: Location<'c>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            location,
            message: message.into(),
            notes: vec![],
        }
    }

    pub fn remark(location: Location<'c>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Remark,
            location,
            message: message.into(),
            notes: vec![],
        }
    }

    pub fn note(mut self, location: Location<'c>, message: impl Into<String>) -> Self {
        self.notes.push((location, message.into()));
        self
    }

    pub fn emit(&self) {
        let locs: Vec<_> = self.notes.iter().map(|(l, _)| l.to_raw()).collect();
        let msgs: Vec<_> = self.notes.iter().map(|(_, m)| ffi::string_ref(m)).collect();
        // SAFETY: live locations (of a live context) and strings that
        // outlive the call, `locs.len()` of each.
        unsafe {
            ffi::ocannl_emit_diagnostic(
                self.severity as i32,
                self.location.to_raw(),
                ffi::string_ref(&self.message),
                locs.len(),
                locs.as_ptr(),
                msgs.as_ptr(),
            )
        }
    }
}
