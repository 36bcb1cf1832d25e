//! Reading attribute values.

use melior::ir::{attribute::AttributeLike, r#type::TypeLike, Attribute, Type};

/// The value of a string attribute (`None` for other attributes). Unlike
/// melior's `StringAttribute::value`, this accepts the empty string.
pub fn string_value(attr: Attribute) -> Option<String> {
    if !attr.is_string() {
        return None;
    }
    // SAFETY: the attribute is a string attribute; its bytes live as long as
    // the context and are copied out at once.
    unsafe {
        let r = mlir_sys::mlirStringAttrGetValue(attr.to_raw());
        if r.length == 0 {
            return Some(String::new());
        }
        let bytes = std::slice::from_raw_parts(r.data as *const u8, r.length);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The value of a bool attribute.
pub fn bool_value(attr: Attribute) -> Option<bool> {
    // SAFETY: checked to be a bool attribute.
    attr.is_bool()
        .then(|| unsafe { mlir_sys::mlirBoolAttrGetValue(attr.to_raw()) })
}

/// The value of an integer attribute (signless or signed).
pub fn int_value(attr: Attribute) -> Option<i64> {
    // SAFETY: checked to be an integer attribute.
    attr.is_integer()
        .then(|| unsafe { mlir_sys::mlirIntegerAttrGetValueInt(attr.to_raw()) })
}

/// The value of a float attribute, or of an integer attribute as a float.
pub fn number_value(attr: Attribute) -> Option<f64> {
    if attr.is_float() {
        // SAFETY: checked to be a float attribute.
        Some(unsafe { mlir_sys::mlirFloatAttrGetValueDouble(attr.to_raw()) })
    } else {
        int_value(attr).map(|i| i as f64)
    }
}

/// The number of elements of an elements attribute (a dense literal).
pub fn element_count(attr: Attribute) -> Option<u64> {
    // SAFETY: checked to be an elements attribute.
    attr.is_elements()
        .then(|| unsafe { mlir_sys::mlirElementsAttrGetNumElements(attr.to_raw()) } as u64)
}

/// The type of an attribute.
pub fn type_of(attr: Attribute) -> Type {
    attr.r#type()
}

/// The element type of a dense literal.
pub fn element_type(attr: Attribute) -> Option<Type> {
    crate::types::element_type(attr.r#type())
}

/// The dims of a dense literal's (ranked) type, empty otherwise.
pub fn dense_dims(attr: Attribute) -> Vec<i64> {
    crate::types::static_dims(attr.r#type()).unwrap_or_default()
}

/// The elements of a dense float literal, as f64.
pub fn dense_f64_values(attr: Attribute) -> Option<Vec<f64>> {
    if !attr.is_dense_fp_elements() {
        return None;
    }
    let n = element_count(attr)? as isize;
    let elt = element_type(attr)?;
    // 16-bit floats: decoded from their bits (MLIR's getters read f32 and
    // f64 only).
    if elt.is_f16() || elt.is_bf16() {
        let raw = dense_raw_bytes(attr)?;
        return Some(
            raw.chunks_exact(2)
                .map(|c| {
                    let bits = u16::from_ne_bytes([c[0], c[1]]);
                    if elt.is_f16() {
                        half::f16::from_bits(bits).to_f64()
                    } else {
                        half::bf16::from_bits(bits).to_f64()
                    }
                })
                .collect(),
        );
    }
    let f64_elts = elt.is_f64();
    // SAFETY: a dense float elements attribute of `n` elements of that type.
    Some(
        (0..n)
            .map(|i| unsafe {
                if f64_elts {
                    mlir_sys::mlirDenseElementsAttrGetDoubleValue(attr.to_raw(), i)
                } else {
                    mlir_sys::mlirDenseElementsAttrGetFloatValue(attr.to_raw(), i) as f64
                }
            })
            .collect(),
    )
}

/// A dense literal with the same elements and another shaped type of as
/// many elements (`None` if that is not possible).
pub fn reshape_dense<'c>(attr: Attribute<'c>, ty: Type<'c>) -> Option<Attribute<'c>> {
    if !attr.is_dense_elements() || !ty.is_shaped() {
        return None;
    }
    // SAFETY: a dense elements attribute and a shaped type; a null result
    // (element count mismatch) is turned into `None`.
    unsafe {
        Attribute::from_option_raw(mlir_sys::mlirDenseElementsAttrReshapeGet(
            attr.to_raw(),
            ty.to_raw(),
        ))
    }
}

/// The affine map of an affine map attribute.
pub fn affine_map(attr: Attribute) -> Option<melior::ir::AffineMap> {
    // SAFETY: checked to be an affine map attribute; the map is uniqued in
    // the same context.
    attr.is_affine_map().then(|| unsafe {
        melior::ir::AffineMap::from_raw(mlir_sys::mlirAffineMapAttrGetValue(attr.to_raw()))
    })
}

/// The attribute of an affine map.
pub fn affine_map_attr(map: melior::ir::AffineMap) -> Attribute {
    // SAFETY: a valid map gives a valid attribute in its context.
    unsafe { Attribute::from_raw(mlir_sys::mlirAffineMapAttrGet(map.to_raw())) }
}

/// The objects of a `gpu.binary`'s `objects` attribute (an array of
/// `#gpu.object`): each object's text (PTX for `format=isa`), in order.
/// `None` when the attribute is not such an array.
pub fn gpu_objects(attr: Attribute) -> Option<Vec<String>> {
    if !attr.is_array() {
        return None;
    }
    // SAFETY: an array attribute; each element is checked to be a GPU
    // object before its object is read, and the bytes are copied out at
    // once.
    unsafe {
        let n = mlir_sys::mlirArrayAttrGetNumElements(attr.to_raw());
        let mut out = Vec::with_capacity(n.max(0) as usize);
        for i in 0..n {
            let o = mlir_sys::mlirArrayAttrGetElement(attr.to_raw(), i);
            if !mlir_sys::mlirAttributeIsAGPUObjectAttr(o) {
                return None;
            }
            let r = mlir_sys::mlirGPUObjectAttrGetObject(o);
            let bytes = if r.length == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(r.data as *const u8, r.length)
            };
            out.push(String::from_utf8_lossy(bytes).into_owned());
        }
        Some(out)
    }
}

/// The raw bytes of a dense elements attribute (a splat holds one
/// element).
pub fn dense_raw_bytes(attr: Attribute) -> Option<Vec<u8>> {
    if !attr.is_dense_elements() {
        return None;
    }
    let n = element_count(attr)?;
    let elt = element_type(attr)?;
    let width = if elt.is_f64() {
        8
    } else if elt.is_f32() {
        4
    } else if elt.is_f16() || elt.is_bf16() {
        2
    } else {
        return None;
    };
    // SAFETY: a dense attribute of `n` float elements of `width` bytes (one
    // if splat), stored contiguously; copied out at once.
    unsafe {
        let splat = mlir_sys::mlirDenseElementsAttrIsSplat(attr.to_raw());
        let stored = if splat { 1 } else { n as usize };
        let p = mlir_sys::mlirDenseElementsAttrGetRawData(attr.to_raw()) as *const u8;
        let raw = std::slice::from_raw_parts(p, stored * width);
        Some(if splat {
            raw.repeat(n as usize)
        } else {
            raw.to_vec()
        })
    }
}

/// The type of a type attribute (`None` for other attributes).
pub fn type_value(attr: Attribute) -> Option<Type> {
    // SAFETY: checked to be a type attribute.
    attr.is_type()
        .then(|| unsafe { Type::from_raw(mlir_sys::mlirTypeAttrGetValue(attr.to_raw())) })
}

/// The value of a string attribute, borrowed from the context (no copy);
/// `None` for other attributes and for text that is not UTF-8.
pub fn str_value<'c>(attr: Attribute<'c>) -> Option<&'c str> {
    if !attr.is_string() {
        return None;
    }
    // SAFETY: a string attribute's bytes live as long as its context.
    unsafe {
        let r = mlir_sys::mlirStringAttrGetValue(attr.to_raw());
        if r.length == 0 {
            return Some("");
        }
        std::str::from_utf8(std::slice::from_raw_parts(r.data as *const u8, r.length)).ok()
    }
}
