//===- Einsum.cpp - onnx.Einsum -> linalg ---------------------------------===//
//
// One linalg.generic over the equation's loops: the output's loops first (in
// output order, parallel), then the summed ones (reduction). Every input is
// read through the map of its labels, so a repeated label reads a diagonal
// (i, i); a "..." dim of static size 1 that broadcasts against a larger one
// is collapsed away. The body multiplies the inputs and accumulates into a
// zero fill (float16/bfloat16 in f32).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ReductionUtil.h"
#include "dialects/onnx/ops/ReductionHelpers.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace odt::codegen::reduction;

namespace odt::codegen {
namespace {

struct LowerEinsum : OpConversionPattern<onnx::EinsumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    SmallVector<Value> inputs(adaptor.getInputs());
    SmallVector<int64_t> ranks;
    for (Value input : inputs)
      ranks.push_back(cast<RankedTensorType>(input.getType()).getRank());
    std::string error;
    FailureOr<onnx::reduction::EinsumEquation> equation =
        onnx::reduction::parseEinsumEquation(op.getEquation(), ranks, error);
    if (failed(equation))
      return rewriter.notifyMatchFailure(op, error);
    unsigned numLoops = equation->getNumLoops();

    // Each loop's size: from an input dim that is not a broadcast unit dim.
    SmallVector<OpFoldResult> loopSizes(numLoops);
    for (auto [input, dims] : llvm::zip(inputs, equation->inputs)) {
      auto type = cast<RankedTensorType>(input.getType());
      for (auto [d, loop] : llvm::enumerate(dims)) {
        std::optional<int64_t> known =
            loopSizes[loop] ? getConstantIntValue(loopSizes[loop])
                            : std::nullopt;
        if (loopSizes[loop] && !(known && *known == 1))
          continue;
        loopSizes[loop] =
            type.isDynamicDim(d)
                ? OpFoldResult(tensor::DimOp::create(rewriter, loc, input, d)
                                   .getResult())
                : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d)));
      }
    }
    for (OpFoldResult &size : loopSizes)
      if (!size) // a "..." dim no input has (only possible for none)
        size = rewriter.getIndexAttr(1);

    // Domain order: output loops, then the summed ones.
    SmallVector<unsigned> position(numLoops);
    unsigned next = 0;
    for (unsigned loop : equation->output)
      position[loop] = next++;
    for (unsigned loop = 0; loop < numLoops; ++loop)
      if (equation->isReduction(loop))
        position[loop] = next++;
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::reduction);
    for (unsigned i = 0; i < equation->output.size(); ++i)
      iterators[i] = utils::IteratorType::parallel;

    SmallVector<Value> operands;
    SmallVector<AffineMap> maps;
    for (auto [input, dims] : llvm::zip(inputs, equation->inputs)) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<AffineExpr> exprs;
      SmallVector<ReassociationIndices> groups;
      SmallVector<int64_t> collapsedShape;
      ReassociationIndices pendingUnits;
      for (auto [d, loop] : llvm::enumerate(dims)) {
        std::optional<int64_t> loopSize = getConstantIntValue(loopSizes[loop]);
        bool broadcast = type.getDimSize(d) == 1 && !(loopSize && *loopSize == 1);
        if (broadcast) {
          pendingUnits.push_back(d);
          continue;
        }
        ReassociationIndices group = pendingUnits;
        group.push_back(d);
        pendingUnits.clear();
        groups.push_back(group);
        exprs.push_back(getAffineDimExpr(position[loop], context));
        collapsedShape.push_back(type.getDimSize(d));
      }
      if (groups.size() != dims.size()) {
        if (!groups.empty())
          groups.back().append(pendingUnits.begin(), pendingUnits.end());
        auto collapsedType =
            RankedTensorType::get(collapsedShape, type.getElementType());
        input = tensor::CollapseShapeOp::create(rewriter, loc, collapsedType,
                                                input, groups);
      }
      operands.push_back(input);
      maps.push_back(AffineMap::get(numLoops, 0, exprs, context));
    }

    Type elementType =
        cast<RankedTensorType>(inputs.front().getType()).getElementType();
    Numeric numeric = Numeric::of(elementType);
    Numeric compute = numeric;
    compute.type = getAccumulatorType(numeric.type);
    SmallVector<OpFoldResult> outSizes;
    SmallVector<AffineExpr> outExprs;
    for (unsigned i = 0; i < equation->output.size(); ++i) {
      outSizes.push_back(loopSizes[equation->output[i]]);
      outExprs.push_back(getAffineDimExpr(i, context));
    }
    maps.push_back(AffineMap::get(numLoops, 0, outExprs, context));
    Value init = createFilled(rewriter, loc, outSizes, compute.type, 0.0);
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, operands,
            ValueRange{init}, maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value product;
              for (Value arg : args.drop_back()) {
                Value value = readAs(b, l, arg, elementType, compute);
                product = product ? createMul(b, l, product, value) : value;
              }
              linalg::YieldOp::create(
                  b, l, createAdd(b, l, args.back(), product));
            })
            .getResult(0);
    Value output = convertTensor(rewriter, loc, sum, elementType);
    rewriter.replaceOp(
        op, castTensor(rewriter, loc, output, op.getOutput().getType()));
    return success();
  }
};

} // namespace

void populateEinsumLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerEinsum>(patterns.getContext());
}

} // namespace odt::codegen
