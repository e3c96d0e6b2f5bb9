//===- GenerateShapeFunctions.cpp - output shapes at run time -------------===//

#include "codegen/common/Passes.h"
#include "codegen/common/ShapeFunctions.h"
#include "compiler/training/Roles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_GENERATESHAPEFUNCTIONS
#include "codegen/common/Passes.h.inc"

namespace {

struct GenerateShapeFunctionsPass
    : impl::GenerateShapeFunctionsBase<GenerateShapeFunctionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          !func.getName().ends_with(kShapeFunctionSuffix) &&
          needsShapeFunction(func))
        entries.push_back(func);
    for (func::FuncOp entry : entries)
      if (failed(generate(entry)))
        return signalPassFailure();
  }

  LogicalResult generate(func::FuncOp entry) {
    MLIRContext *context = entry.getContext();
    std::string name = (entry.getName() + kShapeFunctionSuffix).str();
    if (SymbolTable::lookupSymbolIn(getOperation(), name))
      return entry.emitError() << "symbol '" << name << "' already exists";
    OpBuilder builder(entry);
    builder.setInsertionPointAfter(entry);
    auto shapes = cast<func::FuncOp>(builder.clone(*entry));
    shapes.setName(name);

    // The result: every dim of every untied output, as int64.
    auto returnOp = cast<func::ReturnOp>(shapes.front().getTerminator());
    builder.setInsertionPoint(returnOp);
    Location loc = returnOp.getLoc();
    SmallVector<Value> dims;
    for (auto [r, value] : llvm::enumerate(returnOp.getOperands())) {
      if (shapes.getResultAttr(r, kTiedAttr))
        continue;
      auto type = cast<RankedTensorType>(value.getType());
      for (int64_t d = 0; d < type.getRank(); ++d) {
        Value dim = type.isDynamicDim(d)
                        ? Value(tensor::DimOp::create(builder, loc, value, d))
                        : Value(arith::ConstantIndexOp::create(
                              builder, loc, type.getDimSize(d)));
        dims.push_back(arith::IndexCastOp::create(
            builder, loc, builder.getI64Type(), dim));
      }
    }
    auto resultType = RankedTensorType::get(
        {static_cast<int64_t>(dims.size())}, builder.getI64Type());
    Value packed = tensor::FromElementsOp::create(builder, loc, resultType, dims);
    func::ReturnOp::create(builder, loc, packed);
    returnOp.erase();
    shapes.setFunctionType(FunctionType::get(
        context, shapes.getArgumentTypes(), TypeRange{resultType}));
    NamedAttrList attrs;
    attrs.set(kNameAttr, builder.getStringAttr("output_dims"));
    attrs.set(kRoleAttr, builder.getStringAttr(getRoleName(ArgRole::UserOutput)));
    attrs.set(kDimsAttr, builder.getArrayAttr(
                             {builder.getI64IntegerAttr(dims.size())}));
    shapes.setAllResultAttrs(
        ArrayRef<DictionaryAttr>{attrs.getDictionary(context)});

    // Fold dims of computed tensors back to the values they come from, and
    // drop everything else.
    RewritePatternSet patterns(context);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(shapes, std::move(patterns))))
      return shapes.emitError("simplifying the shape function did not converge");
    return success();
  }
};

} // namespace
} // namespace odt
