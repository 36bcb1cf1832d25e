//! The C ABI of `cpp/ocannl_mlir.cpp`.

use std::ffi::{c_char, c_int, c_void};

use mlir_sys::{MlirDialectRegistry, MlirLocation, MlirOperation, MlirStringRef};

pub const OPTION_STRING: c_int = 0;
pub const OPTION_BOOL: c_int = 1;

#[repr(C)]
pub struct PassOption {
    pub name: *const c_char,
    pub description: *const c_char,
    pub kind: c_int,
    pub default_value: *const c_char,
}

pub type RunFn = unsafe extern "C" fn(MlirOperation, *const *const c_char, usize) -> bool;

#[repr(C)]
pub struct PassDef {
    pub argument: *const c_char,
    pub name: *const c_char,
    pub description: *const c_char,
    pub type_id: *const c_void,
    pub options: *const PassOption,
    pub num_options: usize,
    pub run: RunFn,
}

/// A dialect of the project: its name and IRDL definition.
#[repr(C)]
pub struct DialectDef {
    pub name: *const c_char,
    pub irdl: *const c_char,
    pub irdl_len: usize,
}

// The definitions are immutable statics of static strings.
unsafe impl Sync for PassOption {}
unsafe impl Sync for PassDef {}
unsafe impl Sync for DialectDef {}

unsafe extern "C" {
    pub fn ocannl_register_pass(def: *const PassDef);
    pub fn ocannl_register_pipeline(
        name: *const c_char,
        description: *const c_char,
        pipeline: *const c_char,
    );
    pub fn ocannl_emit_diagnostic(
        severity: c_int,
        loc: MlirLocation,
        msg: MlirStringRef,
        num_notes: usize,
        note_locs: *const MlirLocation,
        note_msgs: *const MlirStringRef,
    );
    pub fn ocannl_set_dialects(defs: *const DialectDef, num: usize);
    pub fn ocannl_register_dialects(registry: MlirDialectRegistry);
    pub fn ocannl_opt_main(
        argc: c_int,
        argv: *mut *mut c_char,
        overview: *const c_char,
        version: *const c_char,
        verify_pass: *const c_char,
    ) -> c_int;
}

pub fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const c_char,
        length: s.len(),
    }
}
