//===- CommandLine.cpp - Argument parsing for spperm tools ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/CommandLine.h"

#include "spperm/Sparse/Spelling.h"

#include <charconv>
#include <cmath>
#include <cstdio>

using namespace spperm;

void spperm::reportError(const std::string &tool, const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", tool.c_str(), message.c_str());
}

void spperm::reportWarning(const std::string &tool,
                           const std::string &message) {
  std::fprintf(stderr, "%s: warning: %s\n", tool.c_str(), message.c_str());
}

bool spperm::parseIntegerOption(const std::string &tool,
                                const std::string &name,
                                const std::string &text, int64_t lo,
                                int64_t hi, int64_t &out) {
  const char *end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  if (ec == std::errc() && p == end && out >= lo && out <= hi)
    return true;
  reportError(tool, "--" + name + " must be an integer in [" +
                        std::to_string(lo) + ", " + std::to_string(hi) +
                        "], got '" + text + "'");
  return false;
}

bool spperm::parseUnsignedOption(const std::string &tool,
                                 const std::string &name,
                                 const std::string &text, uint64_t &out) {
  const char *end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  if (ec == std::errc() && p == end)
    return true;
  reportError(tool, "--" + name +
                        " must be an integer in [0, 2^64 - 1], got '" + text +
                        "'");
  return false;
}

bool spperm::parseNumberOption(const std::string &tool,
                               const std::string &name,
                               const std::string &text, double lo, double hi,
                               double &out) {
  const char *end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  if (ec == std::errc() && p == end && out >= lo && out <= hi)
    return true;
  auto bound = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", v);
    return std::string(buf);
  };
  bool unbounded = std::isinf(lo) && std::isinf(hi);
  reportError(tool, "--" + name + " must be a number" +
                        (unbounded ? "" : " in [" + bound(lo) + ", " +
                                              bound(hi) + "]") +
                        ", got '" + text + "'");
  return false;
}

ArgParser::ArgParser(std::string tool, std::string synopsis,
                     std::string description)
    : toolName(std::move(tool)), synopsis(std::move(synopsis)),
      description(std::move(description)) {}

namespace {
/// A name as registered ("-o": spelled with one dash) split into the name
/// the parser matches and how help and errors spell it.
std::pair<std::string, std::string> nameAndSpelling(const std::string &name) {
  if (!name.empty() && name[0] == '-')
    return {name.substr(1), name};
  return {name, "--" + name};
}
} // namespace

void ArgParser::addFlag(const std::string &name, const std::string &help,
                        bool *out) {
  auto [bare, spelling] = nameAndSpelling(name);
  options.push_back({bare, spelling, "", help, out, nullptr, nullptr});
}

void ArgParser::addOption(const std::string &name, const std::string &metavar,
                          const std::string &help, std::string *out,
                          bool *seen) {
  auto [bare, spelling] = nameAndSpelling(name);
  options.push_back({bare, spelling, metavar, help, nullptr, out, seen});
}

void ArgParser::addPositional(const std::string &name, const std::string &help,
                              std::string *out, bool required) {
  positionals.push_back({name, help, out, required});
}

ArgParser::Option *ArgParser::find(const std::string &name) {
  for (Option &o : options)
    if (o.name == name)
      return &o;
  return nullptr;
}

std::string ArgParser::slipHint(const std::string &name) const {
  std::vector<std::string_view> names;
  for (const Option &o : options)
    names.push_back(o.name);
  std::vector<std::string> spellings;
  for (size_t i : likelySlips(name, names))
    spellings.push_back(options[i].spelling);
  return didYouMean(spellings);
}

void ArgParser::printHelp() const {
  std::printf("USAGE: %s %s\n\n%s\n", toolName.c_str(), synopsis.c_str(),
              description.c_str());
  if (!positionals.empty()) {
    std::printf("\nARGUMENTS:\n");
    for (const Positional &p : positionals)
      std::printf("  %-28s %s\n", p.name.c_str(), p.help.c_str());
  }
  std::printf("\nOPTIONS:\n");
  for (const Option &o : options) {
    if (o.help.empty())
      continue;
    std::string lhs = o.spelling;
    if (!o.metavar.empty())
      lhs += " " + o.metavar;
    std::printf("  %-28s %s\n", lhs.c_str(), o.help.c_str());
  }
  std::printf("  %-28s %s\n", "--help", "Print this help and exit");
  for (const std::function<void()> &section : helpSections) {
    std::fflush(stdout);
    section();
  }
}

void ArgParser::addHelpSection(std::function<void()> print) {
  helpSections.push_back(std::move(print));
}

std::optional<int> ArgParser::parse(int argc, char **argv) {
  size_t nextPositional = 0;
  bool onlyPositionals = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!onlyPositionals && arg == "--") {
      onlyPositionals = true;
      continue;
    }
    if (!onlyPositionals && arg.size() > 1 && arg[0] == '-') {
      if (arg == "--help" || arg == "-h" || arg == "-help") {
        printHelp();
        return 0;
      }
      std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
      std::optional<std::string> inlineValue;
      if (size_t eq = name.find('='); eq != std::string::npos) {
        inlineValue = name.substr(eq + 1);
        name.resize(eq);
      }
      Option *o = find(name);
      if (!o) {
        reportError(toolName, "unknown option '" + arg + "' (see --help)" +
                                  slipHint(name));
        return 1;
      }
      if (o->flag) {
        if (inlineValue) {
          reportError(toolName, "option '" + o->spelling + "' takes no value");
          return 1;
        }
        *o->flag = true;
        continue;
      }
      if (!inlineValue) {
        if (i + 1 >= argc) {
          reportError(toolName, "option '" + o->spelling +
                                    "' needs a value (" + o->spelling + " " +
                                    o->metavar + ")");
          return 1;
        }
        inlineValue = argv[++i];
      }
      *o->value = *inlineValue;
      if (o->seen)
        *o->seen = true;
      continue;
    }
    if (nextPositional >= positionals.size()) {
      reportError(toolName, "unexpected argument '" + arg + "' (see --help)");
      return 1;
    }
    *positionals[nextPositional++].value = arg;
  }
  for (size_t p = nextPositional; p < positionals.size(); ++p) {
    if (positionals[p].required) {
      reportError(toolName,
                  "missing argument " + positionals[p].name + " (see --help)");
      return 1;
    }
  }
  return std::nullopt;
}
