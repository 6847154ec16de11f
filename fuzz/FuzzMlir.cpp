//===- FuzzMlir.cpp - libFuzzer target: the spperm dialect's parser -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The input is MLIR text, parsed by mlir::parseSourceString with the spperm,
// func, arith and tensor dialects registered (the parser verifies what it
// built: the ops', attributes' and types' verifiers run). A module that
// parses must print — in the custom and in the generic form — to text that
// parses back and prints the same: a printer that writes what its parser
// refuses, or a parser that accepts what its verifier should have refused,
// is a finding, as are crashes and sanitizer reports.
//
// One context serves every input (building one per input costs more than
// the parse); it is rebuilt every kContextRuns inputs, so that the
// attributes and types it uniques do not grow without bound.
//
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Tools/MlirNesting.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

constexpr int kContextRuns = 20000;

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::spperm::SpPermDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
  auto context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  // Diagnostics are the expected outcome of most inputs: swallow them.
  context->getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  return context;
}

/// Prints `op` (generic form when `generic`) to a string.
std::string print(mlir::Operation *op, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  op->print(os, flags);
  return text;
}

[[noreturn]] void finding(const char *what, const std::string &text) {
  std::fprintf(stderr, "spperm-fuzz-mlir: %s:\n%s\n", what, text.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<mlir::MLIRContext> context;
  static int runs = 0;
  if (!context || ++runs % kContextRuns == 0)
    context = makeContext();

  // The tools hand the parser NUL-terminated buffers (llvm::MemoryBuffer of
  // a file), and MLIR's lexer relies on the terminator: so does this.
  const std::string text(reinterpret_cast<const char *>(data), size);
  // What the tools refuse before parsing (MLIR's parser has no depth limit:
  // thousands of nested brackets overflow the stack) is not parsed here.
  if (!spperm::checkMlirNesting(text, "fuzz.mlir").empty())
    return 0;
  mlir::ParserConfig config(context.get());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (!module)
    return 0;
  // parseSourceString verified it; the printed forms must parse back to the
  // same module.
  for (bool generic : {false, true}) {
    const std::string printed = print(module->getOperation(), generic);
    mlir::OwningOpRef<mlir::ModuleOp> again =
        mlir::parseSourceString<mlir::ModuleOp>(printed, config, "printed");
    if (!again)
      finding(generic ? "the generic form does not parse back"
                      : "the custom form does not parse back",
              printed);
    if (print(again->getOperation(), generic) != printed)
      finding("the printed form is not a fixed point", printed);
  }
  return 0;
}
