//===- ReportPeakMemory.cpp - peak live intermediate bytes per entry ------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/BufferSizes.h"
#include "codegen/common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_REPORTPEAKMEMORY
#include "codegen/common/Passes.h.inc"

namespace {

class PeakAnalysis {
public:
  explicit PeakAnalysis(func::FuncOp func) : sizes(func) {}

  /// The peak of `block` (allocations freed in it or still live at its end).
  Polynomial peakOf(Block &block) {
    Polynomial live, peak;
    for (Operation &op : block) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        Polynomial bytes = sizeOf(alloc);
        allocated[alloc.getResult()] = bytes;
        live = add(live, bytes);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        auto it = allocated.find(dealloc.getMemref());
        if (it != allocated.end() && dealloc->getBlock() == &block &&
            it->first.getParentBlock() == &block)
          live = subtract(live, it->second);
      } else {
        // Allocations inside regions (loop bodies) live while the op runs.
        Polynomial inner;
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            inner = upperBound(inner, peakOf(nested));
        peak = upperBound(peak, add(live, inner));
      }
      peak = upperBound(peak, live);
    }
    return peak;
  }

private:
  Polynomial sizeOf(memref::AllocOp alloc) {
    std::optional<Polynomial> bytes = sizes.bytesOf(alloc);
    if (!bytes) {
      // A size read from data at run time (a Reshape target computed in
      // the graph): left out of the formula, and counted.
      ++runTimeSized;
      return {};
    }
    // Rounded up to the 64-byte alignment, for the constant part.
    if (bytes->count({}))
      (*bytes)[{}] = ((*bytes)[{}] + 63) / 64 * 64;
    return *bytes;
  }

public:
  /// Allocations whose size the formula leaves out.
  unsigned runTimeSized = 0;

private:
  BufferSizes sizes;
  llvm::DenseMap<Value, Polynomial> allocated;
};

struct ReportPeakMemoryPass : impl::ReportPeakMemoryBase<ReportPeakMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    SmallVector<NamedAttribute> entries;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate())
        continue;
      PeakAnalysis analysis(func);
      Polynomial peak;
      for (Block &block : func.getBody())
        peak = upperBound(peak, analysis.peakOf(block));
      std::string text = format(peak) + " bytes";
      if (analysis.runTimeSized)
        text += llvm::formatv(" + {0} buffer(s) sized by data at run time",
                              analysis.runTimeSized)
                    .str();
      entries.push_back(
          builder.getNamedAttr(func.getSymName(), builder.getStringAttr(text)));
    }
    module->setAttr("odt.peak_memory", builder.getDictionaryAttr(entries));
  }
};

} // namespace
} // namespace odt
