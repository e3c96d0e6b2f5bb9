//===- BufferSizes.cpp - buffer sizes as polynomials of named dims --------===//

#include "codegen/common/BufferSizes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace odt {

Polynomial constantPolynomial(int64_t value) {
  Polynomial p;
  if (value)
    p[{}] = value;
  return p;
}

Polynomial add(const Polynomial &a, const Polynomial &b) {
  Polynomial sum = a;
  for (auto &[monomial, coefficient] : b)
    sum[monomial] += coefficient;
  return sum;
}

Polynomial subtract(const Polynomial &a, const Polynomial &b) {
  Polynomial difference = a;
  for (auto &[monomial, coefficient] : b)
    if ((difference[monomial] -= coefficient) == 0)
      difference.erase(monomial);
  return difference;
}

Polynomial multiply(const Polynomial &a, const Polynomial &b) {
  Polynomial product;
  for (auto &[ma, ca] : a)
    for (auto &[mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      llvm::sort(m);
      product[m] += ca * cb;
    }
  return product;
}

Polynomial upperBound(const Polynomial &a, const Polynomial &b) {
  Polynomial bound = a;
  for (auto &[monomial, coefficient] : b)
    bound[monomial] = std::max(bound[monomial], coefficient);
  return bound;
}

bool lessOrEqual(const Polynomial &a, const Polynomial &b) {
  for (auto &[monomial, coefficient] : a) {
    auto it = b.find(monomial);
    if (coefficient > (it == b.end() ? 0 : it->second))
      return false;
  }
  return true;
}

Polynomial roundUpCoefficients(const Polynomial &p, int64_t alignment) {
  Polynomial rounded;
  for (auto &[monomial, coefficient] : p)
    rounded[monomial] = llvm::divideCeil(coefficient, alignment) * alignment;
  return rounded;
}

int64_t evaluateAt(const Polynomial &p, int64_t dimValue) {
  int64_t value = 0;
  for (auto &[monomial, coefficient] : p) {
    int64_t term = coefficient;
    for (size_t i = 0; i < monomial.size(); ++i)
      term *= dimValue;
    value += term;
  }
  return value;
}

std::string format(const Polynomial &p) {
  if (p.empty())
    return "0";
  std::string text;
  for (auto it = p.rbegin(); it != p.rend(); ++it) {
    if (!text.empty())
      text += " + ";
    text += std::to_string(it->second);
    for (const std::string &dim : it->first)
      text += "*" + dim;
  }
  return text;
}

std::optional<Polynomial> BufferSizes::bytesOf(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  // Index elements are 64-bit on the targets odt compiles for; vectors
  // count all their lanes. Other element types have no size known here.
  Type element = type.getElementType();
  int64_t elementBits;
  if (element.isIndex())
    elementBits = 64;
  else if (element.isIntOrFloat())
    elementBits = element.getIntOrFloatBitWidth();
  else if (auto vector = dyn_cast<VectorType>(element);
           vector && vector.hasStaticShape() &&
           vector.getElementType().isIntOrFloat())
    elementBits =
        vector.getNumElements() * vector.getElementType().getIntOrFloatBitWidth();
  else
    return std::nullopt;
  int64_t elementBytes = std::max<int64_t>(1, llvm::divideCeil(elementBits, 8));
  Polynomial bytes = constantPolynomial(elementBytes);
  unsigned dynamic = 0;
  for (int64_t dim : type.getShape()) {
    std::optional<Polynomial> size =
        ShapedType::isDynamic(dim)
            ? indexValue(alloc.getDynamicSizes()[dynamic++])
            : constantPolynomial(dim);
    if (!size)
      return std::nullopt;
    bytes = multiply(bytes, *size);
  }
  return bytes;
}

std::optional<Polynomial> BufferSizes::indexValue(Value value) {
  APInt known;
  if (matchPattern(value, m_ConstantInt(&known)))
    return constantPolynomial(known.getSExtValue());
  if (auto dim = value.getDefiningOp<memref::DimOp>())
    if (std::optional<int64_t> index = dim.getConstantIndex())
      return dimOf(dim.getSource(), *index);
  if (Operation *op = value.getDefiningOp();
      op && isa<arith::MulIOp, arith::AddIOp>(op)) {
    std::optional<Polynomial> lhs = indexValue(op->getOperand(0));
    std::optional<Polynomial> rhs = indexValue(op->getOperand(1));
    if (!lhs || !rhs)
      return std::nullopt;
    return isa<arith::MulIOp>(op) ? multiply(*lhs, *rhs) : add(*lhs, *rhs);
  }
  // A Reshape's inferred dim: the element count divided by the known dims'
  // product, exact when every coefficient is a multiple of the divisor.
  if (Operation *op = value.getDefiningOp();
      op && isa<arith::DivSIOp, arith::DivUIOp>(op) &&
      matchPattern(op->getOperand(1), m_ConstantInt(&known)) &&
      known.getSExtValue() > 0) {
    int64_t divisor = known.getSExtValue();
    std::optional<Polynomial> dividend = indexValue(op->getOperand(0));
    if (!dividend)
      return std::nullopt;
    Polynomial quotient;
    for (auto &[monomial, coefficient] : *dividend) {
      if (coefficient % divisor != 0)
        return std::nullopt;
      quotient[monomial] = coefficient / divisor;
    }
    return quotient;
  }
  return std::nullopt;
}

/// Dim `d` of a buffer, through what made it: an argument (its `onnx.dims`
/// name), an allocation's size operand, a cast, or a reshape of another
/// buffer.
std::optional<Polynomial> BufferSizes::dimOf(Value buffer, int64_t d) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || d >= type.getRank())
    return std::nullopt;
  if (!type.isDynamicDim(d))
    return constantPolynomial(type.getDimSize(d));
  if (auto arg = dyn_cast<BlockArgument>(buffer)) {
    if (arg.getOwner()->getParentOp() != func ||
        !arg.getOwner()->isEntryBlock())
      return std::nullopt;
    auto dims =
        func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "onnx.dims");
    if (dims && d < (int64_t)dims.size())
      if (auto name = dyn_cast<StringAttr>(dims[d]))
        return Polynomial{{{name.str()}, 1}};
    return std::nullopt;
  }
  Operation *producer = buffer.getDefiningOp();
  if (auto alloc = dyn_cast_or_null<memref::AllocOp>(producer))
    return indexValue(alloc.getDynamicSizes()[type.getDynamicDimIndex(d)]);
  if (auto cast = dyn_cast_or_null<memref::CastOp>(producer))
    return dimOf(cast.getSource(), d);
  if (auto subview = dyn_cast_or_null<memref::SubViewOp>(producer)) {
    // Sizes of the kept dims, in order (rank-reducing views drop some).
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    int64_t kept = -1;
    for (auto [index, size] : llvm::enumerate(subview.getMixedSizes())) {
      if (dropped.test(index) || ++kept != d)
        continue;
      if (auto value = dyn_cast<Value>(size))
        return indexValue(value);
      return constantPolynomial(*getConstantIntValue(size));
    }
    return std::nullopt;
  }
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(producer)) {
    OpFoldResult size = expand.getMixedOutputShape()[d];
    if (auto value = dyn_cast<Value>(size))
      return indexValue(value);
    return constantPolynomial(*getConstantIntValue(size));
  }
  if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(producer)) {
    Polynomial product = constantPolynomial(1);
    // A local: getReassociationIndices() returns a temporary that a range
    // over its element would outlive (ASan: stack-use-after-scope).
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    for (int64_t source : groups[d]) {
      std::optional<Polynomial> size = dimOf(collapse.getSrc(), source);
      if (!size)
        return std::nullopt;
      product = multiply(product, *size);
    }
    return product;
  }
  return std::nullopt;
}

Value BufferSizes::dimValue(OpBuilder &builder, func::FuncOp func,
                            StringRef name) {
  for (BlockArgument arg : func.getArguments()) {
    auto dims =
        func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "onnx.dims");
    if (!dims || !isa<MemRefType>(arg.getType()))
      continue;
    for (auto [index, dim] : llvm::enumerate(dims))
      if (auto text = dyn_cast<StringAttr>(dim); text && text == name)
        return memref::DimOp::create(builder, func.getLoc(), arg, index);
  }
  return nullptr;
}

Value BufferSizes::materialize(OpBuilder &builder, Location loc,
                               const Polynomial &p,
                               const std::map<std::string, Value> &dims) {
  Value sum;
  for (auto &[monomial, coefficient] : p) {
    Value term =
        coefficient == 1 && !monomial.empty()
            ? Value()
            : arith::ConstantIndexOp::create(builder, loc, coefficient);
    for (const std::string &dim : monomial)
      term = term ? arith::MulIOp::create(builder, loc, term, dims.at(dim))
                  : dims.at(dim);
    sum = sum ? arith::AddIOp::create(builder, loc, sum, term) : term;
  }
  return sum ? sum : arith::ConstantIndexOp::create(builder, loc, 0);
}

} // namespace odt
