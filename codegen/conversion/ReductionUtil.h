//===- ReductionUtil.h - Reduction family lowering helpers -----*- C++ -*-===//
//
// Element types: ONNX's unsigned integers are unsigned MLIR types, which arith
// does not take. Lowerings read them in linalg bodies, cast each scalar to
// its signless twin (builtin.unrealized_conversion_cast, which vanishes in the
// LLVM dialect), compute on signless values and write unsigned results back
// the same way; `Numeric` remembers the signedness. float16/bfloat16 are
// accumulated in f32.
//
// Reductions: one linalg.generic whose reduced dims are reduction iterators
// dropped from the output map, keepdims restored with tensor.expand_shape.
//
// Losses: the tail shared by SoftmaxCrossEntropyLoss and
// NegativeLogLikelihoodLoss (per-sample weights, picked log-probabilities,
// reduction).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_LOWERING_REDUCTIONUTIL_H
#define ODT_CODEGEN_LOWERING_REDUCTIONUTIL_H

#include "codegen/conversion/Common.h"

namespace odt::codegen::reduction {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// An ONNX element type as computed with: the signless (or float) type
/// arith works on, and whether integers are unsigned.
struct Numeric {
  mlir::Type type;       // signless integer or float
  bool isUnsigned = false; // unsigned integer (or i1)

  /// The numeric view of an ONNX element type.
  static Numeric of(mlir::Type elementType);
  bool isFloat() const { return mlir::isa<mlir::FloatType>(type); }
  bool isInteger() const { return !isFloat(); }
};

/// The type float16/bfloat16 accumulate in (f32); any other type itself.
mlir::Type getAccumulatorType(mlir::Type elementType);

/// A scalar of an ONNX element type (a linalg block argument) as its
/// signless twin; floats and signless integers are returned unchanged.
Value toSignless(OpBuilder &b, Location loc, Value scalar);

/// A signless scalar as `elementType` (its unsigned form, if it is one).
Value fromSignless(OpBuilder &b, Location loc, Value scalar,
                   mlir::Type elementType);

/// Converts a signless/float scalar of numeric type `from` to `to`: float
/// extension/truncation, integer extension (by `from`'s signedness) or
/// truncation, and conversions between integers and floats (float to
/// integer truncates toward zero).
Value convertScalar(OpBuilder &b, Location loc, Value scalar, Numeric from,
                    Numeric to);

/// Reads a block argument of ONNX element type `elementType` as `to`.
Value readAs(OpBuilder &b, Location loc, Value scalar, mlir::Type elementType,
             Numeric to);

/// Converts every element of `tensor` to the ONNX element type `to` (an
/// elementwise linalg.generic); returns `tensor` if the types agree.
Value convertTensor(OpBuilder &b, Location loc, Value tensor,
                    mlir::Type to);

/// The identity value of max (lowest) or min (highest): -inf/+inf for
/// floats, the type's minimum/maximum for integers.
Value createLowest(OpBuilder &b, Location loc, Numeric numeric);
Value createHighest(OpBuilder &b, Location loc, Numeric numeric);

/// max/min of two scalars: NaN-propagating for floats, signed or unsigned
/// for integers.
Value createMax(OpBuilder &b, Location loc, Numeric numeric, Value lhs,
                Value rhs);
Value createMin(OpBuilder &b, Location loc, Numeric numeric, Value lhs,
                Value rhs);
Value createAdd(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value createMul(OpBuilder &b, Location loc, Value lhs, Value rhs);


//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The sizes of the dims not in `axes`.
llvm::SmallVector<OpFoldResult> keptSizes(llvm::ArrayRef<OpFoldResult> sizes,
                                          llvm::ArrayRef<int64_t> axes);

/// In a loop nest over `rank` dims, the map that reads a tensor of the dims
/// not in `axes`.
mlir::AffineMap keptDimsMap(mlir::MLIRContext *context, int64_t rank,
                            llvm::ArrayRef<int64_t> axes);

/// Iterators over `rank` dims: reduction for `axes`, parallel otherwise.
llvm::SmallVector<mlir::utils::IteratorType>
reductionIterators(int64_t rank, llvm::ArrayRef<int64_t> axes);

/// A reduction of `inputs` (all of the same shape, read with the identity
/// map) over `axes` into `inits` (tensors of the kept dims). The body gets
/// the input scalars followed by the accumulators and yields the new
/// accumulators.
mlir::ValueRange buildReduction(
    OpBuilder &b, Location loc, mlir::ValueRange inputs,
    llvm::ArrayRef<int64_t> axes, mlir::ValueRange inits,
    llvm::function_ref<llvm::SmallVector<Value>(OpBuilder &, Location,
                                                mlir::ValueRange)>
        body);

/// Reinserts the reduced `axes` of a rank-`rank` tensor as unit dims (the
/// result of a reduction whose kept dims have `sizes` at their positions).
Value expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                        llvm::ArrayRef<int64_t> axes, int64_t rank,
                        llvm::ArrayRef<OpFoldResult> sizes);

/// The number of elements over `axes` (the product of their sizes) as a
/// scalar of numeric type `type`.
Value countElements(OpBuilder &b, Location loc,
                    llvm::ArrayRef<OpFoldResult> sizes,
                    llvm::ArrayRef<int64_t> axes, Numeric type);

/// The Reduce* ops.
enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  L2,
  LogSumExp,
  Prod,
  L1,
  SumSquare,
  LogSum
};

/// Lowers a Reduce* op over constant `axes` (none: the op is the identity):
/// float16/bfloat16 accumulate in f32, integer ReduceL2/ReduceLogSumExp/
/// ReduceLogSum are computed in f64 and truncated toward zero as ONNX's
/// reference does.
mlir::LogicalResult lowerReduce(mlir::Operation *op, Value data,
                                mlir::FailureOr<llvm::SmallVector<int64_t>> axes,
                                bool keepdims, ReduceKind kind,
                                mlir::ConversionPatternRewriter &rewriter);

template <typename ReduceOp, ReduceKind kind>
struct LowerReduceOp : mlir::OpConversionPattern<ReduceOp> {
  using mlir::OpConversionPattern<ReduceOp>::OpConversionPattern;
  mlir::LogicalResult
  matchAndRewrite(ReduceOp op, typename ReduceOp::Adaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    return lowerReduce(op, adaptor.getData(), op.getConstantAxes(),
                       op.getKeepdims() != 0, kind, rewriter);
  }
};

/// Softmax (or log-softmax) of a float tensor along `axis`, computed stably
/// (the maximum along the axis is subtracted first); float16/bfloat16 in f32.
Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t axis,
                   bool logarithm);

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Shapes and maps of scores/log-probabilities [N, C, D1..Dk] and their
/// samples (labels) [N, D1..Dk].
struct LossLayout {
  int64_t rank;       // rank of scores
  int64_t sampleRank; // rank of labels
  llvm::SmallVector<OpFoldResult> scoreSizes;
  llvm::SmallVector<OpFoldResult> sampleSizes;
  Value numClasses; // index

  LossLayout(OpBuilder &b, Location loc, Value scores);

  /// In a domain of `rank` dims laid out like scores (n, c, d...), the map
  /// that reads a sample-shaped tensor (drops the class dim).
  mlir::AffineMap sampleMapInScoreDomain(mlir::MLIRContext *context) const;
  /// The iterators of a reduction over classes in the score domain.
  llvm::SmallVector<mlir::utils::IteratorType> classReductionIterators() const;
  /// Inside a loop nest over samples, the indices of the current sample's
  /// class `c` in the score layout.
  llvm::SmallVector<Value> scoreIndices(OpBuilder &b, Location loc,
                                        Value c) const;
};

/// The class of a label, clamped into [0, C) so a bad label cannot fault.
Value labelToClass(OpBuilder &b, Location loc, Value label, Value numClasses);

/// w[s] for every sample: 0 for ignored labels, else weights[label] or 1.
Value sampleWeights(OpBuilder &b, Location loc, const LossLayout &layout,
                    Value labels, Value weights,
                    std::optional<int64_t> ignoreIndex,
                    mlir::Type elementType);

/// Sum of every element of `tensor` as a 0-d tensor.
Value sumAll(OpBuilder &b, Location loc, Value tensor);

/// The loss from log-probabilities [N, C, D...] and labels [N, D...]:
/// -log_prob[s, label[s]] * w[s] per sample, then none / sum / mean (the sum
/// divided by the sum of w). `weights` may be a NoValue.
Value buildNegativeLogLikelihood(OpBuilder &b, Location loc,
                                 const LossLayout &layout, Value logProb,
                                 Value labels, Value weights,
                                 std::optional<int64_t> ignoreIndex,
                                 llvm::StringRef reduction);

} // namespace odt::codegen::reduction

#endif // ODT_CODEGEN_LOWERING_REDUCTIONUTIL_H
