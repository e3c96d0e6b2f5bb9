//===- InferShapes.cpp - symbolic shape inference as a pass ---------------===//

#include "compiler/passes/Passes.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_INFERSHAPES
#include "compiler/passes/Passes.h.inc"

namespace {

/// The symbolic shape of argument `arg` of ranked type `type`: the dims its
/// `onnx.dims` names (a size or a symbol name each), which must agree with
/// the static dims of the type; without `onnx.dims`, a fresh symbol for each
/// dynamic dim.
FailureOr<onnx::Shape> getArgumentShape(func::FuncOp func, BlockArgument arg,
                                        RankedTensorType type,
                                        onnx::ShapeContext &context) {
  unsigned index = arg.getArgNumber();
  Attribute attr = func.getArgAttr(index, kDimsAttr);
  if (!attr)
    return context.shapeFromType(type, "arg" + std::to_string(index));
  auto error = [&]() {
    return emitError(arg.getLoc()) << "argument #" << index << ": ";
  };
  auto dims = dyn_cast<ArrayAttr>(attr);
  if (!dims || dims.size() != static_cast<size_t>(type.getRank()))
    return error() << kDimsAttr << " must list " << type.getRank()
                   << " dims (a size or a symbol name each), got " << attr;
  onnx::Shape shape;
  for (auto [d, dim] : llvm::enumerate(dims)) {
    std::optional<onnx::Dim> named;
    if (auto size = dyn_cast<IntegerAttr>(dim); size && size.getInt() >= 0)
      named = onnx::Dim::size(size.getInt());
    else if (auto name = dyn_cast<StringAttr>(dim); name && !name.empty())
      named = context.namedSymbol(name.getValue());
    else
      return error() << kDimsAttr << " dim " << d << " is " << dim
                     << ", neither a size nor a symbol name";
    int64_t size = type.getDimSize(d);
    if (!ShapedType::isDynamic(size) &&
        failed(context.unify(*named, onnx::Dim::size(size), nullptr, ""))) {
      InFlightDiagnostic diag = error() << kDimsAttr << " dim " << d << " is ";
      if (auto name = dyn_cast<StringAttr>(dim))
        diag << "'" << name.getValue() << "', bound to "
             << context.symbolName(*named) << " earlier";
      else
        diag << named->getSize();
      return diag << ", but the type " << type << " says " << size;
    }
    shape.push_back(*named);
  }
  return shape;
}

} // namespace

LogicalResult inferFunctionShapes(func::FuncOp func,
                                  onnx::ShapeContext &context) {
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      return emitError(arg.getLoc())
             << "argument #" << arg.getArgNumber() << " has type "
             << arg.getType() << "; shape inference needs ranked tensors";
    FailureOr<onnx::Shape> shape = getArgumentShape(func, arg, type, context);
    if (failed(shape))
      return failure();
    context.setShape(arg, *shape, type.getElementType());
  }
  return onnx::inferShapesInBlock(func.front(), context);
}

namespace {

struct InferShapesPass : impl::InferShapesBase<InferShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    onnx::ShapeContext context;
    Builder builder(&getContext());
    if (failed(inferFunctionShapes(func, context)))
      return signalPassFailure();
    context.refineTypes();
    auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
    func.setFunctionType(builder.getFunctionType(
        func.front().getArgumentTypes(), returnOp.getOperandTypes()));
    auto dimsAttr = [&](Value value) {
      SmallVector<Attribute> dims;
      for (onnx::Dim dim : context.getShape(value))
        dims.push_back(dim.isStatic()
                           ? Attribute(builder.getI64IntegerAttr(dim.getSize()))
                           : Attribute(builder.getStringAttr(
                                 context.symbolName(dim))));
      return builder.getArrayAttr(dims);
    };
    for (auto [index, arg] : llvm::enumerate(func.getArguments()))
      if (context.hasShape(arg))
        func.setArgAttr(index, kDimsAttr, dimsAttr(arg));
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands()))
      if (context.hasShape(value))
        func.setResultAttr(index, kDimsAttr, dimsAttr(value));
  }
};

} // namespace
} // namespace odt
