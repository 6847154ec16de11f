//===- PackageInfo.h - spperm-inspect PKG -----------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What a package holds and costs (docs/Package.md, "What a package costs"):
// its files' sizes, and per layer its variants (the layer's own and the
// selector's alternatives: strategy, format, arrays, kernels) with the
// device memory the GPU runtime allocates for them.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_SPPERM_INSPECT_PACKAGEINFO_H
#define SPPERM_TOOLS_SPPERM_INSPECT_PACKAGEINFO_H

#include <string>

namespace spperm {

/// Prints what the package in `dir` holds (a table, or one JSON object with
/// `json`); returns the tool's exit status (errors reported as `tool`).
int inspectPackage(const char *tool, const std::string &dir, bool json);

} // namespace spperm

#endif // SPPERM_TOOLS_SPPERM_INSPECT_PACKAGEINFO_H
