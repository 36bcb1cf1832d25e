//! Reading types.

use melior::ir::{r#type::TypeLike, Type};

/// The namespace of the dialect a type belongs to (`"builtin"`,
/// `"ocannl_shape"`, ...), `None` for a type without one.
pub fn dialect_namespace<'c>(ty: Type<'c>) -> Option<&'c str> {
    // SAFETY: the dialect and its namespace live as long as the context.
    unsafe {
        let dialect = mlir_sys::mlirTypeGetDialect(ty.to_raw());
        if dialect.ptr.is_null() {
            return None;
        }
        let ns = mlir_sys::mlirDialectGetNamespace(dialect);
        let bytes = std::slice::from_raw_parts(ns.data as *const u8, ns.length);
        std::str::from_utf8(bytes).ok()
    }
}

/// Whether `ty` belongs to the dialect `namespace` (without printing it).
pub fn is_in_dialect(ty: Type, namespace: &str) -> bool {
    dialect_namespace(ty) == Some(namespace)
}

/// The element type of a shaped type (memref, tensor, vector).
pub fn element_type(ty: Type) -> Option<Type> {
    // SAFETY: checked to be shaped.
    ty.is_shaped()
        .then(|| unsafe { Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty.to_raw())) })
}

/// The name of a scalar type as MLIR prints it (`f32`, `i64`, `index`,
/// ...), without printing the common ones: a verifier that asks for every
/// operand's element type would otherwise spend its time in MLIR's printer.
pub fn scalar_name(ty: Type) -> String {
    if let Some(f) = float_name(ty) {
        return f.into();
    }
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type; these only ask what it is.
    unsafe {
        if mlir_sys::mlirTypeIsAIndex(raw) {
            return "index".into();
        }
        if mlir_sys::mlirTypeIsAInteger(raw) && mlir_sys::mlirIntegerTypeIsSignless(raw) {
            return format!("i{}", mlir_sys::mlirIntegerTypeGetWidth(raw));
        }
    }
    ty.to_string()
}

/// [`scalar_name`] of a shaped type's element type.
pub fn element_name(ty: Type) -> Option<String> {
    element_type(ty).map(scalar_name)
}

/// The sizes of a ranked shaped type, a dynamic size as -1; `None` for
/// other types.
pub fn static_dims(ty: Type) -> Option<Vec<i64>> {
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type; these only ask what it is.
    if !unsafe { mlir_sys::mlirTypeIsAShaped(raw) && mlir_sys::mlirShapedTypeHasRank(raw) } {
        return None;
    }
    // SAFETY: checked to be shaped and ranked.
    let rank = unsafe { mlir_sys::mlirShapedTypeGetRank(raw) };
    let size = |i: isize| {
        // SAFETY: a ranked shaped type and an axis below its rank.
        unsafe {
            if mlir_sys::mlirShapedTypeIsDynamicDim(raw, i) {
                -1
            } else {
                mlir_sys::mlirShapedTypeGetDimSize(raw, i)
            }
        }
    };
    Some((0..rank as isize).map(size).collect())
}

/// Static sizes of a memref (a dynamic size counts as 0); `None` for other
/// types.
pub fn memref_dims(ty: Type) -> Option<Vec<u64>> {
    if !ty.is_mem_ref() {
        return None;
    }
    static_dims(ty).map(|d| d.into_iter().map(|x| x.max(0) as u64).collect())
}

/// Static sizes of a vector; `None` for other types.
pub fn vector_dims(ty: Type) -> Option<Vec<u64>> {
    if !ty.is_vector() {
        return None;
    }
    static_dims(ty).map(|d| d.into_iter().map(|x| x.max(0) as u64).collect())
}

/// `"f16"`, `"bf16"`, `"f32"` or `"f64"` for those types (checked without
/// printing the type), `None` for others.
pub fn float_name(ty: Type) -> Option<&'static str> {
    // SAFETY: type predicates on a live type.
    unsafe {
        let raw = ty.to_raw();
        if mlir_sys::mlirTypeIsAF32(raw) {
            Some("f32")
        } else if mlir_sys::mlirTypeIsAF64(raw) {
            Some("f64")
        } else if mlir_sys::mlirTypeIsAF16(raw) {
            Some("f16")
        } else if mlir_sys::mlirTypeIsABF16(raw) {
            Some("bf16")
        } else {
            None
        }
    }
}
