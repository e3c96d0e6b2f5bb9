//===- VectorizeContractions.cpp - register-tiled matrix products ---------===//
//
// A matrix product lowered by convert-linalg-to-loops keeps one output
// element in memory per multiply-add. Here the product becomes loops whose
// innermost body keeps a rows x columns tile of the output in vector
// registers across the whole k loop: per k, one vector row of B is loaded,
// and each of the tile's rows adds a broadcast element of A times it. This
// is the shape of a BLAS micro-kernel, written with upstream ops (scf.for
// with iter_args, vector.transfer_read/write, vector.fma) on tensors, so
// bufferization and the vector-to-LLVM lowering do the rest. See Passes.td.
//
// This file is the pass: it finds the products, normalizes and plans them
// (ContractionPlan.h), adds the kept panels' entry arguments, and has each
// product's kernel emitted (ContractionEmitter.h: one file per strategy).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/ShapeFunctions.h"
#include "codegen/cpu/ContractionEmitter.h"
#include "codegen/cpu/ContractionSelection.h"
#include "codegen/cpu/Passes.h"
#include "compiler/training/Roles.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <deque>
#include <set>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_VECTORIZECONTRACTIONS
#include "codegen/cpu/Passes.h.inc"

namespace {

using namespace cpu;

struct VectorizeContractionsPass
    : impl::VectorizeContractionsBase<VectorizeContractionsPass> {
  using VectorizeContractionsBase::VectorizeContractionsBase;

  void runOnOperation() override {
    if (depth == 0) {
      getOperation().emitError(
          "odt-vectorize-contractions: depth must be positive");
      return signalPassFailure();
    }
    caches.clear();
    IRRewriter rewriter(&getContext());
    // Normalized as odt-select-contraction-kernels left them (a no-op
    // then); a product without a config gets the one it would have given.
    auto work = normalizeProducts(getOperation(), rewriter);
    SelectionOptions selection;
    selection.target =
        resolveContractionTarget(getOperation(), vectorWidth, rows, depth);
    selection.cachePanels = cachePanels;
    FailureOr<SmallVector<ContractionConfig>> configs =
        selectContractionConfigs(getOperation(), work, selection);
    if (failed(configs))
      return signalPassFailure();
    for (auto [index, entry] : llvm::enumerate(work)) {
      auto &[op, plan] = entry;
      const ContractionConfig &config = (*configs)[index];
      ContractionEpilogue epilogue;
      if (fuseEpilogues) {
        epilogue.bias = broadcastRow(op.getDpsInits()[0]);
        if (epilogue.bias)
          epilogue.destination = op.getDpsInits()[0]
                                     .getDefiningOp<linalg::GenericOp>()
                                     .getDpsInits()[0];
        sinkExpandIntoConsumer(rewriter, op);
        epilogue.consumer = epilogueConsumer(op);
      }
      // The fused kernel is emitted where the product was (its operands'
      // lives end as before), unless one of the consumer's other inputs is
      // defined after it: then where the consumer was.
      Operation *replaced = epilogue.consumer ? epilogue.consumer.getOperation()
                                              : op.getOperation();
      Operation *product = op;
      bool consumerInputsReady =
          !epilogue.consumer ||
          llvm::all_of(epilogue.consumer.getDpsInputs(), [&](Value input) {
            Operation *definition = input.getDefiningOp();
            return !definition || definition == product ||
                   definition->getBlock() != product->getBlock() ||
                   definition->isBeforeInBlock(product);
          });
      rewriter.setInsertionPoint(consumerInputsReady ? op.getOperation()
                                                     : replaced);
      PanelCache *cache = nullptr;
      if (config.keptPanels && !(cache = panelCacheFor(op, plan, config)))
        return signalPassFailure();
      ContractionEmitter emitter(op, plan, epilogue, config, cache);
      Value result = emitter.emit(rewriter);
      if (result.getType() != replaced->getResult(0).getType())
        result = tensor::CastOp::create(
            rewriter, op.getLoc(), replaced->getResult(0).getType(), result);
      rewriter.replaceOp(replaced, result);
      if (replaced != op.getOperation())
        rewriter.eraseOp(op);
    }
    returnPanelCaches();
  }

private:
  /// The panels of one parameter in one layout, kept by the runtime: the
  /// entry arguments (panels, stale flag) and the product that uses them.
  struct CacheEntry {
    PanelCache values;
    unsigned panelsArg, staleArg;
    DictionaryAttr panelsAttrs, staleAttrs;
  };

  /// The panel cache of `op`, whose config keeps B's panels (B is then a
  /// parameter of the entry point with a static 2-D shape, checked by the
  /// selection): two arguments are added to the function (the panels,
  /// [column tiles, k, columns] f32, and their bool[1] stale flag),
  /// returned updated (odt.tied).
  PanelCache *panelCacheFor(linalg::GenericOp op, const ContractionPlan &plan,
                            const ContractionConfig &config) {
    func::FuncOp func = getOperation();
    auto weight = cast<BlockArgument>(op.getDpsInputs()[1]);
    unsigned index = weight.getArgNumber();
    auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr);
    auto param = func.getArgAttrOfType<IntegerAttr>(index, kParamAttr);
    auto type = cast<RankedTensorType>(weight.getType());
    int64_t columns = config.columns;
    int64_t n = type.getDimSize(plan.transposeB ? 0 : 1);
    int64_t k = type.getDimSize(plan.transposeB ? 1 : 0);
    int64_t tiles = llvm::divideCeil(n, columns);
    MLIRContext *context = &getContext();
    Builder builder(context);
    // The name says the layout: train and eval graphs that pack a weight
    // the same way share one cache in the runtime.
    std::string panelsName =
        (name.getValue() + ".panels" + (plan.transposeB ? "_t" : "") + "_" +
         std::to_string(columns))
            .str();
    auto attrs = [&](StringRef argName, ArgRole argRole,
                     ArrayRef<int64_t> dims) {
      NamedAttrList list;
      list.set(kNameAttr, builder.getStringAttr(argName));
      list.set(kRoleAttr, builder.getStringAttr(getRoleName(argRole)));
      list.set(kParamAttr, param);
      SmallVector<Attribute> dimAttrs;
      for (int64_t dim : dims)
        dimAttrs.push_back(builder.getI64IntegerAttr(dim));
      list.set(kDimsAttr, builder.getArrayAttr(dimAttrs));
      return list.getDictionary(context);
    };
    CacheEntry entry;
    auto panelsType =
        RankedTensorType::get({tiles, k, columns}, builder.getF32Type());
    auto staleType = RankedTensorType::get({1}, builder.getI1Type());
    entry.panelsAttrs =
        attrs(panelsName, ArgRole::PackedPanels, {tiles, k, columns});
    entry.staleAttrs = attrs(panelsName + ".stale", ArgRole::PanelsStale, {1});
    entry.panelsArg = func.getNumArguments();
    entry.staleArg = entry.panelsArg + 1;
    // Both inserted at the end (indices into the old argument list).
    if (failed(func.insertArguments({entry.panelsArg, entry.panelsArg},
                                    {panelsType, staleType},
                                    {entry.panelsAttrs, entry.staleAttrs},
                                    {func.getLoc(), func.getLoc()}))) {
      op.emitError("could not add the kept panels' arguments");
      return nullptr;
    }
    entry.values.panels = func.getArgument(entry.panelsArg);
    entry.values.stale = func.getArgument(entry.staleArg);
    caches.push_back(entry);
    return &caches.back().values;
  }

  /// Each cache's final values become results tied to its arguments.
  void returnPanelCaches() {
    func::FuncOp func = getOperation();
    auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
    Builder builder(&getContext());
    for (const CacheEntry &entry : caches) {
      for (auto [arg, value, attrs] :
           {std::make_tuple(entry.panelsArg, entry.values.panelsOut,
                            entry.panelsAttrs),
            std::make_tuple(entry.staleArg, entry.values.staleOut,
                            entry.staleAttrs)}) {
        NamedAttrList resultAttrs(attrs);
        resultAttrs.set(kTiedAttr, builder.getI64IntegerAttr(arg));
        unsigned index = func.getNumResults();
        if (failed(func.insertResult(index, value.getType(),
                                     resultAttrs.getDictionary(&getContext()))))
          return signalPassFailure();
        returnOp->insertOperands(returnOp->getNumOperands(), value);
      }
    }
  }

  std::deque<CacheEntry> caches; // stable addresses: emitters point in
};

} // namespace
} // namespace odt
