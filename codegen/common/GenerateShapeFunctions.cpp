//===- GenerateShapeFunctions.cpp - output shapes at run time -------------===//

#include "codegen/common/AbiRecord.h"
#include "codegen/common/Passes.h"
#include "codegen/common/ShapeFunctions.h"
#include "compiler/training/Roles.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
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
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.getName().ends_with(kShapeFunctionSuffix))
        continue;
      // The graph stage decided which entry points have one (the descriptor
      // names it): a check folded away since must not take it back.
      DictionaryAttr abi = getAbiEntry(module, func.getName());
      bool wanted =
          abi ? abi.contains("shape_function") : needsShapeFunction(func);
      if (wanted) {
        entries.push_back(func);
        continue;
      }
      if (!func.getOps<cf::AssertOp>().empty()) {
        func.emitError() << "states assumed dims but its ABI record has no "
                            "shape function to check them";
        return signalPassFailure();
      }
    }
    for (func::FuncOp entry : entries) {
      if (failed(generate(entry)))
        return signalPassFailure();
      // The checks run in the shape function, before the step.
      for (auto check :
           llvm::make_early_inc_range(entry.getOps<cf::AssertOp>()))
        check.erase();
    }
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
    // Then each check's two sizes (ShapeFunctions.h), with its message for
    // the ABI record.
    SmallVector<Attribute> messages;
    for (auto check :
         llvm::make_early_inc_range(shapes.getOps<cf::AssertOp>())) {
      Value actual, expected;
      auto compare = check.getArg().getDefiningOp<arith::CmpIOp>();
      if (compare && compare.getPredicate() == arith::CmpIPredicate::eq) {
        actual = compare.getLhs();
        expected = compare.getRhs();
      } else {
        // Folded to a constant false (or written by hand): 0 against 1.
        actual = arith::ExtUIOp::create(builder, loc, builder.getI64Type(),
                                        check.getArg());
        expected = arith::ConstantIntOp::create(builder, loc, 1, 64);
      }
      for (Value size : {actual, expected}) {
        Type i64 = builder.getI64Type();
        if (size.getType().isIndex())
          size = arith::IndexCastOp::create(builder, loc, i64, size);
        else if (size.getType().getIntOrFloatBitWidth() < 64)
          size = arith::ExtSIOp::create(builder, loc, i64, size);
        else if (size.getType().getIntOrFloatBitWidth() > 64)
          size = arith::TruncIOp::create(builder, loc, i64, size);
        dims.push_back(size);
      }
      messages.push_back(check.getMsgAttr());
      check.erase();
    }
    if (!messages.empty())
      setAbiEntryField(getOperation(), entry.getName(), "dim_checks",
                       builder.getArrayAttr(messages));
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
