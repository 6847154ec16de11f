/*===- CApiSmoke.c - The runtime C API used from C --------------*- C -*-===*
 *
 * Part of the spperm project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Compiled as C (C99) so that the header is checked to be valid C; the gtest
 * binaries call sprtSmoke on a package they wrote.
 *
 *===----------------------------------------------------------------------===*/

#include "spperm/Runtime/SpPermRuntime.h"

#include <stdio.h>
#include <stdlib.h>

#include "CApiSmoke.h"

int sprtSmoke(const char *path, const char *layerName, char *error,
              size_t errorSize) {
  sprt_package *package = NULL;
  sprt_layer_desc desc;
  int64_t count = 0, index = -1, k, i;
  float *b = NULL, *c = NULL;
  int result = 1;

  if (sprt_abi_version() != SPRT_ABI_VERSION) {
    snprintf(error, errorSize, "ABI version %d, header %d",
             (int)sprt_abi_version(), SPRT_ABI_VERSION);
    return 1;
  }
  if (sprt_package_load(path, SPRT_DEVICE_CPU, &package) != SPRT_OK) {
    snprintf(error, errorSize, "load: %s", sprt_last_error());
    return 1;
  }
  if (sprt_layer_count(package, &count) != SPRT_OK || count < 1 ||
      sprt_layer_find(package, layerName, &index) != SPRT_OK ||
      sprt_layer_info(package, index, &desc) != SPRT_OK) {
    snprintf(error, errorSize, "lookup: %s", sprt_last_error());
    goto done;
  }
  k = desc.k > 0 ? desc.k : 3;
  b = (float *)malloc(sizeof(float) * (size_t)(desc.cols * k + 1));
  c = (float *)malloc(sizeof(float) * (size_t)(desc.rows * k + 1));
  if (!b || !c) {
    snprintf(error, errorSize, "out of memory");
    goto done;
  }
  for (i = 0; i < desc.cols * k; ++i)
    b[i] = 1.0f;
  if (sprt_spmm(package, index, b, k, c, NULL) != SPRT_OK) {
    snprintf(error, errorSize, "spmm: %s", sprt_last_error());
    goto done;
  }
  /* The wrong K, when the layer has one, must be refused. */
  if (desc.k > 0 && sprt_spmm(package, index, b, k + 1, c, NULL) !=
                        SPRT_ERROR_INVALID_ARGUMENT) {
    snprintf(error, errorSize, "a wrong K was accepted");
    goto done;
  }
  result = 0;
done:
  free(b);
  free(c);
  sprt_package_release(package);
  return result;
}
