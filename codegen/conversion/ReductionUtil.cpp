//===- ReductionUtil.cpp - helpers of the Reduction family's lowerings ----===//

#include "codegen/conversion/ReductionUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <functional>
#include <limits>

using namespace mlir;

namespace odt::codegen::reduction {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

Numeric Numeric::of(Type elementType) {
  if (auto integer = dyn_cast<IntegerType>(elementType))
    return {IntegerType::get(elementType.getContext(), integer.getWidth()),
            integer.isUnsigned() || integer.getWidth() == 1};
  return {elementType, false};
}

Type getAccumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value toSignless(OpBuilder &b, Location loc, Value scalar) {
  auto integer = dyn_cast<IntegerType>(scalar.getType());
  if (!integer || integer.isSignless())
    return scalar;
  Type signless = IntegerType::get(b.getContext(), integer.getWidth());
  return UnrealizedConversionCastOp::create(b, loc, signless, scalar)
      .getResult(0);
}

Value fromSignless(OpBuilder &b, Location loc, Value scalar, Type elementType) {
  if (scalar.getType() == elementType)
    return scalar;
  return UnrealizedConversionCastOp::create(b, loc, elementType, scalar)
      .getResult(0);
}

Value convertScalar(OpBuilder &b, Location loc, Value scalar, Numeric from,
                    Numeric to) {
  Type target = to.type;
  if (from.type == target)
    return scalar;
  if (from.isFloat() && to.isFloat()) {
    unsigned fromWidth = from.type.getIntOrFloatBitWidth();
    unsigned toWidth = target.getIntOrFloatBitWidth();
    if (fromWidth == toWidth) { // float16 <-> bfloat16: through f32
      scalar = arith::ExtFOp::create(b, loc, b.getF32Type(), scalar);
      return arith::TruncFOp::create(b, loc, target, scalar);
    }
    if (fromWidth < toWidth)
      return arith::ExtFOp::create(b, loc, target, scalar);
    return arith::TruncFOp::create(b, loc, target, scalar);
  }
  if (from.isInteger() && to.isFloat()) {
    if (from.isUnsigned)
      return arith::UIToFPOp::create(b, loc, target, scalar);
    return arith::SIToFPOp::create(b, loc, target, scalar);
  }
  if (from.isFloat()) {
    if (to.isUnsigned)
      return arith::FPToUIOp::create(b, loc, target, scalar);
    return arith::FPToSIOp::create(b, loc, target, scalar);
  }
  unsigned fromWidth = from.type.getIntOrFloatBitWidth();
  unsigned toWidth = target.getIntOrFloatBitWidth();
  if (fromWidth < toWidth) {
    if (from.isUnsigned)
      return arith::ExtUIOp::create(b, loc, target, scalar);
    return arith::ExtSIOp::create(b, loc, target, scalar);
  }
  return arith::TruncIOp::create(b, loc, target, scalar);
}

Value readAs(OpBuilder &b, Location loc, Value scalar, Type elementType,
             Numeric to) {
  return convertScalar(b, loc, toSignless(b, loc, scalar),
                       Numeric::of(elementType), to);
}

Value convertTensor(OpBuilder &b, Location loc, Value tensor, Type to) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type from = type.getElementType();
  if (from == to)
    return tensor;
  Value init = createEmpty(b, loc, getSizes(b, loc, tensor), to);
  return buildElementwise(
             b, loc, {tensor}, {init},
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value value = readAs(nb, l, args[0], from, Numeric::of(to));
               return SmallVector<Value>{fromSignless(nb, l, value, to)};
             })
      .front();
}

Value createLowest(OpBuilder &b, Location loc, Numeric numeric) {
  if (numeric.isFloat())
    return createScalar(b, loc, numeric.type,
                        -std::numeric_limits<double>::infinity());
  unsigned width = numeric.type.getIntOrFloatBitWidth();
  APInt value = numeric.isUnsigned ? APInt::getMinValue(width)
                                   : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(numeric.type, value));
}

Value createHighest(OpBuilder &b, Location loc, Numeric numeric) {
  if (numeric.isFloat())
    return createScalar(b, loc, numeric.type,
                        std::numeric_limits<double>::infinity());
  unsigned width = numeric.type.getIntOrFloatBitWidth();
  APInt value = numeric.isUnsigned ? APInt::getMaxValue(width)
                                   : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(numeric.type, value));
}

Value createMax(OpBuilder &b, Location loc, Numeric numeric, Value lhs,
                Value rhs) {
  if (numeric.isFloat())
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  if (numeric.isUnsigned)
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  return arith::MaxSIOp::create(b, loc, lhs, rhs);
}

Value createMin(OpBuilder &b, Location loc, Numeric numeric, Value lhs,
                Value rhs) {
  if (numeric.isFloat())
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  if (numeric.isUnsigned)
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  return arith::MinSIOp::create(b, loc, lhs, rhs);
}

Value createAdd(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

Value createMul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> keptSizes(ArrayRef<OpFoldResult> sizes,
                                    ArrayRef<int64_t> axes) {
  SmallVector<OpFoldResult> kept;
  for (auto [index, size] : llvm::enumerate(sizes))
    if (!llvm::is_contained(axes, int64_t(index)))
      kept.push_back(size);
  return kept;
}

AffineMap keptDimsMap(MLIRContext *context, int64_t rank,
                      ArrayRef<int64_t> axes) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(axes, i))
      exprs.push_back(getAffineDimExpr(i, context));
  return AffineMap::get(rank, 0, exprs, context);
}

SmallVector<utils::IteratorType> reductionIterators(int64_t rank,
                                                    ArrayRef<int64_t> axes) {
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  for (int64_t axis : axes)
    iterators[axis] = utils::IteratorType::reduction;
  return iterators;
}

ValueRange buildReduction(
    OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<int64_t> axes,
    ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = cast<RankedTensorType>(inputs.front().getType()).getRank();
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps(inputs.size(), identityMap(context, rank));
  maps.append(inits.size(), keptDimsMap(context, rank, axes));
  return linalg::GenericOp::create(
             b, loc, TypeRange(inits), inputs, inits, maps,
             reductionIterators(rank, axes),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args));
             })
      .getResults();
}

Value expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                        ArrayRef<int64_t> axes, int64_t rank,
                        ArrayRef<OpFoldResult> sizes) {
  if (axes.empty())
    return reduced;
  // Each kept dim absorbs the unit dims before it; trailing unit dims join
  // the last group.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  SmallVector<OpFoldResult> expandedSizes;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    bool isReduced = llvm::is_contained(axes, i);
    OpFoldResult size = isReduced ? OpFoldResult(b.getIndexAttr(1)) : sizes[i];
    expandedSizes.push_back(size);
    std::optional<int64_t> constant = getConstantIntValue(size);
    shape.push_back(constant ? *constant : ShapedType::kDynamic);
    pending.push_back(i);
    if (!isReduced) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(reduced.getType()).getElementType());
  return tensor::ExpandShapeOp::create(b, loc, type, reduced, groups,
                                       expandedSizes);
}

Value countElements(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                    ArrayRef<int64_t> axes, Numeric type) {
  int64_t staticCount = 1;
  Value dynamicCount;
  for (int64_t axis : axes) {
    if (std::optional<int64_t> size = getConstantIntValue(sizes[axis])) {
      staticCount *= *size;
      continue;
    }
    Value size = getValueOrCreateConstantIndexOp(b, loc, sizes[axis]);
    dynamicCount =
        dynamicCount ? arith::MulIOp::create(b, loc, dynamicCount, size) : size;
  }
  if (!dynamicCount) {
    if (type.isFloat())
      return createScalar(b, loc, type.type, static_cast<double>(staticCount));
    return arith::ConstantOp::create(b, loc,
                                     b.getIntegerAttr(type.type, staticCount));
  }
  if (staticCount != 1)
    dynamicCount = arith::MulIOp::create(
        b, loc, dynamicCount,
        arith::ConstantIndexOp::create(b, loc, staticCount));
  Value count =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), dynamicCount);
  return convertScalar(b, loc, count, Numeric{b.getI64Type(), false}, type);
}

/// Whether a float is +-inf.
static Value isInfinite(OpBuilder &b, Location loc, Value value) {
  Value magnitude = math::AbsFOp::create(b, loc, value);
  Value inf = createScalar(b, loc, value.getType(),
                           std::numeric_limits<double>::infinity());
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, magnitude,
                               inf);
}

/// ReduceLogSumExp: max + log(sum(exp(x - max))) in `compute`'s type, over
/// `axes` of `data` ([rank], the kept dims' sizes `kept`).
static Value reduceLogSumExp(ConversionPatternRewriter &rewriter, Location loc,
                             Value data, ArrayRef<int64_t> axes,
                             ArrayRef<OpFoldResult> kept, int64_t rank,
                             Type elementType, Numeric compute) {
  MLIRContext *context = rewriter.getContext();
  auto read = [&](OpBuilder &b, Location l, Value x) {
    return readAs(b, l, x, elementType, compute);
  };
  // max + log(sum(exp(x - max))), shifting by 0 where max is infinite
  // (all -inf, or +inf present) so no inf - inf arises.
  Value lowest = createLowest(rewriter, loc, compute);
  Value empty = createEmpty(rewriter, loc, kept, compute.type);
  Value maxInit = linalg::FillOp::create(rewriter, loc, ValueRange{lowest},
                                         ValueRange{empty})
                      .getResult(0);
  Value maxima =
      buildReduction(rewriter, loc, {data}, axes, {maxInit},
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       return SmallVector<Value>{arith::MaximumFOp::create(
                           b, l, args[1], read(b, l, args[0]))};
                     })
          .front();
  Value zero = createScalar(rewriter, loc, compute.type, 0.0);
  Value shiftInit = createEmpty(rewriter, loc, kept, compute.type);
  Value shifts =
      buildElementwise(rewriter, loc, {maxima}, {shiftInit},
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         return SmallVector<Value>{arith::SelectOp::create(
                             b, l, isInfinite(b, l, args[0]), zero, args[0])};
                       })
          .front();
  Value sumInit = createFilled(rewriter, loc, kept, compute.type, 0.0);
  AffineMap keptMap = keptDimsMap(context, rank, axes);
  Value sums =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{sumInit.getType()}, ValueRange{data, shifts},
          ValueRange{sumInit},
          SmallVector<AffineMap>{identityMap(context, rank), keptMap, keptMap},
          reductionIterators(rank, axes),
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value x = read(b, l, args[0]);
            Value e = math::ExpOp::create(
                b, l, arith::SubFOp::create(b, l, x, args[1]));
            linalg::YieldOp::create(
                b, l, Value(arith::AddFOp::create(b, l, args[2], e)));
          })
          .getResult(0);
  Value resultInit = createEmpty(rewriter, loc, kept, compute.type);
  return buildElementwise(rewriter, loc, {sums, shifts}, {resultInit},
                          [&](OpBuilder &b, Location l, ValueRange args) {
                            Value log = math::LogOp::create(b, l, args[0]);
                            return SmallVector<Value>{
                                arith::AddFOp::create(b, l, args[1], log)};
                          })
      .front();
}

LogicalResult lowerReduce(Operation *op, Value data,
                          FailureOr<SmallVector<int64_t>> axes, bool keepdims,
                          ReduceKind kind,
                          ConversionPatternRewriter &rewriter) {
  if (failed(axes))
    return rewriter.notifyMatchFailure(op, "axes are not constant");
  Location loc = op->getLoc();
  Type resultType = op->getResult(0).getType();
  if (axes->empty()) {
    rewriter.replaceOp(op, castTensor(rewriter, loc, data, resultType));
    return success();
  }
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  Type elementType = dataType.getElementType();
  Numeric numeric = Numeric::of(elementType);
  SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, data);
  SmallVector<OpFoldResult> kept = keptSizes(sizes, *axes);

  // The type the reduction computes in.
  Numeric compute = numeric;
  if (numeric.isFloat())
    compute.type = getAccumulatorType(numeric.type);
  else if (kind == ReduceKind::LogSumExp || kind == ReduceKind::LogSum)
    compute = Numeric{rewriter.getF64Type(), false};

  auto read = [&](OpBuilder &b, Location l, Value x) {
    return readAs(b, l, x, elementType, compute);
  };
  auto reduce = [&](double init, auto combine) {
    Value filled = createFilled(rewriter, loc, kept, compute.type, init);
    return buildReduction(rewriter, loc, {data}, *axes, {filled},
                          [&](OpBuilder &b, Location l, ValueRange args) {
                            return SmallVector<Value>{
                                combine(b, l, read(b, l, args[0]), args[1])};
                          })
        .front();
  };

  Value reduced;
  // The last step, from the accumulator to a value of compute's type.
  std::function<Value(OpBuilder &, Location, Value)> finish;
  switch (kind) {
  case ReduceKind::Sum:
    reduced = reduce(0.0, [](OpBuilder &b, Location l, Value x, Value acc) {
      return createAdd(b, l, acc, x);
    });
    break;
  case ReduceKind::Mean: {
    reduced = reduce(0.0, [](OpBuilder &b, Location l, Value x, Value acc) {
      return createAdd(b, l, acc, x);
    });
    Value count = countElements(rewriter, loc, sizes, *axes, compute);
    finish = [count, compute](OpBuilder &b, Location l, Value sum) -> Value {
      if (compute.isFloat())
        return arith::DivFOp::create(b, l, sum, count);
      if (compute.isUnsigned)
        return arith::DivUIOp::create(b, l, sum, count);
      return arith::DivSIOp::create(b, l, sum, count);
    };
    break;
  }
  case ReduceKind::Max:
  case ReduceKind::Min: {
    bool isMax = kind == ReduceKind::Max;
    Value init = isMax ? createLowest(rewriter, loc, compute)
                       : createHighest(rewriter, loc, compute);
    Value empty = createEmpty(rewriter, loc, kept, compute.type);
    Value filled = linalg::FillOp::create(rewriter, loc, ValueRange{init},
                                          ValueRange{empty})
                       .getResult(0);
    reduced =
        buildReduction(rewriter, loc, {data}, *axes, {filled},
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value x = read(b, l, args[0]);
                         return SmallVector<Value>{
                             isMax ? createMax(b, l, compute, args[1], x)
                                   : createMin(b, l, compute, args[1], x)};
                       })
            .front();
    break;
  }
  case ReduceKind::L2: {
    reduced = reduce(0.0, [](OpBuilder &b, Location l, Value x, Value acc) {
      return createAdd(b, l, acc, createMul(b, l, x, x));
    });
    finish = [compute](OpBuilder &b, Location l, Value sum) -> Value {
      if (compute.isFloat())
        return math::SqrtOp::create(b, l, sum);
      Numeric f64{b.getF64Type(), false};
      Value root =
          math::SqrtOp::create(b, l, convertScalar(b, l, sum, compute, f64));
      return convertScalar(b, l, root, f64, compute);
    };
    break;
  }
  case ReduceKind::Prod:
    reduced = reduce(1.0, [](OpBuilder &b, Location l, Value x, Value acc) {
      return createMul(b, l, acc, x);
    });
    break;
  case ReduceKind::L1:
    reduced =
        reduce(0.0, [compute](OpBuilder &b, Location l, Value x, Value acc) {
          Value magnitude;
          if (compute.isFloat())
            magnitude = math::AbsFOp::create(b, l, x);
          else if (compute.isUnsigned)
            magnitude = x;
          else
            magnitude = math::AbsIOp::create(b, l, x);
          return createAdd(b, l, acc, magnitude);
        });
    break;
  case ReduceKind::SumSquare:
    reduced = reduce(0.0, [](OpBuilder &b, Location l, Value x, Value acc) {
      return createAdd(b, l, acc, createMul(b, l, x, x));
    });
    break;
  case ReduceKind::LogSum:
    reduced = reduce(0.0, [](OpBuilder &b, Location l, Value x, Value acc) {
      return createAdd(b, l, acc, x);
    });
    finish = [](OpBuilder &b, Location l, Value sum) -> Value {
      return math::LogOp::create(b, l, sum);
    };
    break;
  case ReduceKind::LogSumExp:
    reduced = reduceLogSumExp(rewriter, loc, data, *axes, kept, rank,
                              elementType, compute);
    break;
  }

  // To the result's element type (and its unsigned form).
  if (finish || compute.type != elementType) {
    Value init = createEmpty(rewriter, loc, kept, elementType);
    reduced =
        buildElementwise(
            rewriter, loc, {reduced}, {init},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value value = finish ? finish(b, l, args[0]) : args[0];
              value = convertScalar(b, l, value, compute, numeric);
              return SmallVector<Value>{fromSignless(b, l, value, elementType)};
            })
            .front();
  }
  if (keepdims)
    reduced = expandReducedDims(rewriter, loc, reduced, *axes, rank, sizes);
  rewriter.replaceOp(op, castTensor(rewriter, loc, reduced, resultType));
  return success();
}

Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t axis,
                   bool logarithm) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Type elementType = type.getElementType();
  Type compute = getAccumulatorType(elementType);
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> axes = {axis};
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input);
  SmallVector<OpFoldResult> kept = keptSizes(sizes, axes);
  auto ext = [&](OpBuilder &nb, Location l, Value x) {
    return convertScalar(nb, l, x, Numeric::of(elementType),
                         Numeric::of(compute));
  };
  // max along the axis
  Value maxInit = createFilled(b, loc, kept, compute,
                               -std::numeric_limits<double>::infinity());
  Value maxima =
      buildReduction(b, loc, {input}, axes, {maxInit},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return SmallVector<Value>{arith::MaximumFOp::create(
                           nb, l, args[1], ext(nb, l, args[0]))};
                     })
          .front();
  // sum of exp(x - max)
  AffineMap identity = identityMap(context, rank);
  AffineMap keptMap = keptDimsMap(context, rank, axes);
  Value sumInit = createFilled(b, loc, kept, compute, 0.0);
  Value sums =
      linalg::GenericOp::create(
          b, loc, TypeRange{sumInit.getType()}, ValueRange{input, maxima},
          ValueRange{sumInit},
          SmallVector<AffineMap>{identity, keptMap, keptMap},
          reductionIterators(rank, axes),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value shifted =
                arith::SubFOp::create(nb, l, ext(nb, l, args[0]), args[1]);
            Value e = math::ExpOp::create(nb, l, shifted);
            linalg::YieldOp::create(
                nb, l, Value(arith::AddFOp::create(nb, l, args[2], e)));
          })
          .getResult(0);
  // exp(x - max) / sum, or x - max - log(sum)
  Value init = createEmpty(b, loc, sizes, elementType);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{input, maxima, sums},
             ValueRange{init},
             SmallVector<AffineMap>{identity, keptMap, keptMap, identity},
             parallelIterators(rank),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value shifted =
                   arith::SubFOp::create(nb, l, ext(nb, l, args[0]), args[1]);
               Value result;
               if (logarithm) {
                 Value log = math::LogOp::create(nb, l, args[2]);
                 result = arith::SubFOp::create(nb, l, shifted, log);
               } else {
                 Value e = math::ExpOp::create(nb, l, shifted);
                 result = arith::DivFOp::create(nb, l, e, args[2]);
               }
               linalg::YieldOp::create(nb, l,
                                       convertScalar(nb, l, result,
                                                     Numeric::of(compute),
                                                     Numeric::of(elementType)));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LossLayout::LossLayout(OpBuilder &b, Location loc, Value scores) {
  rank = cast<RankedTensorType>(scores.getType()).getRank();
  sampleRank = rank - 1;
  scoreSizes = getSizes(b, loc, scores);
  for (int64_t i = 0; i < rank; ++i)
    if (i != 1)
      sampleSizes.push_back(scoreSizes[i]);
  numClasses = getValueOrCreateConstantIndexOp(b, loc, scoreSizes[1]);
}

AffineMap LossLayout::sampleMapInScoreDomain(MLIRContext *context) const {
  return keptDimsMap(context, rank, {1});
}

SmallVector<utils::IteratorType> LossLayout::classReductionIterators() const {
  return reductionIterators(rank, {1});
}

SmallVector<Value> LossLayout::scoreIndices(OpBuilder &b, Location loc,
                                            Value c) const {
  SmallVector<Value> indices;
  for (int64_t i = 0; i < sampleRank; ++i) {
    indices.push_back(linalg::IndexOp::create(b, loc, i));
    if (i == 0)
      indices.push_back(c);
  }
  return indices;
}

Value labelToClass(OpBuilder &b, Location loc, Value label, Value numClasses) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), label);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, numClasses, one);
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, index, last);
}

Value sampleWeights(OpBuilder &b, Location loc, const LossLayout &layout,
                    Value labels, Value weights,
                    std::optional<int64_t> ignoreIndex, Type elementType) {
  Value init = createEmpty(b, loc, layout.sampleSizes, elementType);
  Value zero = createScalar(b, loc, elementType, 0.0);
  Value one = createScalar(b, loc, elementType, 1.0);
  return buildElementwise(
             b, loc, {labels}, {init},
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value label = args[0];
               Value weight = one;
               if (!onnx::isNoValue(weights)) {
                 Value cls = labelToClass(nb, l, label, layout.numClasses);
                 weight = tensor::ExtractOp::create(nb, l, weights, cls);
               }
               if (ignoreIndex) {
                 Value ignored = arith::CmpIOp::create(
                     nb, l, arith::CmpIPredicate::eq, label,
                     createScalar(nb, l, label.getType(), *ignoreIndex));
                 weight = arith::SelectOp::create(nb, l, ignored, zero, weight);
               }
               return SmallVector<Value>{weight};
             })
      .front();
}

Value sumAll(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value init = createFilled(b, loc, {}, type.getElementType(), 0.0);
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return buildReduction(b, loc, {tensor}, axes, {init},
                        [&](OpBuilder &nb, Location l, ValueRange args) {
                          return SmallVector<Value>{
                              arith::AddFOp::create(nb, l, args[1], args[0])};
                        })
      .front();
}

Value buildNegativeLogLikelihood(OpBuilder &b, Location loc,
                                 const LossLayout &layout, Value logProb,
                                 Value labels, Value weights,
                                 std::optional<int64_t> ignoreIndex,
                                 StringRef reduction) {
  Type elementType = cast<RankedTensorType>(logProb.getType()).getElementType();
  Value w =
      sampleWeights(b, loc, layout, labels, weights, ignoreIndex, elementType);
  Value lossInit = createEmpty(b, loc, layout.sampleSizes, elementType);
  Value losses =
      buildElementwise(
          b, loc, {labels, w}, {lossInit},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value cls = labelToClass(nb, l, args[0], layout.numClasses);
            Value picked = tensor::ExtractOp::create(
                nb, l, logProb, layout.scoreIndices(nb, l, cls));
            Value weighted = arith::MulFOp::create(nb, l, picked, args[1]);
            return SmallVector<Value>{arith::NegFOp::create(nb, l, weighted)};
          })
          .front();
  if (reduction == "none")
    return losses;
  Value loss = sumAll(b, loc, losses);
  if (reduction != "mean")
    return loss;
  Value total = sumAll(b, loc, w);
  Value init = createEmpty(b, loc, {}, elementType);
  return buildElementwise(b, loc, {loss, total}, {init},
                          [&](OpBuilder &nb, Location l, ValueRange args) {
                            return SmallVector<Value>{
                                arith::DivFOp::create(nb, l, args[0], args[1])};
                          })
      .front();
}

} // namespace odt::codegen::reduction
