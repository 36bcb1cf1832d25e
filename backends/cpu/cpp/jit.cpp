//===- jit.cpp - The CPU backend's JIT: translate, split, compile, link ---===//
//
// MLIR's ExecutionEngine optimizes a whole module on one thread at one level
// and caches nothing. This file gives the Rust runtime the pieces to do
// better, as a small C ABI (every fallible entry point returns NULL on
// success or an error message the caller frees with `ocannl_jit_free`):
//
//  - `ocannl_jit_split`: an LLVM-dialect module translated to LLVM IR, with
//    the packed wrappers `_mlir_<name>` MLIR's ExecutionEngine adds, split
//    into parts, each as bitcode: one part per root (a public function with
//    its C interface and wrappers, or a function the caller names, such as
//    an outlined kernel) with the internal functions only it reaches and
//    the private constants it uses; what several roots share (functions,
//    mutable globals) is defined in one more part, the shared one, and
//    declared where it is used.
//  - `ocannl_jit_compile`: one part's bitcode to an object file, in its own
//    LLVMContext (any number of threads at once).
//  - `ocannl_jit_create`, `_add_object`, `_lookup`, `_destroy`: an ORC LLJIT
//    linking the objects against the process and shared libraries.
//  - `ocannl_jit_describe`: the triple and features of a CPU LLVM knows by
//    name (or of the host), what the parts are compiled for and what the
//    kernels are planned for.
//  - `ocannl_jit_llvm_version`: what an object depends on besides its
//    bitcode and its machine (for cache keys).
//
// No C++ exception crosses into Rust: every entry point catches them. Bad
// input (a module that does not translate, bytes that are not bitcode) is an
// error message, never an abort.
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Scalar/DCE.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

/// A copy of `s` the caller frees with `ocannl_jit_free` (NULL when out of
/// memory: the caller then reports that much).
char *copyString(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (out) {
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = 0;
  }
  return out;
}

char *fail(const std::string &message) { return copyString(message); }

std::string errorText(llvm::Error err) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::logAllUnhandledErrors(std::move(err), os);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

/// Every target LLVM was built with, its asm printer and parser,
/// registered once: the JIT runs code for the host, and ahead-of-time
/// builds and plans may name a CPU of another architecture.
void initializeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

/// The host's features as LLVM writes them (`+avx2,-avx512f,...`), sorted.
std::string hostFeatures() {
  llvm::SubtargetFeatures features;
  std::vector<std::pair<std::string, bool>> sorted;
  for (auto &f : llvm::sys::getHostCPUFeatures())
    sorted.emplace_back(f.getKey().str(), f.getValue());
  std::sort(sorted.begin(), sorted.end());
  for (auto &[name, on] : sorted)
    features.AddFeature(name, on);
  return features.getString();
}

/// What code is generated for: a triple, a CPU and its features.
struct Machine {
  std::string triple, cpu, features;
};

/// The machine the C ABI names (`triple`, `cpu`, `features`; an empty
/// triple is the host, with its CPU and features).
Machine machine(const char *triple, const char *cpu, const char *features) {
  if (!triple || !*triple)
    return {llvm::sys::getProcessTriple(), llvm::sys::getHostCPUName().str(),
            hostFeatures()};
  return {triple, cpu ? cpu : "", features ? features : ""};
}

/// A target machine for `m`, generating position-independent code at
/// `level` (objects are linked by the JIT wherever their memory lands).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
targetMachine(const Machine &m, llvm::CodeGenOptLevel level) {
  initializeTarget();
  llvm::Triple triple(m.triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no LLVM target for " + m.triple + ": " +
                                       error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, m.cpu, m.features, options, llvm::Reloc::PIC_, std::nullopt,
      level, /*JIT=*/false));
  if (!tm)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot create a target machine for " +
                                       triple.str());
  return std::move(tm);
}

/// The module identifier and source file name of every part, so that a
/// part's bytes depend on its code only.
constexpr const char *kPartName = "ocannl";

/// For each function with a body and external linkage, `_mlir_<name>(ptr)`,
/// which reads the function's arguments through an array of pointers and
/// stores its result (if any) through the pointer after them: what MLIR's
/// ExecutionEngine adds (`packFunctionArguments`), so that the same packed
/// calls work. Internal functions, which no caller can name, get none, and
/// neither does a function with a C interface (`_mlir_ciface_<name>`, whose
/// wrapper callers use).
/// Returns each wrapper with the function it wraps.
std::vector<std::pair<llvm::Function *, llvm::Function *>>
packFunctionArguments(llvm::Module &module) {
  auto &ctx = module.getContext();
  llvm::IRBuilder<> builder(ctx);
  llvm::DenseSet<llvm::Function *> interfaceFunctions;
  std::vector<llvm::Function *> functions;
  for (auto &func : module.getFunctionList())
    functions.push_back(&func);
  std::vector<std::pair<llvm::Function *, llvm::Function *>> wrappers;
  for (llvm::Function *func : functions) {
    if (func->isDeclaration() || func->hasLocalLinkage())
      continue;
    if (interfaceFunctions.count(func))
      continue;
    // A function with a C interface is called through it (the wrapper of
    // `_mlir_ciface_<name>`): no wrapper of its own, which for a routine of
    // a thousand arguments would be as long to compile as the routine.
    if (!func->getName().starts_with("_mlir_ciface_") &&
        module.getFunction(("_mlir_ciface_" + func->getName()).str()))
      continue;
    auto *newType = llvm::FunctionType::get(builder.getVoidTy(),
                                            builder.getPtrTy(), false);
    std::string newName = "_mlir_" + func->getName().str();
    auto callee = module.getOrInsertFunction(newName, newType);
    auto *interfaceFunc = llvm::dyn_cast<llvm::Function>(callee.getCallee());
    if (!interfaceFunc || !interfaceFunc->isDeclaration())
      continue; // a function of that name exists already: leave it alone
    interfaceFunctions.insert(interfaceFunc);
    auto *bb = llvm::BasicBlock::Create(ctx);
    bb->insertInto(interfaceFunc);
    builder.SetInsertPoint(bb);
    llvm::Value *argList = interfaceFunc->arg_begin();
    llvm::SmallVector<llvm::Value *, 8> args;
    args.reserve(func->arg_size());
    for (auto [index, arg] : llvm::enumerate(func->args())) {
      llvm::Value *argIndex = llvm::Constant::getIntegerValue(
          builder.getInt64Ty(), llvm::APInt(64, index));
      llvm::Value *argPtrPtr =
          builder.CreateGEP(builder.getPtrTy(), argList, argIndex);
      llvm::Value *argPtr = builder.CreateLoad(builder.getPtrTy(), argPtrPtr);
      args.push_back(builder.CreateLoad(arg.getType(), argPtr));
    }
    llvm::Value *result = builder.CreateCall(func, args);
    if (!result->getType()->isVoidTy()) {
      llvm::Value *retIndex = llvm::Constant::getIntegerValue(
          builder.getInt64Ty(), llvm::APInt(64, func->arg_size()));
      llvm::Value *retPtrPtr =
          builder.CreateGEP(builder.getPtrTy(), argList, retIndex);
      llvm::Value *retPtr = builder.CreateLoad(builder.getPtrTy(), retPtrPtr);
      builder.CreateStore(result, retPtr);
    }
    builder.CreateRetVoid();
    wrappers.emplace_back(interfaceFunc, func);
  }
  return wrappers;
}

/// The global values a value refers to, through constant expressions and
/// aggregates (not through other globals' initializers).
void referencedGlobals(const llvm::Value *v,
                       llvm::SmallPtrSetImpl<const llvm::Constant *> &seen,
                       llvm::SetVector<llvm::GlobalValue *> &out) {
  if (auto *gv = llvm::dyn_cast<llvm::GlobalValue>(v)) {
    out.insert(const_cast<llvm::GlobalValue *>(gv));
    return;
  }
  auto *c = llvm::dyn_cast<llvm::Constant>(v);
  if (!c || !seen.insert(c).second)
    return;
  for (const llvm::Use &op : c->operands())
    referencedGlobals(op.get(), seen, out);
}

/// The global values a global's body (a function's instructions, a
/// variable's initializer) refers to, in order of first reference.
llvm::SetVector<llvm::GlobalValue *> references(llvm::GlobalValue &gv) {
  llvm::SetVector<llvm::GlobalValue *> out;
  llvm::SmallPtrSet<const llvm::Constant *, 32> seen;
  if (auto *f = llvm::dyn_cast<llvm::Function>(&gv)) {
    for (auto &bb : *f)
      for (auto &inst : bb)
        for (const llvm::Use &op : inst.operands())
          referencedGlobals(op.get(), seen, out);
    if (f->hasPersonalityFn())
      referencedGlobals(f->getPersonalityFn(), seen, out);
  } else if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(&gv)) {
    if (var->hasInitializer())
      referencedGlobals(var->getInitializer(), seen, out);
  }
  return out;
}

/// A private or internal constant: copied into every part that uses it.
bool isLocalConstant(const llvm::GlobalValue *gv) {
  auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv);
  return var && var->isConstant() && var->hasLocalLinkage() &&
         var->hasInitializer();
}

/// Makes a global linkable from other parts: external linkage, default
/// visibility, a name.
void externalize(llvm::GlobalValue *gv, unsigned &unnamed) {
  if (!gv->hasName())
    gv->setName("__ocannl_shared_" + std::to_string(unnamed++));
  gv->setLinkage(llvm::GlobalValue::ExternalLinkage);
  gv->setVisibility(llvm::GlobalValue::DefaultVisibility);
  gv->setDSOLocal(false);
}

/// Puts a part in a canonical form: declarations nothing uses removed,
/// declarations neither local to the object nor hidden, functions ordered
/// by name and variables by first use, a fixed identifier.
void canonicalize(llvm::Module &part) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = part.begin(); it != part.end();) {
      llvm::Function &f = *it++;
      f.removeDeadConstantUsers();
      if (f.isDeclaration() && f.use_empty()) {
        f.eraseFromParent();
        changed = true;
      }
    }
    for (auto it = part.global_begin(); it != part.global_end();) {
      llvm::GlobalVariable &g = *it++;
      g.removeDeadConstantUsers();
      if (g.use_empty() && (g.isDeclaration() || g.hasLocalLinkage())) {
        g.eraseFromParent();
        changed = true;
      }
    }
  }
  for (auto &f : part)
    if (f.isDeclaration() && !f.isIntrinsic()) {
      f.setVisibility(llvm::GlobalValue::DefaultVisibility);
      f.setDSOLocal(false);
    }
  for (auto &g : part.globals())
    if (g.isDeclaration()) {
      g.setVisibility(llvm::GlobalValue::DefaultVisibility);
      g.setDSOLocal(false);
    }
  // Functions by name (declarations after definitions).
  std::vector<llvm::Function *> functions;
  for (auto &f : part)
    functions.push_back(&f);
  std::stable_sort(functions.begin(), functions.end(),
                   [](llvm::Function *a, llvm::Function *b) {
                     if (a->isDeclaration() != b->isDeclaration())
                       return !a->isDeclaration();
                     return a->getName() < b->getName();
                   });
  for (llvm::Function *f : functions) {
    f->removeFromParent();
    part.getFunctionList().push_back(f);
  }
  // Variables in order of first reference from the functions (and from
  // the variables' initializers, depth first), so that unnamed constants
  // come in the same order whatever module the part was cut from.
  llvm::SetVector<llvm::GlobalVariable *> order;
  std::vector<llvm::GlobalValue *> stack;
  auto visit = [&](llvm::GlobalValue &root) {
    for (llvm::GlobalValue *gv : references(root))
      if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv))
        if (order.insert(var))
          stack.push_back(var);
    while (!stack.empty()) {
      llvm::GlobalValue *gv = stack.back();
      stack.pop_back();
      for (llvm::GlobalValue *ref : references(*gv))
        if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(ref))
          if (order.insert(var))
            stack.push_back(var);
    }
  };
  for (auto &f : part)
    visit(f);
  for (auto &g : part.globals())
    order.insert(&g);
  for (llvm::GlobalVariable *g : order) {
    g->removeFromParent();
    part.insertGlobalVariable(g);
  }
  part.setModuleIdentifier(kPartName);
  part.setSourceFileName(kPartName);
}

struct Part {
  std::string root;
  std::string bitcode;
};

} // namespace

extern "C" {

/// The parts of a split module.
struct OcannlJitParts {
  std::vector<Part> parts;
};

/// An LLJIT with the objects added to it.
struct OcannlJit {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  unsigned objects = 0;
};

void ocannl_jit_free(void *p) { std::free(p); }

/// LLVM's version (`22.1.8`): a static string.
const char *ocannl_jit_llvm_version(void) { return LLVM_VERSION_STRING; }

/// The machine of CPU `cpu` as `triple;cpu;+f1,+f2,...` in `*out` (freed
/// with `ocannl_jit_free`): for an empty name the host's (its features as
/// `+f`/`-f`); else the first of the host's triple, x86-64's and AArch64's
/// whose LLVM target knows the name, with the features LLVM gives that CPU.
char *ocannl_jit_describe(const char *cpu, char **out) {
  try {
    *out = nullptr;
    initializeTarget();
    std::string name = cpu ? cpu : "";
    if (name.empty()) {
      Machine m = machine(nullptr, nullptr, nullptr);
      *out = copyString(m.triple + ";" + m.cpu + ";" + m.features);
      return nullptr;
    }
    for (std::string t : {llvm::sys::getProcessTriple(),
                          std::string("x86_64-unknown-linux-gnu"),
                          std::string("aarch64-unknown-linux-gnu")}) {
      llvm::Triple triple(t);
      std::string error;
      const llvm::Target *target =
          llvm::TargetRegistry::lookupTarget(triple, error);
      if (!target)
        continue;
      // Asked first of the generic CPU: LLVM warns on stderr when a
      // subtarget is made for a CPU it does not know.
      std::unique_ptr<llvm::MCSubtargetInfo> generic(
          target->createMCSubtargetInfo(triple, "", ""));
      if (!generic || !generic->isCPUStringValid(name))
        continue;
      std::unique_ptr<llvm::MCSubtargetInfo> sti(
          target->createMCSubtargetInfo(triple, name, ""));
      if (!sti)
        continue;
      std::vector<std::string> on;
      for (const auto &kv : sti->getAllProcessorFeatures())
        if (sti->getFeatureBits()[kv.Value])
          on.push_back(std::string("+") + kv.Key);
      std::sort(on.begin(), on.end());
      std::string features;
      for (auto &f : on)
        features += (features.empty() ? "" : ",") + f;
      *out = copyString(t + ";" + name + ";" + features);
      return nullptr;
    }
    return fail("LLVM knows no CPU named '" + name +
                "' (for x86-64: x86-64-v2, x86-64-v3, x86-64-v4, haswell, "
                "znver3, skylake-avx512, sapphirerapids, ...; for AArch64: "
                "neoverse-n1, neoverse-v1, apple-m1, ...)");
  } catch (...) {
    return fail("internal error while describing a CPU");
  }
}

/// Translates `module` (an LLVM-dialect `builtin.module`) to LLVM IR, adds
/// the packed wrappers and splits it into parts (see the file's comment).
/// `roots` names functions that are a part of their own whatever their
/// linkage. On success `*out` holds the parts, in the module's order of
/// their roots and the shared part (root "") last.
char *ocannl_jit_split(MlirOperation module, const char *const *roots,
                       size_t numRoots, const char *triple, const char *cpu,
                       const char *features, OcannlJitParts **out) {
  try {
    *out = nullptr;
    mlir::Operation *op = unwrap(module);
    if (!op)
      return fail("no module to translate");
    mlir::MLIRContext *mctx = op->getContext();
    {
      mlir::DialectRegistry registry;
      mlir::registerBuiltinDialectTranslation(registry);
      mlir::registerLLVMDialectTranslation(registry);
      mlir::registerOpenMPDialectTranslation(registry);
      mctx->appendDialectRegistry(registry);
    }
    std::string diagnostics;
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> m;
    {
      mlir::ScopedDiagnosticHandler handler(
          mctx, [&](mlir::Diagnostic &diag) {
            if (!diagnostics.empty())
              diagnostics += "\n";
            diagnostics += diag.str();
            return mlir::success();
          });
      m = mlir::translateModuleToLLVMIR(op, ctx, kPartName);
    }
    if (!m)
      return fail("cannot translate the module to LLVM IR" +
                  (diagnostics.empty() ? std::string()
                                       : ": " + diagnostics));
    auto tm = targetMachine(machine(triple, cpu, features),
                            llvm::CodeGenOptLevel::Default);
    if (!tm)
      return fail(errorText(tm.takeError()));
    m->setDataLayout((*tm)->createDataLayout());
    m->setTargetTriple((*tm)->getTargetTriple());
    for (auto &g : m->globals())
      if (g.hasAppendingLinkage() &&
          (g.getName() == "llvm.global_ctors" ||
           g.getName() == "llvm.global_dtors"))
        return fail("the module has global constructors or destructors, "
                    "which the JIT does not run");
    if (!m->aliases().empty() || !m->ifuncs().empty())
      return fail("the module has aliases or ifuncs, which the JIT does not "
                  "split");
    // (The translation verified the module; each part is verified when it
    // is compiled.)
    auto wrappers = packFunctionArguments(*m);

    // The roots: named functions, and every other function with a body and
    // external linkage, except wrappers and C interfaces, which go with the
    // function they belong to.
    llvm::DenseSet<llvm::StringRef> named;
    for (size_t i = 0; i < numRoots; ++i)
      named.insert(roots[i]);
    llvm::DenseMap<llvm::Function *, llvm::Function *> belongsTo;
    for (auto &[wrapper, wrapped] : wrappers)
      belongsTo[wrapper] = wrapped;
    for (auto &f : *m) {
      if (f.isDeclaration() || named.count(f.getName()))
        continue;
      llvm::StringRef name = f.getName();
      if (name.starts_with("_mlir_ciface_"))
        if (llvm::Function *g =
                m->getFunction(name.drop_front(strlen("_mlir_ciface_"))))
          if (!g->isDeclaration())
            belongsTo[&f] = g;
    }
    auto headOf = [&](llvm::Function *f) {
      for (int i = 0; i < 4 && belongsTo.count(f); ++i)
        f = belongsTo[f];
      return f;
    };
    std::vector<llvm::Function *> heads;
    llvm::DenseMap<llvm::Function *, std::vector<llvm::Function *>> members;
    for (auto &f : *m) {
      if (f.isDeclaration())
        continue;
      if (f.hasLocalLinkage() && !named.count(f.getName()))
        continue;
      llvm::Function *h = headOf(&f);
      if (!members.count(h))
        heads.push_back(h);
      members[h].push_back(&f);
    }
    // A named root with local linkage is linked to from other parts.
    unsigned unnamed = 0;
    for (llvm::Function *h : heads)
      if (h->hasLocalLinkage())
        externalize(h, unnamed);

    // What each root reaches: internal functions (through any reference,
    // OpenMP's outlined bodies included) and the variables they use.
    llvm::DenseMap<llvm::GlobalValue *, std::vector<size_t>> users;
    std::vector<llvm::SetVector<llvm::GlobalValue *>> reached(heads.size());
    for (size_t i = 0; i < heads.size(); ++i) {
      auto &set = reached[i];
      std::vector<llvm::GlobalValue *> stack(members[heads[i]].begin(),
                                             members[heads[i]].end());
      for (llvm::GlobalValue *gv : stack)
        set.insert(gv);
      while (!stack.empty()) {
        llvm::GlobalValue *gv = stack.back();
        stack.pop_back();
        for (llvm::GlobalValue *ref : references(*gv)) {
          bool follow = false;
          if (auto *f = llvm::dyn_cast<llvm::Function>(ref))
            follow = !f->isDeclaration() && f->hasLocalLinkage() &&
                     !named.count(f->getName());
          else if (llvm::isa<llvm::GlobalVariable>(ref))
            follow = !ref->isDeclaration();
          if (follow && set.insert(ref))
            stack.push_back(ref);
        }
      }
      for (llvm::GlobalValue *gv : set)
        users[gv].push_back(i);
    }
    // Where each definition goes: a root's own functions and what only it
    // reaches to its part, private constants to every part using them, the
    // rest (what several roots use: internal functions made external,
    // mutable globals) to the shared part.
    llvm::DenseMap<const llvm::GlobalValue *, size_t> owner;
    const size_t shared = heads.size();
    llvm::DenseSet<const llvm::GlobalValue *> copied;
    bool anyShared = false;
    for (size_t i = 0; i < heads.size(); ++i)
      for (llvm::Function *f : members[heads[i]])
        owner[f] = i;
    // A variable nothing uses but that the runtime may look up (the status
    // global) is defined in the first part.
    for (auto &g : m->globals())
      if (!g.isDeclaration() && !g.hasLocalLinkage() && !users.count(&g))
        users[&g] = {};
    // In the module's order, so that names given to unnamed globals are too.
    std::vector<llvm::GlobalValue *> used;
    for (auto &f : *m)
      if (users.count(&f))
        used.push_back(&f);
    for (auto &g : m->globals())
      if (users.count(&g))
        used.push_back(&g);
    for (llvm::GlobalValue *gv : used) {
      const std::vector<size_t> &parts = users[gv];
      if (owner.count(gv))
        continue;
      if (isLocalConstant(gv)) {
        copied.insert(gv);
      } else if (parts.size() == 1) {
        owner[gv] = parts[0];
      } else if (parts.empty() && !heads.empty()) {
        owner[gv] = 0;
      } else {
        owner[gv] = shared;
        anyShared = true;
        externalize(gv, unnamed);
      }
    }

    auto result = std::make_unique<OcannlJitParts>();
    size_t numParts = heads.size() + (anyShared ? 1 : 0);
    for (size_t i = 0; i < numParts; ++i) {
      llvm::ValueToValueMapTy vmap;
      auto defines = [&](const llvm::GlobalValue *gv) {
        if (copied.count(gv)) {
          auto it = users.find(const_cast<llvm::GlobalValue *>(gv));
          return std::find(it->second.begin(), it->second.end(), i) !=
                 it->second.end();
        }
        auto it = owner.find(gv);
        return it != owner.end() && it->second == i;
      };
      std::unique_ptr<llvm::Module> part = llvm::CloneModule(*m, vmap, defines);
      canonicalize(*part);
      Part p;
      p.root = i < heads.size() ? heads[i]->getName().str() : std::string();
      llvm::raw_string_ostream os(p.bitcode);
      llvm::WriteBitcodeToFile(*part, os);
      os.flush();
      result->parts.push_back(std::move(p));
    }
    *out = result.release();
    return nullptr;
  } catch (const std::exception &e) {
    return fail(std::string("internal error while splitting the module: ") +
                e.what());
  } catch (...) {
    return fail("internal error while splitting the module");
  }
}

size_t ocannl_jit_parts_count(const OcannlJitParts *parts) {
  return parts->parts.size();
}

/// Part `i`: its root's name (empty for the shared part) and its bitcode,
/// both owned by `parts`.
void ocannl_jit_parts_get(const OcannlJitParts *parts, size_t i,
                          const char **root, size_t *rootLen,
                          const uint8_t **bitcode, size_t *bitcodeLen) {
  const Part &p = parts->parts[i];
  *root = p.root.data();
  *rootLen = p.root.size();
  *bitcode = reinterpret_cast<const uint8_t *>(p.bitcode.data());
  *bitcodeLen = p.bitcode.size();
}

void ocannl_jit_parts_destroy(OcannlJitParts *parts) { delete parts; }

/// Moves the `insertvalue`s that build a returned aggregate (MLIR's memref
/// descriptors) to just before the `ret`, in a block of their own. LLVM's
/// fast instruction selector (-O0) takes no `insertvalue` and, selecting a
/// block bottom up, gives the rest of a block to the slow selector at the
/// first instruction it cannot take: a routine's one long block would be
/// selected the slow way from where its result's descriptor is built.
static void isolateReturnedAggregates(llvm::Function &f) {
  for (llvm::BasicBlock &bb : f) {
    auto *ret = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator());
    if (!ret || !ret->getReturnValue())
      continue;
    // The insertvalues of this block feeding only the returned value.
    llvm::SmallVector<llvm::Instruction *> chain;
    llvm::SmallVector<llvm::Value *> work{ret->getReturnValue()};
    while (!work.empty()) {
      auto *iv = llvm::dyn_cast<llvm::InsertValueInst>(work.pop_back_val());
      if (!iv || iv->getParent() != &bb || !iv->hasOneUse())
        continue;
      chain.push_back(iv);
      work.push_back(iv->getAggregateOperand());
      work.push_back(iv->getInsertedValueOperand());
    }
    if (chain.empty())
      continue;
    // In the block's order (operands before users), each before the ret.
    llvm::DenseSet<llvm::Instruction *> inChain(chain.begin(), chain.end());
    llvm::SmallVector<llvm::Instruction *> ordered;
    for (llvm::Instruction &i : bb)
      if (inChain.count(&i))
        ordered.push_back(&i);
    for (llvm::Instruction *i : ordered)
      i->moveBefore(ret->getIterator());
    llvm::SplitBlock(&bb, ordered.front());
    return; // (The split block is new; one ret per function here.)
  }
}

/// Compiles one part's bitcode into an object file for the host CPU: the
/// new pass manager's `default<O{optLevel}>` pipeline (SLP vectorization
/// only if `slp`; at level 1, loops vectorized but not unrolled or
/// interleaved), then code generation at the same level. On success
/// `*object` (freed with `ocannl_jit_free`) holds `*objectLen` bytes.
/// Thread-safe: everything lives in a context of its own.
char *ocannl_jit_compile(const uint8_t *bitcode, size_t len,
                         unsigned optLevel, int slp, const char *triple,
                         const char *cpu, const char *features,
                         uint8_t **object, size_t *objectLen) {
  try {
    *object = nullptr;
    *objectLen = 0;
    if (optLevel > 3)
      return fail("the optimization level must be 0 to 3, not " +
                  std::to_string(optLevel));
    llvm::LLVMContext ctx;
    auto buffer = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(reinterpret_cast<const char *>(bitcode), len),
        kPartName, /*RequiresNullTerminator=*/false);
    auto parsed = llvm::parseBitcodeFile(buffer->getMemBufferRef(), ctx);
    if (!parsed)
      return fail("cannot read a part's bitcode: " +
                  errorText(parsed.takeError()));
    std::unique_ptr<llvm::Module> m = std::move(*parsed);
    {
      std::string errors;
      llvm::raw_string_ostream os(errors);
      if (llvm::verifyModule(*m, &os))
        return fail("a part's LLVM IR is invalid: " + errors);
    }
    static const llvm::CodeGenOptLevel cgLevels[] = {
        llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
        llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
    auto tm = targetMachine(machine(triple, cpu, features), cgLevels[optLevel]);
    if (!tm)
      return fail(errorText(tm.takeError()));
    m->setDataLayout((*tm)->createDataLayout());
    m->setTargetTriple((*tm)->getTargetTriple());

    {
      llvm::LoopAnalysisManager lam;
      llvm::FunctionAnalysisManager fam;
      llvm::CGSCCAnalysisManager cgam;
      llvm::ModuleAnalysisManager mam;
      // Loops are vectorized at every level from 1; at 1 (the element-wise
      // kernels') without unrolling or interleaving, which halves their
      // compile time and, measured on the transformer's train step, costs
      // no run time (the contraction kernels, at 2, are register-blocked
      // already).
      llvm::PipelineTuningOptions tuning;
      tuning.LoopUnrolling = optLevel >= 2;
      tuning.LoopInterleaving = optLevel >= 2;
      tuning.LoopVectorization = true;
      tuning.SLPVectorization = slp != 0;
      llvm::PassBuilder pb(tm->get(), tuning);
      pb.registerModuleAnalyses(mam);
      pb.registerCGSCCAnalyses(cgam);
      pb.registerFunctionAnalyses(fam);
      pb.registerLoopAnalyses(lam);
      pb.crossRegisterProxies(lam, fam, cgam, mam);
      static const llvm::OptimizationLevel levels[] = {
          llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
          llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
      llvm::ModulePassManager mpm =
          optLevel == 0 ? pb.buildO0DefaultPipeline(levels[0])
                        : pb.buildPerModuleDefaultPipeline(levels[optLevel]);
      if (optLevel == 0) {
        // The host code: the descriptors' insertvalue/extractvalue pairs of
        // MLIR's memref lowering folded (a routine's IR shrinks about 5
        // times), so that the fast instruction selector takes it all.
        llvm::FunctionPassManager fpm;
        fpm.addPass(llvm::InstSimplifyPass());
        fpm.addPass(llvm::DCEPass());
        mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
      }
      mpm.run(*m, mam);
      if (optLevel == 0)
        for (llvm::Function &f : *m)
          if (!f.isDeclaration())
            isolateReturnedAggregates(f);
    }

    llvm::SmallVector<char, 0> out;
    {
      llvm::raw_svector_ostream os(out);
      llvm::legacy::PassManager codegen;
      if ((*tm)->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
        return fail("the host's target cannot emit object files");
      codegen.run(*m);
    }
    uint8_t *bytes = static_cast<uint8_t *>(std::malloc(out.size()));
    if (!bytes)
      return fail("out of memory for an object file");
    std::memcpy(bytes, out.data(), out.size());
    *object = bytes;
    *objectLen = out.size();
    return nullptr;
  } catch (const std::exception &e) {
    return fail(std::string("internal error while compiling: ") + e.what());
  } catch (...) {
    return fail("internal error while compiling");
  }
}

/// `__truncsfbf2` (f32 to bf16, to nearest, ties to even; NaNs quiet), which
/// LLVM calls where the CPU has no bf16 conversion and which the C runtime
/// here (GCC 12's libgcc) does not have. LLVM returns a bf16 in the low 16
/// bits of the first float register (x86-64: XMM0, AArch64: S0/H0), where
/// an f32 returns: the bits go there as an f32's low bits.
static float ocannl_truncsfbf2(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  uint32_t h = (b & 0x7fffffffu) > 0x7f800000u
                   ? ((b >> 16) | 0x40u)
                   : ((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
  uint32_t low = h & 0xffffu;
  float out;
  std::memcpy(&out, &low, sizeof out);
  return out;
}

/// A JIT for the host linking against the process's symbols and the shared
/// libraries `libs` (loaded permanently).
char *ocannl_jit_create(const char *const *libs, size_t numLibs,
                        OcannlJit **out) {
  try {
    *out = nullptr;
    initializeTarget();
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb)
      return fail(errorText(jtmb.takeError()));
    auto jit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(*jtmb))
                   .create();
    if (!jit)
      return fail("cannot create the JIT: " + errorText(jit.takeError()));
    auto &main = (*jit)->getMainJITDylib();
    char prefix = (*jit)->getDataLayout().getGlobalPrefix();
    for (size_t i = 0; i < numLibs; ++i) {
      auto gen =
          llvm::orc::DynamicLibrarySearchGenerator::Load(libs[i], prefix);
      if (!gen)
        return fail(std::string("cannot load ") + libs[i] + ": " +
                    errorText(gen.takeError()));
      main.addGenerator(std::move(*gen));
    }
    auto process =
        llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
    if (!process)
      return fail(errorText(process.takeError()));
    main.addGenerator(std::move(*process));
    // The runtime functions LLVM may call that the process lacks.
    llvm::orc::SymbolMap runtime;
    runtime[(*jit)->mangleAndIntern("__truncsfbf2")] = {
        llvm::orc::ExecutorAddr::fromPtr(&ocannl_truncsfbf2),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    if (llvm::Error err = main.define(llvm::orc::absoluteSymbols(std::move(runtime))))
      return fail("cannot define the JIT's runtime functions: " +
                  errorText(std::move(err)));
    auto result = std::make_unique<OcannlJit>();
    result->jit = std::move(*jit);
    *out = result.release();
    return nullptr;
  } catch (const std::exception &e) {
    return fail(std::string("internal error creating the JIT: ") + e.what());
  } catch (...) {
    return fail("internal error creating the JIT");
  }
}

/// Adds an object file (copied) to the JIT; it is linked when one of its
/// symbols is first looked up.
char *ocannl_jit_add_object(OcannlJit *jit, const uint8_t *data, size_t len) {
  try {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(reinterpret_cast<const char *>(data), len),
        std::string(kPartName) + "-" + std::to_string(jit->objects++));
    if (llvm::Error err = jit->jit->addObjectFile(std::move(buffer)))
      return fail("cannot add an object to the JIT: " +
                  errorText(std::move(err)));
    return nullptr;
  } catch (const std::exception &e) {
    return fail(std::string("internal error adding an object: ") + e.what());
  } catch (...) {
    return fail("internal error adding an object");
  }
}

/// The address of symbol `name` (linking the objects it needs first).
char *ocannl_jit_lookup(OcannlJit *jit, const char *name, uint64_t *address) {
  try {
    *address = 0;
    auto sym = jit->jit->lookup(name);
    if (!sym)
      return fail(errorText(sym.takeError()));
    *address = sym->getValue();
    if (*address == 0)
      return fail(std::string("the symbol ") + name + " is at address 0");
    return nullptr;
  } catch (const std::exception &e) {
    return fail(std::string("internal error in a lookup: ") + e.what());
  } catch (...) {
    return fail("internal error in a lookup");
  }
}

void ocannl_jit_destroy(OcannlJit *jit) {
  try {
    delete jit;
  } catch (...) {
  }
}

} // extern "C"
