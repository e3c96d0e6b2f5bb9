//===- ElementwiseUtil.cpp - helpers of the Elementwise lowerings ---------===//

#include "codegen/conversion/ElementwiseUtil.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace odt::codegen {

static bool isHalfFloat(Type type) { return type.isF16() || type.isBF16(); }

Type getComputeType(Type storage, bool widenHalf) {
  if (widenHalf && isHalfFloat(storage))
    return Float32Type::get(storage.getContext());
  if (auto integer = dyn_cast<IntegerType>(storage))
    if (!integer.isSignless())
      return IntegerType::get(storage.getContext(), integer.getWidth());
  return storage;
}

bool isUnsignedElement(Type type) {
  return getElementTypeOrSelf(type).isUnsignedInteger();
}

/// f32 -> bf16, rounding to nearest even; NaN stays a (quiet) NaN.
static Value truncateToBF16(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type(), i16 = b.getI16Type();
  auto constant = [&](uint32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, value);
  Value sixteen = constant(16);
  Value high = arith::ShRUIOp::create(b, loc, bits, sixteen);
  Value lsb = arith::AndIOp::create(b, loc, high, constant(1));
  Value bias = arith::AddIOp::create(b, loc, lsb, constant(0x7fff));
  Value rounded = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, bias), sixteen);
  Value quietNaN = arith::OrIOp::create(b, loc, high, constant(0x0040));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value,
                                      value);
  Value result = arith::SelectOp::create(b, loc, isNaN, quietNaN, rounded);
  Value narrow = arith::TruncIOp::create(b, loc, i16, result);
  return arith::BitcastOp::create(b, loc, b.getBF16Type(), narrow);
}

/// f64 -> f32 rounding to odd: exact where f64 -> f32 is exact, else the odd
/// one of the two neighbours. Rounding that to a narrower type then rounds
/// as a single step from f64 would.
static Value truncateToF32RoundToOdd(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, f32, value);
  Value back = arith::ExtFOp::create(b, loc, value.getType(), nearest);
  Value inexact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                                        back, value);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
  Value even = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, bits, one),
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
  // Bits grow with the magnitude: step toward the value's magnitude.
  Value absBack = math::AbsFOp::create(b, loc, back);
  Value absValue = math::AbsFOp::create(b, loc, value);
  Value roundedUp = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                          absBack, absValue);
  Value stepped = arith::SelectOp::create(
      b, loc, roundedUp, arith::SubIOp::create(b, loc, bits, one),
      arith::AddIOp::create(b, loc, bits, one));
  Value adjust = arith::AndIOp::create(b, loc, inexact, even);
  Value result = arith::SelectOp::create(b, loc, adjust, stepped, bits);
  return arith::BitcastOp::create(b, loc, f32, result);
}

Value convertFloat(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (from.isBF16() && !to.isF32())
    return convertFloat(b, loc, convertFloat(b, loc, value, b.getF32Type()),
                        to);
  if (toWidth > fromWidth && !from.isBF16() && !to.isBF16())
    return arith::ExtFOp::create(b, loc, to, value);
  if (from.isBF16()) // to f32
    return arith::ExtFOp::create(b, loc, to, value);
  // Narrowing (or f16 -> bf16).
  if (to.isBF16()) {
    if (from.isF64())
      value = truncateToF32RoundToOdd(b, loc, value);
    else if (!from.isF32())
      value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return truncateToBF16(b, loc, value);
  }
  if (to.isF16() && from.isF64())
    value = truncateToF32RoundToOdd(b, loc, value);
  if (value.getType() == to)
    return value;
  return arith::TruncFOp::create(b, loc, to, value);
}

Value toComputeType(OpBuilder &b, Location loc, Value value, bool widenHalf) {
  Type storage = value.getType();
  Type compute = getComputeType(storage, widenHalf);
  if (compute == storage)
    return value;
  if (isa<FloatType>(storage))
    return convertFloat(b, loc, value, compute);
  return UnrealizedConversionCastOp::create(b, loc, compute, value)
      .getResult(0);
}

Value fromComputeType(OpBuilder &b, Location loc, Value value, Type storage) {
  Type type = value.getType();
  if (type == storage)
    return value;
  if (isa<FloatType>(storage))
    return convertFloat(b, loc, value, storage);
  return UnrealizedConversionCastOp::create(b, loc, storage, value)
      .getResult(0);
}

SmallVector<OpFoldResult> getBroadcastSizes(OpBuilder &b, Location loc,
                                            ValueRange inputs,
                                            RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      continue;
    }
    OpFoldResult size = b.getIndexAttr(1);
    for (Value input : inputs) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (!type)
        continue;
      int64_t i = d - (rank - type.getRank());
      if (i < 0 || type.getDimSize(i) == 1)
        continue;
      if (type.isDynamicDim(i))
        size = tensor::DimOp::create(b, loc, input, i).getResult();
      else
        size = b.getIndexAttr(type.getDimSize(i));
      break;
    }
    sizes.push_back(size);
  }
  return sizes;
}

Value toSignlessTensor(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto integer = dyn_cast<IntegerType>(type.getElementType());
  if (!integer || integer.isSignless())
    return tensor;
  return tensor::BitcastOp::create(
      b, loc, type.clone(b.getIntegerType(integer.getWidth())), tensor);
}

LogicalResult lowerToElementwise(ConversionPatternRewriter &rewriter,
                                 Operation *op, ValueRange inputs,
                                 ScalarBody body, ElementwiseOptions options) {
  SmallVector<RankedTensorType> resultTypes;
  for (Type type : op->getResultTypes()) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked)
      return rewriter.notifyMatchFailure(op, "results must be ranked tensors");
    resultTypes.push_back(ranked);
  }
  SmallVector<Value> presentInputs;
  for (Value input : inputs) {
    if (onnx::isNoValue(input))
      continue;
    if (!isa<RankedTensorType>(input.getType()))
      return rewriter.notifyMatchFailure(op, "inputs must be ranked tensors");
    presentInputs.push_back(input);
  }
  Location loc = op->getLoc();
  // arith computes on signless integers only: unsigned tensors are
  // reinterpreted (tensor.bitcast, no data movement) on the way in and out.
  for (Value &input : presentInputs)
    input = toSignlessTensor(rewriter, loc, input);
  SmallVector<OpFoldResult> sizes =
      getBroadcastSizes(rewriter, loc, presentInputs, resultTypes.front());
  SmallVector<Value> outputs;
  for (RankedTensorType type : resultTypes)
    outputs.push_back(createEmpty(rewriter, loc, sizes,
                                  getComputeType(type.getElementType(),
                                                 /*widenHalf=*/false)));
  ValueRange results = buildElementwise(
      rewriter, loc, presentInputs, outputs,
      [&](OpBuilder &b, Location l, ValueRange args) {
        SmallVector<Value> scalars;
        for (Value arg : args.take_front(presentInputs.size()))
          scalars.push_back(toComputeType(b, l, arg, options.widenHalf));
        SmallVector<Value> computed = body(b, l, scalars);
        SmallVector<Value> stored;
        for (auto [value, type] : llvm::zip_equal(computed, resultTypes))
          stored.push_back(fromComputeType(
              b, l, value,
              getComputeType(type.getElementType(), /*widenHalf=*/false)));
        return stored;
      });
  SmallVector<Value> replacements;
  for (auto [result, type] : llvm::zip_equal(results, resultTypes)) {
    Value value = result;
    auto computed = cast<RankedTensorType>(value.getType());
    if (computed.getElementType() != type.getElementType())
      value = tensor::BitcastOp::create(
          rewriter, loc, computed.clone(type.getElementType()), value);
    if (value.getType() != type)
      value = tensor::CastOp::create(rewriter, loc, type, value);
    replacements.push_back(value);
  }
  rewriter.replaceOp(op, replacements);
  return success();
}

Value createMaximum(OpBuilder &b, Location loc, Value x, Value y,
                    bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value createMinimum(OpBuilder &b, Location loc, Value x, Value y,
                    bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

Value createComparison(OpBuilder &b, Location loc, Comparison kind, Value x,
                       Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType())) {
    arith::CmpFPredicate predicate =
        kind == Comparison::Equal  ? arith::CmpFPredicate::OEQ
        : kind == Comparison::Less ? arith::CmpFPredicate::OLT
                                   : arith::CmpFPredicate::OGT;
    return arith::CmpFOp::create(b, loc, predicate, x, y);
  }
  arith::CmpIPredicate predicate =
      kind == Comparison::Equal ? arith::CmpIPredicate::eq
      : kind == Comparison::Less
          ? (isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
          : (isUnsigned ? arith::CmpIPredicate::ugt
                        : arith::CmpIPredicate::sgt);
  return arith::CmpIOp::create(b, loc, predicate, x, y);
}

Value extractComputeScalar(OpBuilder &b, Location loc, Value tensor,
                           bool widenHalf) {
  return toComputeType(b, loc, extractScalar(b, loc, tensor), widenHalf);
}

Value createErf(OpBuilder &b, Location loc, Value x) {
  // Eigen's rational approximation of erf on [-4, 4] (erf is +-1 beyond in
  // single precision): x * P(x^2) / Q(x^2).
  static const double alpha[] = {
      -2.72614225801306e-10, 2.77068142495902e-08,  -2.10102402082508e-06,
      -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
      -1.60960333262415e-02};
  static const double beta[] = {-1.45660718464996e-05, -2.13374055278905e-04,
                                -1.68282697438203e-03, -7.37332916720468e-03,
                                -1.42647390514189e-02};
  Type type = x.getType();
  Value clamped = arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, createScalar(b, loc, type, -4.0)),
      createScalar(b, loc, type, 4.0));
  Value x2 = arith::MulFOp::create(b, loc, clamped, clamped);
  auto horner = [&](ArrayRef<double> coefficients) {
    Value acc = createScalar(b, loc, type, coefficients.front());
    for (double c : coefficients.drop_front())
      acc = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, acc, x2),
                                  createScalar(b, loc, type, c));
    return acc;
  };
  Value p = arith::MulFOp::create(b, loc, clamped, horner(alpha));
  return arith::DivFOp::create(b, loc, p, horner(beta));
}

} // namespace odt::codegen
