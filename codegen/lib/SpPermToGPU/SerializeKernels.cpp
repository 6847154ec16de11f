//===- SerializeKernels.cpp - spperm-serialize-kernels --------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The kernel module's parts (spperm-split-kernel-module) are translated to
// PTX on the context's threads and their texts joined. A PTX module is a
// header (`.version`, `.target`, `.address_size`) and then file-scope
// statements: kernels (`.entry`), functions (`.func`), variables (`.global`,
// `.shared`, `.const`), each a line ending in ';' or a run of lines whose
// braces balance. The parts come from one module, so their headers agree;
// what they may both hold is a copy of one global or helper function.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/Passes.h"
#include "spperm/Conversion/SpPermToGPU.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <tuple>

namespace mlir::spperm {
#define GEN_PASS_DEF_SPPERMSERIALIZEKERNELS
#include "spperm/Conversion/Passes.h.inc"
} // namespace mlir::spperm

using namespace mlir;
using namespace mlir::spperm;

namespace {

/// A file-scope statement of a PTX text, with the comment and blank lines
/// before it.
struct Statement {
  StringRef leading;
  StringRef text;
};

/// `line` without a trailing `//` comment.
StringRef code(StringRef line) { return line.take_front(line.find("//")); }

/// The file-scope statements of `body` (a PTX text after its header), and
/// trailing lines (comments) as a statement with empty text.
SmallVector<Statement> statements(StringRef body) {
  SmallVector<Statement> result;
  size_t leadingBegin = 0, begin = StringRef::npos, pos = 0;
  int depth = 0;
  bool opened = false;
  while (pos < body.size()) {
    size_t next = body.find('\n', pos);
    next = next == StringRef::npos ? body.size() : next + 1;
    StringRef line = body.slice(pos, next);
    StringRef text = code(line).trim();
    if (begin == StringRef::npos) {
      if (text.empty()) { // a comment or blank line before a statement
        pos = next;
        continue;
      }
      begin = pos;
      opened = false;
    }
    for (char c : text) {
      if (c == '{') {
        ++depth;
        opened = true;
      } else if (c == '}') {
        --depth;
      }
    }
    pos = next;
    // A statement ends where its braces close, or at a ';' outside braces
    // before any (a declaration, a variable).
    if (depth == 0 && (opened || text.ends_with(";"))) {
      result.push_back(
          {body.slice(leadingBegin, begin), body.slice(begin, pos)});
      leadingBegin = pos;
      begin = StringRef::npos;
    }
  }
  StringRef rest = body.substr(leadingBegin);
  if (!rest.empty())
    result.push_back({rest, StringRef()});
  return result;
}

/// Whether `statement` declares a kernel (`.entry`).
bool isEntry(StringRef statement) {
  SmallVector<StringRef> words;
  code(statement.take_until([](char c) {
    return c == '\n';
  })).split(words, ' ', -1, /*KeepEmpty=*/false);
  return llvm::is_contained(words, ".entry");
}

/// The name a file-scope statement defines or declares: the identifier
/// before its parameter list, array bounds, initializer or ';', after a
/// `.func`'s return parameters.
std::string symbolName(StringRef statement) {
  StringRef rest = statement;
  if (size_t func = rest.find(".func"); func != StringRef::npos) {
    rest = rest.substr(func + 5).ltrim();
    if (rest.starts_with("(")) // return parameters
      rest = rest.substr(rest.find(')') + 1).ltrim();
    return rest
        .take_until([](char c) {
          return !isalnum(c) && c != '_' && c != '$' && c != '.';
        })
        .str();
  }
  StringRef head = rest.take_until(
      [](char c) { return c == '[' || c == '=' || c == ';' || c == '\n'; });
  head = head.rtrim();
  return head.substr(head.find_last_of(" \t") + 1).str();
}

} // namespace

bool mlir::spperm::joinPtxParts(ArrayRef<StringRef> parts, std::string &joined,
                                std::string &error,
                                ArrayRef<std::string> symbolOrder) {
  // As LLVM lays out one module: the header, the declarations (function
  // prototypes, `.extern`s), the variables and functions, then the kernels.
  std::string header, kernels;
  // The declarations, variables and functions, each with its group (0: a
  // declaration, which must precede every use) and its place in
  // `symbolOrder`.
  SmallVector<std::tuple<bool, size_t, StringRef>> declarations;
  llvm::StringMap<size_t> place;
  for (auto [i, name] : llvm::enumerate(symbolOrder))
    place.try_emplace(name, i);
  llvm::StringMap<StringRef> defined;
  for (auto [index, text] : llvm::enumerate(parts)) {
    size_t at = text.find(".address_size");
    if (at == StringRef::npos) {
      error = "the PTX of kernel part " + std::to_string(index) +
              " has no .address_size";
      return false;
    }
    size_t end = text.find('\n', at);
    end = end == StringRef::npos ? text.size() : end + 1;
    StringRef partHeader = text.take_front(end);
    if (index == 0) {
      header = partHeader.str();
    } else if (partHeader != header) {
      error = "the PTX headers of kernel parts 0 and " + std::to_string(index) +
              " differ";
      return false;
    }
    // Comments before a variable or function (`// .globl NAME` of the
    // part's kernel) go with the part's next kernel.
    std::string comments;
    for (const Statement &s : statements(text.substr(end))) {
      comments += s.leading.str();
      if (s.text.empty() || isEntry(s.text)) {
        kernels += comments;
        kernels += s.text.str();
        comments.clear();
        continue;
      }
      std::string name = symbolName(s.text);
      // A function's prototype (LLVM declares a function before its first
      // call) and an `.extern` are declarations, apart from the definition
      // of the same name.
      const bool declaration =
          s.text.starts_with(".extern") ||
          (s.text.contains(".func") && !s.text.contains('{'));
      auto [it, inserted] = defined.try_emplace(
          declaration ? name + " (declaration)" : name, s.text);
      if (inserted) {
        auto known = place.find(name);
        declarations.push_back(
            {!declaration,
             known == place.end() ? symbolOrder.size() : known->second,
             s.text});
        continue;
      }
      if (it->second != s.text) {
        error = "kernel parts define the PTX symbol '" + name + "' differently";
        return false;
      }
    }
    kernels += comments;
  }
  // The declarations first, then the definitions; each group in the
  // module's order, as one module lists them (those it does not name after,
  // as they came).
  llvm::stable_sort(declarations, [](const auto &a, const auto &b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b));
  });
  joined = header;
  for (const auto &declaration : declarations)
    joined += std::get<2>(declaration).str();
  joined += kernels;
  return true;
}

namespace {

struct SpPermSerializeKernels
    : public mlir::spperm::impl::SpPermSerializeKernelsBase<
          SpPermSerializeKernels> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> parts;
    for (unsigned i = 0;; ++i) {
      auto part = dyn_cast_or_null<gpu::GPUModuleOp>(
          SymbolTable::lookupSymbolIn(module, kernelPartName(i)));
      if (!part)
        break;
      parts.push_back(part);
    }
    if (parts.empty())
      return;
    SmallVector<gpu::TargetAttrInterface> targets;
    for (gpu::GPUModuleOp part : parts) {
      ArrayAttr attrs = part.getTargetsAttr();
      auto target = attrs && attrs.size() == 1
                        ? dyn_cast<gpu::TargetAttrInterface>(attrs[0])
                        : gpu::TargetAttrInterface();
      if (!target) {
        part.emitError("kernel part needs exactly one target (run "
                       "nvvm-attach-target first)");
        return signalPassFailure();
      }
      targets.push_back(target);
    }

    // Each part on a thread of its own: its own LLVM context and target
    // machine (the serializer's), reading only its own ops.
    gpu::TargetOptions options(/*toolkitPath=*/{}, /*librariesToLink=*/{},
                               /*cmdOptions=*/{}, /*elfSection=*/{},
                               gpu::CompilationTarget::Assembly);
    SmallVector<std::optional<SmallVector<char, 0>>> objects(parts.size());
    if (failed(failableParallelForEachN(
            &getContext(), 0, parts.size(), [&](size_t i) {
              objects[i] = targets[i].serializeToObject(parts[i], options);
              return success(objects[i].has_value());
            })))
      return signalPassFailure();

    // The order of the module's variables and functions (every part has
    // them all, in the module's order).
    SmallVector<std::string> symbolOrder;
    for (Operation &op : parts.front().getBody()->getOperations())
      if (auto name =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
          name && !op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
        symbolOrder.push_back(name.str());
    SmallVector<StringRef> texts;
    for (const auto &object : objects)
      texts.push_back(StringRef(object->data(), object->size()));
    std::string joined, error;
    if (!joinPtxParts(texts, joined, error, symbolOrder)) {
      parts.front().emitError(error);
      return signalPassFailure();
    }
    SmallVector<char, 0> bytes(joined.begin(), joined.end());
    Attribute object =
        targets.front().createObject(parts.front(), bytes, options);
    if (!object) {
      parts.front().emitError("the target made no object of the PTX");
      return signalPassFailure();
    }
    OpBuilder builder(parts.front());
    gpu::BinaryOp::create(builder, parts.front().getLoc(), kKernelModuleName,
                          /*offloadingHandler=*/Attribute(),
                          builder.getArrayAttr({object}));
    for (gpu::GPUModuleOp part : parts)
      part.erase();
  }
};

} // namespace
