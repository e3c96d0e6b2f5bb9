//===- PlanArena.cpp - intermediates as views of one arena ----------------===//
//
// See Passes.td. Offsets are polynomials of the entry's named dims, chosen
// at compile time so that no two buffers live at the same time overlap for
// any value of the dims: a candidate offset is accepted only if, against
// every buffer it lives with, it ends below that buffer's start or begins
// above its end coefficient-wise. Candidates are 0 and the ends of the
// buffers it lives with (best fit when all sizes are known); the
// coefficient-wise maximum of those ends is always valid, so every buffer
// finds a place.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/BufferSizes.h"
#include "codegen/common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_PLANARENA
#include "codegen/common/Passes.h.inc"

namespace {

constexpr int64_t kAlignment = 64;
/// Dim value used only to rank candidate offsets and to order buffers.
constexpr int64_t kNominalDim = 64;

struct PlannedBuffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  unsigned begin, end; // positions in the entry block: live in [begin, end]
  Polynomial bytes;    // rounded up to the arena's alignment
  Polynomial offset;

  bool livesWith(const PlannedBuffer &other) const {
    return begin <= other.end && other.begin <= end;
  }
  Polynomial limit() const { return add(offset, bytes); }
};

/// The unconditional dealloc of `alloc` in its own block, if it has one.
memref::DeallocOp deallocInBlock(memref::AllocOp alloc) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers())
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      if (found || dealloc->getBlock() != alloc->getBlock())
        return nullptr;
      found = dealloc;
    }
  return found;
}

struct PlanArenaPass : impl::PlanArenaBase<PlanArenaPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    SmallVector<NamedAttribute> entries;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate() ||
          !func.getBody().hasOneBlock())
        continue;
      std::string summary = plan(func);
      entries.push_back(builder.getNamedAttr(func.getSymName(),
                                             builder.getStringAttr(summary)));
    }
    module->setAttr("odt.arena", builder.getDictionaryAttr(entries));
  }

  std::string plan(func::FuncOp func) {
    Block &body = func.getBody().front();
    llvm::DenseMap<Operation *, unsigned> position;
    for (auto [index, op] : llvm::enumerate(body))
      position[&op] = index;

    BufferSizes sizes(func);
    std::vector<PlannedBuffer> buffers;
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      memref::DeallocOp dealloc = deallocInBlock(alloc);
      std::optional<Polynomial> bytes = sizes.bytesOf(alloc);
      if (!dealloc || !bytes || !type.getLayout().isIdentity() ||
          type.getMemorySpace() ||
          alloc.getAlignment().value_or(1) > kAlignment)
        continue;
      buffers.push_back({alloc,
                         dealloc,
                         position[alloc],
                         position[dealloc],
                         roundUpCoefficients(*bytes, kAlignment),
                         {}});
    }
    // Buffers sized by data, inside loops, or not freed in the block keep
    // their own allocations (the step allocator's).
    unsigned apart = 0;
    func.walk([&](memref::AllocOp) { ++apart; });
    apart -= buffers.size();
    std::string apartNote =
        apart ? llvm::formatv(" (+{0} allocated apart)", apart).str() : "";
    if (buffers.empty())
      return "0 bytes for 0 buffers" + apartNote;

    // Largest first (at the nominal dim value), then in program order.
    std::vector<PlannedBuffer *> order;
    for (PlannedBuffer &buffer : buffers)
      order.push_back(&buffer);
    llvm::sort(order, [](PlannedBuffer *a, PlannedBuffer *b) {
      int64_t sizeA = evaluateAt(a->bytes, kNominalDim);
      int64_t sizeB = evaluateAt(b->bytes, kNominalDim);
      return sizeA != sizeB ? sizeA > sizeB : a->begin < b->begin;
    });
    std::vector<PlannedBuffer *> placed;
    Polynomial arena;
    for (PlannedBuffer *buffer : order) {
      std::vector<PlannedBuffer *> neighbours;
      for (PlannedBuffer *other : placed)
        if (buffer->livesWith(*other))
          neighbours.push_back(other);
      auto fits = [&](const Polynomial &offset) {
        Polynomial limit = add(offset, buffer->bytes);
        return llvm::all_of(neighbours, [&](PlannedBuffer *other) {
          return lessOrEqual(limit, other->offset) ||
                 lessOrEqual(other->limit(), offset);
        });
      };
      Polynomial fallback;
      std::vector<Polynomial> candidates = {Polynomial()};
      for (PlannedBuffer *other : neighbours) {
        candidates.push_back(other->limit());
        fallback = upperBound(fallback, other->limit());
      }
      std::optional<Polynomial> best;
      for (const Polynomial &candidate : candidates)
        if (fits(candidate) && (!best || evaluateAt(candidate, kNominalDim) <
                                             evaluateAt(*best, kNominalDim)))
          best = candidate;
      buffer->offset = best ? *best : fallback;
      arena = upperBound(arena, buffer->limit());
      placed.push_back(buffer);
    }

    // The dims the formulas name, read once at the entry.
    OpBuilder builder(&body, body.begin());
    std::map<std::string, Value> dims;
    for (const PlannedBuffer &buffer : buffers)
      for (const Polynomial *p : {&buffer.bytes, &buffer.offset})
        for (auto &[monomial, coefficient] : *p)
          for (const std::string &name : monomial)
            if (!dims.count(name))
              dims[name] = BufferSizes::dimValue(builder, func, name);
    Location loc = func.getLoc();
    Value arenaBytes = BufferSizes::materialize(builder, loc, arena, dims);
    auto arenaType =
        MemRefType::get({ShapedType::kDynamic}, builder.getIntegerType(8));
    Value base =
        memref::AllocOp::create(builder, loc, arenaType, ValueRange{arenaBytes},
                                builder.getI64IntegerAttr(kAlignment));
    for (PlannedBuffer &buffer : buffers) {
      builder.setInsertionPoint(buffer.alloc);
      Value offset = BufferSizes::materialize(builder, buffer.alloc.getLoc(),
                                              buffer.offset, dims);
      Value view = memref::ViewOp::create(builder, buffer.alloc.getLoc(),
                                          buffer.alloc.getType(), base, offset,
                                          buffer.alloc.getDynamicSizes());
      buffer.alloc.getResult().replaceAllUsesWith(view);
      buffer.dealloc.erase();
      buffer.alloc.erase();
    }
    builder.setInsertionPoint(body.getTerminator());
    memref::DeallocOp::create(builder, loc, base);
    return llvm::formatv("{0} bytes for {1} buffers", format(arena),
                         buffers.size())
               .str() +
           apartNote;
  }
};

} // namespace
} // namespace odt
