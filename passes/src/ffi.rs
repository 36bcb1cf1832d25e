//! The C ABI of `cpp/ocannl_mlir.cpp`.

use std::ffi::{c_char, c_int, c_void};

use mlir_sys::{
    MlirAttribute, MlirBlock, MlirContext, MlirDialectRegistry, MlirLocation, MlirModule,
    MlirOperation, MlirStringRef, MlirValue,
};

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

/// One string option of a named pipeline (`{name}` in its text).
#[repr(C)]
pub struct PipelineOption {
    pub name: *const c_char,
    pub description: *const c_char,
    pub default_value: *const c_char,
}

/// Receives the messages of a failed check (`state` is the shim's).
pub type Sink = unsafe extern "C" fn(state: *mut c_void, message: MlirStringRef);

/// Checks an op of a dialect; on failure, gives each message to the sink
/// (without the op prefix, which the shim adds) and returns false.
pub type VerifyOpFn = unsafe extern "C" fn(MlirOperation, Sink, *mut c_void) -> bool;

/// Checks the parameters of a type of a dialect (`name` without the
/// dialect prefix); on failure, gives each message to the sink.
pub type VerifyTypeFn =
    unsafe extern "C" fn(MlirStringRef, *const MlirAttribute, usize, Sink, *mut c_void) -> bool;

/// A dialect of the project: its name, IRDL definition, and the checks the
/// shim installs as the verifiers of its ops and types (in place of those
/// IRDL derives, which they include).
#[repr(C)]
pub struct DialectDef {
    pub name: *const c_char,
    pub irdl: *const c_char,
    pub irdl_len: usize,
    pub verify_op: VerifyOpFn,
    pub type_names: *const *const c_char,
    pub num_types: usize,
    pub verify_type: VerifyTypeFn,
}

/// A static list of C strings.
#[repr(transparent)]
pub struct CStrs<const N: usize>(pub [*const c_char; N]);
// SAFETY: the pointers are to static strings, never written.
unsafe impl<const N: usize> Sync for CStrs<N> {}

// SAFETY: an immutable static whose pointers are to static strings.
unsafe impl Sync for PassOption {}
// SAFETY: an immutable static whose pointers are to static strings.
unsafe impl Sync for PipelineOption {}
// SAFETY: an immutable static whose pointers are to static strings, a
// static option table and a function; nothing writes through them.
unsafe impl Sync for PassDef {}
// SAFETY: an immutable static whose pointers are to static strings, the
// dialects' IRDL text and functions; nothing writes through them.
unsafe impl Sync for DialectDef {}

unsafe extern "C" {
    pub fn ocannl_register_pass(def: *const PassDef);
    pub fn ocannl_register_pipeline(
        name: *const c_char,
        description: *const c_char,
        pipeline: *const c_char,
    );
    pub fn ocannl_register_pipeline_with_options(
        name: *const c_char,
        description: *const c_char,
        pipeline: *const c_char,
        defs: *const PipelineOption,
        num_defs: usize,
    );
    pub fn ocannl_emit_diagnostic(
        severity: c_int,
        loc: MlirLocation,
        msg: MlirStringRef,
        num_notes: usize,
        note_locs: *const MlirLocation,
        note_msgs: *const MlirStringRef,
    );
    pub fn ocannl_parse_module(
        ctx: MlirContext,
        source: MlirStringRef,
        name: MlirStringRef,
    ) -> MlirModule;
    pub fn ocannl_set_dialects(defs: *const DialectDef, num: usize);
    pub fn ocannl_op_structural_hash(op: MlirOperation) -> u64;
    pub fn ocannl_ops_equivalent(a: MlirOperation, b: MlirOperation) -> bool;
    pub fn ocannl_op_hash_up_to_operands(op: MlirOperation) -> u64;
    pub fn ocannl_ops_equivalent_up_to_operands(a: MlirOperation, b: MlirOperation) -> bool;
    pub fn ocannl_ops_closed_over(
        ops: *const MlirOperation,
        n: usize,
        allowed: *const MlirValue,
        m: usize,
    ) -> bool;
    pub fn ocannl_op_previous_in_block(op: MlirOperation) -> MlirOperation;
    pub fn ocannl_approximate_math(
        op: MlirOperation,
        names: *const MlirStringRef,
        n: usize,
    ) -> bool;
    pub fn ocannl_clone_ops(
        ops: *const MlirOperation,
        n: usize,
        from: *const MlirValue,
        to: *const MlirValue,
        m: usize,
        block: MlirBlock,
        before: MlirOperation,
        loc: MlirLocation,
    ) -> bool;
    pub fn ocannl_register_dialects(registry: MlirDialectRegistry);
    pub fn ocannl_opt_main(
        argc: c_int,
        argv: *mut *mut c_char,
        overview: *const c_char,
        version: *const c_char,
    ) -> c_int;
}

pub fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const c_char,
        length: s.len(),
    }
}
