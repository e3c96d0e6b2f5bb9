//===- MergeIndependentLoops.cpp - one launch for independent kernels -----===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_MERGEINDEPENDENTLOOPS
#include "codegen/gpu/Passes.h.inc"

namespace {

/// A loop as odt-gpu-distribute-parallel-loops leaves it: blocks over
/// [0, elements) in steps of the block size, mapped to the grid's x, around
/// one loop over the block's threads; with the buffers its threads read and
/// write.
struct DistributedLoop {
  scf::ParallelOp blocks;
  scf::ParallelOp threads;
  llvm::SmallDenseSet<Value, 4> reads, writes;
  /// The values from above that the kernel takes as parameters.
  llvm::SetVector<Value> parameters;
};

/// The kernel parameter space a value takes once outlined: a memref is a
/// descriptor (two pointers, an offset, and a size and a stride per dim),
/// scalars take 8 bytes at most.
int64_t getParameterBytes(Value value) {
  if (auto memref = dyn_cast<MemRefType>(value.getType()))
    return 8 * (3 + 2 * memref.getRank());
  return 8;
}

/// What one kernel's parameters may take: ptxas refuses more than 32,764
/// bytes at PTX ISA 8.1, which odt emits (4,352 below it); the rest is
/// margin for alignment.
constexpr int64_t kParameterBudget = 32000;

/// The constant `value` is, looking through products of constants (the
/// distribution's tile steps are `step * block size`, left unfolded:
/// canonicalizing here would merge the nested block and thread loops).
std::optional<int64_t> getConstantProduct(Value value) {
  if (auto product = value.getDefiningOp<arith::MulIOp>()) {
    std::optional<int64_t> lhs = getConstantProduct(product.getLhs());
    std::optional<int64_t> rhs = getConstantProduct(product.getRhs());
    if (lhs && rhs)
      return *lhs * *rhs;
    return std::nullopt;
  }
  return getConstantIntValue(value);
}

bool isMappedTo(scf::ParallelOp loop, gpu::Processor processor) {
  auto mapping = loop->getAttrOfType<ArrayAttr>(gpu::getMappingAttrName());
  if (!mapping || mapping.size() != 1)
    return false;
  auto dim = dyn_cast<gpu::ParallelLoopDimMappingAttr>(mapping[0]);
  return dim && dim.getProcessor() == processor;
}

/// `loop` as a distributed loop whose memory accesses are all loads and
/// stores of separate buffers, or nothing.
std::optional<DistributedLoop> asDistributedLoop(scf::ParallelOp loop,
                                                 int64_t blockSize) {
  if (loop.getNumLoops() != 1 || loop.getNumResults() != 0 ||
      !isMappedTo(loop, gpu::Processor::BlockX) ||
      getConstantProduct(loop.getLowerBound()[0]) != 0 ||
      getConstantProduct(loop.getStep()[0]) != blockSize)
    return std::nullopt;
  Block *body = loop.getBody();
  auto threads = dyn_cast<scf::ParallelOp>(body->front());
  if (!threads ||
      std::next(body->begin()) != body->without_terminator().end() ||
      !isMappedTo(threads, gpu::Processor::ThreadX) ||
      getConstantProduct(threads.getLowerBound()[0]) != 0 ||
      getConstantProduct(threads.getUpperBound()[0]) != blockSize ||
      getConstantProduct(threads.getStep()[0]) != 1)
    return std::nullopt;
  DistributedLoop result{loop, threads, {}, {}, {}};
  bool understood = true;
  threads.getBody()->walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      result.reads.insert(memref = getUnderlyingBuffer(load.getMemRef()));
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      result.writes.insert(memref = getUnderlyingBuffer(store.getMemRef()));
    else if (op->getNumRegions() == 0 && !isMemoryEffectFree(op))
      understood = false;
    if (memref && !isSeparateBuffer(memref))
      understood = false;
  });
  if (!understood)
    return std::nullopt;
  // Constants are rebuilt inside the kernel
  // (gpu-launch-sink-index-computations); anything else is a parameter.
  getUsedValuesDefinedAbove(loop.getRegion(), result.parameters);
  result.parameters.remove_if(
      [](Value value) { return matchPattern(value, m_Constant()); });
  return result;
}

bool intersects(const llvm::SmallDenseSet<Value, 4> &first,
                const llvm::SmallDenseSet<Value, 4> &second) {
  return llvm::any_of(first,
                      [&](Value value) { return second.contains(value); });
}

/// Whether `later` may run at the same time as `earlier`: neither writes
/// what the other reads or writes.
bool independent(const DistributedLoop &earlier, const DistributedLoop &later) {
  return !intersects(earlier.writes, later.reads) &&
         !intersects(earlier.writes, later.writes) &&
         !intersects(earlier.reads, later.writes);
}

/// Replaces the loops of `group` by one: its blocks cover each loop's
/// blocks in turn (each loop's element count rounded up to whole blocks),
/// and each block runs the body of the loop it belongs to. Placed where the
/// last loop was: every bound is defined before it.
void merge(IRRewriter &rewriter, MutableArrayRef<DistributedLoop> group,
           int64_t blockSize) {
  DistributedLoop &last = group.back();
  Location loc = last.blocks.getLoc();
  rewriter.setInsertionPoint(last.blocks);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value block = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  Value blockLess =
      arith::ConstantIndexOp::create(rewriter, loc, blockSize - 1);
  // starts[k]: the first element of loop k in the merged element space.
  SmallVector<Value> starts = {zero};
  for (DistributedLoop &loop : group) {
    Value elements = loop.blocks.getUpperBound()[0];
    Value rounded = arith::MulIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, elements, blockLess), block),
        block);
    starts.push_back(
        arith::AddIOp::create(rewriter, loc, starts.back(), rounded));
  }
  auto blocks =
      scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                              ValueRange{starts.back()}, ValueRange{block});
  blocks->setAttr(gpu::getMappingAttrName(),
                  last.blocks->getAttr(gpu::getMappingAttrName()));
  rewriter.setInsertionPointToStart(blocks.getBody());
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto threads = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                         ValueRange{block}, ValueRange{one});
  threads->setAttr(gpu::getMappingAttrName(),
                   last.threads->getAttr(gpu::getMappingAttrName()));
  rewriter.setInsertionPointToStart(threads.getBody());
  Value blockStart = blocks.getInductionVars()[0];
  Value thread = threads.getInductionVars()[0];
  for (auto [index, loop] : llvm::enumerate(group)) {
    Value inside = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge,
                              blockStart, starts[index]),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                              blockStart, starts[index + 1]));
    auto branch = scf::IfOp::create(rewriter, loc, inside,
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    IRMapping mapping;
    mapping.map(loop.blocks.getInductionVars()[0],
                arith::SubIOp::create(rewriter, loc, blockStart, starts[index])
                    .getResult());
    mapping.map(loop.threads.getInductionVars()[0], thread);
    for (Operation &op : loop.threads.getBody()->without_terminator())
      rewriter.clone(op, mapping);
  }
  for (DistributedLoop &loop : group)
    rewriter.eraseOp(loop.blocks);
}

struct MergeIndependentLoopsPass
    : impl::MergeIndependentLoopsBase<MergeIndependentLoopsPass> {
  using MergeIndependentLoopsBase::MergeIndependentLoopsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<SmallVector<DistributedLoop>> groups;
    for (Block &block : getOperation().getBody()) {
      SmallVector<DistributedLoop> group;
      auto flush = [&]() {
        if (group.size() > 1)
          groups.push_back(group);
        group.clear();
      };
      for (Operation &op : block) {
        if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
          std::optional<DistributedLoop> distributed =
              asDistributedLoop(loop, blockSize);
          if (!distributed) {
            flush();
            continue;
          }
          // The merged kernel takes every member's parameters and the
          // first block of each member.
          llvm::SetVector<Value> parameters = distributed->parameters;
          for (const DistributedLoop &member : group)
            parameters.insert(member.parameters.begin(),
                              member.parameters.end());
          int64_t bytes = 8 * static_cast<int64_t>(group.size() + 2);
          for (Value value : parameters)
            bytes += getParameterBytes(value);
          bool joins = bytes <= kParameterBudget &&
                       llvm::all_of(group, [&](const DistributedLoop &member) {
                         return independent(member, *distributed);
                       });
          if (!joins)
            flush();
          group.push_back(*distributed);
          continue;
        }
        // Index arithmetic and allocations between the loops may stay
        // before the merged loop; anything else that touches memory (a
        // deallocation, a copy) orders the loops around it.
        if (op.getNumRegions() == 0 &&
            (isMemoryEffectFree(&op) || isa<memref::AllocOp>(op)))
          continue;
        flush();
      }
      flush();
    }
    for (SmallVector<DistributedLoop> &group : groups)
      merge(rewriter, group, blockSize);
  }
};

} // namespace
} // namespace odt
