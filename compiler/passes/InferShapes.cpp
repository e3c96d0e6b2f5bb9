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

struct InferShapesPass : impl::InferShapesBase<InferShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    onnx::ShapeContext context;
    Builder builder(&getContext());
    for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      auto dims = func.getArgAttrOfType<ArrayAttr>(index, kDimsAttr);
      onnx::Shape shape;
      if (dims && dims.size() == static_cast<size_t>(type.getRank())) {
        for (Attribute dim : dims) {
          if (auto size = dyn_cast<IntegerAttr>(dim))
            shape.push_back(onnx::Dim::size(size.getInt()));
          else
            shape.push_back(context.namedSymbol(cast<StringAttr>(dim).getValue()));
        }
      } else {
        shape = context.shapeFromType(type, "arg" + std::to_string(index));
      }
      context.setShape(arg, shape, type.getElementType());
    }
    if (failed(onnx::inferShapesInBlock(func.front(), context)))
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
