// The `ocannl_assign` dialect: OCANNL's assignment layer. Tensor nodes are
// buffers (memrefs laid out batch, output, input); accumulating assignments
// `lhs =accum= op(rhs...)` iterate over a product space and index every
// operand through an affine map (the projections).
//
// Optional attributes with defaults (`initialize_neutral`, default false;
// `low`/`high` of `uniform`) are left undeclared here and checked by the
// project's verifier (`ocannl-verify`).
//
// The accumulating assignments take trailing `index` operands bound to the
// symbols of their affine maps (the position of a batch slice).
irdl.dialect @ocannl_assign {
  // A tensor node: the value or gradient buffer of a named tensor.
  //   name   - the tensor's name
  //   kind   - "value" or "grad"
  //   memory - "undecided", "virtual", "local", "on_device" or "materialized"
  //   shape  - the tensor's OCANNL shape, "batch|input->output"
  irdl.operation @node {
    %name = irdl.base "#builtin.string"
    %kind = irdl.base "#builtin.string"
    %memory = irdl.base "#builtin.string"
    %shape = irdl.base "#builtin.string"
    irdl.attributes {"name" = %name, "kind" = %kind, "memory" = %memory, "shape" = %shape}
    %res = irdl.base "!builtin.memref"
    irdl.results(result: %res)
  }

  // lhs =accum= op(rhs): `space` gives the size of every iterator,
  // `indexing_maps` maps the iterators to the indices of lhs, then rhs.
  irdl.operation @accum_unop {
    %accum = irdl.base "#builtin.string"
    %op = irdl.base "#builtin.string"
    %space = irdl.base "#builtin.dense_array"
    %maps = irdl.base "#builtin.array"
    irdl.attributes {"accum" = %accum, "op" = %op, "space" = %space, "indexing_maps" = %maps}
    %lhs = irdl.base "!builtin.memref"
    %rhs = irdl.base "!builtin.memref"
    %sym = irdl.is index
    irdl.operands(lhs: %lhs, rhs: %rhs, symbols: variadic %sym)
  }

  // lhs =accum= rhs1 op rhs2.
  irdl.operation @accum_binop {
    %accum = irdl.base "#builtin.string"
    %op = irdl.base "#builtin.string"
    %space = irdl.base "#builtin.dense_array"
    %maps = irdl.base "#builtin.array"
    irdl.attributes {"accum" = %accum, "op" = %op, "space" = %space, "indexing_maps" = %maps}
    %lhs = irdl.base "!builtin.memref"
    %rhs1 = irdl.base "!builtin.memref"
    %rhs2 = irdl.base "!builtin.memref"
    %sym = irdl.is index
    irdl.operands(lhs: %lhs, rhs1: %rhs1, rhs2: %rhs2, symbols: variadic %sym)
  }

  // lhs =accum= op(rhs1, rhs2, rhs3).
  irdl.operation @accum_ternop {
    %accum = irdl.base "#builtin.string"
    %op = irdl.base "#builtin.string"
    %space = irdl.base "#builtin.dense_array"
    %maps = irdl.base "#builtin.array"
    irdl.attributes {"accum" = %accum, "op" = %op, "space" = %space, "indexing_maps" = %maps}
    %lhs = irdl.base "!builtin.memref"
    %rhs1 = irdl.base "!builtin.memref"
    %rhs2 = irdl.base "!builtin.memref"
    %rhs3 = irdl.base "!builtin.memref"
    %sym = irdl.is index
    irdl.operands(lhs: %lhs, rhs1: %rhs1, rhs2: %rhs2, rhs3: %rhs3, symbols: variadic %sym)
  }

  // Initialization and fetch ops: they write a whole tensor node.

  // Every cell set to `value` (a float).
  irdl.operation @fill {
    %value = irdl.base "#builtin.float"
    irdl.attributes {"value" = %value}
    %dest = irdl.base "!builtin.memref"
    irdl.operands(dest: %dest)
  }

  // The cells set from a dense literal, in memory order.
  irdl.operation @literal {
    %value = irdl.base "#builtin.dense_int_or_fp_elements"
    irdl.attributes {"value" = %value}
    %dest = irdl.base "!builtin.memref"
    irdl.operands(dest: %dest)
  }

  // Cell i (in memory order) set to i.
  irdl.operation @range {
    %dest = irdl.base "!builtin.memref"
    irdl.operands(dest: %dest)
  }

  // Pseudo-random cells, uniform in [low, high) (default [0, 1)), from a
  // counter-based generator keyed by `seed`: the same seed gives the same
  // values on every backend.
  irdl.operation @uniform {
    %seed = irdl.base "#builtin.integer"
    irdl.attributes {"seed" = %seed}
    %dest = irdl.base "!builtin.memref"
    irdl.operands(dest: %dest)
  }
}
