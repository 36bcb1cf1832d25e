//===- ocannl_mlir.cpp - C++ glue between the Rust passes and MLIR --------===//
//
// MLIR's C API cannot register a pass under a name, declare pass options, emit
// notes or remarks, or run the `mlir-opt` driver. This file provides exactly
// these pieces, as a small C ABI used by the Rust crates:
//
//  - `ocannl_register_pass`: registers a pass implemented in Rust in MLIR's
//    global pass registry, with its options, so that textual pipelines
//    (`builtin.module(ocannl-infer-shapes{explain=true},canonicalize)`), the
//    `--ocannl-...` flags and `--help` know it.
//  - `ocannl_register_pipeline_with_options`: the same for a pipeline whose
//    text has `{name}` placeholders filled from string options
//    (`--ocannl-to-nvvm="chip=sm_80"`).
//  - `ocannl_set_dialects` / `ocannl_register_dialects`: the project's IRDL
//    dialects as registered dialects: a context loads one from its
//    definition (in memory) the first time it needs it, like any dialect.
//  - `ocannl_emit_diagnostic`: an error, warning or remark with notes.
//  - `ocannl_approximate_math`: upstream's polynomial approximations of
//    math functions (C++ patterns without a registered pass) on chosen ops.
//  - `ocannl_opt_main`: `mlir-opt`'s own driver (MlirOptMain) with every
//    upstream dialect and pass and the project's dialects and passes.
//
// No C++ exception crosses into Rust: every entry point catches them.
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/IRDL/IR/IRDL.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/IRDL/IRDLLoading.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/ExtensibleDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

extern "C" {

/// Kinds of pass options.
enum OcannlOptionKind { OCANNL_OPTION_STRING = 0, OCANNL_OPTION_BOOL = 1 };

/// One option of a Rust pass: `name=value` in a pipeline, `--pass{name=...}`.
struct OcannlPassOption {
  const char *name;
  const char *description;
  int kind;
  const char *default_value;
};

/// A pass implemented in Rust. Every string is static. `run` receives the
/// module and the option values (strings, in declaration order) and returns
/// true on success; on failure it has already emitted its diagnostics.
struct OcannlPassDef {
  const char *argument;
  const char *name;
  const char *description;
  const void *type_id; // address of a static, 8-byte aligned
  const OcannlPassOption *options;
  size_t num_options;
  bool (*run)(MlirOperation module, const char *const *option_values,
              size_t num_values);
};

/// Receives the messages of a failed check.
typedef void (*OcannlSink)(void *state, MlirStringRef message);

/// A dialect of the project: its name, its IRDL definition (the text of a
/// module holding one `irdl.dialect`), and the checks that become the
/// verifiers of its ops and types. Static.
struct OcannlDialectDef {
  const char *name;
  const char *irdl;
  size_t irdl_len;
  /// Checks an op; on failure, gives each message (without the op prefix) to
  /// the sink and returns false.
  bool (*verify_op)(MlirOperation op, OcannlSink sink, void *state);
  /// The dialect's types (names without the dialect prefix).
  const char *const *type_names;
  size_t num_types;
  /// Checks a type's parameters; on failure, gives each message to the sink.
  bool (*verify_type)(MlirStringRef name, const MlirAttribute *params,
                      size_t num_params, OcannlSink sink, void *state);
};

/// One string option of a named pipeline: `{name}` in the pipeline's text
/// is replaced by its value.
struct OcannlPipelineOption {
  const char *name;
  const char *description;
  const char *default_value;
};

} // extern "C"

namespace {

/// The project's dialects, as the Rust side declares them (static strings).
const OcannlDialectDef *projectDialects = nullptr;
size_t numProjectDialects = 0;

void collectMessage(void *state, MlirStringRef message) {
  static_cast<std::vector<std::string> *>(state)->push_back(
      unwrap(message).str());
}

/// Makes the dialect's checks the verifiers of its ops and types. They check
/// everything IRDL derives from the definition (the same tables generate
/// both), with messages that say what is wrong and how to write it.
void installVerifiers(MLIRContext *ctx, ExtensibleDialect *dialect,
                      const OcannlDialectDef *def) {
  for (RegisteredOperationName name : ctx->getRegisteredOperations()) {
    if (&name.getDialect() != dialect)
      continue;
    // IRDL registers every op as a dynamic op, whose definition is the
    // op name's implementation.
    auto *op = static_cast<DynamicOpDefinition *>(
        static_cast<OperationName::Impl *>(name.getAsOpaquePointer()));
    op->setVerifyFn([def](Operation *op) -> LogicalResult {
      std::vector<std::string> messages;
      if (def->verify_op(wrap(op), collectMessage, &messages))
        return success();
      if (messages.empty())
        messages.push_back("is invalid");
      for (const std::string &m : messages)
        op->emitOpError() << m;
      return failure();
    });
  }
  for (size_t i = 0; i < def->num_types; ++i) {
    StringRef typeName = def->type_names[i];
    DynamicTypeDefinition *type = dialect->lookupTypeDefinition(typeName);
    if (!type)
      continue;
    type->setVerifyFn(
        [def, typeName](function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<Attribute> params) -> LogicalResult {
          std::vector<MlirAttribute> raw;
          for (Attribute a : params)
            raw.push_back(wrap(a));
          std::vector<std::string> messages;
          if (def->verify_type(wrap(typeName), raw.data(), raw.size(),
                               collectMessage, &messages))
            return success();
          InFlightDiagnostic diag = emitError();
          for (size_t j = 0; j < messages.size(); ++j)
            diag << (j ? "; " : "") << messages[j];
          return failure();
        });
  }
}

/// Loads the IRDL definitions of one dialect into `ctx`, with its verifiers,
/// and returns the dialect, or null (with a diagnostic) if the definitions
/// do not load.
Dialect *loadProjectDialect(MLIRContext *ctx, const OcannlDialectDef &def) {
  StringRef name(def.name);
  if (Dialect *loaded = ctx->getLoadedDialect(name))
    return loaded;
  ctx->getOrLoadDialect<irdl::IRDLDialect>();
  std::string sourceName = ("<" + name + " dialect definition>").str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      StringRef(def.irdl, def.irdl_len), ParserConfig(ctx), sourceName);
  auto *dialect = module && succeeded(irdl::loadDialects(*module))
                      ? dyn_cast_or_null<ExtensibleDialect>(
                            ctx->getLoadedDialect(name))
                      : nullptr;
  if (!dialect) {
    emitError(UnknownLoc::get(ctx))
        << "internal error: the IRDL definition of '" << name
        << "' does not load";
    return nullptr;
  }
  installVerifiers(ctx, dialect, &def);
  return dialect;
}

/// Registers the project's dialects in `registry`: a context loads one (from
/// its IRDL definition, in memory) the first time it needs it, as it loads any
/// registered dialect, e.g. when the parser meets `ocannl_shape.einsum`.
void registerProjectDialects(DialectRegistry &registry) {
  for (size_t i = 0; i < numProjectDialects; ++i) {
    const OcannlDialectDef *def = &projectDialects[i];
    // Dynamic dialects have no TypeID of their own before they are made;
    // `void` marks them in the registry, as `insertDynamic` does.
    registry.insert(TypeID::get<void>(), def->name,
                    [def](MLIRContext *ctx) { return loadProjectDialect(ctx, *def); });
  }
}

class RustPass : public Pass {
public:
  explicit RustPass(const OcannlPassDef *def)
      : Pass(TypeID::getFromOpaquePointer(def->type_id),
             StringRef("builtin.module")),
        def(def) {
    for (size_t i = 0; i < def->num_options; ++i) {
      const OcannlPassOption &o = def->options[i];
      if (o.kind == OCANNL_OPTION_BOOL) {
        auto opt = std::make_unique<Option<bool>>(
            *this, o.name, llvm::cl::desc(o.description),
            llvm::cl::init(StringRef(o.default_value) == "true"));
        boolOptions.push_back(std::move(opt));
        order.push_back({true, boolOptions.size() - 1});
      } else {
        auto opt = std::make_unique<Option<std::string>>(
            *this, o.name, llvm::cl::desc(o.description),
            llvm::cl::init(std::string(o.default_value)));
        stringOptions.push_back(std::move(opt));
        order.push_back({false, stringOptions.size() - 1});
      }
    }
  }

  StringRef getName() const override { return def->name; }
  StringRef getArgument() const override { return def->argument; }
  StringRef getDescription() const override { return def->description; }

  bool canScheduleOn(RegisteredOperationName opName) const override {
    return opName.getStringRef() == "builtin.module";
  }

  // The dialects the project's passes create ops of (the GPU target's
  // kernels are `gpu.launch` ops; the conversion to linalg makes `tensor`
  // ops and `cf.assert` checks; the CPU's kernels take `!llvm.ptr`
  // arguments).
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<irdl::IRDLDialect, affine::AffineDialect,
                    arith::ArithDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    linalg::LinalgDialect, vector::VectorDialect,
                    gpu::GPUDialect, tensor::TensorDialect,
                    cf::ControlFlowDialect, LLVM::LLVMDialect>();
    registerProjectDialects(registry);
  }

  void runOnOperation() override {
    std::vector<std::string> values;
    values.reserve(order.size());
    for (auto [isBool, idx] : order)
      values.push_back(isBool ? (*boolOptions[idx] ? "true" : "false")
                              : std::string(*stringOptions[idx]));
    std::vector<const char *> ptrs;
    for (const std::string &v : values)
      ptrs.push_back(v.c_str());
    if (!def->run(wrap(getOperation()), ptrs.data(), ptrs.size()))
      signalPassFailure();
  }

  std::unique_ptr<Pass> clonePass() const override {
    auto pass = std::make_unique<RustPass>(def);
    pass->copyOptionValuesFrom(this);
    return pass;
  }

private:
  const OcannlPassDef *def;
  std::vector<std::unique_ptr<Option<bool>>> boolOptions;
  std::vector<std::unique_ptr<Option<std::string>>> stringOptions;
  std::vector<std::pair<bool, size_t>> order;
};

/// String options built at run time from a static list.
class TemplateOptions : public detail::PassOptions {
public:
  TemplateOptions(const OcannlPipelineOption *defs, size_t n) {
    for (size_t i = 0; i < n; ++i)
      values.push_back(std::make_unique<Option<std::string>>(
          *this, defs[i].name, llvm::cl::desc(defs[i].description),
          llvm::cl::init(std::string(defs[i].default_value))));
  }
  std::vector<std::unique_ptr<Option<std::string>>> values;
};

/// `text` with each `{name}` replaced by the option's value.
std::string fillTemplate(std::string text, const OcannlPipelineOption *defs,
                         const TemplateOptions &options) {
  for (size_t i = 0; i < options.values.size(); ++i) {
    std::string key = std::string("{") + defs[i].name + "}";
    std::string value = *options.values[i];
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

} // namespace

namespace {

/// Runs `body`, turning a C++ exception into an error message and `onError`.
template <typename T, typename F>
T guarded(const char *what, T onError, F body) {
  try {
    return body();
  } catch (const std::exception &e) {
    llvm::errs() << "error: " << what << ": " << e.what() << "\n";
  } catch (...) {
    llvm::errs() << "error: " << what << ": unknown C++ exception\n";
  }
  return onError;
}

} // namespace

extern "C" {

void ocannl_register_pass(const OcannlPassDef *def) {
  guarded("registering a pass", 0, [&] {
    registerPass([def]() -> std::unique_ptr<Pass> {
      return std::make_unique<RustPass>(def);
    });
    return 0;
  });
}

/// Declares the project's dialects (static definitions), for
/// `ocannl_register_dialects`, the driver and the passes' dependent dialects.
void ocannl_set_dialects(const OcannlDialectDef *defs, size_t num) {
  projectDialects = defs;
  numProjectDialects = num;
}

/// Registers the project's dialects in `registry`.
void ocannl_register_dialects(MlirDialectRegistry registry) {
  guarded("registering the dialects", 0, [&] {
    registerProjectDialects(*unwrap(registry));
    return 0;
  });
}

/// Registers a named pipeline (`--name` and `builtin.module(name)`) that
/// expands to `pipeline`, a textual pipeline on `builtin.module`. The strings
/// are static.
void ocannl_register_pipeline(const char *name, const char *description,
                              const char *pipeline) {
  guarded("registering a pipeline", 0, [&] {
    std::string text = pipeline;
    PassPipelineRegistration<>(
        name, description, [text](OpPassManager &pm) {
          if (failed(parsePassPipeline(text, pm, llvm::errs())))
            llvm::report_fatal_error("ocannl: invalid built-in pipeline");
        });
    return 0;
  });
}

/// Registers a named pipeline whose text `pipeline` has `{name}`
/// placeholders for the options `defs` (static, like every string here).
void ocannl_register_pipeline_with_options(const char *name,
                                           const char *description,
                                           const char *pipeline,
                                           const OcannlPipelineOption *defs,
                                           size_t num_defs) {
  guarded("registering a pipeline", 0, [&] {
    std::string text = pipeline;
    registerPassPipeline(
        name, description,
        [text, defs, num_defs](
            OpPassManager &pm, StringRef optionsStr,
            function_ref<LogicalResult(const Twine &)> errorHandler) {
          TemplateOptions options(defs, num_defs);
          if (failed(options.parseFromString(optionsStr)))
            return failure();
          std::string filled = fillTemplate(text, defs, options);
          std::string error;
          llvm::raw_string_ostream os(error);
          if (failed(parsePassPipeline(filled, pm, os)))
            return errorHandler("invalid pipeline '" + filled + "': " + error);
          return success();
        },
        [defs, num_defs](
            function_ref<void(const detail::PassOptions &)> optHandler) {
          optHandler(TemplateOptions(defs, num_defs));
        });
    return 0;
  });
}

/// Parses `source` as a module (a top-level `builtin.module` or the ops of
/// an implicit one) whose locations name `name`; null on failure (the
/// diagnostics are emitted).
MlirModule ocannl_parse_module(MlirContext ctx, MlirStringRef source,
                               MlirStringRef name) {
  return guarded("parsing", MlirModule{nullptr}, [&] {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
        unwrap(source), ParserConfig(unwrap(ctx)), unwrap(name));
    return wrap(module.release());
  });
}

/// Severity: 0 error, 1 warning, 2 remark. Notes are attached in order.
void ocannl_emit_diagnostic(int severity, MlirLocation loc, MlirStringRef msg,
                            size_t num_notes, const MlirLocation *note_locs,
                            const MlirStringRef *note_msgs) {
  guarded("emitting a diagnostic", 0, [&] {
    Location location = unwrap(loc);
    InFlightDiagnostic diag = severity == 0   ? emitError(location)
                              : severity == 1 ? emitWarning(location)
                                              : emitRemark(location);
    diag << unwrap(msg);
    for (size_t i = 0; i < num_notes; ++i)
      diag.attachNote(unwrap(note_locs[i])) << unwrap(note_msgs[i]);
    return 0;
  });
}

/// A hash of `top` with everything inside it: each op's name, attributes,
/// properties and result types, the shape of its regions and blocks, a
/// value defined inside `top` by its number (in order of definition), and
/// a value from outside by `outside`; locations ignored.
static uint64_t hashInside(Operation *top,
                           llvm::function_ref<llvm::hash_code(Value)> outside) {
  llvm::DenseMap<Value, unsigned> numbers;
  llvm::hash_code h = llvm::hash_value(0);
  auto number = [&](Value v) -> llvm::hash_code {
    auto it = numbers.find(v);
    return it == numbers.end() ? outside(v) : llvm::hash_value(it->second);
  };
  top->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &r : op->getRegions()) {
      h = llvm::hash_combine(h, r.getBlocks().size());
      for (Block &b : r)
        for (BlockArgument a : b.getArguments()) {
          numbers.try_emplace(a, numbers.size());
          h = llvm::hash_combine(h, a.getType().getAsOpaquePointer());
        }
    }
    h = llvm::hash_combine(
        h, OperationEquivalence::computeHash(
               op, number, OperationEquivalence::ignoreHashValue,
               OperationEquivalence::IgnoreLocations));
    for (Value r : op->getResults())
      numbers.try_emplace(r, numbers.size());
  });
  return uint64_t(h);
}

/// A hash of `op` with everything inside it that equivalent ops
/// (`ocannl_ops_equivalent`) share: each op's name, attributes, properties
/// and result types, the shape of its regions and blocks, and which
/// operand each operand is by position among the values defined in `op`
/// (not by identity), locations ignored. Stable within a process only
/// (attributes and types hash by their uniqued storage).
uint64_t ocannl_op_structural_hash(MlirOperation root) {
  return guarded("hashing an op", uint64_t(0), [&] {
    // A value from outside `root`: by identity.
    return hashInside(unwrap(root), [](Value v) {
      return llvm::hash_value(v.getAsOpaquePointer());
    });
  });
}

/// Whether two ops are equivalent with everything inside them (MLIR's
/// `OperationEquivalence`, locations ignored).
/// Rewrites, under `op`, the `math` ops named in `names` (`n` of them, such
/// as "math.erf") that upstream approximates by polynomials (those of f32
/// and vectors of f32; others are left) into `arith` and `math.fma`, which
/// vectorize. False when the rewrite fails.
bool ocannl_approximate_math(MlirOperation op, const MlirStringRef *names,
                             size_t n) {
  return guarded("approximating math functions", false, [&] {
    Operation *o = unwrap(op);
    llvm::DenseSet<StringRef> chosen;
    for (size_t i = 0; i < n; ++i)
      chosen.insert(unwrap(names[i]));
    RewritePatternSet patterns(o->getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) { return chosen.contains(name); });
    return succeeded(applyPatternsGreedily(o, std::move(patterns)));
  });
}

bool ocannl_ops_equivalent(MlirOperation a, MlirOperation b) {
  return guarded("comparing ops", false, [&] {
    return OperationEquivalence::isEquivalentTo(
        unwrap(a), unwrap(b), OperationEquivalence::IgnoreLocations);
  });
}

/// Which operand each operand of `op` first is: for operand `i`, the
/// position of the first operand that is the same value.
static llvm::SmallVector<unsigned> operandPattern(Operation *op) {
  llvm::SmallVector<unsigned> pattern;
  llvm::DenseMap<Value, unsigned> first;
  for (OpOperand &o : op->getOpOperands())
    pattern.push_back(
        first.try_emplace(o.get(), o.getOperandNumber()).first->second);
  return pattern;
}

/// A hash of `op` that ops equal up to their operands share
/// (`ocannl_ops_equivalent_up_to_operands`): its name, attributes,
/// properties, result types, its operands' types and which of them are the
/// same value, and everything inside it, where a use of one of `op`'s
/// operands counts by the operand's position and any other value from
/// outside by identity; locations ignored. Stable within a process only.
uint64_t ocannl_op_hash_up_to_operands(MlirOperation root) {
  return guarded("hashing an op", uint64_t(0), [&] {
    Operation *top = unwrap(root);
    llvm::SmallVector<unsigned> pattern = operandPattern(top);
    llvm::DenseMap<Value, unsigned> operands;
    for (OpOperand &o : top->getOpOperands())
      operands.try_emplace(o.get(), pattern[o.getOperandNumber()]);
    return hashInside(top, [&](Value v) {
      auto op = operands.find(v);
      if (op != operands.end())
        return llvm::hash_combine(1, op->second,
                                  v.getType().getAsOpaquePointer());
      return llvm::hash_value(v.getAsOpaquePointer());
    });
  });
}

/// Whether `lhs` and `rhs` are equivalent with everything inside them,
/// locations ignored, where `same` maps values of `lhs`'s side to `rhs`'s
/// (and grows with their results and block arguments); a value not in it
/// must be the same on both sides. MLIR's `OperationEquivalence` cannot be
/// used: it finds no two ops of a dynamic (IRDL) dialect equivalent, as
/// their properties never compare equal.
static bool equivalentOps(Operation *lhs, Operation *rhs,
                          llvm::DenseMap<Value, Value> &same) {
  if (lhs->getName() != rhs->getName() ||
      lhs->getRawDictionaryAttrs() != rhs->getRawDictionaryAttrs() ||
      lhs->getNumOperands() != rhs->getNumOperands() ||
      lhs->getNumResults() != rhs->getNumResults() ||
      lhs->getNumRegions() != rhs->getNumRegions() ||
      lhs->getNumSuccessors() != rhs->getNumSuccessors() ||
      lhs->getResultTypes() != rhs->getResultTypes())
    return false;
  if (lhs->getPropertiesStorageSize() != 0 &&
      !lhs->getName().compareOpProperties(lhs->getPropertiesStorage(),
                                          rhs->getPropertiesStorage()))
    return false;
  for (unsigned i = 0; i < lhs->getNumSuccessors(); ++i)
    if (lhs->getSuccessor(i) != rhs->getSuccessor(i))
      return false;
  for (auto [l, r] : llvm::zip(lhs->getOperands(), rhs->getOperands())) {
    if (l == r)
      continue;
    auto it = same.find(l);
    if (it == same.end() || it->second != r)
      return false;
  }
  for (auto [l, r] : llvm::zip(lhs->getResults(), rhs->getResults()))
    same[l] = r;
  for (auto [lr, rr] : llvm::zip(lhs->getRegions(), rhs->getRegions())) {
    if (lr.getBlocks().size() != rr.getBlocks().size())
      return false;
    for (auto [lb, rb] : llvm::zip(lr, rr)) {
      if (lb.getNumArguments() != rb.getNumArguments() ||
          lb.getOperations().size() != rb.getOperations().size())
        return false;
      for (auto [la, ra] : llvm::zip(lb.getArguments(), rb.getArguments())) {
        if (la.getType() != ra.getType())
          return false;
        same[la] = ra;
      }
      for (auto [lo, ro] : llvm::zip(lb, rb))
        if (!equivalentOps(&lo, &ro, same))
          return false;
    }
  }
  return true;
}

/// Whether `a` and `b` are equivalent (locations ignored) once each
/// operand of `a` is renamed to `b`'s operand at its position: the same op
/// on other buffers. Operands that are one value in `a` must be one value
/// in `b`, and the other way round.
bool ocannl_ops_equivalent_up_to_operands(MlirOperation a, MlirOperation b) {
  return guarded("comparing ops", false, [&] {
    Operation *lhs = unwrap(a), *rhs = unwrap(b);
    if (lhs->getNumOperands() != rhs->getNumOperands() ||
        operandPattern(lhs) != operandPattern(rhs))
      return false;
    llvm::DenseMap<Value, Value> same;
    for (auto [l, r] : llvm::zip(lhs->getOperands(), rhs->getOperands())) {
      if (l.getType() != r.getType())
        return false;
      same.try_emplace(l, r);
    }
    return equivalentOps(lhs, rhs, same);
  });
}

/// Whether every value that `ops` (and the ops inside them) use is defined
/// by one of them or inside them, or is one of `allowed`.
bool ocannl_ops_closed_over(const MlirOperation *ops, size_t n,
                            const MlirValue *allowed, size_t m) {
  return guarded("reading an op's uses", false, [&] {
    llvm::DenseSet<Value> ok;
    for (size_t i = 0; i < m; ++i)
      ok.insert(unwrap(allowed[i]));
    auto inside = [&](Operation *def) {
      for (size_t i = 0; i < n; ++i)
        if (def && unwrap(ops[i])->isAncestor(def))
          return true;
      return false;
    };
    for (size_t i = 0; i < n; ++i) {
      WalkResult walked = unwrap(ops[i])->walk([&](Operation *op) {
        for (Value v : op->getOperands()) {
          if (ok.contains(v))
            continue;
          Operation *def = v.getDefiningOp();
          if (!def)
            def = cast<BlockArgument>(v).getOwner()->getParentOp();
          if (!inside(def))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (walked.wasInterrupted())
        return false;
    }
    return true;
  });
}

/// The op before `op` in its block; null when `op` is the first (MLIR's C
/// API has no such function).
MlirOperation ocannl_op_previous_in_block(MlirOperation op) {
  return guarded("reading a block", MlirOperation{nullptr}, [&] {
    Operation *o = unwrap(op);
    Block *b = o->getBlock();
    if (!b || o == &b->front())
      return MlirOperation{nullptr};
    return wrap(o->getPrevNode());
  });
}

/// Clones `ops` (in order) with one mapping, first `from[i]` to `to[i]`,
/// then each op's results to its clone's, and inserts the clones before
/// `before`, or at the end of `block` when `before` is null; the clones
/// (not the ops nested in them) are located at `loc`. False when nothing
/// could be cloned.
bool ocannl_clone_ops(const MlirOperation *ops, size_t n,
                      const MlirValue *from, const MlirValue *to, size_t m,
                      MlirBlock block, MlirOperation before,
                      MlirLocation loc) {
  return guarded("cloning ops", false, [&] {
    IRMapping mapping;
    for (size_t i = 0; i < m; ++i)
      mapping.map(unwrap(from[i]), unwrap(to[i]));
    Block *b = unwrap(block);
    Operation *anchor = before.ptr ? unwrap(before) : nullptr;
    for (size_t i = 0; i < n; ++i) {
      Operation *clone = unwrap(ops[i])->clone(mapping);
      clone->setLoc(unwrap(loc));
      if (anchor)
        b->getOperations().insert(anchor->getIterator(), clone);
      else
        b->push_back(clone);
    }
    return true;
  });
}

/// `mlir-opt`'s driver with every upstream dialect, extension and pass, and
/// the project's dialects (see `ocannl_set_dialects`) and passes. Returns the
/// process exit code. `overview` heads `--help`; `version` is printed by
/// `--version` after LLVM's.
int ocannl_opt_main(int argc, char **argv, const char *overview,
                    const char *version) {
  return guarded("ocannl-opt", 1, [&] {
    llvm::InitLLVM initLLVM(argc, argv);

    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerProjectDialects(registry);
    // Translations to LLVM IR, which serializing GPU modules needs.
    registerAllToLLVMIRTranslations(registry);
    registerAllPasses();

    std::string versionLine = version;
    llvm::cl::AddExtraVersionPrinter(
        [versionLine](llvm::raw_ostream &os) { os << versionLine << "\n"; });

    auto [inputFilename, outputFilename] =
        registerAndParseCLIOptions(argc, argv, overview, registry);
    MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
    // As `MlirOptMain(argc, argv, ...)` does: these need no input.
    if (config.shouldShowDialects() || config.shouldListPasses())
      return asMainReturnCode(
          MlirOptMain(llvm::outs(), nullptr, registry, config));
    if (inputFilename == "-" &&
        llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
      llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                      "interrupt)\n";
    std::string errorMessage;
    std::unique_ptr<llvm::MemoryBuffer> file =
        openInputFile(inputFilename, &errorMessage);
    if (!file) {
      llvm::errs() << errorMessage << "\n";
      return 1;
    }
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFilename, &errorMessage);
    if (!output) {
      llvm::errs() << errorMessage << "\n";
      return 1;
    }
    if (failed(MlirOptMain(output->os(), std::move(file), registry, config)))
      return 1;
    output->keep();
    return 0;
  });
}

} // extern "C"
