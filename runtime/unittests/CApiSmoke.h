//===- CApiSmoke.h - The runtime C API used from C --------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_UNITTESTS_CAPISMOKE_H
#define SPPERM_RUNTIME_UNITTESTS_CAPISMOKE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads the package at `path` through the C API, runs layer `layerName`
/// once on a B of ones and releases it. Returns 0 on success, else 1 with a
/// message in `error`.
int sprtSmoke(const char *path, const char *layerName, char *error,
              size_t errorSize);

#ifdef __cplusplus
}
#endif

#endif // SPPERM_RUNTIME_UNITTESTS_CAPISMOKE_H
