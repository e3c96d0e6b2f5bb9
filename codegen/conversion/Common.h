//===- Common.h - shared helpers of the onnx -> linalg lowerings -*- C++ -*-===//

#ifndef ODT_CODEGEN_LOWERING_COMMON_H
#define ODT_CODEGEN_LOWERING_COMMON_H

#include "dialects/onnx/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace odt::codegen {

using mlir::Location;
using mlir::OpBuilder;
using mlir::OpFoldResult;
using mlir::Value;

/// The sizes of every dim of `tensor` (constants where static).
llvm::SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc,
                                         Value tensor);

/// tensor.empty of `elementType` with `sizes`.
Value createEmpty(OpBuilder &b, Location loc,
                  llvm::ArrayRef<OpFoldResult> sizes, mlir::Type elementType);

/// tensor.empty filled with the float or integer constant `value`.
Value createFilled(OpBuilder &b, Location loc,
                   llvm::ArrayRef<OpFoldResult> sizes, mlir::Type elementType,
                   double value);

/// A float or integer scalar constant of `type`.
Value createScalar(OpBuilder &b, Location loc, mlir::Type type, double value);

/// The single element of a one-element tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor);

/// An index constant.
Value indexConstant(OpBuilder &b, Location loc, int64_t value);

/// `value` as `type` (a tensor.cast where they differ, e.g. in static dims).
Value castTensor(OpBuilder &b, Location loc, Value value, mlir::Type type);

/// Size of dim `d` of `tensor` as an index (a constant where static).
Value dimValue(OpBuilder &b, Location loc, Value tensor, int64_t d);

/// An integer scalar (any width or signedness) as an index, sign-extended.
Value castToIndex(OpBuilder &b, Location loc, Value scalar);

/// Element `index` of the 1-D integer tensor `tensor`, as an index.
Value extractIndex(OpBuilder &b, Location loc, Value tensor, int64_t index);

/// `scalar` converted to the scalar type `to`: extf/truncf between floats,
/// sitofp/fptosi between signless integers and floats, extsi/trunci between
/// integers of different widths; integers of the same width (signless or not)
/// are returned unchanged, since only their interpretation differs.
Value convertScalar(OpBuilder &b, Location loc, Value scalar, mlir::Type to);

/// The indexing map that reads `operand` inside a loop nest over `outputRank`
/// dims under ONNX multidirectional broadcasting: operand dims align to the
/// trailing output dims; a dim of static size 1 (where the output's is not
/// known to be 1) is read at index 0. Returns the map and, since linalg
/// prefers projected permutations, `operand` with those unit dims collapsed.
std::pair<Value, mlir::AffineMap>
broadcastOperand(OpBuilder &b, Location loc, Value operand,
                 llvm::ArrayRef<int64_t> outputShape);

/// The identity map of `rank` dims.
mlir::AffineMap identityMap(mlir::MLIRContext *context, unsigned rank);

/// `count` parallel iterators.
llvm::SmallVector<mlir::utils::IteratorType> parallelIterators(unsigned count);

/// Builds an elementwise linalg.generic over the shape of `outputs` (all of
/// the same shape); `inputs` broadcast to it. The body gets the scalar inputs
/// followed by the current output values and yields the new outputs.
mlir::ValueRange buildElementwise(
    OpBuilder &b, Location loc, mlir::ValueRange inputs,
    mlir::ValueRange outputs,
    llvm::function_ref<llvm::SmallVector<Value>(OpBuilder &, Location,
                                                mlir::ValueRange)>
        body);

/// Lowering patterns by op family (ops/<Group>.td); each family's
/// <Group>Patterns.cpp calls the populate function of every op file in it.
void populateBasicLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateElementwiseLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateShapeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReductionLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateNNLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTrainingLoweringPatterns(mlir::RewritePatternSet &patterns);

} // namespace odt::codegen

#endif // ODT_CODEGEN_LOWERING_COMMON_H
