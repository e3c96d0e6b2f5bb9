//===- InferShapes.cpp - symbolic shape inference as a pass ---------------===//

#include "compiler/passes/Passes.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

/// "dim 0 of input 'labels'" or "dim 0 of node 'Concat_3' (onnx.Concat)".
std::string describeSite(func::FuncOp func,
                         const onnx::ShapeContext::DimSite &site) {
  std::string text = "dim " + std::to_string(site.dim) + " of ";
  if (auto arg = dyn_cast<BlockArgument>(site.value)) {
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kNameAttr);
    return text + "input '" +
           (name ? name.str() : "#" + std::to_string(arg.getArgNumber())) + "'";
  }
  Operation *op = site.value.getDefiningOp();
  return text + "node '" + onnx::getNodeName(op) + "' (" +
         op->getName().getStringRef().str() + ")";
}

/// "N: dim 0 of input 'x', C: dim 1 of input 'x'": where the run time
/// reads each symbol of `reading` (just the site for a plain symbol).
std::string describeReading(func::FuncOp func,
                            const onnx::ShapeContext &context,
                            const onnx::ShapeContext::SizeReading &reading) {
  std::string text;
  for (auto [factor, symbol] :
       llvm::zip_equal(reading.factors, reading.dim.getSymbols()))
    text += (text.empty() ? "" : ", ") +
            (reading.dim.isSymbol()
                 ? ""
                 : context.symbolName(onnx::Dim::symbol(symbol)) + ": ") +
            describeSite(func, factor);
  return text;
}

/// States every pair of sizes the inference took to be equal
/// (ShapeContext::getAssumedDims) as a cf.assert before the return: both
/// read with tensor.dim where the run time has them, compared. The message
/// names the two and is what the runtime reports when they differ.
LogicalResult stateAssumedDims(func::FuncOp func,
                               const onnx::ShapeContext &context) {
  SmallVector<onnx::ShapeContext::AssumedDim> assumed =
      context.getAssumedDims();
  if (assumed.empty())
    return success();
  Operation *terminator = func.front().getTerminator();
  OpBuilder builder(terminator);
  Location loc = terminator->getLoc();
  DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t value) {
    Value &known = constants[value];
    if (!known)
      known = arith::ConstantIndexOp::create(builder, loc, value);
    return known;
  };
  auto compute = [&](const onnx::ShapeContext::SizeReading &reading) {
    int64_t coefficient = reading.dim.getCoefficient();
    Value size = coefficient != 1 || reading.factors.empty()
                     ? constant(coefficient)
                     : Value();
    for (const onnx::ShapeContext::DimSite &factor : reading.factors) {
      Value dim = tensor::DimOp::create(builder, loc, factor.value,
                                        constant(factor.dim));
      size = size ? Value(arith::MulIOp::create(builder, loc, size, dim)) : dim;
    }
    return size;
  };
  for (const onnx::ShapeContext::AssumedDim &pair : assumed) {
    // Bindings made after an equation was met can leave two known sizes.
    if (pair.actual.dim.isStatic() && pair.expected.dim.isStatic()) {
      std::string need =
          "its shapes need " + std::to_string(pair.actual.dim.getSize()) +
          " to equal " + std::to_string(pair.expected.dim.getSize());
      if (!pair.op)
        return func.emitError() << need;
      return pair.op->emitError()
             << "node '" << onnx::getNodeName(pair.op) << "' ("
             << pair.op->getName().getStringRef() << "): " << need;
    }
    // The expected side of a merged symbol is named by where it is read
    // ("dim 0 of input 'labels'"): the symbol's own name is often the
    // computed one's, which reads as if the dim had to equal itself.
    std::string message;
    if (pair.site) {
      message = describeSite(func, *pair.site) + " must equal " +
                (pair.expected.dim.isSymbol()
                     ? describeSite(func, pair.expected.factors.front())
                     : context.symbolName(pair.expected.dim) + " (" +
                           describeReading(func, context, pair.expected) + ")");
    } else {
      std::string sources = describeReading(func, context, pair.actual);
      std::string more = describeReading(func, context, pair.expected);
      if (!more.empty())
        sources += (sources.empty() ? "" : ", ") + more;
      message = (pair.op ? "node '" + onnx::getNodeName(pair.op) + "' (" +
                               pair.op->getName().getStringRef().str() + ")"
                         : std::string("shape inference")) +
                " takes " + context.symbolName(pair.actual.dim) + " to equal " +
                context.symbolName(pair.expected.dim) + " (" + sources + ")";
    }
    Value equal =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                              compute(pair.actual), compute(pair.expected));
    cf::AssertOp::create(builder, loc, equal, message);
  }
  return success();
}

/// Drops the checks an earlier run stated, and what only they read: the
/// graph holds no other arith or tensor ops, and walking backwards frees a
/// size before its factors.
void eraseAssumedDimChecks(func::FuncOp func) {
  bool any = false;
  for (auto check : llvm::make_early_inc_range(func.getOps<cf::AssertOp>())) {
    check.erase();
    any = true;
  }
  if (!any)
    return;
  SmallVector<Operation *> ops;
  for (Operation &op : func.front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() &&
        isa<arith::ArithDialect, tensor::TensorDialect>(op->getDialect()))
      op->erase();
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
  using InferShapesBase::InferShapesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    eraseAssumedDimChecks(func);
    onnx::ShapeContext context;
    Builder builder(&getContext());
    if (failed(inferFunctionShapes(func, context)))
      return signalPassFailure();
    context.refineTypes();
    if (assertAssumedDims && failed(stateAssumedDims(func, context)))
      return signalPassFailure();
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
