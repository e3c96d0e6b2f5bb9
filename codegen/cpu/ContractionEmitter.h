//===- ContractionEmitter.h - the kernels of one product ------*- C++ -*-===//
//
// The kernel strategies of odt-vectorize-contractions, one file each:
// ContractionEmitter.cpp (the parallel distribution and the choice among
// the strategies below, the epilogue), ContractionPackedKernel.cpp (B
// packed into panels, row tiles over them), ContractionSwappedKernel.cpp
// (few rows times a transposed B, computed transposed),
// ContractionDotKernel.cpp (dot products along k),
// ContractionDirectKernel.cpp (B rows read in place) and
// ContractionPanelCache.cpp (panels of a weight kept between steps).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_CONTRACTIONEMITTER_H
#define ODT_CODEGEN_CPU_CONTRACTIONEMITTER_H

#include "codegen/cpu/ContractionSelection.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace odt::cpu {

// Only the contraction files include this header; the emitter's members
// name MLIR types throughout.
using namespace mlir;

/// Emits the loops for one planned product.
///
/// Packed path (B transposed, or enough rows to reuse a panel): for each
/// block of `depth` k values and each tile of columns, the block of B is
/// copied into a contiguous [depth, columns] panel (zero-padded past n),
/// which every row tile then reads from L1. Direct path (few rows, B rows
/// already contiguous): row tiles read B in place.
class ContractionEmitter {
public:
  /// `config` (ContractionSelection.h) says which kernels, tile and
  /// distribution; `cache` holds the kept panels when it says so.
  ContractionEmitter(linalg::GenericOp op, const ContractionPlan &plan,
                     const ContractionEpilogue &epilogue,
                     const ContractionConfig &config,
                     PanelCache *cache = nullptr)
      : op(op), plan(plan), epilogue(epilogue), config(config),
        rows(config.rows), columns(config.columns), depth(config.depth),
        loc(op.getLoc()), cache(cache) {}

  Value emit(OpBuilder &builder);

private:
  /// How the product's parallel iterations are cut: along `parallelDim`
  /// (n, or the first outer dim) in pieces of `step` over `extent`
  /// (`chunks` of them), times blocks of `rowStep` rows when `blockRows`;
  /// `iterations` in all.
  struct Distribution {
    unsigned parallelDim = 0;
    bool blockRows = false;
    Value extent, step, chunks, rowStep, iterations;
  };

  /// Reads the operands, C's start (a fill's constant or the bias) and the
  /// loop sizes, and makes the constants the kernels share; returns C.
  Value prepareOperands(OpBuilder &builder);

  /// The parallel iterations' cut (and the wide-row test of k, shortK).
  Distribution planDistribution(OpBuilder &builder, ArrayRef<unsigned> outer);

  struct Slice {
    Value value;
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };

  /// The value of every loop dim of the product at a point of the emitted
  /// loops (null where no loop runs yet), passed explicitly to each
  /// function that reads or sets it.
  using LoopIndices = SmallVector<Value, 6>;

  /// `value` restricted to [first, first + width) along dim `dim`.
  Slice slice(OpBuilder &builder, Value value, unsigned dim, Value first,
              Value width);

  /// `value` restricted to [first, first + width) along each (dim, first,
  /// width) of `cuts`.
  Slice slice(OpBuilder &builder, Value value,
              ArrayRef<std::tuple<unsigned, Value, Value>> cuts);

  /// One 2-D product at the current outer indices, by the first of
  /// `choices` that applies (tested at run time, or here when the sizes
  /// say); yields C and the scratch tensors. `scratch` is what the
  /// kernels reuse from one 2-D product to the next (the loops around
  /// them carry it, so it is allocated once per parallel iteration): B's
  /// panel, then the panels of A's row tiles when the config has them.
  scf::ValueVector emitKernels(OpBuilder &builder, Value c, ValueRange scratch,
                               ArrayRef<KernelChoice> choices,
                               const LoopIndices &at);

  /// One 2-D product by `kernel`; yields C and the scratch tensors.
  scf::ValueVector emitKernel(OpBuilder &builder, Value c, ValueRange scratch,
                              ContractionKernel kernel, const LoopIndices &at);

  using BranchBuilder = function_ref<SmallVector<Value>(OpBuilder &)>;

  /// scf.if on `condition` whose branches yield what `then` and
  /// `otherwise` build; its results.
  SmallVector<Value> emitIf(OpBuilder &builder, Value condition,
                            BranchBuilder then, BranchBuilder otherwise);

  /// C^T = B A^T for at most one vector of rows m: for each block of
  /// `depth` k values, A's block is transposed into the panel ([k, m], one
  /// vector of m per k, zeros past m's end); then for each tile of `lanes`
  /// columns n, each of the tile's columns adds a broadcast element of
  /// B[n, k] times the panel's row k, so one vector accumulates
  /// C[0 .. lanes, n] and B is read once, in place, along its contiguous
  /// rows. The tile is transposed back in registers before C is written
  /// (and read back, between k blocks). The terms of each output are summed
  /// in k order.
  scf::ValueVector emitSwapped(OpBuilder &builder, Value c, Value panel,
                               const LoopIndices &at);

  /// One tile of emitSwapped: C[0 .. m, column .. column + lanes) over the
  /// k block [kStart, kStart + kCount), whose A^T is the panel's rows.
  Value emitSwappedTile(OpBuilder &builder, Value c, Value column, Value kStart,
                        Value kCount, Value packed, LoopIndices at);

  scf::ValueVector emitPacked(OpBuilder &builder, Value c, ValueRange scratch,
                              LoopIndices at);

  /// Copies A[kStart .. kStart + kCount) of every row tile into `panels`
  /// ([tiles, depth, rows]: tile t's values at k block row kk are
  /// panels[t, kk, 0 .. rows), zeros past m's end), for an A stored
  /// [k, m]: each copy is one vector along m.
  Value packRowsOfA(OpBuilder &builder, Value panels, Value kStart,
                    Value kCount, LoopIndices at);

  /// All of A in panels of its row tiles ([tiles, k + padding, rows]),
  /// packed before the product's parallel loop, in parallel over k blocks.
  Value emitAllRowPanelsOfA(OpBuilder &builder);

  /// k values of padding after each panel of A's row tiles: panels of 256
  /// k values x 8 rows are 8 KB apart, and the packing's stores down the
  /// tiles at one k would all fall in one L1 set; a line more apart, they
  /// spread over the sets.
  static constexpr int64_t kRowPanelPadding = 2;

  /// Before the product's parallel loop: when it will take the packed path
  /// (enough rows) and the cache is stale, every panel of B is packed into
  /// the cache (in parallel over column tiles) and the flag cleared. The
  /// kernel then reads its panels from the cache (cachedPanels).
  void emitPanelCache(OpBuilder &builder);

  /// Packs all of B into `panels` ([column tiles, k, columns]): one
  /// parallel iteration per column tile, its k blocks packed as emitPack
  /// packs them inside the product.
  Value emitFill(OpBuilder &builder, Value panels);

  /// The cached panel of rows [kStart, kStart + kCount) under the column
  /// tile at `column` of the current chunk.
  Value cachedPanel(OpBuilder &builder, Value column, Value kStart,
                    Value kCount);

  /// C[m, n] = C's start + sum over k of A[m, k] * B[n, k], with A's and B's
  /// rows read as vectors along k: for each group of dot_group columns
  /// (then single columns) and each pair of rows, one vector of partial
  /// sums per output, reduced at the end. The terms are summed in lanes, not in
  /// k order (the same on every run and thread count).
  Value emitDots(OpBuilder &builder, Value c, const LoopIndices &at);

  /// emitDots for the columns [firstColumn, firstColumn + count): pairs of
  /// rows share each vector read from B (then the last row alone), with
  /// vectors of one register so that 2 x dot_group sums stay in registers.
  Value emitDotGroup(OpBuilder &builder, Value c, Value firstColumn,
                     unsigned count, const LoopIndices &at);

  /// Rows [row, row + rowCount) x `columnValues` of C as dot products.
  Value emitDotRows(OpBuilder &builder, Value c, Value row, unsigned rowCount,
                    ArrayRef<Value> columnValues, LoopIndices at);

  /// The consumer's body on a finished part of C at the current indices:
  /// one element (`width` 0) or `width` elements along n as a vector. Its
  /// other inputs are read there; constants (in the body or from outside
  /// it) are copied here and, for vectors, splat.
  Value applyConsumer(OpBuilder &b, Value value, int64_t width,
                      const LoopIndices &at);

  /// A copy, here, of a constant from outside the consumer's body (the
  /// consumer may come after the product, and the constant with it).
  Value cloneConstant(OpBuilder &b, Value constant);

  /// B's rows read in place: k in blocks of the config's direct_depth, and
  /// in each block the column tiles, each tile's row tiles summing the
  /// block's k values (ContractionSelection.cpp says why blocks).
  Value emitDirect(OpBuilder &builder, Value c, LoopIndices at);

  /// B[k, n .. n + columns) at the current indices, zero past n's end.
  Value readRowOfB(OpBuilder &builder, const LoopIndices &at);

  /// Copies B[kStart .. kStart + kCount, column .. column + columns) into
  /// the panel's first kCount rows.
  Value emitPack(OpBuilder &builder, Value panel, Value kStart, Value kCount,
                 LoopIndices at);

  /// Copies operand[index][first + j, kStart + kk] (the dim `dim` and k of
  /// the operand `operand`, whose indexing map is operand `index`'s) to
  /// panel[kk, j] for kk < kCount and j < halves * lanes, with zeros for j
  /// past `dim`'s end. The operand is [dim, k] in memory: square blocks of
  /// `lanes` x `lanes` values are read as rows along k (contiguous),
  /// transposed in registers and written as panel rows; the k values past
  /// the last full block go element by element. (Element by element
  /// throughout, LLVM vectorized the walk down each column with scatter
  /// stores: 38% of a 64-row forward product's time.)
  Value packTransposed(OpBuilder &builder, Value panel, Value operand,
                       unsigned index, unsigned dim, Value first, Value kStart,
                       Value kCount, int64_t halves, LoopIndices at);

  /// Transposes the square block whose row j is `block[j]` (as many rows
  /// as lanes, a power of two) in place: afterwards block[i][j] is the old
  /// block[j][i]. One stage per bit d of the index swaps bit d of the row
  /// with bit d of the lane: rows r and r | d (r without bit d) become
  /// two-source shuffles of each other.
  void transposeInRegisters(OpBuilder &builder, MutableArrayRef<Value> block);

  /// first, first + 1, ..., first + count - 1.
  SmallVector<Value> successors(OpBuilder &builder, Value first,
                                unsigned count);

  /// The indices into operand `index` with the current loop values.
  SmallVector<Value> indicesOf(unsigned index, const LoopIndices &at);

  using RowReader = function_ref<Value(OpBuilder &, Value)>;

  /// Full tiles of `rows` rows, then the remaining rows: one tile of them
  /// when the row count is static (a 6-filter convolution is one 6-row
  /// tile), else one row at a time.
  Value emitRowTiles(OpBuilder &builder, Value c, Value kStart, Value kCount,
                     RowReader readRow, const LoopIndices &at);

  /// Rows [row, row + count) x the current columns of C, accumulated over
  /// k in [kStart, kStart + kCount); readRow(kk) gives B's row kStart + kk.
  Value emitTile(OpBuilder &builder, Value row, unsigned count, Value c,
                 Value kStart, Value kCount, RowReader readRow, LoopIndices at);

  /// The consumer's body applied to each row's finished sums (after the
  /// last k block; earlier blocks store the partial sums unchanged).
  SmallVector<Value> emitEpilogue(OpBuilder &builder, ArrayRef<Value> rowValues,
                                  Value kStart, Value kCount,
                                  ArrayRef<Value> sums, int64_t width,
                                  LoopIndices at);

  linalg::GenericOp op;
  ContractionPlan plan;
  ContractionEpilogue epilogue;
  ContractionConfig config;
  int64_t rows, columns, depth;
  Location loc;
  /// The panel cache, if B is a parameter that keeps one; cachedPanels is
  /// its (filled) value inside the product, columnOffset the first column
  /// of the current parallel chunk.
  PanelCache *cache = nullptr;
  Value cachedPanels, columnOffset;
  /// Inside the packed kernel with rowPanelsOfA: the current k block's
  /// panels of A's row tiles, which emitTile reads instead of A.
  Value rowPanelsOfA;
  /// The panels of the current rows' tiles over all of k, when A was
  /// packed before the parallel loop (emitAllRowPanelsOfA); else null.
  Value rowPanelsOfAllK;
  SmallVector<AffineMap> maps;
  Value a, b, zero, one, padding;
  SmallVector<Value> sizes;
  VectorType vectorType;
  bool columnsInBounds = false;
  /// Whether k is at most the config's wide_rows max_k (an i1, constant
  /// when k is static), for a product that takes wide row blocks then;
  /// else null.
  Value shortK;
  Value initialValue;             // C's fill value when C starts as a constant
  Value bias;                     // sliced like C's columns
  SmallVector<Value> extraInputs; // the consumer's other inputs, sliced
  SmallVector<bool> extraInputIsRow; // an extra input is a row along n
};

} // namespace odt::cpu

#endif // ODT_CODEGEN_CPU_CONTRACTIONEMITTER_H
