//===- ShapeUtil.h - helpers of the shape-family lowerings ------*- C++ -*-===//
//
// Index arithmetic that folds as it is built (so static shapes stay static
// and shape computations reduce to tensor.dim of the inputs), reshapes
// through collapse/expand, and element-by-element construction of the small
// integer tensors that shape computations produce (Shape -> Gather ->
// Concat -> Reshape): built with tensor.from_elements, they fold away.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_LOWERING_SHAPEUTIL_H
#define ODT_CODEGEN_LOWERING_SHAPEUTIL_H

#include "codegen/conversion/Common.h"

namespace odt::codegen {

/// Integer tensors with a static shape of at most this many elements are
/// built element by element (tensor.from_elements).
inline constexpr int64_t kSmallTensorLimit = 16;

/// An axis attribute (an I64Attr, read as uint64_t) in [-rank, rank) made
/// non-negative.
inline int64_t positiveAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Whether `type` is a static integer tensor of at most kSmallTensorLimit
/// elements.
bool isSmallIntTensor(mlir::Type type);
/// `value` as an index Value (a constant for an attribute).
Value toValue(OpBuilder &b, Location loc, OpFoldResult value);
/// `value` as an attribute if it is a constant.
OpFoldResult toFoldResult(Value value);

/// Folding index arithmetic.
Value addIndex(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value subIndex(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value mulIndex(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// Division rounding toward zero (divsi) and up (ceildivsi).
Value divIndex(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value ceilDivIndex(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value minIndex(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value maxIndex(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// `value` clamped to [low, high] (max then min).
Value clampIndex(OpBuilder &b, Location loc, Value value, Value low,
                 Value high);
Value cmpIndex(OpBuilder &b, Location loc, mlir::arith::CmpIPredicate pred,
               Value lhs, Value rhs);
Value selectValue(OpBuilder &b, Location loc, Value cond, Value whenTrue,
                  Value whenFalse);

/// An index as an integer scalar of `type`.
Value castFromIndex(OpBuilder &b, Location loc, Value index, mlir::Type type);

/// Element `index` (row-major, of a static-shaped tensor) of `tensor`.
Value extractFlat(OpBuilder &b, Location loc, Value tensor, int64_t index);
/// The element of a one-element tensor (any rank), as an index.
Value extractScalarIndex(OpBuilder &b, Location loc, Value tensor);

/// The values of a constant integer tensor (arith.constant, onnx.Constant).
std::optional<llvm::SmallVector<int64_t>> getConstantInts(Value value);

/// The total element count of `tensor` as an index.
Value elementCount(OpBuilder &b, Location loc, Value tensor);

/// The sizes of a tensor of type `type`: its static dims, and `dynamic(d)`
/// for the others.
llvm::SmallVector<OpFoldResult>
mixedSizes(mlir::RankedTensorType type,
           llvm::function_ref<Value(int64_t)> dynamic);


/// `source` reshaped (row-major order kept) to `type` with `sizes`: one
/// collapse to 1-D and one expand (canonicalization simplifies the pair).
Value reshapeTensor(OpBuilder &b, Location loc, Value source,
                    mlir::RankedTensorType type,
                    llvm::ArrayRef<OpFoldResult> sizes);

/// A tensor.from_elements of static type `type` whose element at row-major
/// index `flat` (coordinates `coordinates`) is `element(flat, coordinates)`.
Value buildFromElements(
    OpBuilder &b, Location loc, mlir::RankedTensorType type,
    llvm::function_ref<Value(int64_t, llvm::ArrayRef<int64_t>)> element);

/// An index into a dim of size `size` counted from the end when negative
/// (ONNX's indices), clamped into [0, size - 1] so nothing reads out of
/// bounds.
Value wrapIndex(OpBuilder &b, Location loc, Value index, Value size);

/// The reassociation between a rank and a higher one that only adds unit
/// dims: `unit[d]` marks the dims of the higher rank that have no
/// counterpart; each joins the group of the next kept dim (trailing ones the
/// last group). Empty when every dim is a unit dim (to or from rank 0).
llvm::SmallVector<mlir::ReassociationIndices>
unitDimGroups(llvm::ArrayRef<bool> unit);

} // namespace odt::codegen

#endif // ODT_CODEGEN_LOWERING_SHAPEUTIL_H
