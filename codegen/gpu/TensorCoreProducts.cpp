//===- TensorCoreProducts.cpp - products on tensor cores (mma.sync) -------===//
//
// With --gpu-precision other than fp32, a matrix product (a linalg.generic
// on buffers: out += a * b over one reduction dim, projected permutation
// maps) is computed by warp-wide mma.sync instructions instead of one
// thread's FFMA chain per output. Each warp owns a tile of the output
// (chooseWarpTile: up to 2 x 4 mma tiles of 16 x 8) and each of its lanes
// loads the elements of A and B that PTX's fragment layouts assign it, for
// every step of k (8 for tf32, 16 for bf16). See Passes.td for the rule
// and the layouts.
//
// The same loops run on the CPU (--gpu-loops-on-cpu, `emulate`), where a
// warp's lanes run one after another and cannot exchange registers: there
// each lane computes the outputs it owns from the rounded inputs of every k
// of the step, the products in k order. That checks the tiling, the lanes'
// ownership of outputs, the bounds and the rounding, not the fragments'
// register order (PTX's tables, followed here) nor the tensor cores' order
// of additions.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Products.h"
#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"
#include "codegen/gpu/RegisterReductions.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_TENSORCOREPRODUCTS
#include "codegen/gpu/Passes.h.inc"

namespace {

constexpr int64_t kWarpSize = 32;
/// The mma.sync tile: 16 rows x 8 columns of the output per instruction.
constexpr int64_t kMmaRows = 16, kMmaColumns = 8;

enum class Precision { TF32, TF32x3, BF16 };

std::optional<Precision> parsePrecision(StringRef name) {
  if (name == "tf32")
    return Precision::TF32;
  if (name == "tf32x3")
    return Precision::TF32x3;
  if (name == "bf16")
    return Precision::BF16;
  return std::nullopt;
}

/// k values per mma.sync: m16n8k8 for tf32, m16n8k16 for bf16.
int64_t kPerStep(Precision precision) {
  return precision == Precision::BF16 ? 16 : 8;
}

/// Which loop dims of a product are its rows (m), columns (n), reduction
/// (k) and batch (every other parallel dim).
struct ProductDims {
  unsigned m = 0, n = 0, k = 0;
  SmallVector<unsigned> batch;
};

/// The dims of a product the tensor cores take: f32 buffers, out += a * b,
/// projected permutations, one reduction dim used by both inputs, the
/// output indexed by every parallel dim and separate memory from both
/// inputs (it is read once before the sums and written once after).
std::optional<ProductDims> matchProduct(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
      !isMultiplyAccumulate(op))
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getElementType().isF32())
      return std::nullopt;
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
  AffineMap mapA = maps[0], mapB = maps[1], mapC = maps[2];
  ProductDims dims;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (iterator == utils::IteratorType::reduction) {
      dims.k = dim;
      continue;
    }
    if (!mapC.isFunctionOfDim(dim))
      return std::nullopt;
  }
  // k last (odt-gpu-parallel-dims-outermost's order): the other dims are
  // the parallel dims in order, as the initializer and epilogue rules take
  // them.
  if (!mapA.isFunctionOfDim(dims.k) || !mapB.isFunctionOfDim(dims.k) ||
      dims.k + 1 != op.getNumLoops())
    return std::nullopt;
  // n: C's innermost dim used by B and not A; m: the innermost other dim
  // used by A and not B; the rest are batch dims.
  std::optional<unsigned> m, n;
  for (int i = mapC.getNumResults() - 1; i >= 0; --i) {
    unsigned dim = cast<AffineDimExpr>(mapC.getResult(i)).getPosition();
    bool inA = mapA.isFunctionOfDim(dim), inB = mapB.isFunctionOfDim(dim);
    if (!n && inB && !inA)
      n = dim;
    else if (!m && inA && !inB)
      m = dim;
  }
  if (!m || !n)
    return std::nullopt;
  dims.m = *m;
  dims.n = *n;
  for (unsigned dim = 0; dim < op.getNumLoops(); ++dim)
    if (dim != dims.m && dim != dims.n && dim != dims.k)
      dims.batch.push_back(dim);
  Value output = op.getDpsInits()[0];
  for (Value input : op.getDpsInputs())
    if (!isSeparateMemory(input, output))
      return std::nullopt;
  return dims;
}

/// mma tiles per warp along m and n: a warp reuses each A fragment it loads
/// across its n tiles and each B fragment across its m tiles, so larger
/// warp tiles load less per mma (2 x 4 tiles: 16 loads per lane for 8
/// mma.sync, against 6 for one); a dim statically too short for a second
/// tile keeps one. The one place the warp tile is chosen.
std::pair<int64_t, int64_t> chooseWarpTile(std::optional<int64_t> rows,
                                           std::optional<int64_t> columns) {
  int64_t mTiles = !rows || *rows > kMmaRows ? 2 : 1;
  int64_t nTiles = !columns || *columns > 2 * kMmaColumns ? 4
                   : *columns > kMmaColumns               ? 2
                                                          : 1;
  return {mTiles, nTiles};
}

class ProductEmitter {
public:
  ProductEmitter(IRRewriter &rewriter, linalg::GenericOp op,
                 const ProductDims &dims, Precision precision, bool emulate)
      : rewriter(rewriter), op(op), dims(dims), precision(precision),
        emulate(emulate), loc(op.getLoc()) {}

  void emit();

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  }
  Value add(Value a, Value b) {
    return arith::AddIOp::create(rewriter, loc, a, b);
  }
  Value add(Value a, int64_t b) { return b == 0 ? a : add(a, index(b)); }
  Value multiply(Value a, int64_t b) {
    return arith::MulIOp::create(rewriter, loc, a, index(b));
  }
  Value less(Value a, Value b) {
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, a,
                                 b);
  }
  Value both(Value a, Value b) {
    return arith::AndIOp::create(rewriter, loc, a, b);
  }

  /// operand `which`'s element at the loop dims `at` (m, n, k set as
  /// needed), or zero where `inside` is false; the load's indices are
  /// clamped into the buffer, so it never reads outside it.
  Value loadOrZero(unsigned which, SmallVector<Value> at, Value inside);

  /// The dims' values with m, n and k set.
  SmallVector<Value> at(Value row, Value column, Value k) {
    SmallVector<Value> values = loopValues;
    values[dims.m] = row;
    values[dims.n] = column;
    values[dims.k] = k;
    return values;
  }

  /// `value` rounded to tf32 (to nearest, ties away from zero: PTX's
  /// cvt.rna.tf32.f32), as f32 with the low 13 bits clear.
  Value roundToTF32(Value value);
  /// `value` rounded to bf16 (to nearest even), as f32 with the low 16 bits
  /// clear.
  Value roundToBF16(Value value);
  /// `value`'s bits as i32.
  Value bits(Value value) {
    return arith::BitcastOp::create(rewriter, loc, rewriter.getI32Type(),
                                    value);
  }
  Value asFloat(Value value) {
    return arith::BitcastOp::create(rewriter, loc, rewriter.getF32Type(),
                                    value);
  }
  /// Two values rounded to bf16 in one register (the first in the low
  /// half), as mma.sync takes bf16 pairs.
  Value packBF16(Value low, Value high);

  /// The inputs' parts a precision multiplies: tf32 and bf16 one rounded
  /// value; tf32x3 the rounded value and the rounded rest (value - big).
  SmallVector<Value> parts(Value value);

  /// One step of k from `kStart` for every tile of the warp, on the tensor
  /// cores: the accumulators after it.
  SmallVector<Value> emitMmaStep(Value kStart, ValueRange sums);
  /// The same step for the lanes run one after another on a CPU: each
  /// lane's own outputs from every k of the step, in k order.
  SmallVector<Value> emitEmulatedStep(Value kStart, ValueRange sums);

  IRRewriter &rewriter;
  linalg::GenericOp op;
  ProductDims dims;
  Precision precision;
  bool emulate;
  Location loc;
  SmallVector<AffineMap> maps;
  SmallVector<Value> sizes, loopValues;
  Value c;
  int64_t mTiles = 1, nTiles = 1;
  /// The lane's rows (per m tile: groupID, groupID + 8) and columns (per n
  /// tile: 2 threadID_in_group and the next, its outputs'; groupID, its B
  /// fragment's), and threadID_in_group.
  SmallVector<Value> rows, outputColumns, fragmentColumns;
  Value lane, group, thread;
};

Value ProductEmitter::loadOrZero(unsigned which, SmallVector<Value> values,
                                 Value inside) {
  Value buffer = op->getOperand(which);
  SmallVector<Value> indices;
  for (AffineExpr result : maps[which].getResults()) {
    unsigned dim = cast<AffineDimExpr>(result).getPosition();
    Value last = arith::SubIOp::create(rewriter, loc, sizes[dim], index(1));
    indices.push_back(arith::MinUIOp::create(rewriter, loc, values[dim], last));
  }
  Value loaded = memref::LoadOp::create(rewriter, loc, buffer, indices);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
  return arith::SelectOp::create(rewriter, loc, inside, loaded, zero);
}

Value ProductEmitter::roundToTF32(Value value) {
  // Half of the last kept bit added to the magnitude, then the dropped
  // bits cleared: to nearest, ties away from zero, as cvt.rna.tf32.f32
  // (except a NaN whose payload lies only in the dropped bits, which
  // becomes an infinity). Integer ops rather than nvvm's conversion,
  // which declares no memory effects (the buffer deallocation refuses
  // it), and the same ops on the CPU.
  Type i32 = rewriter.getI32Type();
  Value rounded = arith::AddIOp::create(
      rewriter, loc, bits(value),
      arith::ConstantOp::create(rewriter, loc,
                                rewriter.getI32IntegerAttr(0x1000)));
  Value cleared = arith::AndIOp::create(
      rewriter, loc, rounded,
      arith::ConstantOp::create(rewriter, loc,
                                IntegerAttr::get(i32, int32_t(0xFFFFE000))));
  return asFloat(cleared);
}

Value ProductEmitter::roundToBF16(Value value) {
  // To nearest even: add 0x7FFF plus the lowest kept bit, clear the rest.
  Type i32 = rewriter.getI32Type();
  Value raw = bits(value);
  Value lowestKept = arith::AndIOp::create(
      rewriter, loc,
      arith::ShRUIOp::create(
          rewriter, loc, raw,
          arith::ConstantOp::create(rewriter, loc, IntegerAttr::get(i32, 16))),
      arith::ConstantOp::create(rewriter, loc, IntegerAttr::get(i32, 1)));
  Value rounded = arith::AddIOp::create(
      rewriter, loc, raw,
      arith::AddIOp::create(rewriter, loc, lowestKept,
                            arith::ConstantOp::create(
                                rewriter, loc, IntegerAttr::get(i32, 0x7FFF))));
  return asFloat(arith::AndIOp::create(
      rewriter, loc, rounded,
      arith::ConstantOp::create(rewriter, loc,
                                IntegerAttr::get(i32, int32_t(0xFFFF0000)))));
}

Value ProductEmitter::packBF16(Value low, Value high) {
  Type i32 = rewriter.getI32Type();
  Value lowBits = arith::ShRUIOp::create(
      rewriter, loc, bits(roundToBF16(low)),
      arith::ConstantOp::create(rewriter, loc, IntegerAttr::get(i32, 16)));
  Value highBits = bits(roundToBF16(high));
  return arith::OrIOp::create(rewriter, loc, highBits, lowBits);
}

SmallVector<Value> ProductEmitter::parts(Value value) {
  if (precision == Precision::BF16)
    return {roundToBF16(value)};
  Value big = roundToTF32(value);
  if (precision == Precision::TF32)
    return {big};
  Value rest = arith::SubFOp::create(rewriter, loc, value, big);
  return {big, roundToTF32(rest)};
}

SmallVector<Value> ProductEmitter::emitEmulatedStep(Value kStart,
                                                    ValueRange sums) {
  SmallVector<Value> next(sums);
  int64_t steps = kPerStep(precision);
  // tf32x3's three products, in the order the tensor cores get them: the
  // small terms first (small A x big B, big A x small B), then big x big.
  SmallVector<std::pair<unsigned, unsigned>> passes = {{0, 0}};
  if (precision == Precision::TF32x3)
    passes = {{1, 0}, {0, 1}, {0, 0}};
  for (auto [partA, partB] : passes)
    for (int64_t kk = 0; kk < steps; ++kk) {
      Value k = add(kStart, kk);
      Value kInside = less(k, sizes[dims.k]);
      for (int64_t i = 0; i < mTiles; ++i)
        for (int64_t half = 0; half < 2; ++half) {
          Value row = rows[2 * i + half];
          Value fromA =
              parts(loadOrZero(0, at(row, outputColumns.front(), k),
                               both(kInside, less(row, sizes[dims.m]))))[partA];
          for (int64_t j = 0; j < nTiles; ++j)
            for (int64_t pair = 0; pair < 2; ++pair) {
              Value column = add(outputColumns[j], pair);
              Value fromB = parts(loadOrZero(
                  1, at(row, column, k),
                  both(kInside, less(column, sizes[dims.n]))))[partB];
              Value &sum = next[(i * nTiles + j) * 4 + half * 2 + pair];
              sum = math::FmaOp::create(rewriter, loc, fromA, fromB, sum);
            }
        }
    }
  return next;
}

SmallVector<Value> ProductEmitter::emitMmaStep(Value kStart, ValueRange sums) {
  auto inside = [&](Value row, Value k) {
    return both(less(row, sizes[dims.m]), less(k, sizes[dims.k]));
  };
  // A's fragment (row-major 16 x k): tf32 m16n8k8 a0 (g, t), a1 (g + 8, t),
  // a2 (g, t + 4), a3 (g + 8, t + 4); bf16 m16n8k16 registers of pairs
  // along k: (g, 2t), (g + 8, 2t), (g, 2t + 8), (g + 8, 2t + 8).
  // B's (column-major k x 8): tf32 b0 (t, g), b1 (t + 4, g); bf16 pairs
  // (2t, g), (2t + 8, g). Each fragment as its parts (tf32x3: big, rest).
  int64_t partCount = precision == Precision::TF32x3 ? 2 : 1;
  auto fragmentOfA = [&](int64_t tile) {
    SmallVector<SmallVector<Value>> registers(partCount);
    for (int64_t r = 0; r < 4; ++r) {
      Value row = rows[2 * tile + r % 2];
      if (precision == Precision::BF16) {
        Value k = add(kStart, r / 2 * 8);
        k = add(k, arith::MulIOp::create(rewriter, loc, thread, index(2)));
        Value low =
            loadOrZero(0, at(row, outputColumns.front(), k), inside(row, k));
        Value kNext = add(k, 1);
        Value high = loadOrZero(0, at(row, outputColumns.front(), kNext),
                                inside(row, kNext));
        registers[0].push_back(packBF16(low, high));
        continue;
      }
      Value k = add(add(kStart, thread), r / 2 * 4);
      SmallVector<Value> split = parts(
          loadOrZero(0, at(row, outputColumns.front(), k), inside(row, k)));
      for (int64_t part = 0; part < partCount; ++part)
        registers[part].push_back(bits(split[part]));
    }
    return registers;
  };
  auto fragmentOfB = [&](int64_t tile) {
    SmallVector<SmallVector<Value>> registers(partCount);
    Value column = fragmentColumns[tile];
    Value columnInside = less(column, sizes[dims.n]);
    for (int64_t r = 0; r < 2; ++r) {
      if (precision == Precision::BF16) {
        Value k = add(add(kStart, r * 8),
                      arith::MulIOp::create(rewriter, loc, thread, index(2)));
        Value kNext = add(k, 1);
        Value low = loadOrZero(1, at(rows.front(), column, k),
                               both(columnInside, less(k, sizes[dims.k])));
        Value high = loadOrZero(1, at(rows.front(), column, kNext),
                                both(columnInside, less(kNext, sizes[dims.k])));
        registers[0].push_back(packBF16(low, high));
        continue;
      }
      Value k = add(add(kStart, thread), r * 4);
      SmallVector<Value> split =
          parts(loadOrZero(1, at(rows.front(), column, k),
                           both(columnInside, less(k, sizes[dims.k]))));
      for (int64_t part = 0; part < partCount; ++part)
        registers[part].push_back(bits(split[part]));
    }
    return registers;
  };
  SmallVector<SmallVector<SmallVector<Value>>> fragmentsOfA, fragmentsOfB;
  for (int64_t i = 0; i < mTiles; ++i)
    fragmentsOfA.push_back(fragmentOfA(i));
  for (int64_t j = 0; j < nTiles; ++j)
    fragmentsOfB.push_back(fragmentOfB(j));
  Type f32 = rewriter.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                     SmallVector<Type>(4, f32));
  // As inline PTX: nvvm.mma.sync declares no memory effects, which the
  // buffer deallocation (after this pass in a GPU build) refuses.
  std::string instruction =
      precision == Precision::BF16
          ? "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
          : "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 ";
  instruction += "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};";
  SmallVector<std::pair<unsigned, unsigned>> passes = {{0, 0}};
  if (precision == Precision::TF32x3)
    passes = {{1, 0}, {0, 1}, {0, 0}};
  SmallVector<Value> next(sums);
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j) {
      MutableArrayRef<Value> tile =
          MutableArrayRef<Value>(next).slice((i * nTiles + j) * 4, 4);
      for (auto [partA, partB] : passes) {
        SmallVector<Value> operands(fragmentsOfA[i][partA]);
        llvm::append_range(operands, fragmentsOfB[j][partB]);
        llvm::append_range(operands, tile);
        auto mma = LLVM::InlineAsmOp::create(
            rewriter, loc, resultType, operands, instruction,
            "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", /*has_side_effects=*/false,
            /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr(), ArrayAttr());
        for (int64_t r = 0; r < 4; ++r)
          tile[r] = LLVM::ExtractValueOp::create(rewriter, loc, mma.getRes(),
                                                 ArrayRef<int64_t>{r});
      }
    }
  return next;
}

void ProductEmitter::emit() {
  maps = op.getIndexingMapsArray();
  c = op.getDpsInits()[0];
  // What wrote C right before the product (a fill, a bias broadcast)
  // gives the sums' start, and the elementwise op right after it (a bias,
  // an activation) runs on each sum as it is stored: the same rules as the
  // FFMA kernels' (RegisterReductions.h).
  SmallVector<Operation *> initializers = replaceableInitializers(op);
  linalg::GenericOp epilogue = findEpilogue(op);
  if (epilogue)
    hoistAboveReduction(op, epilogue);

  rewriter.setInsertionPoint(op);
  for (Range range : cast<linalg::LinalgOp>(op.getOperation())
                         .createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  SmallVector<int64_t> staticSizes = op.getStaticLoopRanges();
  auto staticSize = [&](unsigned dim) -> std::optional<int64_t> {
    if (ShapedType::isDynamic(staticSizes[dim]))
      return std::nullopt;
    return staticSizes[dim];
  };
  std::tie(mTiles, nTiles) =
      chooseWarpTile(staticSize(dims.m), staticSize(dims.n));

  // The warp tiles over every batch entry, and 32 lanes innermost: the
  // distribution collapses the dims with the innermost fastest and blocks
  // of a multiple of 32 threads, so each warp tile's lanes are one warp.
  SmallVector<Value> lowerBounds, upperBounds, steps;
  for (unsigned dim : dims.batch)
    upperBounds.push_back(sizes[dim]);
  upperBounds.push_back(arith::CeilDivUIOp::create(rewriter, loc, sizes[dims.m],
                                                   index(kMmaRows * mTiles)));
  upperBounds.push_back(arith::CeilDivUIOp::create(
      rewriter, loc, sizes[dims.n], index(kMmaColumns * nTiles)));
  upperBounds.push_back(index(kWarpSize));
  lowerBounds.assign(upperBounds.size(), index(0));
  steps.assign(upperBounds.size(), index(1));
  auto loop =
      scf::ParallelOp::create(rewriter, loc, lowerBounds, upperBounds, steps);
  loop->setAttr("odt.warp_tiles", rewriter.getUnitAttr());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(loop.getInductionVars());
  loopValues.assign(op.getNumLoops(), Value());
  for (auto [dim, iv] : llvm::zip(dims.batch, ivs))
    loopValues[dim] = iv;
  Value warpRow = ivs[dims.batch.size()];
  Value warpColumn = ivs[dims.batch.size() + 1];
  lane = ivs.back();
  group = arith::DivUIOp::create(rewriter, loc, lane, index(4));
  thread = arith::RemUIOp::create(rewriter, loc, lane, index(4));
  Value firstRow = add(multiply(warpRow, kMmaRows * mTiles), group);
  for (int64_t i = 0; i < mTiles; ++i) {
    rows.push_back(add(firstRow, i * kMmaRows));
    rows.push_back(add(firstRow, i * kMmaRows + 8));
  }
  Value firstColumn = multiply(warpColumn, kMmaColumns * nTiles);
  for (int64_t j = 0; j < nTiles; ++j) {
    Value tileColumn = add(firstColumn, j * kMmaColumns);
    outputColumns.push_back(add(
        tileColumn, arith::MulIOp::create(rewriter, loc, thread, index(2))));
    fragmentColumns.push_back(add(tileColumn, group));
  }

  // The lane's outputs of tile (i, j): c0 (row g, column 2t), c1 (g,
  // 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1).
  auto forEachOutput = [&](auto function) {
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles; ++j)
        for (int64_t r = 0; r < 4; ++r)
          function(rows[2 * i + r / 2], add(outputColumns[j], r % 2));
  };
  // The parallel dims' values at an output (k is the last loop dim).
  auto parallelDims = [&](Value row, Value column) {
    SmallVector<Value> values = at(row, column, Value());
    values.pop_back();
    return values;
  };
  // Each sum starts at its element's value, read inside the buffers (a
  // lane's rows and columns past the end read the last ones; those sums
  // are never stored).
  Value lastRow = arith::SubIOp::create(rewriter, loc, sizes[dims.m], index(1));
  Value lastColumn =
      arith::SubIOp::create(rewriter, loc, sizes[dims.n], index(1));
  SmallVector<Value> sums;
  forEachOutput([&](Value row, Value column) {
    sums.push_back(startValue(
        rewriter, op, 0, initializers.front(),
        parallelDims(
            arith::MinUIOp::create(rewriter, loc, row, lastRow),
            arith::MinUIOp::create(rewriter, loc, column, lastColumn))));
  });
  auto kLoop = scf::ForOp::create(
      rewriter, loc, index(0), sizes[dims.k], index(kPerStep(precision)), sums,
      [&](OpBuilder &, Location, Value kStart, ValueRange carried) {
        SmallVector<Value> next = emulate ? emitEmulatedStep(kStart, carried)
                                          : emitMmaStep(kStart, carried);
        scf::YieldOp::create(rewriter, loc, next);
      });
  SmallVector<Value> results(kLoop.getResults());
  unsigned position = 0;
  forEachOutput([&](Value row, Value column) {
    Value inside = both(less(row, sizes[dims.m]), less(column, sizes[dims.n]));
    Value result = results[position++];
    auto store = scf::IfOp::create(rewriter, loc, inside, false);
    OpBuilder::InsertionGuard storeGuard(rewriter);
    rewriter.setInsertionPointToStart(store.thenBlock());
    SmallVector<Value> values = at(row, column, Value());
    SmallVector<Value> indices;
    for (AffineExpr expr : maps[2].getResults())
      indices.push_back(values[cast<AffineDimExpr>(expr).getPosition()]);
    memref::StoreOp::create(rewriter, loc, result, c, indices);
    if (epilogue)
      emitEpilogue(rewriter, op, epilogue, parallelDims(row, column), result);
  });
  rewriter.eraseOp(op);
  if (epilogue)
    rewriter.eraseOp(epilogue);
  for (Operation *initializer : initializers)
    if (initializer)
      rewriter.eraseOp(initializer);
}

struct TensorCoreProductsPass
    : impl::TensorCoreProductsBase<TensorCoreProductsPass> {
  using TensorCoreProductsBase::TensorCoreProductsBase;

  void runOnOperation() override {
    std::optional<Precision> chosen = parsePrecision(precision);
    if (!chosen) {
      if (precision != "fp32") {
        getOperation().emitError()
            << "odt-gpu-tensor-core-products: unknown precision '" << precision
            << "' (fp32, tf32, tf32x3 or bf16)";
        signalPassFailure();
      }
      return;
    }
    SmallVector<std::pair<linalg::GenericOp, ProductDims>> products;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<ProductDims> dims = matchProduct(op))
        products.push_back({op, *dims});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, dims] : products)
      ProductEmitter(rewriter, op, dims, *chosen, emulate).emit();
  }
};

} // namespace
} // namespace odt
