//===- OutputPath.h - Checks on the paths a tool writes ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Every tool checks each of its outputs before any work, so that a run that
// cannot write all of them writes none (docs/DESIGN.md, "Errors"): the
// directory must exist and be writable, the output must not be an input
// (through any spelling or link) nor lie inside a package directory. The
// checks are plain POSIX, shared by the compiler, the runtime tools and the
// Python module.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_OUTPUTPATH_H
#define SPPERM_SPARSE_OUTPUTPATH_H

#include "spperm/Sparse/Status.h"

#include <string>
#include <vector>

namespace spperm {

/// The directory `path` names an entry of: "." for a bare name, "/" for an
/// entry of the root.
std::string parentDirectory(const std::string &path);

/// `path` with its directory resolved (symbolic links, ".."), where that
/// directory exists: the entry a path names whatever spelling reached it;
/// `path` as given otherwise. The last component is kept as given (it may
/// not exist yet, or be a link that is written through).
std::string resolvedPath(const std::string &path);

/// Whether `a` and `b` name the same directory entry (resolvedPath).
bool samePath(const std::string &a, const std::string &b);

/// Whether the existing entry `path` lies inside the existing directory
/// `dir`, both fully resolved.
bool isInside(const std::string &path, const std::string &dir);

/// Why an entry cannot be created or replaced at `path`, or ok: its
/// directory must exist, be a directory and be writable.
Status checkWritableDirectoryOf(const std::string &path);

/// Why the file `path` cannot be written, or ok: checkWritableDirectoryOf,
/// and an existing `path` must not be a directory.
Status checkWritableFile(const std::string &path);

/// Why writing `output` would destroy an input, or ok: `output` must not be
/// the same file as any of `inputs` (by device and inode, through links),
/// nor a file inside a package directory (one that holds a manifest.json).
/// Tools check every output this way before any work.
Status checkOutputSparesInputs(const std::string &output,
                               const std::vector<std::string> &inputs);

} // namespace spperm

#endif // SPPERM_SPARSE_OUTPUTPATH_H
