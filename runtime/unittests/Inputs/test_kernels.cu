//===- test_kernels.cu - Hand-written kernels for the runtime tests -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The source of test_kernels.ptx, which GeneratedKernelTests.cpp packages as
// a layer's "generated" kernels to test the runtime's launch path. Each
// parameter list spells out the ABI of generated kernels (docs/RuntimeABI.md,
// "Generated kernels"): every array is a 1-D memref descriptor (allocated
// pointer, aligned pointer, offset, size, stride), K is a 64-bit integer.
// The arguments, in order: order, csr.row_ptr, csr.col_idx (spmm_rows_u16:
// csr.col_idx.u16), csr.values, B, C, K. Regenerate the PTX with
//
//   nvcc -ptx -arch=compute_75 -o test_kernels.ptx test_kernels.cu
//
// and lower its `.version` line to 7.0 (nothing here needs a newer PTX ISA),
// so that any driver of the last years JITs it.
//
//===----------------------------------------------------------------------===//

#define MEMREF(T, name)                                                        \
  T *name##Allocated, T *name, long long name##Offset, long long name##Size,   \
      long long name##Stride

/// The parameters every test kernel takes.
#define SPMM_PARAMS                                                            \
  MEMREF(const int, order), MEMREF(const int, rowPtr),                         \
      MEMREF(const int, colIdx), MEMREF(const float, values),                  \
      MEMREF(const float, b), MEMREF(float, c), long long k

/// C[order[i], j] = the sum over row position i: one thread per (i, j), in a
/// grid-stride loop, so that any launch configuration covers the matrix.
/// `Index` is the column indices' type.
template <typename Index>
__device__ void rowsOf(MEMREF(const int, order), MEMREF(const int, rowPtr),
                       MEMREF(const Index, colIdx),
                       MEMREF(const float, values), MEMREF(const float, b),
                       MEMREF(float, c), long long k) {
  const long long rows = orderSize;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       t < rows * k; t += stride) {
    const long long i = t / k, j = t % k;
    float acc = 0.0f;
    for (int p = rowPtr[i]; p < rowPtr[i + 1]; ++p)
      acc += values[p] * b[(long long)colIdx[p] * k + j];
    c[(long long)order[i] * k + j] = acc;
  }
}

/// The MEMREF arguments of rowsOf, passed on.
#define ROWS_ARGS                                                              \
  orderAllocated, order, orderOffset, orderSize, orderStride,                  \
      rowPtrAllocated, rowPtr, rowPtrOffset, rowPtrSize, rowPtrStride,         \
      colIdxAllocated, colIdx, colIdxOffset, colIdxSize, colIdxStride,         \
      valuesAllocated, values, valuesOffset, valuesSize, valuesStride,         \
      bAllocated, b, bOffset, bSize, bStride, cAllocated, c, cOffset, cSize,   \
      cStride, k

extern "C" __global__ void spmm_rows(SPMM_PARAMS) { rowsOf<int>(ROWS_ARGS); }

/// spmm_rows over column indices narrowed to 16 bits (a kernel that takes
/// "csr.col_idx.u16"; docs/Package.md, "Narrow column indices").
extern "C" __global__ void spmm_rows_u16(
    MEMREF(const int, order), MEMREF(const int, rowPtr),
    MEMREF(const unsigned short, colIdx), MEMREF(const float, values),
    MEMREF(const float, b), MEMREF(float, c), long long k) {
  rowsOf<unsigned short>(ROWS_ARGS);
}

/// Adds the entries p of each row whose index within the row has parity
/// `parity` into C (which must start at zero).
__device__ void addEntries(SPMM_PARAMS, int parity) {
  const long long rows = orderSize;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       t < rows * k; t += stride) {
    const long long i = t / k, j = t % k;
    float acc = 0.0f;
    for (int p = rowPtr[i] + parity; p < rowPtr[i + 1]; p += 2)
      acc += values[p] * b[(long long)colIdx[p] * k + j];
    atomicAdd(&c[(long long)order[i] * k + j], acc);
  }
}

/// The first launch of a two-kernel variant that needs C cleared.
extern "C" __global__ void spmm_even(SPMM_PARAMS) {
  addEntries(orderAllocated, order, orderOffset, orderSize, orderStride,
             rowPtrAllocated, rowPtr, rowPtrOffset, rowPtrSize, rowPtrStride,
             colIdxAllocated, colIdx, colIdxOffset, colIdxSize, colIdxStride,
             valuesAllocated, values, valuesOffset, valuesSize, valuesStride,
             bAllocated, b, bOffset, bSize, bStride, cAllocated, c, cOffset,
             cSize, cStride, k, 0);
}

/// The second launch.
extern "C" __global__ void spmm_odd(SPMM_PARAMS) {
  addEntries(orderAllocated, order, orderOffset, orderSize, orderStride,
             rowPtrAllocated, rowPtr, rowPtrOffset, rowPtrSize, rowPtrStride,
             colIdxAllocated, colIdx, colIdxOffset, colIdxSize, colIdxStride,
             valuesAllocated, values, valuesOffset, valuesSize, valuesStride,
             bAllocated, b, bOffset, bSize, bStride, cAllocated, c, cOffset,
             cSize, cStride, k, 1);
}

/// The parameters of a kernel that writes the runtime's fp32 accumulator
/// ("acc") instead of C.
#define ACC_PARAMS                                                             \
  MEMREF(const int, order), MEMREF(const int, rowPtr),                         \
      MEMREF(const int, colIdx), MEMREF(const float, values),                  \
      MEMREF(const float, b), MEMREF(float, acc), long long k

/// Adds the even entries of each row into the accumulator, which must start
/// at zero (the first launch of a variant marked zero_output).
extern "C" __global__ void acc_even(ACC_PARAMS) {
  const long long rows = orderSize;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       t < rows * k; t += stride) {
    const long long i = t / k, j = t % k;
    float sum = 0.0f;
    for (int p = rowPtr[i]; p < rowPtr[i + 1]; p += 2)
      sum += values[p] * b[(long long)colIdx[p] * k + j];
    atomicAdd(&acc[(long long)order[i] * k + j], sum);
  }
}

/// C = the accumulator + the odd entries of each row (the variant's last
/// launch, as the row kernel of a 16-bit bell layer adds it).
extern "C" __global__ void acc_odd(MEMREF(const int, order),
                                   MEMREF(const int, rowPtr),
                                   MEMREF(const int, colIdx),
                                   MEMREF(const float, values),
                                   MEMREF(const float, b), MEMREF(float, c),
                                   MEMREF(const float, acc), long long k) {
  const long long rows = orderSize;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       t < rows * k; t += stride) {
    const long long i = t / k, j = t % k;
    const long long at = (long long)order[i] * k + j;
    float sum = acc[at];
    for (int p = rowPtr[i] + 1; p < rowPtr[i + 1]; p += 2)
      sum += values[p] * b[(long long)colIdx[p] * k + j];
    c[at] = sum;
  }
}

/// A layer's transposing kernel ("transpose_b": B_col, B, K): the
/// column-major B (element (i, j) at bCol[i + j * rows]) written row-major
/// into B, one thread per element in a grid-stride loop.
extern "C" __global__ void transpose_b(MEMREF(const float, bCol),
                                       MEMREF(float, b), long long k) {
  const long long count = bSize, rows = bSize / k;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       t < count; t += stride)
    b[t] = bCol[t / k + (t % k) * rows];
}

/// An in-place kernel ("in_place_b": order, csr.row_ptr, csr.col_idx,
/// csr.values, B_col, C, K): C[order[i], j] = the sum over row position i
/// with B read column-major where it is (element (r, j) at
/// bCol[r + j * cols]), one thread per (i, j) in a grid-stride loop.
extern "C" __global__ void spmm_in_place(
    MEMREF(const int, order), MEMREF(const int, rowPtr),
    MEMREF(const int, colIdx), MEMREF(const float, values),
    MEMREF(const float, bCol), MEMREF(float, c), long long k) {
  const long long rows = orderSize, cols = bColSize / k;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       t < rows * k; t += stride) {
    const long long i = t / k, j = t % k;
    float acc = 0.0f;
    for (int p = rowPtr[i]; p < rowPtr[i + 1]; ++p)
      acc += values[p] * bCol[colIdx[p] + j * cols];
    c[(long long)order[i] * k + j] = acc;
  }
}
