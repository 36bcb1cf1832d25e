// Generated from dialects/spec/src/assign.rs by `OCANNL_BLESS=1 cargo test -p ocannl-dialect-spec`; do not edit.
//
// The `ocannl_assign` dialect: OCANNL's assignments: tensor nodes as buffers, accumulating assignments over projections.
// Reference: docs/dialects.md. IRDL checks operand and result kinds, the
// required attributes and their closed sets of names; the dialect's verifier
// (run by ocannl-opt and the plugin) checks the rest.
irdl.dialect @ocannl_assign {

  // A tensor node: the value or gradient buffer of a named tensor.
  // Optional attributes: memory_reason (default none).
  irdl.operation @node {
    %name = irdl.base "#builtin.string"
    %kind_value = irdl.is "value"
    %kind_grad = irdl.is "grad"
    %kind = irdl.any_of(%kind_value, %kind_grad)
    %memory_undecided = irdl.is "undecided"
    %memory_virtual = irdl.is "virtual"
    %memory_local = irdl.is "local"
    %memory_on_device = irdl.is "on_device"
    %memory_materialized = irdl.is "materialized"
    %memory = irdl.any_of(%memory_undecided, %memory_virtual, %memory_local, %memory_on_device, %memory_materialized)
    %shape = irdl.base "#builtin.string"
    irdl.attributes {"name" = %name, "kind" = %kind, "memory" = %memory, "shape" = %shape}
    %result = irdl.base "!builtin.memref"
    irdl.results(result: %result)
  }

  // `lhs =accum= op(rhs)`.
  // Optional attributes: initialize_neutral (default false).
  irdl.operation @accum_unop {
    %accum_assign = irdl.is "assign"
    %accum_add = irdl.is "add"
    %accum_sub = irdl.is "sub"
    %accum_mul = irdl.is "mul"
    %accum_div = irdl.is "div"
    %accum_max = irdl.is "max"
    %accum_min = irdl.is "min"
    %accum = irdl.any_of(%accum_assign, %accum_add, %accum_sub, %accum_mul, %accum_div, %accum_max, %accum_min)
    %op_identity = irdl.is "identity"
    %op_relu = irdl.is "relu"
    %op_satur01 = irdl.is "satur01"
    %op_exp = irdl.is "exp"
    %op_log = irdl.is "log"
    %op_exp2 = irdl.is "exp2"
    %op_log2 = irdl.is "log2"
    %op_sin = irdl.is "sin"
    %op_cos = irdl.is "cos"
    %op_sqrt = irdl.is "sqrt"
    %op_recip = irdl.is "recip"
    %op_recip_sqrt = irdl.is "recip_sqrt"
    %op_neg = irdl.is "neg"
    %op_tanh = irdl.is "tanh"
    %op_erf = irdl.is "erf"
    %op_not = irdl.is "not"
    %op_stop_gradient = irdl.is "stop_gradient"
    %op = irdl.any_of(%op_identity, %op_relu, %op_satur01, %op_exp, %op_log, %op_exp2, %op_log2, %op_sin, %op_cos, %op_sqrt, %op_recip, %op_recip_sqrt, %op_neg, %op_tanh, %op_erf, %op_not, %op_stop_gradient)
    %space = irdl.base "#builtin.dense_array"
    %indexing_maps = irdl.base "#builtin.array"
    irdl.attributes {"accum" = %accum, "op" = %op, "space" = %space, "indexing_maps" = %indexing_maps}
    %lhs = irdl.base "!builtin.memref"
    %rhs = irdl.base "!builtin.memref"
    %symbols = irdl.is index
    irdl.operands(lhs: %lhs, rhs: %rhs, symbols: variadic %symbols)
  }

  // `lhs =accum= rhs1 op rhs2`.
  // Optional attributes: initialize_neutral (default false).
  irdl.operation @accum_binop {
    %accum_assign = irdl.is "assign"
    %accum_add = irdl.is "add"
    %accum_sub = irdl.is "sub"
    %accum_mul = irdl.is "mul"
    %accum_div = irdl.is "div"
    %accum_max = irdl.is "max"
    %accum_min = irdl.is "min"
    %accum = irdl.any_of(%accum_assign, %accum_add, %accum_sub, %accum_mul, %accum_div, %accum_max, %accum_min)
    %op_add = irdl.is "add"
    %op_sub = irdl.is "sub"
    %op_mul = irdl.is "mul"
    %op_div = irdl.is "div"
    %op_pow = irdl.is "pow"
    %op_relu_gate = irdl.is "relu_gate"
    %op_satur01_gate = irdl.is "satur01_gate"
    %op_max = irdl.is "max"
    %op_min = irdl.is "min"
    %op_mod = irdl.is "mod"
    %op_cmplt = irdl.is "cmplt"
    %op_cmpeq = irdl.is "cmpeq"
    %op_cmpne = irdl.is "cmpne"
    %op_and = irdl.is "and"
    %op_or = irdl.is "or"
    %op = irdl.any_of(%op_add, %op_sub, %op_mul, %op_div, %op_pow, %op_relu_gate, %op_satur01_gate, %op_max, %op_min, %op_mod, %op_cmplt, %op_cmpeq, %op_cmpne, %op_and, %op_or)
    %space = irdl.base "#builtin.dense_array"
    %indexing_maps = irdl.base "#builtin.array"
    irdl.attributes {"accum" = %accum, "op" = %op, "space" = %space, "indexing_maps" = %indexing_maps}
    %lhs = irdl.base "!builtin.memref"
    %rhs1 = irdl.base "!builtin.memref"
    %rhs2 = irdl.base "!builtin.memref"
    %symbols = irdl.is index
    irdl.operands(lhs: %lhs, rhs1: %rhs1, rhs2: %rhs2, symbols: variadic %symbols)
  }

  // `lhs =accum= op(rhs1, rhs2, rhs3)`.
  // Optional attributes: initialize_neutral (default false).
  irdl.operation @accum_ternop {
    %accum_assign = irdl.is "assign"
    %accum_add = irdl.is "add"
    %accum_sub = irdl.is "sub"
    %accum_mul = irdl.is "mul"
    %accum_div = irdl.is "div"
    %accum_max = irdl.is "max"
    %accum_min = irdl.is "min"
    %accum = irdl.any_of(%accum_assign, %accum_add, %accum_sub, %accum_mul, %accum_div, %accum_max, %accum_min)
    %op_where = irdl.is "where"
    %op_fma = irdl.is "fma"
    %op = irdl.any_of(%op_where, %op_fma)
    %space = irdl.base "#builtin.dense_array"
    %indexing_maps = irdl.base "#builtin.array"
    irdl.attributes {"accum" = %accum, "op" = %op, "space" = %space, "indexing_maps" = %indexing_maps}
    %lhs = irdl.base "!builtin.memref"
    %rhs1 = irdl.base "!builtin.memref"
    %rhs2 = irdl.base "!builtin.memref"
    %rhs3 = irdl.base "!builtin.memref"
    %symbols = irdl.is index
    irdl.operands(lhs: %lhs, rhs1: %rhs1, rhs2: %rhs2, rhs3: %rhs3, symbols: variadic %symbols)
  }

  // `lhs =accum= body(rhs...)`: an assignment computing a scalar program.
  // Optional attributes: initialize_neutral (default false), dynamic_indices (default array<i64>).
  irdl.operation @accum {
    %accum_assign = irdl.is "assign"
    %accum_add = irdl.is "add"
    %accum_sub = irdl.is "sub"
    %accum_mul = irdl.is "mul"
    %accum_div = irdl.is "div"
    %accum_max = irdl.is "max"
    %accum_min = irdl.is "min"
    %accum = irdl.any_of(%accum_assign, %accum_add, %accum_sub, %accum_mul, %accum_div, %accum_max, %accum_min)
    %space = irdl.base "#builtin.dense_array"
    %indexing_maps = irdl.base "#builtin.array"
    irdl.attributes {"accum" = %accum, "space" = %space, "indexing_maps" = %indexing_maps}
    %lhs = irdl.base "!builtin.memref"
    %inputs_memref = irdl.base "!builtin.memref"
    %inputs_index = irdl.is index
    %inputs = irdl.any_of(%inputs_memref, %inputs_index)
    irdl.operands(lhs: %lhs, inputs: variadic %inputs)
    %body = irdl.region with size 1
    irdl.regions(body: %body)
  }

  // Every cell set to one value.
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

  // Cell `i` (in memory order) set to `i`.
  irdl.operation @range {
    %dest = irdl.base "!builtin.memref"
    irdl.operands(dest: %dest)
  }

  // Pseudo-random cells, uniform in `[low, high)`.
  // Optional attributes: low (default 0.0), high (default 1.0), generator (default "splitmix64").
  irdl.operation @uniform {
    %seed = irdl.base "#builtin.integer"
    irdl.attributes {"seed" = %seed}
    %dest = irdl.base "!builtin.memref"
    irdl.operands(dest: %dest)
  }

  // Pseudo-random cells, normal of mean `mean` and standard deviation `std`.
  // Optional attributes: mean (default 0.0), std (default 1.0), generator (default "splitmix64").
  irdl.operation @normal {
    %seed = irdl.base "#builtin.integer"
    irdl.attributes {"seed" = %seed}
    %dest = irdl.base "!builtin.memref"
    irdl.operands(dest: %dest)
  }
}
