//===- CommandLine.h - Argument parsing for spperm tools --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A small, dependency-free command-line parser shared by the tools that must
// also build where no LLVM exists (spperm-inspect, spperm-run). It accepts
// `--name value`, `--name=value`, boolean `--flag`, positionals and `--help`,
// and reports mistakes as one line `TOOL: error: ...`.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_COMMANDLINE_H
#define SPPERM_TOOLS_COMMANDLINE_H

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace spperm {

/// Prints `TOOL: error: MESSAGE` on stderr.
void reportError(const std::string &tool, const std::string &message);

/// Prints `TOOL: warning: MESSAGE` on stderr.
void reportWarning(const std::string &tool, const std::string &message);

/// Parses the whole of `text` as a decimal integer in [lo, hi]; otherwise
/// reports `--NAME must be an integer in [lo, hi], got 'TEXT'` and fails.
bool parseIntegerOption(const std::string &tool, const std::string &name,
                        const std::string &text, int64_t lo, int64_t hi,
                        int64_t &out);

/// Parses the whole of `text` as a decimal integer of 64 bits without a sign
/// (a seed); otherwise reports `--NAME must be an integer in [0, 2^64 - 1],
/// got 'TEXT'` and fails.
bool parseUnsignedOption(const std::string &tool, const std::string &name,
                         const std::string &text, uint64_t &out);

/// Parses the whole of `text` as a number in [lo, hi]; otherwise reports
/// `--NAME must be a number in [lo, hi], got 'TEXT'` (or `must be a number`
/// when the range is unbounded) and fails.
bool parseNumberOption(const std::string &tool, const std::string &name,
                       const std::string &text, double lo, double hi,
                       double &out);

/// Declarative command-line parser.
class ArgParser {
public:
  ArgParser(std::string tool, std::string synopsis, std::string description);

  /// A boolean `--name`. A name registered as "-x" is spelled `-x` in help
  /// and errors (short options such as `-o`, `-q`); either way the parser
  /// accepts one dash or two.
  void addFlag(const std::string &name, const std::string &help, bool *out);
  /// An option `--name VALUE` (or "-x", as for addFlag); `seen`, when given,
  /// records that it was set.
  void addOption(const std::string &name, const std::string &metavar,
                 const std::string &help, std::string *out,
                 bool *seen = nullptr);
  /// A section printed by --help after the options (e.g. options that are
  /// registered with an empty help, which the option list leaves out).
  void addHelpSection(std::function<void()> print);
  /// A positional argument, in declaration order.
  void addPositional(const std::string &name, const std::string &help,
                     std::string *out, bool required = true);

  /// Parses argv. Returns std::nullopt when the tool should go on, or the
  /// exit code it should return at once (0 after --help, 1 after an error
  /// that has been reported).
  std::optional<int> parse(int argc, char **argv);

  const std::string &tool() const { return toolName; }

private:
  struct Option {
    std::string name;     // what the parser matches, without dashes
    std::string spelling; // "--name", or "-x" for a short option
    std::string metavar;  // empty for flags
    std::string help;
    bool *flag = nullptr;
    std::string *value = nullptr;
    bool *seen = nullptr;
  };
  std::vector<std::function<void()>> helpSections;
  struct Positional {
    std::string name;
    std::string help;
    std::string *value;
    bool required;
  };

  void printHelp() const;
  Option *find(const std::string &name);
  /// The end of the "unknown option" error for `name` (no dashes): the
  /// spellings of the options it is likely a slip of (spperm/Sparse/
  /// Spelling.h), or empty.
  std::string slipHint(const std::string &name) const;

  std::string toolName;
  std::string synopsis;
  std::string description;
  std::vector<Option> options;
  std::vector<Positional> positionals;
};

} // namespace spperm

#endif // SPPERM_TOOLS_COMMANDLINE_H
