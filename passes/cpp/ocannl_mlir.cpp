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
//  - `ocannl_set_dialects` / `ocannl_register_dialects`: the project's IRDL
//    dialects as registered dialects: a context loads one from its
//    definition (in memory) the first time it needs it, like any dialect.
//  - `ocannl_emit_diagnostic`: an error, warning or remark with notes.
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
#include "mlir/Dialect/IRDL/IR/IRDL.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/IRDL/IRDLLoading.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
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

/// A dialect of the project: its name and its IRDL definition (the text of
/// a module holding one `irdl.dialect`). Static strings.
struct OcannlDialectDef {
  const char *name;
  const char *irdl;
  size_t irdl_len;
};

} // extern "C"

namespace {

/// The project's dialects, as the Rust side declares them (static strings).
const OcannlDialectDef *projectDialects = nullptr;
size_t numProjectDialects = 0;

/// Loads the IRDL definitions of one dialect into `ctx` and returns the
/// dialect, or null (with a diagnostic) if the definitions do not load.
Dialect *loadProjectDialect(MLIRContext *ctx, const OcannlDialectDef &def) {
  StringRef name(def.name);
  if (Dialect *loaded = ctx->getLoadedDialect(name))
    return loaded;
  ctx->getOrLoadDialect<irdl::IRDLDialect>();
  std::string sourceName = ("<" + name + " dialect definition>").str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      StringRef(def.irdl, def.irdl_len), ParserConfig(ctx), sourceName);
  if (!module || failed(irdl::loadDialects(*module))) {
    emitError(UnknownLoc::get(ctx))
        << "internal error: the IRDL definition of '" << name
        << "' does not load";
    return nullptr;
  }
  return ctx->getLoadedDialect(name);
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

/// Whether a project dialect is loaded in `ctx`: the input mentions it.
bool usesProjectDialects(MLIRContext *ctx) {
  for (size_t i = 0; i < numProjectDialects; ++i)
    if (ctx->getLoadedDialect(projectDialects[i].name))
      return true;
  return false;
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

  // The dialects the project's passes create ops of.
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<irdl::IRDLDialect, affine::AffineDialect,
                    arith::ArithDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    linalg::LinalgDialect, vector::VectorDialect>();
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

LogicalResult reportPipelineError(MLIRContext *ctx, const llvm::Twine &msg) {
  return emitError(UnknownLoc::get(ctx)) << msg;
}

/// The driver's configuration, with the project's verifier run first when
/// the input uses the project's dialects.
///
/// The pipeline is built as stock `mlir-opt` builds it, in the pass manager
/// the driver made (implicit nesting for pass flags), never printed and
/// parsed again: with pass flags, the verifier goes in first and the flags'
/// passes after it; with `--pass-pipeline='ANCHOR(...)'`, the text is parsed
/// as stock parses it and, when ANCHOR is the module the verifier runs on,
/// the same text between the parentheses is parsed after the verifier. Any
/// other anchor replaces the pass manager's content, as in stock (which then
/// fails to run a `func.func` pipeline on a module).
struct OcannlOptConfig : MlirOptMainConfig {
  explicit OcannlOptConfig(MlirOptMainConfig base)
      : MlirOptMainConfig(std::move(base)) {}

  void runFirst(const PassInfo *verifier) {
    auto commandLine = passPipelineCallback;
    bool dump = shouldDumpPassPipeline();
    passPipelineCallback = [commandLine, verifier,
                            dump](PassManager &pm) -> LogicalResult {
      MLIRContext *ctx = pm.getContext();
      auto onError = [ctx](const llvm::Twine &msg) {
        return reportPipelineError(ctx, msg);
      };
      bool verify = usesProjectDialects(ctx);
      auto addVerifier = [&](OpPassManager &opm) -> LogicalResult {
        if (!verify || opm.getOpAnchorName() != ModuleOp::getOperationName())
          return success();
        return verifier->addToPipeline(opm, "", onError);
      };

      // Every pass flag (`--canonicalize`, `--ocannl-verify`, ...) is a value
      // of one option, registered under each pass's name.
      const auto &options = llvm::cl::getRegisteredOptions();
      llvm::cl::Option *textOption = options.lookup("pass-pipeline");
      llvm::cl::Option *flags = options.lookup(verifier->getPassArgument());
      bool textual = textOption && textOption->getNumOccurrences() > 0 &&
                     !(flags && flags->getNumOccurrences() > 0);
      if (!textual) {
        if (failed(addVerifier(pm)))
          return failure();
        // Appends the flags' passes and dumps the pipeline if asked.
        return commandLine ? commandLine(pm) : success();
      }

      // `PassPipelineCLParser` declares `pass-pipeline` as a
      // `cl::opt<std::string>` (mlir/Pass/PassRegistry.h).
      StringRef text =
          static_cast<llvm::cl::opt<std::string> *>(textOption)->getValue();
      std::string message;
      llvm::raw_string_ostream os(message);
      FailureOr<OpPassManager> parsed = parsePassPipeline(text, os);
      if (failed(parsed))
        return onError(message);
      if (!verify || parsed->getOpAnchorName() != pm.getOpAnchorName() ||
          pm.getOpAnchorName() != ModuleOp::getOperationName()) {
        static_cast<OpPassManager &>(pm) = std::move(*parsed);
      } else {
        // A textual pipeline nests explicitly, as in stock.
        pm.setNesting(OpPassManager::Nesting::Explicit);
        if (failed(addVerifier(pm)))
          return failure();
        // `ANCHOR(PIPELINE)`, split as `parsePassPipeline` splits it.
        StringRef body = text.trim();
        body.consume_back(")");
        body = body.drop_front(body.find_first_of('(') + 1);
        if (failed(parsePassPipeline(body, pm, os)))
          return onError(message);
      }
      if (dump) {
        pm.dump();
        llvm::errs() << "\n";
      }
      return success();
    };
  }
};

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

/// `mlir-opt`'s driver with every upstream dialect, extension and pass, and
/// the project's dialects (see `ocannl_set_dialects`) and passes. Returns the
/// process exit code. `overview` heads `--help`; `version` is printed by
/// `--version` after LLVM's; `verify_pass` names a registered pass run first
/// whenever the input uses the project's dialects (the checks IRDL cannot
/// express), or is null.
int ocannl_opt_main(int argc, char **argv, const char *overview,
                    const char *version, const char *verify_pass) {
  return guarded("ocannl-opt", 1, [&] {
    llvm::InitLLVM initLLVM(argc, argv);

    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerProjectDialects(registry);
    registerAllPasses();

    std::string versionLine = version;
    llvm::cl::AddExtraVersionPrinter(
        [versionLine](llvm::raw_ostream &os) { os << versionLine << "\n"; });

    auto [inputFilename, outputFilename] =
        registerAndParseCLIOptions(argc, argv, overview, registry);
    OcannlOptConfig config(MlirOptMainConfig::createFromCLOptions());
    // As `MlirOptMain(argc, argv, ...)` does: these need no input.
    if (config.shouldShowDialects() || config.shouldListPasses())
      return asMainReturnCode(
          MlirOptMain(llvm::outs(), nullptr, registry, config));
    if (inputFilename == "-" &&
        llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
      llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                      "interrupt)\n";
    if (verify_pass) {
      const PassInfo *info = PassInfo::lookup(verify_pass);
      if (!info) {
        llvm::errs() << "internal error: the pass '" << verify_pass
                     << "' is not registered\n";
        return 1;
      }
      config.runFirst(info);
    }

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
