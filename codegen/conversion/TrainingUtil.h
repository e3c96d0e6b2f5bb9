//===- TrainingUtil.h - helpers of the training-op lowerings ----*- C++ -*-===//
//
// Pieces the lowerings of the com.microsoft training ops share (on top of
// Common.h): generics with explicit maps, sums over chosen dims, reductions
// of a broadcast result back to an input's shape, unit-dim collapsing, and
// index arithmetic on runtime sizes.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_LOWERING_TRAININGUTIL_H
#define ODT_CODEGEN_LOWERING_TRAININGUTIL_H

#include "codegen/conversion/Common.h"
#include "dialects/onnx/ops/TrainingOpHelpers.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace odt::codegen {

using BodyFn = llvm::function_ref<llvm::SmallVector<Value>(
    OpBuilder &, Location, mlir::ValueRange)>;

/// A linalg.generic with the given maps (inputs then outputs) and iterators;
/// the body gets the input scalars then the output scalars.
mlir::ValueRange
buildGeneric(OpBuilder &b, Location loc, mlir::ValueRange inputs,
             mlir::ValueRange outputs, llvm::ArrayRef<mlir::AffineMap> maps,
             llvm::ArrayRef<mlir::utils::IteratorType> iterators, BodyFn body);

/// The map of a `rank`-dim domain onto the dims `dims` (in that order).
mlir::AffineMap projection(mlir::MLIRContext *context, unsigned rank,
                           llvm::ArrayRef<int64_t> dims);

/// The dims [0, rank) without `removed`.
llvm::SmallVector<int64_t> keptDims(unsigned rank,
                                    llvm::ArrayRef<int64_t> removed);

/// Sums `body`'s contributions over the dims `reduced` of a domain whose
/// sizes are `domain`: one result per element type in `types`, each shaped
/// like the kept dims (in order), starting from 0. `inputs` are read
/// through `inputMaps` (maps of the full domain); the body gets the input
/// scalars and yields one contribution per result. Floats summed over
/// several dims are summed in two stages (each slice of the outermost
/// reduced dim by one op, then those partial sums), unless `staged` is
/// false: then one running sum over all of them (a convolution window's few
/// terms).
llvm::SmallVector<Value>
sumOver(OpBuilder &b, Location loc, llvm::ArrayRef<OpFoldResult> domain,
        llvm::ArrayRef<int64_t> reduced, mlir::ValueRange inputs,
        llvm::ArrayRef<mlir::AffineMap> inputMaps, mlir::TypeRange types,
        BodyFn body, bool staged = true);

/// Collapses the static unit dims of `value` that `keep` marks false (all
/// of them must be static 1s), leaving a tensor of the kept dims.
Value dropUnitDims(OpBuilder &b, Location loc, Value value,
                   llvm::ArrayRef<bool> keep);

/// The inverse: expands `value` (the kept dims) to `type`, whose dims not
/// in `keep` are static 1s.
Value insertUnitDims(OpBuilder &b, Location loc, Value value,
                     mlir::RankedTensorType type, llvm::ArrayRef<bool> keep);

/// Sums `full` (a broadcast result) over the dims along which an input of
/// type `target` was broadcast to it (ONNX multidirectional broadcasting),
/// giving a tensor of type `target`.
Value sumToShape(OpBuilder &b, Location loc, Value full,
                 mlir::RankedTensorType target);

/// Reduction by sum of `data` over the sorted `axes`, with the reduced dims
/// kept as 1s when `keepdims`; the result cast to `resultType`.
Value reduceSumAxes(OpBuilder &b, Location loc, Value data,
                    llvm::ArrayRef<int64_t> axes, bool keepdims,
                    mlir::RankedTensorType resultType);

/// Index arithmetic helpers on index values.
/// The product of the dims [begin, end) of `tensor`.
Value dimProduct(OpBuilder &b, Location loc, Value tensor, int64_t begin,
                 int64_t end);
/// An index value as a float of `type`.
Value indexToFloat(OpBuilder &b, Location loc, Value index, mlir::Type type);

/// tensor.empty shaped like the dims of `type`, dynamic ones taken from
/// `sizes` (all dims; static entries ignored).
Value emptyLike(OpBuilder &b, Location loc, mlir::RankedTensorType type,
                llvm::ArrayRef<OpFoldResult> sizes);

/// The sizes of a result of type `type` whose dims a 1-D integer shape
/// tensor holds: static dims from the type, dynamic ones read from `shape`.
llvm::SmallVector<OpFoldResult>
sizesFromShapeTensor(OpBuilder &b, Location loc, Value shape,
                     mlir::RankedTensorType type);

/// The coordinates of the row-major `linear` index in a tensor of `sizes`.
llvm::SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                     llvm::ArrayRef<Value> sizes);

/// The sliding window (of ConvGrad's input gradient, of MaxPoolGrad) whose
/// kernel offset `offset` lands on input position `position` along spatial
/// axis `axis`: o = (position + padsBegin - offset * dilation) / stride when
/// the division is exact and 0 <= o < `outSize`. Returns o (0 when there is
/// no such window, so it can still index) and whether the window exists.
std::pair<Value, Value> windowAt(OpBuilder &b, Location loc, Value position,
                                 Value offset, const onnx::GradWindow &window,
                                 int64_t axis, Value outSize);

} // namespace odt::codegen

#endif // ODT_CODEGEN_LOWERING_TRAININGUTIL_H
