//===- SpPermDialect.cpp - spperm dialect registration ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Names.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::spperm;

#include "spperm/Dialect/SpPerm/IR/SpPermDialect.cpp.inc"

void SpPermDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "spperm/Dialect/SpPerm/IR/SpPermOps.cpp.inc"
      >();
}

/// Checks a `spperm.alternative_of`, `spperm.precision`, `spperm.shard` or
/// `spperm.shard_of` attribute of a layer's function.
static LogicalResult verifyFunctionAttribute(Operation *op, StringRef name,
                                             Attribute value) {
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << name
                           << "' belongs on a layer's function, not on '"
                           << op->getName() << "'";
  if (name == kAlternativeOfAttrName) {
    auto of = dyn_cast<FlatSymbolRefAttr>(value);
    if (!of)
      return op->emitError()
             << "'" << name << "' must name a layer's function (@name)";
    if (of.getValue() == SymbolTable::getSymbolName(op).getValue())
      return op->emitError() << "'" << name << "' names the function itself";
    if (!SymbolTable::lookupNearestSymbolFrom(op, of))
      return op->emitError() << "'" << name << "' names " << of
                             << ", which is no symbol of the module";
    return success();
  }
  if (name == kPrecisionAttrName) {
    auto precision = dyn_cast<StringAttr>(value);
    if (!precision || !::spperm::isPrecisionName(precision.getValue()))
      return op->emitError()
             << "'" << name << "' must be one of \"fp32\", \"tf32\", \"f16\" "
             << "or \"3xtf32\", got " << value;
    return success();
  }
  if (name == kShardOfAttrName) {
    auto of = dyn_cast<StringAttr>(value);
    if (!of || of.getValue().empty())
      return op->emitError()
             << "'" << name << "' must be the name of the sharded layer";
    if (!op->hasAttr(kShardAttrName))
      return op->emitError()
             << "'" << name << "' needs '" << kShardAttrName << "' beside it";
    return success();
  }
  // spperm.shard: [index, count, begin, end, rows].
  auto shard = dyn_cast<DenseI64ArrayAttr>(value);
  if (!shard || shard.size() != 5)
    return op->emitError() << "'" << name
                           << "' must be array<i64: index, count, begin, "
                              "end, rows>";
  const int64_t index = shard[0], count = shard[1], begin = shard[2],
                end = shard[3], rows = shard[4];
  if (count == 1)
    return op->emitError() << "'" << name
                           << "' has a count of 1: a layer of one shard is "
                              "the whole layer (leave the shard attributes "
                              "out)";
  // Every shard has a row at least (docs/Distributed.md).
  if (count < 2 || count > ::spperm::kMaxIndex || index < 0 || index >= count ||
      rows < 0 || rows > ::spperm::kMaxIndex || begin < 0 || begin >= end ||
      end > rows)
    return op->emitError() << "'" << name
                           << "' must have 0 <= index < count, 2 <= count and "
                              "0 <= begin < end <= rows <= 2^31 - 1, got "
                           << value;
  if (!op->hasAttr(kShardOfAttrName))
    return op->emitError() << "'" << name << "' needs '" << kShardOfAttrName
                           << "' beside it";
  // The shard's loads read its rows (a load without `rows` reads all).
  WalkResult loads = op->walk([&](LoadOp load) {
    std::optional<ArrayRef<int64_t>> read = load.getRows();
    const int64_t first = read && read->size() == 2 ? (*read)[0] : 0;
    const int64_t last = read && read->size() == 2
                             ? (*read)[1]
                             : load.getResult().getType().getRows();
    if (first == begin && last == end)
      return WalkResult::advance();
    load.emitOpError() << "reads rows [" << first << ", " << last
                       << "), not its function's '" << name << "' [" << begin
                       << ", " << end << ")";
    return WalkResult::interrupt();
  });
  return failure(loads.wasInterrupted());
}

/// The parameter names of `launch`'s kernel.
static std::vector<std::string> launchArgs(LaunchAttr launch) {
  std::vector<std::string> args;
  for (auto arg : launch.getArgs().getAsRange<StringAttr>())
    args.push_back(arg.getValue().str());
  return args;
}

/// Checks that `launch`, of the attribute `name` of the multiplication `op`,
/// takes the multiplication's K where it is static.
static LogicalResult verifyLaunchTakesK(Operation *op, StringRef name,
                                        LaunchAttr launch) {
  auto dense = dyn_cast<ShapedType>(op->getOperand(1).getType());
  if (!dense || !dense.hasRank() || dense.getRank() != 2 ||
      dense.isDynamicDim(1))
    return success();
  const int64_t k = dense.getDimSize(1);
  if (k >= launch.getKMin() &&
      (launch.getKMax() == 0 || k <= launch.getKMax()) &&
      k % launch.getKAlign() == 0)
    return success();
  return op->emitError() << "'" << name << "': kernel '" << launch.getName()
                         << "' runs K in [" << launch.getKMin() << ", "
                         << (launch.getKMax() ? std::to_string(launch.getKMax())
                                              : std::string("any"))
                         << "] (multiples of " << launch.getKAlign()
                         << "), not the multiplication's K = " << k;
}

/// Checks a `spperm.kernels`, `spperm.transpose_b` or `spperm.in_place_b`
/// attribute of a lowered multiplication.
static LogicalResult verifyLaunchesAttribute(Operation *op, StringRef name,
                                             Attribute value) {
  if (!isa<SpMMOp>(op))
    return op->emitError() << "'" << name
                           << "' belongs on a lowered spperm.spmm, not on '"
                           << op->getName() << "'";
  if (name == kTransposeAttrName) {
    auto launch = dyn_cast<LaunchAttr>(value);
    if (!launch)
      return op->emitError() << "'" << name << "' must be a #spperm.launch";
    if (!::spperm::isTransposeArgs(launchArgs(launch)))
      return op->emitError() << "'" << name << "': kernel '" << launch.getName()
                             << "' must take " << ::spperm::kTransposeArgsRule;
    return verifyLaunchTakesK(op, name, launch);
  }
  auto launches = dyn_cast<ArrayAttr>(value);
  if (!launches || !llvm::all_of(launches, llvm::IsaPred<LaunchAttr>))
    return op->emitError() << "'" << name
                           << "' must be an array of #spperm.launch";
  // The arrays a kernel takes are the layer's: of its format (or the csr
  // arrays any layer may carry), narrowed only where its columns fit.
  auto matrix = dyn_cast<MatrixType>(op->getOperand(0).getType());
  if (!matrix)
    return success(); // The op's own verifier says what A must be.
  StringRef format = matrix.getFormat().getFormatName();
  for (auto launch : launches.getAsRange<LaunchAttr>()) {
    if (failed(verifyLaunchTakesK(op, name, launch)))
      return failure();
    std::vector<std::string> args = launchArgs(launch);
    if (name == kInPlaceAttrName && !::spperm::isInPlaceCallArgs(args))
      return op->emitError() << "'" << name << "': kernel '" << launch.getName()
                             << "' must take " << ::spperm::kInPlaceArgsRule;
    for (const std::string &arg : args) {
      if (name == kKernelsAttrName && arg == ::spperm::call_arg::kBColumnMajor)
        return op->emitError()
               << "'" << name << "': kernel '" << launch.getName()
               << "' takes B_col, which only a transposing or in-place "
                  "kernel reads";
      if (std::string why =
              ::spperm::kernelArgProblem(arg, format, matrix.getCols());
          !why.empty())
        return op->emitError()
               << "'" << name << "': kernel '" << launch.getName()
               << "' takes '" << arg << "', which " << why;
    }
  }
  return success();
}

LogicalResult SpPermDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kAlternativeOfAttrName || name == kPrecisionAttrName ||
      name == kShardAttrName || name == kShardOfAttrName)
    return verifyFunctionAttribute(op, name, attr.getValue());
  if (name == kKernelsAttrName || name == kTransposeAttrName ||
      name == kInPlaceAttrName)
    return verifyLaunchesAttribute(op, name, attr.getValue());
  return op->emitError() << "unknown spperm attribute '" << name
                         << "' (the passes set spperm.alternative_of, "
                            "spperm.precision, spperm.shard, spperm.shard_of, "
                            "spperm.kernels, spperm.transpose_b and "
                            "spperm.in_place_b)";
}

LogicalResult SpPermDialect::verifyRegionArgAttribute(Operation *op,
                                                      unsigned region,
                                                      unsigned argIndex,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kSourceAttrName && name != kValuesAttrName)
    return op->emitOpError()
           << "argument " << argIndex << ": unknown spperm attribute '" << name
           << "' (arguments take spperm.source and spperm.values)";
  auto text = dyn_cast<StringAttr>(attr.getValue());
  if (name == kSourceAttrName) {
    if (!text || text.getValue().empty())
      return op->emitOpError()
             << "argument " << argIndex << ": " << name
             << " must be a non-empty string (the matrix file)";
    // The matrix type takes its rows and columns from the tensor's.
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (function && argIndex < function.getNumArguments())
      if (auto tensor =
              dyn_cast<RankedTensorType>(function.getArgumentTypes()[argIndex]);
          tensor) {
        if (tensor.getRank() != 2)
          return op->emitOpError()
                 << "argument " << argIndex << ": " << name
                 << " names a matrix, but the argument is a tensor of rank "
                 << tensor.getRank();
        if (!tensor.hasStaticShape())
          return op->emitOpError()
                 << "argument " << argIndex << ": " << name
                 << " names a matrix whose tensor type has a dynamic "
                    "dimension; give its rows and columns (tensor<RxCxf32, "
                    "...>)";
        for (int64_t extent : tensor.getShape())
          if (extent > ::spperm::kMaxIndex)
            return op->emitOpError()
                   << "argument " << argIndex << ": " << name
                   << " names a matrix of " << tensor.getDimSize(0) << " x "
                   << tensor.getDimSize(1)
                   << "; a matrix has at most 2^31 - 1 rows and columns";
      }
    return success();
  }
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || !function.getArgAttr(argIndex, kSourceAttrName))
    return op->emitOpError() << "argument " << argIndex << " has " << name
                             << " but no " << kSourceAttrName;
  ::spperm::StatusOr<::spperm::ValuesSpec> spec =
      text ? ::spperm::parseValuesSpec(text.getValue().str())
           : ::spperm::Status::error("must be a string");
  if (!spec)
    return op->emitOpError()
           << "argument " << argIndex << ": " << name << ": " << spec.message();
  return success();
}

LogicalResult SpPermDialect::verifyRegionResultAttribute(Operation *op,
                                                         unsigned region,
                                                         unsigned resultIndex,
                                                         NamedAttribute attr) {
  return op->emitOpError() << "result " << resultIndex
                           << ": unknown spperm attribute '"
                           << attr.getName().getValue()
                           << "' (results take none)";
}
