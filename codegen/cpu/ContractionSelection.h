//===- ContractionSelection.h - which kernel computes a product -*- C++ -*-===//
//
// The one place where the CPU backend decides how a matrix product is
// computed: which kernel strategy for which row counts, whether B's panels
// are kept between steps, whether the parallel iterations are blocks of
// whole rows. The decision is written on the product as a dictionary
// attribute (kContractionConfigAttr) by odt-select-contraction-kernels, and
// odt-vectorize-contractions emits what it says; a config already in the
// input IR forces one. The thresholds and their measured rationale live in
// ContractionSelection.cpp.
//
//   odt.contraction = {
//     kernels = [{kernel = "packed", min_rows = 24},
//                {kernel = "swapped", min_rows = 6, max_rows = 8},
//                {kernel = "dots"}],
//     tile = [6, 16], depth = 256,
//     distribution = {chunk_tiles = 2, row_block = 256},
//     blocking = {dot_group = 8, direct_depth = 32},
//     kept_panels,                        // optional
//     panels_in_place,                    // optional
//     wide_rows = {max_k = 32, row_block = 64}}   // optional
//
// `kernels` is tried in order at run time (or at compile time when the row
// count is static): the first entry whose conditions hold (min_rows <= m,
// m <= max_rows, k >= min_k) computes the product; the last has none.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_CONTRACTIONSELECTION_H
#define ODT_CODEGEN_CPU_CONTRACTIONSELECTION_H

#include "codegen/cpu/ContractionPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace odt::cpu {

inline constexpr llvm::StringLiteral kContractionConfigAttr = "odt.contraction";

/// The kernel strategies (ContractionEmitter.h, one file each).
enum class ContractionKernel {
  /// B packed into L1-sized panels, row tiles over them: any product.
  Packed,
  /// B's rows read in place along n: B not transposed.
  Direct,
  /// Each output a dot product along k: B transposed, k innermost in A.
  Dots,
  /// Computed transposed, the rows as a vector's lanes: B transposed, k
  /// innermost in A, at most one vector of rows.
  Swapped,
};

llvm::StringRef getKernelName(ContractionKernel kernel);
std::optional<ContractionKernel> parseKernelName(llvm::StringRef name);

/// One entry of the config's `kernels`: the kernel and when it applies.
struct KernelChoice {
  ContractionKernel kernel;
  int64_t minRows = 0;  ///< applies from this many rows
  int64_t maxRows = -1; ///< ... up to this many (-1: any)
  int64_t minK = 0;     ///< ... with at least this many k values
};

struct ContractionConfig {
  /// Tried in order; the last applies unconditionally.
  llvm::SmallVector<KernelChoice, 3> kernels;
  /// Register tile (rows x columns, columns = 2 vectors, or 1 where n fits
  /// one vector and the kernels are packed or direct) and k values per
  /// packed panel.
  int64_t rows = 0, columns = 0, depth = 0;
  /// B (a parameter) keeps its packed panels in entry arguments.
  bool keptPanels = false;
  /// B is already laid out as panels ([..., k, n] with n the tile's
  /// columns: a convolution's image panels): the packed kernel reads them
  /// where they are instead of copying them (isLaidOutAsPanels).
  bool panelsInPlace = false;
  /// > 0: the parallel iterations are blocks of wideRowBlock whole rows
  /// when k <= wideRowsMaxK (known at run time or compile time).
  int64_t wideRowsMaxK = 0, wideRowBlock = 0;
  /// The parallel iterations otherwise: chunks of chunkTiles column tiles
  /// (or the first outer dim), times blocks of rowBlock rows.
  int64_t chunkTiles = 0, rowBlock = 0;
  /// The dots kernel's columns per group and the direct kernel's k block.
  int64_t dotGroup = 0, directDepth = 0;
  /// A is stored [k, m] (a weight gradient's X^T): the packed kernel first
  /// copies each k block of A into panels of its row tiles ([tiles, k,
  /// rows], contiguous), which the tiles then read in order.
  bool rowPanelsOfA = false;

  /// The rows from which the packed kernel runs (its entry's min_rows), or
  /// -1 when no entry is packed.
  int64_t packedMinRows() const;
};

/// What the target gives the selection.
struct ContractionTarget {
  int64_t vectorWidth = 8, rows = 6, depth = 256;
};

/// The tile for products in `func`: the pass options where given
/// (non-zero), else the module's odt.target (CPUTarget.h), else AVX-512's
/// 16 lanes x 8 rows.
ContractionTarget resolveContractionTarget(mlir::func::FuncOp func,
                                           unsigned vectorWidth, unsigned rows,
                                           unsigned depth);

/// Whether B of `op` is a parameter of `func` whose panels the runtime can
/// keep (odt.role = parameter, static 2-D shape, read by this product in
/// the entry's body, no dims beyond m, n and k).
bool canKeepPanels(mlir::func::FuncOp func, mlir::linalg::GenericOp op);

/// The config for a planned product. `keepPanels`: whether its B may keep
/// panels (canKeepPanels, and no other product of the entry keeps the same
/// parameter's in the same layout). `why` gets one sentence per decision.
ContractionConfig selectContractionConfig(mlir::linalg::GenericOp op,
                                          const ContractionPlan &plan,
                                          const ContractionTarget &target,
                                          bool keepPanels, std::string &why);

/// `config` with its kernels replaced by `kernel` where that kernel can
/// compute the product (swapped: up to one vector of rows, packed beyond);
/// nothing when it cannot. No kept panels unless packed, no wide rows.
std::optional<ContractionConfig> forceKernel(const ContractionConfig &config,
                                             ContractionKernel kernel,
                                             mlir::linalg::GenericOp op,
                                             const ContractionPlan &plan,
                                             const ContractionTarget &target);

mlir::DictionaryAttr buildConfigAttr(mlir::MLIRContext *context,
                                     const ContractionConfig &config);

/// The config written on `op`, checked against what the product and the
/// target allow (errors at the op); nothing when `op` has none.
mlir::FailureOr<std::optional<ContractionConfig>>
readConfigAttr(mlir::linalg::GenericOp op, const ContractionPlan &plan,
               const ContractionTarget &target);

/// How the passes choose configs.
struct SelectionOptions {
  ContractionTarget target;
  /// Whether a parameter B may keep its panels between steps.
  bool cachePanels = true;
  /// Every product this kernel can compute gets it (forceKernel).
  std::optional<ContractionKernel> force;
  /// A remark at each product saying why it got its config.
  bool remarks = false;
};

/// Gives every product of `products` (normalizeProducts of `func`) that
/// has no config one, and checks those that have one (errors at the op);
/// returns each product's config, in the order of `products`.
mlir::FailureOr<llvm::SmallVector<ContractionConfig>> selectContractionConfigs(
    mlir::func::FuncOp func,
    llvm::ArrayRef<std::pair<mlir::linalg::GenericOp, ContractionPlan>>
        products,
    const SelectionOptions &options);

/// Whether B of `op` is laid out as the packed kernel's panels of
/// `columns`: not transposed, its last two dims k then n, n static and
/// equal to `columns`.
bool isLaidOutAsPanels(mlir::linalg::GenericOp op, const ContractionPlan &plan,
                       int64_t columns);

/// Whether k is the innermost dim of A (rows of A contiguous along k).
bool isKInnermostInA(mlir::linalg::GenericOp op, const ContractionPlan &plan);

/// Whether m is the innermost dim of A (A stored [k, m], a transposed
/// operand: the values a row tile reads at one k are contiguous).
bool isMInnermostInA(mlir::linalg::GenericOp op, const ContractionPlan &plan);

} // namespace odt::cpu

#endif // ODT_CODEGEN_CPU_CONTRACTIONSELECTION_H
