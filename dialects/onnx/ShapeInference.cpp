//===- ShapeInference.cpp - symbolic dims for onnx ops --------------------===//

#include "dialects/onnx/ShapeInference.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;

namespace odt::onnx {

//===----------------------------------------------------------------------===//
// Dim
//===----------------------------------------------------------------------===//

Dim Dim::product(int64_t coefficient, ArrayRef<int> symbols) {
  if (coefficient == 0)
    return Dim::size(0);
  SmallVector<int, 2> sorted(symbols.begin(), symbols.end());
  llvm::sort(sorted);
  return Dim(coefficient, std::move(sorted));
}

//===----------------------------------------------------------------------===//
// Symbols
//===----------------------------------------------------------------------===//

Dim ShapeContext::newSymbol(StringRef name) {
  int id = names.size();
  names.push_back(name.str());
  parent.push_back(id);
  binding.push_back(std::nullopt);
  sites.push_back(std::nullopt);
  return Dim::symbol(id);
}

Dim ShapeContext::namedSymbol(StringRef name) {
  auto it = byName.find(name);
  if (it != byName.end())
    return Dim::symbol(it->second);
  Dim dim = newSymbol(name);
  byName[name] = dim.getSymbol();
  return dim;
}

int ShapeContext::find(int symbol) const {
  while (parent[symbol] != symbol) {
    parent[symbol] = parent[parent[symbol]];
    symbol = parent[symbol];
  }
  return symbol;
}

// Bindings never refer to their own class, so resolution terminates; the
// depth bound only guards against a broken invariant.
Dim ShapeContext::resolveImpl(const Dim &dim, unsigned depth) const {
  int64_t coefficient = dim.getCoefficient();
  SmallVector<int, 4> symbols;
  for (int symbol : dim.getSymbols()) {
    int root = find(symbol);
    if (!binding[root] || depth > 64) {
      symbols.push_back(root);
      continue;
    }
    Dim bound = resolveImpl(*binding[root], depth + 1);
    int64_t scaled;
    if (llvm::MulOverflow(coefficient, bound.getCoefficient(), scaled))
      scaled = std::numeric_limits<int64_t>::max();
    coefficient = scaled;
    symbols.append(bound.getSymbols().begin(), bound.getSymbols().end());
  }
  return Dim::product(coefficient, symbols);
}

Dim ShapeContext::resolve(Dim dim) const {
  if (dim.isStatic())
    return dim;
  return resolveImpl(dim, 0);
}

Shape ShapeContext::resolve(ArrayRef<Dim> shape) const {
  Shape result;
  for (const Dim &dim : shape)
    result.push_back(resolve(dim));
  return result;
}

std::string ShapeContext::symbolName(Dim dim) const {
  Dim resolved = resolve(dim);
  if (resolved.isStatic())
    return std::to_string(resolved.getSize());
  std::string text;
  if (resolved.getCoefficient() != 1)
    text = std::to_string(resolved.getCoefficient());
  for (int symbol : resolved.getSymbols()) {
    if (!text.empty())
      text += "*";
    text += names[symbol];
  }
  return text;
}

void ShapeContext::bind(int root, Dim value) { binding[root] = value; }

/// Removes the symbols `a` and `b` have in common (multiset intersection).
static void cancelCommonSymbols(SmallVectorImpl<int> &a, SmallVectorImpl<int> &b) {
  SmallVector<int, 4> restA, restB;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++i;
      ++j;
    } else if (a[i] < b[j]) {
      restA.push_back(a[i++]);
    } else {
      restB.push_back(b[j++]);
    }
  }
  restA.append(a.begin() + i, a.end());
  restB.append(b.begin() + j, b.end());
  a.assign(restA);
  b.assign(restB);
}

LogicalResult ShapeContext::unify(Dim a, Dim b, Operation *op,
                                  StringRef what) {
  a = resolve(a);
  b = resolve(b);
  if (a == b)
    return success();
  auto mismatch = [&]() {
    if (op)
      op->emitError() << "node '" << getNodeName(op) << "' ("
                      << op->getName().getStringRef() << "): " << what
                      << ": " << symbolName(a) << " vs " << symbolName(b);
    return failure();
  };
  if (a.isStatic() && b.isStatic())
    return mismatch();
  // Two plain symbols: keep the older (lower id) one as representative so
  // names from graph inputs win over fresh names.
  if (a.isSymbol() && b.isSymbol()) {
    int ra = a.getSymbol(), rb = b.getSymbol();
    if (rb < ra)
      std::swap(ra, rb);
    parent[rb] = ra;
    return success();
  }
  // Cancel common factors: 2*N*C = 4*N*D is C = 2*D.
  SmallVector<int, 4> symbolsA(a.getSymbols()), symbolsB(b.getSymbols());
  cancelCommonSymbols(symbolsA, symbolsB);
  int64_t ca = a.getCoefficient(), cb = b.getCoefficient();
  if (ca != 0 && cb != 0) {
    int64_t g = std::gcd(ca, cb);
    ca /= g;
    cb /= g;
  }
  Dim ra = Dim::product(ca, symbolsA), rb = Dim::product(cb, symbolsB);
  if (!rb.isSymbol() && ra.isSymbol())
    std::swap(ra, rb);
  if (rb.isSymbol()) {
    // S = expression, unless the expression contains S (S = S*T: assume).
    if (llvm::is_contained(ra.getSymbols(), rb.getSymbol())) {
      equations.push_back({a, b, op});
      return success();
    }
    if (ra.isSymbol()) {
      int x = ra.getSymbol(), y = rb.getSymbol();
      if (y < x)
        std::swap(x, y);
      parent[y] = x;
      return success();
    }
    bind(rb.getSymbol(), ra);
    return success();
  }
  // k*S = c: S = c/k if k divides c; no integer solution otherwise.
  if (ra.isStatic() && !rb.isStatic())
    std::swap(ra, rb);
  if (rb.isStatic() && ra.getSymbols().size() == 1 && ra.getCoefficient() > 0) {
    // Cancelling symbols assumed them non-zero: only a static pair from the
    // start is a certain mismatch, so the check is on the uncancelled dims.
    if (rb.getSize() % ra.getCoefficient() != 0) {
      if (symbolsA.size() + symbolsB.size() ==
          a.getSymbols().size() + b.getSymbols().size())
        return mismatch();
      equations.push_back({a, b, op});
      return success();
    }
    bind(ra.getSymbols().front(),
         Dim::size(rb.getSize() / ra.getCoefficient()));
    return success();
  }
  // N*C = 784, 2*N = 3*M, ...: assumed to hold (and checked at run time).
  equations.push_back({a, b, op});
  return success();
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

std::optional<Dim> ShapeContext::multiply(Dim a, Dim b) const {
  a = resolve(a);
  b = resolve(b);
  int64_t coefficient;
  if (llvm::MulOverflow(a.getCoefficient(), b.getCoefficient(), coefficient))
    return std::nullopt;
  SmallVector<int, 4> symbols(a.getSymbols());
  symbols.append(b.getSymbols().begin(), b.getSymbols().end());
  return Dim::product(coefficient, symbols);
}

std::optional<Dim> ShapeContext::product(ArrayRef<Dim> dims) const {
  Dim result = Dim::size(1);
  for (const Dim &dim : dims) {
    std::optional<Dim> next = multiply(result, dim);
    if (!next)
      return std::nullopt;
    result = *next;
  }
  return result;
}

std::optional<Dim> ShapeContext::divideExact(Dim a, Dim b) const {
  a = resolve(a);
  b = resolve(b);
  if (b.getCoefficient() == 0)
    return std::nullopt;
  if (a.getCoefficient() == 0)
    return Dim::size(0);
  if (a.getCoefficient() % b.getCoefficient() != 0)
    return std::nullopt;
  SmallVector<int, 4> symbolsA(a.getSymbols()), symbolsB(b.getSymbols());
  cancelCommonSymbols(symbolsA, symbolsB);
  if (!symbolsB.empty())
    return std::nullopt;
  return Dim::product(a.getCoefficient() / b.getCoefficient(), symbolsA);
}

std::optional<Dim> ShapeContext::add(Dim a, Dim b) const {
  a = resolve(a);
  b = resolve(b);
  if (a.getCoefficient() == 0)
    return b;
  if (b.getCoefficient() == 0)
    return a;
  if (a.getSymbols() != b.getSymbols())
    return std::nullopt;
  int64_t sum;
  if (llvm::AddOverflow(a.getCoefficient(), b.getCoefficient(), sum))
    return std::nullopt;
  return Dim::product(sum, a.getSymbols());
}

Dim ShapeContext::dimOrNewSymbol(std::optional<Dim> dim, StringRef name) {
  if (dim) {
    Dim resolved = resolve(*dim);
    if (resolved.getCoefficient() >= 0)
      return resolved;
  }
  return newSymbol(name);
}

Dim ShapeContext::newResultSymbol(Operation *op, int64_t dim, unsigned result) {
  std::string name = getNodeName(op);
  if (op->getNumResults() > 1)
    name += "_out" + std::to_string(result);
  return newSymbol(name + "_dim" + std::to_string(dim));
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes,
                                                  int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized || llvm::is_contained(result, *normalized))
      return std::nullopt;
    result.push_back(*normalized);
  }
  llvm::sort(result);
  return result;
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Shape ShapeContext::getShape(Value value) const {
  return resolve(shapes.lookup(value));
}

Type ShapeContext::getElementType(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

void ShapeContext::setShape(Value value, ArrayRef<Dim> shape,
                            Type elementType) {
  shapes[value] = Shape(shape.begin(), shape.end());
  for (auto [d, dim] : llvm::enumerate(shape))
    if (dim.isSymbol() && !sites[dim.getSymbol()])
      sites[dim.getSymbol()] = DimSite{value, static_cast<int64_t>(d)};
  value.setType(RankedTensorType::get(toStaticDims(shape), elementType));
}

void ShapeContext::refineTypes() {
  for (auto [symbol, size] : fallbackSizes)
    if (resolve(symbol).isSymbol())
      (void)unify(symbol, Dim::size(size), nullptr, "");
  for (auto &[value, shape] : shapes)
    value.setType(RankedTensorType::get(toStaticDims(shape),
                                        getElementType(value)));
}

SmallVector<ShapeContext::AssumedDim> ShapeContext::getAssumedDims() const {
  auto isArgument = [](const DimSite &site) {
    return isa<BlockArgument>(site.value);
  };
  // Where each class's size is read: preferably from an argument (the
  // caller's), else at the first op that computes it.
  DenseMap<int, DimSite> reference;
  for (auto [symbol, site] : llvm::enumerate(sites)) {
    if (!site)
      continue;
    auto [it, inserted] =
        reference.try_emplace(find(static_cast<int>(symbol)), *site);
    if (!inserted && !isArgument(it->second) && isArgument(*site))
      it->second = *site;
  }
  auto read = [&](Dim dim) -> std::optional<SizeReading> {
    SizeReading reading{resolve(dim), {}};
    for (int root : reading.dim.getSymbols()) {
      auto it = reference.find(root);
      if (it == reference.end())
        return std::nullopt;
      reading.factors.push_back(it->second);
    }
    return reading;
  };
  SmallVector<AssumedDim> assumed;
  for (auto [symbol, site] : llvm::enumerate(sites)) {
    if (!site)
      continue;
    Dim merged = Dim::symbol(static_cast<int>(symbol));
    std::optional<SizeReading> expected = read(merged);
    if (!expected || expected->dim.isStatic())
      continue;
    if (expected->dim.isSymbol()) {
      const DimSite &from = expected->factors.front();
      if ((from.value == site->value && from.dim == site->dim) ||
          (isArgument(*site) && isArgument(from)))
        continue;
    }
    SizeReading actual{merged, {*site}};
    assumed.push_back(
        {*site, nullptr, std::move(actual), std::move(*expected)});
  }
  // An equation met again (each broadcast against the same bias) is
  // checked once. The static side goes on the right, where folding puts
  // constants, so the runtime's message gives the sizes in its order.
  llvm::SmallVector<std::pair<Dim, Dim>> seen;
  for (const Equation &equation : equations) {
    std::optional<SizeReading> a = read(equation.a), b = read(equation.b);
    if (!a || !b || a->dim == b->dim)
      continue;
    if (a->dim.isStatic())
      std::swap(a, b);
    if (llvm::is_contained(seen, std::make_pair(a->dim, b->dim)))
      continue;
    seen.push_back({a->dim, b->dim});
    assumed.push_back(
        {std::nullopt, equation.op, std::move(*a), std::move(*b)});
  }
  return assumed;
}

Shape ShapeContext::shapeFromType(Type type, StringRef hint) {
  Shape shape;
  auto ranked = cast<RankedTensorType>(type);
  for (auto [index, size] : llvm::enumerate(ranked.getShape())) {
    if (ShapedType::isDynamic(size))
      shape.push_back(newSymbol((hint + "_dim" + Twine(index)).str()));
    else
      shape.push_back(Dim::size(size));
  }
  return shape;
}

SmallVector<int64_t> ShapeContext::toStaticDims(ArrayRef<Dim> shape) const {
  SmallVector<int64_t> dims;
  for (const Dim &dim : shape) {
    Dim resolved = resolve(dim);
    dims.push_back(resolved.isStatic() ? resolved.getSize()
                                       : ShapedType::kDynamic);
  }
  return dims;
}

FailureOr<Shape> ShapeContext::broadcast(ArrayRef<Dim> lhs, ArrayRef<Dim> rhs,
                                         Operation *op) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Shape result(rank, Dim::size(1));
  for (size_t i = 0; i < rank; ++i) {
    std::optional<Dim> l, r;
    if (i < lhs.size())
      l = resolve(lhs[lhs.size() - 1 - i]);
    if (i < rhs.size())
      r = resolve(rhs[rhs.size() - 1 - i]);
    Dim &out = result[rank - 1 - i];
    if (!l || (l->isStatic() && l->getSize() == 1)) {
      out = r ? *r : Dim::size(1);
    } else if (!r || (r->isStatic() && r->getSize() == 1)) {
      out = *l;
    } else {
      // Neither side is known to be 1: ONNX requires equality. A symbol
      // that is 1 at run time would broadcast; odt assumes equal sizes for
      // symbolic dims and the runtime checks the bound inputs.
      if (failed(unify(*l, *r, op, "shapes cannot broadcast")))
        return failure();
      out = resolve(*l);
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// The element count of a static shape, or std::nullopt.
static std::optional<int64_t> staticCount(ArrayRef<Dim> shape) {
  int64_t count = 1;
  for (const Dim &dim : shape) {
    if (!dim.isStatic() ||
        llvm::MulOverflow(count, dim.getSize(), count))
      return std::nullopt;
  }
  return count;
}

void ShapeContext::setValues(Value value, ArrayRef<std::optional<Dim>> known) {
  if (!hasShape(value))
    return;
  std::optional<int64_t> count = staticCount(getShape(value));
  if (!count || *count > kMaxValues || *count != (int64_t)known.size())
    return;
  if (llvm::none_of(known, [](const std::optional<Dim> &d) { return d; }))
    return;
  values[value] = Values(known.begin(), known.end());
}

void ShapeContext::setValues(Value value, ArrayRef<Dim> known) {
  Values partial(known.begin(), known.end());
  setValues(value, partial);
}

std::optional<Values> ShapeContext::getPartialValues(Value value) const {
  auto it = values.find(value);
  if (it != values.end()) {
    Values result;
    for (const std::optional<Dim> &dim : it->second)
      result.push_back(dim ? std::optional<Dim>(resolve(*dim)) : std::nullopt);
    return result;
  }
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!elements || elements.getNumElements() > kMaxValues)
    return std::nullopt;
  Type elementType = elements.getElementType();
  Values result;
  if (auto integer = dyn_cast<IntegerType>(elementType)) {
    if (integer.getWidth() == 1)
      return std::nullopt;
    for (const APInt &element : elements.getValues<APInt>())
      result.push_back(Dim::size(integer.isUnsigned()
                                     ? static_cast<int64_t>(element.getZExtValue())
                                     : element.getSExtValue()));
    return result;
  }
  if (isa<FloatType>(elementType)) {
    // Integral floats only (shape arithmetic done in float).
    for (const APFloat &element : elements.getValues<APFloat>()) {
      APFloat rounded = element;
      rounded.roundToIntegral(llvm::RoundingMode::TowardZero);
      if (!element.isFinite() || rounded.compare(element) != APFloat::cmpEqual ||
          std::abs(element.convertToDouble()) > 9.0e15) {
        result.push_back(std::nullopt);
        continue;
      }
      result.push_back(Dim::size(static_cast<int64_t>(element.convertToDouble())));
    }
    return result;
  }
  return std::nullopt;
}

std::optional<SmallVector<Dim>> ShapeContext::getValues(Value value) const {
  std::optional<Values> partial = getPartialValues(value);
  if (!partial)
    return std::nullopt;
  SmallVector<Dim> result;
  for (const std::optional<Dim> &dim : *partial) {
    if (!dim)
      return std::nullopt;
    result.push_back(*dim);
  }
  return result;
}

std::optional<SmallVector<int64_t>>
ShapeContext::getStaticValues(Value value) const {
  std::optional<SmallVector<Dim>> known = getValues(value);
  if (!known)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (const Dim &dim : *known) {
    if (!dim.isStatic())
      return std::nullopt;
    result.push_back(dim.getSize());
  }
  return result;
}

void ShapeContext::forwardValues(Value from, Value to) {
  if (std::optional<Values> known = getPartialValues(from))
    setValues(to, *known);
}

//===----------------------------------------------------------------------===//
// Values through elementwise arithmetic
//===----------------------------------------------------------------------===//

namespace {

enum class ValueOp { Add, Sub, Mul, Div, Mod, FMod, Neg, Same, Equal, Where };

/// Integer division toward zero, as ONNX Runtime computes it.
std::optional<Dim> divideValues(const ShapeContext &context, Dim a, Dim b,
                                bool isFloat) {
  if (a.isStatic() && b.isStatic()) {
    if (b.getSize() == 0 ||
        (a.getSize() == std::numeric_limits<int64_t>::min() && b.getSize() == -1))
      return std::nullopt;
    if (isFloat && a.getSize() % b.getSize() != 0)
      return std::nullopt;
    return Dim::size(a.getSize() / b.getSize());
  }
  return context.divideExact(a, b);
}

/// a mod b of static integers: the sign of b (Python's %) or, for fmod,
/// of a (C's %).
std::optional<Dim> moduloValues(Dim a, Dim b, bool fmod, bool isFloat) {
  if (isFloat || !a.isStatic() || !b.isStatic() || b.getSize() == 0 ||
      (a.getSize() == std::numeric_limits<int64_t>::min() && b.getSize() == -1))
    return std::nullopt;
  int64_t remainder = a.getSize() % b.getSize();
  if (!fmod && remainder != 0 && ((remainder < 0) != (b.getSize() < 0)))
    remainder += b.getSize();
  return Dim::size(remainder);
}

/// a == b for known values (1 or 0), where decidable: equal forms are
/// equal; two sizes compare; a symbol (a size, never negative) differs from
/// a negative constant (PyTorch's -1 in expand shapes).
std::optional<Dim> equalValues(const ShapeContext &context, Dim a, Dim b) {
  a = context.resolve(a);
  b = context.resolve(b);
  if (a == b)
    return Dim::size(1);
  if (a.isStatic() && b.isStatic())
    return Dim::size(0);
  if ((a.isStatic() && a.getSize() < 0) || (b.isStatic() && b.getSize() < 0))
    return Dim::size(0);
  return std::nullopt;
}

std::optional<Dim> applyValueOp(const ShapeContext &context, ValueOp kind,
                                std::optional<Dim> a, std::optional<Dim> b,
                                bool isFloat, std::optional<Dim> c = {}) {
  if (kind == ValueOp::Where) {
    if (!a || !a->isStatic())
      return std::nullopt;
    return a->getSize() != 0 ? b : c;
  }
  if (!a || (kind != ValueOp::Neg && kind != ValueOp::Same && !b))
    return std::nullopt;
  switch (kind) {
  case ValueOp::Same:
    return a;
  case ValueOp::Neg:
    if (a->getCoefficient() == std::numeric_limits<int64_t>::min())
      return std::nullopt;
    return Dim::product(-a->getCoefficient(), a->getSymbols());
  case ValueOp::Add:
    return context.add(*a, *b);
  case ValueOp::Sub: {
    if (b->getCoefficient() == std::numeric_limits<int64_t>::min())
      return std::nullopt;
    return context.add(*a, Dim::product(-b->getCoefficient(), b->getSymbols()));
  }
  case ValueOp::Mul:
    return context.multiply(*a, *b);
  case ValueOp::Div:
    return divideValues(context, *a, *b, isFloat);
  case ValueOp::Mod:
  case ValueOp::FMod:
    return moduloValues(*a, *b, kind == ValueOp::FMod, isFloat);
  case ValueOp::Equal:
    return equalValues(context, *a, *b);
  case ValueOp::Where:
    break;
  }
  return std::nullopt;
}

/// The row-major index in an operand of shape `shape` (aligned to the
/// trailing dims of the result, size-1 dims broadcast) of result element
/// `index` of a result of shape `resultShape` (all static).
int64_t broadcastIndex(ArrayRef<int64_t> resultShape, ArrayRef<int64_t> shape,
                       int64_t index) {
  int64_t offset = 0, stride = 1;
  for (int64_t d = resultShape.size() - 1, od = shape.size() - 1; d >= 0;
       --d, --od) {
    int64_t coordinate = index % resultShape[d];
    index /= resultShape[d];
    if (od < 0)
      continue;
    if (shape[od] != 1)
      offset += coordinate * stride;
    stride *= shape[od];
  }
  return offset;
}

void propagateElementwiseValues(Operation *op, ShapeContext &context) {
  StringRef name = op->getName().getStringRef();
  ValueOp kind;
  unsigned arity = 2;
  if (name == "onnx.Add")
    kind = ValueOp::Add;
  else if (name == "onnx.Sub")
    kind = ValueOp::Sub;
  else if (name == "onnx.Mul")
    kind = ValueOp::Mul;
  else if (name == "onnx.Div")
    kind = ValueOp::Div;
  else if (name == "onnx.Mod")
    kind = cast<ModOp>(op).getFmod() ? ValueOp::FMod : ValueOp::Mod;
  else if (name == "onnx.Equal")
    kind = ValueOp::Equal;
  else if (name == "onnx.Where")
    kind = ValueOp::Where, arity = 3;
  else if (name == "onnx.Neg")
    kind = ValueOp::Neg, arity = 1;
  else if (name == "onnx.Cast" || name == "onnx.Floor" || name == "onnx.Ceil" ||
           name == "onnx.Round")
    kind = ValueOp::Same, arity = 1;
  else
    return;
  if (op->getNumResults() != 1 || op->getNumOperands() < arity)
    return;
  Value result = op->getResult(0);
  if (!context.hasShape(result) || context.getPartialValues(result))
    return;
  Type resultElement = ShapeContext::getElementType(result);
  bool isFloat = isa<FloatType>(resultElement);
  // Booleans carry values (0 or 1) only as Equal's result.
  bool isBool = isa<IntegerType>(resultElement) &&
                resultElement.getIntOrFloatBitWidth() == 1;
  if (!isFloat && !(isa<IntegerType>(resultElement) && !isBool) &&
      !(isBool && kind == ValueOp::Equal))
    return;
  if (kind == ValueOp::Equal &&
      isa<FloatType>(ShapeContext::getElementType(op->getOperand(0))))
    return;
  std::optional<int64_t> count = staticCount(context.getShape(result));
  if (!count || *count > ShapeContext::kMaxValues)
    return;
  SmallVector<int64_t> resultShape =
      context.toStaticDims(context.getShape(result));
  SmallVector<std::optional<Values>> operandValues;
  SmallVector<SmallVector<int64_t>> operandShapes;
  for (unsigned i = 0; i < arity; ++i) {
    Value operand = op->getOperand(i);
    if (!context.hasShape(operand))
      return;
    operandValues.push_back(context.getPartialValues(operand));
    if (!operandValues.back())
      return;
    operandShapes.push_back(context.toStaticDims(context.getShape(operand)));
    if (llvm::any_of(operandShapes.back(), ShapedType::isDynamic))
      return;
  }
  Values resultValues;
  for (int64_t index = 0; index < *count; ++index) {
    std::optional<Dim> a =
        (*operandValues[0])[broadcastIndex(resultShape, operandShapes[0], index)];
    std::optional<Dim> b, c;
    if (arity >= 2)
      b = (*operandValues[1])[broadcastIndex(resultShape, operandShapes[1],
                                             index)];
    if (arity == 3)
      c = (*operandValues[2])[broadcastIndex(resultShape, operandShapes[2],
                                             index)];
    resultValues.push_back(applyValueOp(context, kind, a, b, isFloat, c));
  }
  context.setValues(result, resultValues);
}

} // namespace

LogicalResult inferOp(Operation *op, ShapeContext &context) {
  auto shapeOp = dyn_cast<ONNXOpInterface>(op);
  if (!shapeOp) {
    op->emitError() << "no shape inference for '" << op->getName() << "'";
    return failure();
  }
  if (failed(shapeOp.inferShapes(context)))
    return failure();
  propagateElementwiseValues(op, context);
  return success();
}

std::string formatShape(const ShapeContext &context, ArrayRef<Dim> shape) {
  std::string text = "[";
  for (auto [index, dim] : llvm::enumerate(shape)) {
    if (index)
      text += ", ";
    text += context.symbolName(dim);
  }
  return text + "]";
}

LogicalResult inferShapesInBlock(Block &block, ShapeContext &context) {
  bool failedAny = false;
  for (Operation &op : block) {
    if (isa<func::ReturnOp>(op) || isa<NoValueOp>(op))
      continue;
    if (!isa<ONNXOpInterface>(op)) {
      op.emitError() << "no shape inference for '" << op.getName() << "'";
      failedAny = true;
      continue;
    }
    bool operandsKnown = llvm::all_of(op.getOperands(), [&](Value v) {
      return isa<NoneType>(v.getType()) || context.hasShape(v);
    });
    if (!operandsKnown) {
      // An earlier failure already reported the cause.
      failedAny = true;
      continue;
    }
    if (failed(inferOp(&op, context)))
      failedAny = true;
  }
  return failure(failedAny);
}

} // namespace odt::onnx
