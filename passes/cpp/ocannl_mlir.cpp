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
//  - `ocannl_emit_diagnostic`: an error, warning or remark with notes.
//  - `ocannl_load_irdl`: loads the IRDL dialects into a context (for tools
//    that make their own contexts, such as `ocannl-run`).
//  - `ocannl_opt_main`: `mlir-opt`'s own driver (MlirOptMain) with every
//    upstream dialect and pass, the project's passes, and the project's IRDL
//    dialects loaded into every context it creates.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

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

/// One string option of a named pipeline: `{name}` in the pipeline's text
/// is replaced by its value.
struct OcannlPipelineOption {
  const char *name;
  const char *description;
  const char *default_value;
};

} // extern "C"

namespace {

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

  // The upstream dialects the project's lowerings create ops of (the GPU
  // target's kernels are `gpu.launch` ops).
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<irdl::IRDLDialect, affine::AffineDialect,
                    arith::ArithDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    linalg::LinalgDialect, vector::VectorDialect,
                    gpu::GPUDialect>();
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

LogicalResult loadIrdlSource(MLIRContext *ctx, StringRef source) {
  ctx->getOrLoadDialect<irdl::IRDLDialect>();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ctx, "<ocannl dialects>");
  if (!module)
    return failure();
  return irdl::loadDialects(*module);
}

/// The driver's configuration, with one more pass run before the pipeline
/// given on the command line.
struct OcannlOptConfig : MlirOptMainConfig {
  explicit OcannlOptConfig(MlirOptMainConfig base)
      : MlirOptMainConfig(std::move(base)) {}

  void prependPass(const PassInfo *info) {
    auto commandLine = passPipelineCallback;
    passPipelineCallback = [commandLine, info](PassManager &pm) {
      auto onError = [](const llvm::Twine &msg) {
        llvm::errs() << msg << "\n";
        return failure();
      };
      // The command-line pipeline may replace the pass manager's content
      // (`--pass-pipeline`), so build it apart, then append its textual form
      // after the prepended pass.
      PassManager user(pm.getContext(),
                       pm.getOpName().value_or("builtin.module"));
      if (commandLine && failed(commandLine(user)))
        return failure();
      if (failed(info->addToPipeline(pm, "", onError)))
        return failure();
      std::string text;
      llvm::raw_string_ostream os(text);
      for (Pass &pass : user.getPasses()) {
        if (!text.empty())
          os << ",";
        pass.printAsTextualPipeline(os);
      }
      if (text.empty())
        return success();
      return parsePassPipeline(text, pm, llvm::errs());
    };
  }
};

} // namespace

extern "C" {

void ocannl_register_pass(const OcannlPassDef *def) {
  registerPass([def]() -> std::unique_ptr<Pass> {
    return std::make_unique<RustPass>(def);
  });
}

/// Loads IRDL dialect definitions (the text of an IRDL module) into `ctx`.
bool ocannl_load_irdl(MlirContext ctx, MlirStringRef source) {
  return succeeded(loadIrdlSource(unwrap(ctx), unwrap(source)));
}

/// Registers a named pipeline (`--name` and `builtin.module(name)`) that
/// expands to `pipeline`, a textual pipeline on `builtin.module`. The strings
/// are static.
void ocannl_register_pipeline(const char *name, const char *description,
                              const char *pipeline) {
  std::string text = pipeline;
  PassPipelineRegistration<>(
      name, description, [text](OpPassManager &pm) {
        if (failed(parsePassPipeline(text, pm, llvm::errs())))
          llvm::report_fatal_error("ocannl: invalid built-in pipeline");
      });
}

/// Registers a named pipeline whose text `pipeline` has `{name}`
/// placeholders for the options `defs` (static, like every string here).
void ocannl_register_pipeline_with_options(const char *name,
                                           const char *description,
                                           const char *pipeline,
                                           const OcannlPipelineOption *defs,
                                           size_t num_defs) {
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
}

/// Severity: 0 error, 1 warning, 2 remark. Notes are attached in order.
void ocannl_emit_diagnostic(int severity, MlirLocation loc, MlirStringRef msg,
                            size_t num_notes, const MlirLocation *note_locs,
                            const MlirStringRef *note_msgs) {
  Location location = unwrap(loc);
  InFlightDiagnostic diag = severity == 0   ? emitError(location)
                            : severity == 1 ? emitWarning(location)
                                            : emitRemark(location);
  diag << unwrap(msg);
  for (size_t i = 0; i < num_notes; ++i)
    diag.attachNote(unwrap(note_locs[i])) << unwrap(note_msgs[i]);
}

/// `mlir-opt`'s driver. Returns the process exit code. `irdl_file` holds the
/// project's IRDL dialects, loaded into every context the driver creates
/// (unless `--irdl-file` names another file). `verify_pass` names a
/// registered pass that runs first in every pipeline (the project's verifier
/// of what IRDL cannot express), or is null.
int ocannl_opt_main(int argc, char **argv, const char *irdl_file,
                    const char *tool_name, const char *verify_pass) {
  llvm::InitLLVM initLLVM(argc, argv);

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<irdl::IRDLDialect>();
  // Translations to LLVM IR, which serializing GPU modules needs.
  registerAllToLLVMIRTranslations(registry);
  registerAllPasses();

  auto [inputFilename, outputFilename] =
      registerAndParseCLIOptions(argc, argv, tool_name, registry);
  OcannlOptConfig config(MlirOptMainConfig::createFromCLOptions());
  if (config.getIrdlFile().empty())
    config.setIrdlFile(irdl_file);

  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    std::vector<std::string> names;
    for (StringRef name : registry.getDialectNames())
      names.push_back(name.str());
    names.push_back("ocannl_assign");
    names.push_back("ocannl_shape");
    llvm::sort(names);
    llvm::interleave(names, llvm::outs(), ", ");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    printRegisteredPasses();
    return 0;
  }
  if (verify_pass) {
    const PassInfo *info = PassInfo::lookup(verify_pass);
    if (!info)
      llvm::report_fatal_error("ocannl: verifier pass is not registered");
    config.prependPass(info);
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
}

} // extern "C"
