//! The C ABI of `cpp/jit.cpp`. Every function returning `*mut c_char`
//! returns null on success, or an error message the caller frees with
//! [`ocannl_jit_free`].

use std::ffi::{c_char, c_int, c_void};

use ocannl_mlir::raw::MlirOperation;

/// The parts of a split module (owned by C++).
#[repr(C)]
pub struct Parts {
    _private: [u8; 0],
}

/// An ORC LLJIT and its objects (owned by C++).
#[repr(C)]
pub struct Jit {
    _private: [u8; 0],
}

unsafe extern "C" {
    pub fn ocannl_jit_free(p: *mut c_void);
    pub fn ocannl_jit_llvm_version() -> *const c_char;
    pub fn ocannl_jit_describe(cpu: *const c_char, out: *mut *mut c_char) -> *mut c_char;
    pub fn ocannl_jit_split(
        module: MlirOperation,
        roots: *const *const c_char,
        num_roots: usize,
        triple: *const c_char,
        cpu: *const c_char,
        features: *const c_char,
        out: *mut *mut Parts,
    ) -> *mut c_char;
    pub fn ocannl_jit_parts_count(parts: *const Parts) -> usize;
    pub fn ocannl_jit_parts_get(
        parts: *const Parts,
        i: usize,
        root: *mut *const c_char,
        root_len: *mut usize,
        bitcode: *mut *const u8,
        bitcode_len: *mut usize,
    );
    pub fn ocannl_jit_parts_destroy(parts: *mut Parts);
    pub fn ocannl_jit_compile(
        bitcode: *const u8,
        len: usize,
        opt_level: u32,
        slp: c_int,
        triple: *const c_char,
        cpu: *const c_char,
        features: *const c_char,
        object: *mut *mut u8,
        object_len: *mut usize,
    ) -> *mut c_char;
    pub fn ocannl_jit_create(
        libs: *const *const c_char,
        num_libs: usize,
        out: *mut *mut Jit,
    ) -> *mut c_char;
    pub fn ocannl_jit_add_object(jit: *mut Jit, data: *const u8, len: usize) -> *mut c_char;
    pub fn ocannl_jit_lookup(jit: *mut Jit, name: *const c_char, address: *mut u64) -> *mut c_char;
    pub fn ocannl_jit_destroy(jit: *mut Jit);
}
