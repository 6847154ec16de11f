//===- OutputPath.cpp - Checks on the paths a tool writes -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/OutputPath.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace spperm;

std::string spperm::parentDirectory(const std::string &path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string spperm::resolvedPath(const std::string &path) {
  char real[PATH_MAX];
  if (!::realpath(parentDirectory(path).c_str(), real))
    return path;
  const size_t slash = path.find_last_of('/');
  const std::string name =
      slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string dir(real);
  return dir == "/" ? "/" + name : dir + "/" + name;
}

bool spperm::samePath(const std::string &a, const std::string &b) {
  return resolvedPath(a) == resolvedPath(b);
}

bool spperm::isInside(const std::string &path, const std::string &dir) {
  char realPath[PATH_MAX], realDir[PATH_MAX];
  if (!::realpath(path.c_str(), realPath) || !::realpath(dir.c_str(), realDir))
    return false;
  std::string prefix(realDir);
  if (prefix != "/")
    prefix += '/';
  return std::strncmp(realPath, prefix.c_str(), prefix.size()) == 0 &&
         std::strlen(realPath) > prefix.size();
}

Status spperm::checkWritableDirectoryOf(const std::string &path) {
  const std::string dir = parentDirectory(path);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return Status::error(path + ": cannot write: the directory " + dir +
                           " does not exist");
    if (errno == ENOTDIR)
      return Status::error(path + ": cannot write: " + dir +
                           " is not a directory");
    return Status::error(path + ": cannot write in " + dir + ": " +
                         std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    return Status::error(path + ": cannot write: " + dir +
                         " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return Status::error(path + ": cannot write in " + dir + ": " +
                         std::strerror(errno));
  return Status::ok();
}

Status spperm::checkWritableFile(const std::string &path) {
  if (Status s = checkWritableDirectoryOf(path); !s)
    return s;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Status::error(path + ": is a directory");
  return Status::ok();
}

Status spperm::checkOutputSparesInputs(const std::string &output,
                                       const std::vector<std::string> &inputs) {
  // Regular files only: a terminal or pipe may be both stdin and stdout.
  struct stat out;
  if (::stat(output.c_str(), &out) == 0 && S_ISREG(out.st_mode))
    for (const std::string &input : inputs) {
      struct stat in;
      if (!input.empty() && ::stat(input.c_str(), &in) == 0 &&
          in.st_dev == out.st_dev && in.st_ino == out.st_ino)
        return Status::error(output + ": is the input " + input +
                             " (writing the output would replace it)");
    }
  const std::string parent = parentDirectory(output);
  if (::access((parent + "/manifest.json").c_str(), F_OK) == 0)
    return Status::error(output + ": is inside the package " + parent +
                         " (writing there would damage it; write "
                         "elsewhere)");
  return Status::ok();
}
