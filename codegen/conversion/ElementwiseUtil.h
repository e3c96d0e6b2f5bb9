//===- ElementwiseUtil.h - helpers of the Elementwise lowerings -*- C++ -*-===//
//
// Every op of the Elementwise family lowers to one linalg.generic over the
// broadcast shape of its inputs (lowerToElementwise). Inside the body each
// element is handed over in its compute type: float16/bfloat16 widened to f32
// (so half-precision ops compute in f32 and round back once), unsigned
// integers as signless integers of the same width (arith's only integer
// types; signedness then picks the arith op: divui, maxui, cmpi ult, ...).
// bfloat16 conversions are done with integer arithmetic (round to nearest
// even, NaN kept quiet), so no soft-float library call is needed.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_LOWERING_ELEMENTWISEUTIL_H
#define ODT_CODEGEN_LOWERING_ELEMENTWISEUTIL_H

#include "codegen/conversion/Common.h"

namespace odt::codegen {

/// The type elements of `storage` are computed in: f16/bf16 -> f32 when
/// `widenHalf`, ui<N> -> i<N>, anything else itself.
mlir::Type getComputeType(mlir::Type storage, bool widenHalf = true);

/// An element of `storage` type in its compute type, and back. Conversions
/// between two float types round to nearest even.
Value toComputeType(OpBuilder &b, Location loc, Value value,
                    bool widenHalf = true);
Value fromComputeType(OpBuilder &b, Location loc, Value value,
                      mlir::Type storage);

/// Converts a float `value` to the float type `to` (extension or rounding to
/// nearest even; bfloat16 handled with integer arithmetic).
Value convertFloat(OpBuilder &b, Location loc, Value value, mlir::Type to);

/// Whether `type` (a tensor or element type) has unsigned integer elements.
bool isUnsignedElement(mlir::Type type);

/// `tensor` reinterpreted with signless integer elements when they are
/// unsigned (tensor.bitcast); any other tensor itself.
Value toSignlessTensor(OpBuilder &b, Location loc, Value tensor);

/// The sizes of the broadcast result of `inputs` (absent ones skipped), for a
/// result of `resultType`: its static dims, and each dynamic dim from the
/// first input whose aligned dim is not a static 1 (tensor.dim).
llvm::SmallVector<OpFoldResult>
getBroadcastSizes(OpBuilder &b, Location loc, mlir::ValueRange inputs,
                  mlir::RankedTensorType resultType);

/// The body of an elementwise op: the inputs' elements in compute types in,
/// one compute-type value per result out.
using ScalarBody = llvm::function_ref<llvm::SmallVector<Value>(
    OpBuilder &, Location, mlir::ValueRange)>;

struct ElementwiseOptions {
  /// Hand f16/bf16 elements to the body as f32 (and round results back).
  bool widenHalf = true;
};

/// Replaces `op` by one linalg.generic computing all its results (ranked
/// tensors of one shape) from `inputs`, broadcast ONNX-style. Fails to match
/// if a result is not a ranked tensor.
mlir::LogicalResult
lowerToElementwise(mlir::ConversionPatternRewriter &rewriter,
                   mlir::Operation *op, mlir::ValueRange inputs,
                   ScalarBody body, ElementwiseOptions options = {});

/// Scalar builders over compute-type values. Float max/min propagate NaN
/// (numpy's maximum/minimum); integers compare signed unless `isUnsigned`.
Value createMaximum(OpBuilder &b, Location loc, Value x, Value y,
                    bool isUnsigned);
Value createMinimum(OpBuilder &b, Location loc, Value x, Value y,
                    bool isUnsigned);

enum class Comparison { Equal, Less, Greater };
/// x == y, x < y or x > y as i1; floats compare ordered (NaN gives false).
Value createComparison(OpBuilder &b, Location loc, Comparison kind, Value x,
                       Value y, bool isUnsigned);

/// The single element of a one-element tensor (any rank) in compute type.
Value extractComputeScalar(OpBuilder &b, Location loc, Value tensor,
                           bool widenHalf = true);

/// erf(x) for a float x, from arith and math.exp only (a rational
/// approximation, absolute error about 1e-7; no libm erf is needed).
Value createErf(OpBuilder &b, Location loc, Value x);

} // namespace odt::codegen

#endif // ODT_CODEGEN_LOWERING_ELEMENTWISEUTIL_H
