//===- ONNXToLinalg.cpp - the onnx -> linalg conversion pass --------------===//

#include "codegen/conversion/Common.h"
#include "codegen/conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_CONVERTONNXTOLINALG
#include "codegen/conversion/Passes.h.inc"

namespace {

/// An elementwise linalg.generic on tensors that a scalar can stand for
/// element by element: all loops parallel, every operand indexed the same
/// way, a body of side-effect-free ops without regions that does not read
/// its output.
linalg::GenericOp getElementwiseGeneric(Value tensor) {
  auto generic = tensor.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  Block &body = generic.getRegion().front();
  if (!body.getArguments().back().use_empty() ||
      llvm::any_of(body.without_terminator(), [](Operation &op) {
        return op.getNumRegions() != 0 || !isMemoryEffectFree(&op);
      }))
    return nullptr;
  return generic;
}

/// Whether every element of `tensor` is known as a scalar: an element of
/// tensor.from_elements or of a constant, or an elementwise generic of such
/// tensors (up to `depth` generics deep).
bool hasKnownElements(Value tensor, int depth) {
  DenseElementsAttr values;
  if (tensor.getDefiningOp<tensor::FromElementsOp>() ||
      matchPattern(tensor, m_Constant(&values)))
    return true;
  linalg::GenericOp generic = getElementwiseGeneric(tensor);
  return generic && depth > 0 &&
         llvm::all_of(generic.getDpsInputs(), [&](Value input) {
           return hasKnownElements(input, depth - 1);
         });
}

/// The element at constant `indices` of a tensor with known elements, as
/// a scalar (the generics' bodies applied to their inputs' elements).
Value buildKnownElement(OpBuilder &builder, Location loc, Value tensor,
                        ArrayRef<uint64_t> indices) {
  uint64_t flat = ElementsAttr::getFlattenedIndex(tensor.getType(), indices);
  if (auto elements = tensor.getDefiningOp<tensor::FromElementsOp>())
    return elements.getElements()[flat];
  DenseElementsAttr values;
  if (matchPattern(tensor, m_Constant(&values)))
    return arith::ConstantOp::create(
        builder, loc, cast<TypedAttr>(values.getValues<Attribute>()[flat]));
  linalg::GenericOp generic = getElementwiseGeneric(tensor);
  Block &body = generic.getRegion().front();
  IRMapping mapping;
  for (auto [input, argument] :
       llvm::zip(generic.getDpsInputs(), body.getArguments()))
    mapping.map(argument, buildKnownElement(builder, loc, input, indices));
  for (Operation &op : body.without_terminator())
    builder.clone(op, mapping);
  return mapping.lookupOrDefault(
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0));
}

/// tensor.extract at constant indices of elementwise generics over tensors
/// whose elements are known (tensor.from_elements, constants) is the
/// generics' bodies applied to those elements. Shape tensors are built
/// this way (TorchScript's Expand takes Where(Equal(shape, -1), 1, shape)
/// of a shape made from the batch dim): folded, the sizes are host
/// arithmetic on dims instead of small kernels whose result the host reads
/// back (on a GPU, a read of device memory).
struct FoldExtractOfElementwise : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  /// How many generics deep an element is followed.
  static constexpr int kMaxDepth = 4;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    if (!getElementwiseGeneric(extract.getTensor()) ||
        !hasKnownElements(extract.getTensor(), kMaxDepth))
      return failure();
    SmallVector<uint64_t> indices;
    for (Value index : extract.getIndices()) {
      std::optional<int64_t> constant = getConstantIntValue(index);
      if (!constant)
        return failure();
      indices.push_back(*constant);
    }
    // (An index past the end is undefined behaviour: left alone.)
    if (!ElementsAttr::isValidIndex(
            cast<ShapedType>(extract.getTensor().getType()), indices))
      return failure();
    rewriter.replaceOp(extract,
                       buildKnownElement(rewriter, extract.getLoc(),
                                         extract.getTensor(), indices));
    return success();
  }
};

struct ConvertONNXToLinalgPass
    : impl::ConvertONNXToLinalgBase<ConvertONNXToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    codegen::populateBasicLoweringPatterns(patterns);
    codegen::populateElementwiseLoweringPatterns(patterns);
    codegen::populateShapeLoweringPatterns(patterns);
    codegen::populateReductionLoweringPatterns(patterns);
    codegen::populateNNLoweringPatterns(patterns);
    codegen::populateTrainingLoweringPatterns(patterns);

    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect,
                           bufferization::BufferizationDialect>();
    target.addIllegalDialect<onnx::ONNXDialect>();
    // Absent optional inputs disappear with their users.
    target.addLegalOp<onnx::NoValueOp>();

    // Report every op without a lowering at once, by node name.
    bool missing = false;
    getOperation().walk([&](Operation *op) {
      if (!isa<onnx::ONNXDialect>(op->getDialect()) || isa<onnx::NoValueOp>(op))
        return;
      if (!patterns.getNativePatterns().empty() &&
          llvm::none_of(patterns.getNativePatterns(), [&](const auto &pattern) {
            std::optional<OperationName> root = pattern->getRootKind();
            return root && *root == op->getName();
          })) {
        op->emitError() << "node '" << onnx::getNodeName(op) << "' ("
                        << op->getName() << "): no lowering to linalg";
        missing = true;
      }
    });
    if (missing)
      return signalPassFailure();

    // A pattern that refuses a form it cannot lower says why at the node
    // (a pooled input of unknown size): the driver's own "failed to
    // legalize" for that op would only repeat it, so it is dropped once a
    // reason was given.
    bool reasonGiven = false;
    LogicalResult converted = success();
    {
      ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &diag) {
        if (diag.getSeverity() != DiagnosticSeverity::Error)
          return failure();
        if (reasonGiven &&
            StringRef(diag.str()).starts_with("failed to legalize operation"))
          return success();
        reasonGiven = true;
        return failure();
      });
      converted =
          applyPartialConversion(getOperation(), target, std::move(patterns));
    }
    if (failed(converted))
      return signalPassFailure();
    getOperation().walk([](onnx::NoValueOp op) {
      if (op->use_empty())
        op->erase();
    });
    // Only the extracts are visited: the whole module is the canonicalizer's
    // to walk, next.
    SmallVector<Operation *> extracts;
    getOperation().walk([&](tensor::ExtractOp extract) {
      if (extract.getTensor().getDefiningOp<linalg::GenericOp>())
        extracts.push_back(extract);
    });
    if (!extracts.empty()) {
      RewritePatternSet folds(context);
      folds.add<FoldExtractOfElementwise>(context);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingOps);
      (void)applyOpPatternsGreedily(extracts, std::move(folds), config);
    }
  }
};

} // namespace
} // namespace odt
