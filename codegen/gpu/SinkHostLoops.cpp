//===- SinkHostLoops.cpp - a host loop around a kernel moves into it ------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_SINKHOSTLOOPS
#include "codegen/gpu/Passes.h.inc"

namespace {

/// Where an access to a written buffer puts the parallel loop's induction
/// variables in that buffer: the buffer's dim of each variable, reached at
/// offset 0 with stride 1. Two iterations with different variables then
/// touch different elements, whatever the sequential loop's iteration.
struct IvPlacement {
  Value buffer;
  SmallVector<int64_t> dims; // dims[k]: the buffer's dim of variable k
};

/// The placement of `indices` into `memref` (the buffer itself or one
/// subview of it with static zero offsets and unit strides in the dims the
/// variables index), or nothing.
std::optional<IvPlacement> placeIvs(Value memref, ValueRange indices,
                                    ArrayRef<Value> ivs) {
  IvPlacement placement;
  placement.dims.assign(ivs.size(), -1);
  SmallVector<int64_t> sourceDimOf; // result dim -> buffer dim
  auto subview = memref.getDefiningOp<memref::SubViewOp>();
  if (subview) {
    placement.buffer = subview.getSource();
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    for (int64_t d = 0, e = subview.getSourceType().getRank(); d < e; ++d)
      if (!dropped.test(d))
        sourceDimOf.push_back(d);
  } else {
    placement.buffer = memref;
    for (int64_t d = 0, e = indices.size(); d < e; ++d)
      sourceDimOf.push_back(d);
  }
  if (!isSeparateBuffer(placement.buffer))
    return std::nullopt;
  for (auto [position, index] : llvm::enumerate(indices)) {
    auto found = llvm::find(ivs, index);
    if (found == ivs.end())
      continue;
    int64_t dim = sourceDimOf[position];
    if (subview && (subview.getStaticOffsets()[dim] != 0 ||
                    subview.getStaticStrides()[dim] != 1))
      return std::nullopt;
    placement.dims[found - ivs.begin()] = dim;
  }
  // A variable absent from the access would let two iterations meet.
  if (llvm::is_contained(placement.dims, -1))
    return std::nullopt;
  return placement;
}

/// A constant global (the positions 0, 1, ... a position embedding reads):
/// nothing writes it.
bool isConstantGlobal(Value buffer) {
  auto get = buffer.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant();
}

/// A buffer allocated in the loop's body and used only inside `parallel`,
/// each element stored then loaded at the iteration's own index: a value
/// passed from one op to the next (two elementwise loops fused). The loads
/// take the stored values and the buffer goes.
bool forwardIterationTemporary(IRRewriter &rewriter, memref::AllocOp alloc,
                               scf::ParallelOp parallel) {
  SmallVector<memref::StoreOp> stores;
  SmallVector<memref::LoadOp> loads;
  SmallVector<Operation *> deallocs;
  for (Operation *user : alloc->getUsers()) {
    if (auto store = dyn_cast<memref::StoreOp>(user)) {
      if (store.getValueToStore() == alloc.getResult())
        return false;
      stores.push_back(store);
    } else if (auto load = dyn_cast<memref::LoadOp>(user)) {
      loads.push_back(load);
    } else if (isa<memref::DeallocOp>(user)) {
      deallocs.push_back(user);
    } else {
      return false;
    }
  }
  // Each load reads what the store just before it in its block wrote at the
  // same indices, which name every induction variable (an element of the
  // iteration's own).
  DenseMap<Operation *, Value> forwarded;
  for (memref::LoadOp load : loads) {
    for (Value iv : parallel.getInductionVars())
      if (!llvm::is_contained(load.getIndices(), iv))
        return false;
    if (load->getBlock() != parallel.getBody())
      return false;
    memref::StoreOp previous;
    for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode())
      if (auto store = dyn_cast<memref::StoreOp>(op);
          store && store.getMemRef() == alloc.getResult()) {
        previous = store;
        break;
      }
    if (!previous || previous.getIndices() != load.getIndices())
      return false;
    forwarded[load] = previous.getValueToStore();
  }
  for (memref::StoreOp store : stores)
    if (store->getBlock() != parallel.getBody())
      return false;
  for (memref::LoadOp load : loads)
    rewriter.replaceOp(load, forwarded[load]);
  for (memref::StoreOp store : stores)
    rewriter.eraseOp(store);
  for (Operation *dealloc : deallocs)
    rewriter.eraseOp(dealloc);
  rewriter.eraseOp(alloc);
  return true;
}

/// Whether `loop` (no results) is index work, loads and temporaries around
/// one parallel loop that may run its iterations with the whole sequential
/// loop inside each; the parallel loop, or null.
scf::ParallelOp findSinkableParallel(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return nullptr;
  scf::ParallelOp parallel;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto inner = dyn_cast<scf::ParallelOp>(op)) {
      if (parallel || inner.getNumResults() != 0)
        return nullptr;
      parallel = inner;
      continue;
    }
    if (parallel) {
      // Nothing but the release of a temporary may follow it.
      auto dealloc = dyn_cast<memref::DeallocOp>(op);
      auto alloc = dealloc
                       ? dealloc.getMemref().getDefiningOp<memref::AllocOp>()
                       : nullptr;
      if (!alloc || alloc->getBlock() != loop.getBody())
        return nullptr;
      continue;
    }
    if (isa<memref::LoadOp, memref::AllocOp>(op) || isMemoryEffectFree(&op))
      continue;
    return nullptr;
  }
  if (!parallel)
    return nullptr;
  // The iteration space cannot depend on the sequential loop.
  for (Value bound : parallel->getOperands())
    if (!loop.isDefinedOutsideOfLoop(bound))
      return nullptr;
  return parallel;
}

/// Whether the parallel loop's iterations touch separate elements of every
/// buffer written inside it, in every iteration of `loop`, and the loads
/// before it read buffers nothing in `loop` writes.
bool iterationsStaySeparate(scf::ForOp loop, scf::ParallelOp parallel) {
  SmallVector<Value> ivs(parallel.getInductionVars());
  llvm::SmallPtrSet<Value, 4> written;
  bool unknown = false;
  parallel.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op))
      written.insert(getUnderlyingBuffer(store.getMemRef()));
    else if (!isa<memref::LoadOp>(op) && !isMemoryEffectFree(op) &&
             !isa<scf::ForOp, scf::IfOp, scf::YieldOp, scf::ReduceOp>(op))
      unknown = true;
  });
  if (unknown)
    return false;
  DenseMap<Value, SmallVector<int64_t>> placementOf;
  auto check = [&](Value memref, ValueRange indices) {
    Value buffer = getUnderlyingBuffer(memref);
    if (!written.contains(buffer))
      return true;
    std::optional<IvPlacement> placement = placeIvs(memref, indices, ivs);
    if (!placement || placement->buffer != buffer)
      return false;
    auto [entry, inserted] = placementOf.try_emplace(buffer, placement->dims);
    return inserted || entry->second == placement->dims;
  };
  WalkResult walk = parallel.getBody()->walk([&](Operation *op) {
    bool separate = true;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      separate = check(load.getMemRef(), load.getIndices());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      separate = check(store.getMemRef(), store.getIndices());
    return separate ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return false;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      Value buffer = getUnderlyingBuffer(load.getMemRef());
      if (!(isSeparateBuffer(buffer) || isConstantGlobal(buffer)) ||
          written.contains(buffer))
        return false;
    }
  return true;
}

/// for j { pre; parallel (i) { body } }  ->  parallel (i) { for j { pre;
/// body } }: each element's updates keep the sequential loop's order.
void sinkLoop(IRRewriter &rewriter, scf::ForOp loop, scf::ParallelOp parallel) {
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, parallel.getLoc(), parallel.getLowerBound(),
      parallel.getUpperBound(), parallel.getStep());
  rewriter.setInsertionPointToStart(outer.getBody());
  auto inner = scf::ForOp::create(rewriter, loop.getLoc(), loop.getLowerBound(),
                                  loop.getUpperBound(), loop.getStep());
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), inner.getInductionVar());
  for (auto [from, to] :
       llvm::zip(parallel.getInductionVars(), outer.getInductionVars()))
    mapping.map(from, to);
  rewriter.setInsertionPoint(inner.getBody()->getTerminator());
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op == parallel.getOperation())
      break;
    rewriter.clone(op, mapping);
  }
  // (What followed the parallel loop released temporaries, gone now.)
  for (Operation &op : parallel.getBody()->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(loop);
}

struct SinkHostLoopsPass : impl::SinkHostLoopsBase<SinkHostLoopsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ForOp> candidates;
    // Host loops only: those inside a parallel loop already run in a kernel.
    getOperation()->walk([&](scf::ForOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        candidates.push_back(loop);
    });
    for (scf::ForOp loop : candidates) {
      scf::ParallelOp parallel = findSinkableParallel(loop);
      if (!parallel)
        continue;
      // Per-iteration temporaries first: left in place they would be
      // buffers every iteration of the sunk loop shares.
      bool temporariesGone = true;
      for (auto alloc : llvm::make_early_inc_range(
               loop.getBody()->getOps<memref::AllocOp>()))
        temporariesGone &= forwardIterationTemporary(rewriter, alloc, parallel);
      if (!temporariesGone || !iterationsStaySeparate(loop, parallel))
        continue;
      sinkLoop(rewriter, loop, parallel);
    }
  }
};

} // namespace
} // namespace odt
