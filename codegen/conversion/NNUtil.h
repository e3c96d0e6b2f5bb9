//===- NNUtil.h - helpers of the NN family's lowerings ----------*- C++ -*-===//
//
// Index arithmetic that folds where sizes are static (so the window formulas
// of dialects/onnx/ops/NNGeometry.h build IR for dynamic dims and constants
// for static ones), padding, the convolution and pooling kernels shared by
// Conv, ConvTranspose, MaxPool and AveragePool, and element-type plumbing
// (f16/bf16 accumulate in f32; unsigned tensors are computed as signless).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_LOWERING_NNUTIL_H
#define ODT_CODEGEN_LOWERING_NNUTIL_H

#include "codegen/conversion/Common.h"
#include "dialects/onnx/ops/NNGeometry.h"

#include <optional>

namespace odt::codegen {

/// An index-typed value during lowering: a constant or an SSA value.
/// Arithmetic on constants folds; anything else builds arith ops at the
/// builder's insertion point.
class IndexValue {
public:
  IndexValue(OpBuilder &b, Location loc, OpFoldResult value)
      : b(&b), loc(loc), value(value) {}
  static IndexValue constant(OpBuilder &b, Location loc, int64_t value) {
    return IndexValue(b, loc, b.getIndexAttr(value));
  }
  /// The size of dim `dim` of `tensor`.
  static IndexValue dim(OpBuilder &b, Location loc, Value tensor, int64_t dim);

  std::optional<int64_t> getConstant() const;
  OpFoldResult get() const { return value; }
  /// The value as an SSA value (a constant op where it is constant).
  Value materialize() const;
  OpBuilder &getBuilder() const { return *b; }
  Location getLoc() const { return loc; }

private:
  OpBuilder *b;
  Location loc;
  OpFoldResult value;
};

IndexValue operator+(const IndexValue &a, const IndexValue &b);
IndexValue operator+(const IndexValue &a, int64_t b);
IndexValue operator-(const IndexValue &a, const IndexValue &b);
IndexValue operator-(const IndexValue &a, int64_t b);
IndexValue operator*(const IndexValue &a, const IndexValue &b);
IndexValue operator*(const IndexValue &a, int64_t b);
/// Division rounding toward -inf / +inf by a positive constant.
IndexValue floorDiv(const IndexValue &a, int64_t b);
IndexValue ceilDiv(const IndexValue &a, int64_t b);
IndexValue maxOf(const IndexValue &a, const IndexValue &b);
IndexValue maxOf(const IndexValue &a, int64_t b);
IndexValue minOf(const IndexValue &a, const IndexValue &b);
IndexValue minOf(const IndexValue &a, int64_t b);
IndexValue constantLike(const IndexValue &like, int64_t value);

/// The sizes of every dim of `tensor` as index values.
llvm::SmallVector<IndexValue> getIndexSizes(OpBuilder &b, Location loc,
                                            Value tensor);
llvm::SmallVector<OpFoldResult> toFoldResults(llvm::ArrayRef<IndexValue> values);

/// The type arithmetic runs in: f32 for f16/bf16, the signless integer of
/// the same width for an unsigned one, else the type itself.
mlir::Type getComputeType(mlir::Type elementType);
/// `tensor` with element type `to`: tensor.bitcast between integers of the
/// same width, an elementwise extf/truncf between float types.
Value convertTensor(OpBuilder &b, Location loc, Value tensor, mlir::Type to);

/// tensor.pad of `tensor` by `low`/`high` (per dim) with `padValue`; returns
/// `tensor` when every pad is a constant 0.
Value padTensor(OpBuilder &b, Location loc, Value tensor,
                llvm::ArrayRef<OpFoldResult> low,
                llvm::ArrayRef<OpFoldResult> high, Value padValue);

/// An [N, M, out...] tensor of `elementType` holding `bias` ([M]) broadcast
/// along every other dim, or zeros when `bias` is null.
Value createBiasInit(OpBuilder &b, Location loc, Value bias,
                     llvm::ArrayRef<OpFoldResult> sizes,
                     mlir::Type elementType);

/// A convolution of `input` [N, C, L1..Ln] (already padded) with `filter`
/// [M, C/group, k1..kn], accumulated into `init` [N, M, o1..on] (whose
/// element type may be wider than the operands'): output position o reads
/// input position o * stride + k * dilation. linalg's named NC*
/// convolutions (plain for 1-3 spatial dims, depthwise for group == C == M,
/// grouped for 2 spatial dims), else a linalg.generic; how they run is the
/// backend's (the CPU computes f32 2-D ones as products, odt.convolution).
Value buildConvolution(OpBuilder &b, Location loc, Value input, Value filter,
                       Value init, llvm::ArrayRef<int64_t> strides,
                       llvm::ArrayRef<int64_t> dilations, int64_t group);

enum class PoolKind { Max, MaxUnsigned, Sum };

/// Pooling of `input` [N, C, L1..Ln] (already padded) over a window `kernel`
/// into `init` [N, C, o1..on]: linalg's named NCW/NCHW pooling ops where
/// they exist, else a linalg.generic.
Value buildPooling(OpBuilder &b, Location loc, PoolKind kind, Value input,
                   Value init, llvm::ArrayRef<int64_t> kernel,
                   llvm::ArrayRef<int64_t> strides,
                   llvm::ArrayRef<int64_t> dilations);

/// The identity element of a max over `type` (-inf, or the smallest
/// integer; 0 when `isUnsigned`).
Value createLowest(OpBuilder &b, Location loc, mlir::Type type,
                   bool isUnsigned);

} // namespace odt::codegen

#endif // ODT_CODEGEN_LOWERING_NNUTIL_H
