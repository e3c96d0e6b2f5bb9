//===- Reshape.cpp - onnx.Reshape -> tensor -------------------------------===//
//
// A collapse to 1-D and an expand to the result (canonicalization folds the
// pair into one reshape where it can). Dynamic result dims: with a single
// one, the element count divided by the static dims; otherwise each comes
// from the shape operand at run time (0 copies the input dim unless
// allowzero, -1 is the rest of the element count). Small static integer
// tensors (shape computations) are rebuilt element by element instead.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerReshape : OpConversionPattern<onnx::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), shape = adaptor.getShape();
    auto type = cast<RankedTensorType>(op.getReshaped().getType());
    auto dataType = cast<RankedTensorType>(data.getType());
    if (isSmallIntTensor(type) && isSmallIntTensor(dataType)) {
      rewriter.replaceOp(
          op, buildFromElements(rewriter, loc, type,
                                [&](int64_t flat, ArrayRef<int64_t>) {
                                  return extractFlat(rewriter, loc, data, flat);
                                }));
      return success();
    }
    int64_t rank = type.getRank();
    int64_t dynamicCount = type.getNumDynamicDims();
    SmallVector<Value> targets;
    auto target = [&](int64_t d) -> Value {
      // The dims the shape operand asks for, with 0 and -1 resolved.
      if (targets.empty()) {
        Value zero = indexConstant(rewriter, loc, 0);
        Value minusOne = indexConstant(rewriter, loc, -1);
        Value one = indexConstant(rewriter, loc, 1);
        Value known = one;
        for (int64_t i = 0; i < rank; ++i) {
          Value value = extractIndex(rewriter, loc, shape, i);
          if (!op.getAllowzero() && i < dataType.getRank())
            value = selectValue(
                rewriter, loc,
                cmpIndex(rewriter, loc, arith::CmpIPredicate::eq, value, zero),
                dimValue(rewriter, loc, data, i), value);
          targets.push_back(value);
          Value isInferred = cmpIndex(rewriter, loc, arith::CmpIPredicate::eq,
                                      value, minusOne);
          known = mulIndex(rewriter, loc, known,
                           selectValue(rewriter, loc, isInferred, one, value));
        }
        Value rest = divIndex(rewriter, loc, elementCount(rewriter, loc, data),
                              maxIndex(rewriter, loc, known, one));
        for (Value &value : targets)
          value = selectValue(rewriter, loc,
                              cmpIndex(rewriter, loc, arith::CmpIPredicate::eq,
                                       value, minusOne),
                              rest, value);
      }
      return targets[d];
    };
    SmallVector<OpFoldResult> sizes =
        mixedSizes(type, [&](int64_t d) -> Value {
          if (dynamicCount != 1)
            return target(d);
          // The only unknown dim: what the static ones leave.
          int64_t staticProduct = 1;
          for (int64_t i = 0; i < rank; ++i)
            if (!type.isDynamicDim(i))
              staticProduct *= type.getDimSize(i);
          if (staticProduct == 0)
            return target(d);
          return divIndex(rewriter, loc, elementCount(rewriter, loc, data),
                          indexConstant(rewriter, loc, staticProduct));
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, data, type, sizes));
    return success();
  }
};

} // namespace

void populateReshapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReshape>(patterns.getContext());
}

} // namespace odt::codegen
