//===- spperm-compile.cpp - Compile fixed sparse matrices -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The command line of the compiler (spperm/Tools/Compiler.h): the tool's
// flags, the tuning options spelled as flags, errors as one line each.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Interrupt.h"
#include "spperm/Tools/CommandLine.h"
#include "spperm/Tools/Compiler.h"
#include "spperm/Tools/Report.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>
#include <vector>

using ::spperm::ArgParser;
using ::spperm::reportError;

static const char *const kTool = "spperm-compile";

namespace {

/// The tool's own flags; the tuning flags are the pipeline's options.
struct Options {
  std::string input, output, report, reportBench;
  bool reportSeen = false;
  bool timing = false;
  bool quiet = false;
  bool storeAlternatives = false;
  std::string values = "file";
  bool valuesSeen = false;
  std::string data = "embed";
  std::string dtype = "f32";
  bool dtypeSeen = false;
  std::string valuesDtype;
  std::string sizeBudget = "2";
};

} // namespace

int main(int argc, char **argv) {
  // Before any thread starts: an interrupted run removes its temporaries
  // and kills its children (spperm/Sparse/Interrupt.h).
  ::spperm::installInterruptCleanup();
  ::spperm::installOutOfMemoryExit(kTool);
  // LLVM's own reports of exhaustion (its allocators' failures, a thread
  // that cannot be started) end the tool the same way: one line, the
  // temporaries removed, exit status 1.
  llvm::install_bad_alloc_error_handler(
      [](void *, const char *, bool) { ::spperm::exitOutOfMemory(); });
  llvm::install_fatal_error_handler([](void *, const char *reason, bool) {
    ::spperm::exitFatalError(reason);
  });
  // Those ends, and a crash under the memory cap, remove the output files
  // LLVM was told of (a partial -o) as its own signal handlers do.
  ::spperm::setExitHook(llvm::sys::RunInterruptHandlers);
  // Capped at the memory available, so that a matrix too large for the
  // machine ends in that one line, not in the kernel's out-of-memory killer.
  if (::spperm::Status s = ::spperm::limitMemoryToAvailable(); !s) {
    std::fprintf(stderr, "%s: error: %s\n", kTool, s.message().c_str());
    return 1;
  }
  Options o;
  ArgParser args(
      kTool,
      "INPUT -o PKG [--k K] [--strategy S|auto] [--format "
      "csr|bell|hbp|cusparse|auto] [--target sm_90] [--values SPEC] "
      "[--dtype f32|f16|bf16 [--values-dtype f32]] [--data embed|external] "
      "[--precision "
      "fp32|tf32|3xtf32|f16] [--report "
      "FILE.html] [compilation options]",
      "Compiles fixed sparse matrices into a package for the spperm runtime. "
      "INPUT is a matrix file (.mtx/.smtx, optionally .gz; one layer named "
      "after the file; --strategy and --format default to auto) or a .mlir "
      "module of spperm ops (one layer per function). The compilation "
      "options are spperm-pipeline's (spperm-opt -spperm-pipeline=\"...\"), "
      "spelled as flags. See docs/Compile.md.");
  args.addPositional("INPUT", "Matrix file or .mlir module", &o.input);
  args.addOption("-o", "PKG", "Output package directory (required)",
                 &o.output);
  args.addOption("values", "SPEC",
                 "Matrix values: file (default), ones, random:SEED", &o.values,
                 &o.valuesSeen);
  args.addOption("dtype", "TYPE",
                 "Element type of B and C: f32 (default), f16 or bf16 "
                 "(accumulation in fp32, C rounded once; 16-bit layers run "
                 "the csr, bell and hbp kernels; matrix inputs only)",
                 &o.dtype, &o.dtypeSeen);
  args.addOption("values-dtype", "TYPE",
                 "Element type of A's values: the --dtype (default; the "
                 "file's values rounded to it) or f32",
                 &o.valuesDtype);
  args.addOption("data", "MODE",
                 "embed (default: arrays in data.bin) or external (the "
                 "package references the matrix file and its sha256)",
                 &o.data);
  args.addFlag("store-alternatives",
               "Store every alternative variant's arrays in data.bin; by "
               "default those that the runtime can rebuild exactly from the "
               "layer's own matrix are rebuilt at load (a smaller package, a "
               "longer load)",
               &o.storeAlternatives);
  args.addOption("size-budget", "X",
                 "Keep each variant's arrays within X times the matrix's "
                 "CSR bytes (default 2; 0: no budget): padded Blocked-ELL "
                 "variants over it are dropped or replaced",
                 &o.sizeBudget);
  args.addOption("report", "FILE.html",
                 "Write a self-contained HTML report: per layer spy plots "
                 "before and after the permutation, features, the "
                 "selector's ranking, format statistics; the stage times",
                 &o.report, &o.reportSeen);
  args.addOption("report-bench", "R.json[,R.json...]",
                 "With --report: spperm-run --bench --json records whose "
                 "times the report draws against cuSPARSE",
                 &o.reportBench);
  args.addFlag("-q",
               "Quiet: no progress lines for long stages on stderr (errors "
               "are still printed)",
               &o.quiet);
  args.addFlag("timing",
               "Print the wall time of each stage on stderr (like MLIR's "
               "--mlir-timing)",
               &o.timing);
  // The tuning flags: every option of spperm-pipeline, listed by its help.
  struct Tuning {
    std::string name, value;
    bool seen = false, flag = false;
  };
  std::vector<::spperm::TuningOption> options = ::spperm::tuningOptions();
  std::vector<Tuning> tuning(options.size());
  for (size_t i = 0; i < options.size(); ++i) {
    Tuning &t = tuning[i];
    t.name = options[i].name;
    t.flag = options[i].flag;
    if (t.flag)
      args.addFlag(t.name, "", &t.seen);
    else
      args.addOption(t.name, "VALUE", "", &t.value, &t.seen);
  }
  args.addHelpSection([&] {
    llvm::outs() << "\nCOMPILATION OPTIONS (spperm-pipeline's, as --NAME "
                    "VALUE or --NAME=VALUE):\n";
    llvm::outs().flush();
    ::spperm::printTuningOptionsHelp(2, 30);
  });
  if (std::optional<int> exitCode = args.parse(argc, argv))
    return *exitCode;
  ::spperm::setOutOfMemoryFile(o.input);

  ::spperm::CompileRequest request;
  request.input = o.input;
  request.output = o.output;
  request.report = o.report;
  request.values = o.values;
  request.valuesGiven = o.valuesSeen;
  request.data = o.data;
  request.dtype = o.dtype;
  request.dtypeGiven = o.dtypeSeen;
  request.valuesDtype = o.valuesDtype;
  request.storeAlternatives = o.storeAlternatives;
  if (!::spperm::parseNumberOption(kTool, "size-budget", o.sizeBudget, 0.0,
                                   ::spperm::kMaxSizeBudget,
                                   request.sizeBudget))
    return 1;
  request.progress = !o.quiet;
  request.tool = kTool;
  for (const Tuning &t : tuning)
    if (t.seen)
      request.tuning.emplace_back(t.name, t.flag ? "true" : t.value);
  if (o.reportSeen && o.report.empty()) {
    reportError(kTool, "--report needs a file name");
    return 1;
  }
  // The bench records are read (and checked) before anything is compiled.
  if (!o.reportBench.empty() && o.report.empty()) {
    reportError(kTool, "--report-bench needs --report");
    return 1;
  }
  for (llvm::StringRef rest = o.reportBench; !rest.empty();) {
    auto [first, tail] = rest.split(',');
    rest = tail;
    if (first.empty())
      continue;
    ::spperm::StatusOr<::spperm::BenchRecord> record =
        ::spperm::readBenchRecord(first.str());
    if (!record) {
      reportError(kTool, record.message());
      return 1;
    }
    request.bench.push_back(std::move(*record));
    request.benchPaths.push_back(first.str());
  }

  ::spperm::CompileResult result;
  bool ok = ::spperm::compilePackage(std::move(request), result);
  for (const std::string &warning : result.warnings)
    ::spperm::reportWarning(kTool, warning);
  for (const std::string &error : result.errors)
    reportError(kTool, error);
  if (ok && o.timing)
    llvm::errs() << ::spperm::formatStageTimes(result.stages);
  return ok ? 0 : 1;
}
