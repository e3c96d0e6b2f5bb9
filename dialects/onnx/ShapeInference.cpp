//===- ShapeInference.cpp - symbolic dims for onnx ops --------------------===//

#include "dialects/onnx/ShapeInference.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace odt::onnx {

Dim ShapeContext::newSymbol(StringRef name) {
  int id = names.size();
  names.push_back(name.str());
  parent.push_back(id);
  boundSize.push_back(std::nullopt);
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

Dim ShapeContext::resolve(Dim dim) const {
  if (dim.isStatic())
    return dim;
  int root = find(dim.getSymbol());
  if (boundSize[root])
    return Dim::size(*boundSize[root]);
  return Dim::symbol(root);
}

Shape ShapeContext::resolve(ArrayRef<Dim> shape) const {
  Shape result;
  for (Dim dim : shape)
    result.push_back(resolve(dim));
  return result;
}

std::string ShapeContext::symbolName(Dim dim) const {
  Dim resolved = resolve(dim);
  if (resolved.isStatic())
    return std::to_string(resolved.getSize());
  return names[resolved.getSymbol()];
}

LogicalResult ShapeContext::unify(Dim a, Dim b, Operation *op,
                                  StringRef what) {
  a = resolve(a);
  b = resolve(b);
  if (a == b)
    return success();
  if (a.isStatic() && b.isStatic()) {
    if (op)
      op->emitError() << "node '" << getNodeName(op) << "' ("
                      << op->getName().getStringRef() << "): " << what
                      << ": " << a.getSize() << " vs " << b.getSize();
    return failure();
  }
  if (a.isStatic())
    std::swap(a, b);
  // `a` is a symbol now.
  if (b.isStatic()) {
    boundSize[a.getSymbol()] = b.getSize();
    return success();
  }
  // Both symbols: keep the older (lower id) one as representative so names
  // from graph inputs win over fresh names.
  int ra = a.getSymbol(), rb = b.getSymbol();
  if (rb < ra)
    std::swap(ra, rb);
  parent[rb] = ra;
  return success();
}

Shape ShapeContext::getShape(Value value) const {
  return resolve(shapes.lookup(value));
}

Type ShapeContext::getElementType(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

void ShapeContext::setShape(Value value, ArrayRef<Dim> shape,
                            Type elementType) {
  shapes[value] = Shape(shape.begin(), shape.end());
  value.setType(RankedTensorType::get(toStaticDims(shape), elementType));
}

void ShapeContext::refineTypes() {
  for (auto &[value, shape] : shapes)
    value.setType(RankedTensorType::get(toStaticDims(shape),
                                        getElementType(value)));
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
  for (Dim dim : shape) {
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
    auto shapeOp = dyn_cast<ONNXOpInterface>(op);
    if (!shapeOp) {
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
    if (failed(shapeOp.inferShapes(context)))
      failedAny = true;
  }
  return failure(failedAny);
}

} // namespace odt::onnx
