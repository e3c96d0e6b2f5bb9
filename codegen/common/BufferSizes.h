//===- BufferSizes.h - buffer sizes as polynomials of named dims -*- C++
//-*-===//
//
// Shared by odt-report-peak-memory and odt-plan-arena: the bytes of an
// allocation as a polynomial with non-negative coefficients over the entry
// point's named symbolic dims (`onnx.dims` argument attributes), traced
// through allocation sizes, casts and reshapes. Coefficient-wise comparisons
// and maxima hold for every value of the dims, which is what a plan made at
// compile time for all batch sizes needs.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_PASSES_BUFFERSIZES_H
#define ODT_CODEGEN_PASSES_BUFFERSIZES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace odt {

/// Monomial (sorted dim names, repeated for powers) -> coefficient.
using Monomial = std::vector<std::string>;
using Polynomial = std::map<Monomial, int64_t>;

Polynomial constantPolynomial(int64_t value);
Polynomial add(const Polynomial &a, const Polynomial &b);
Polynomial subtract(const Polynomial &a, const Polynomial &b);
Polynomial multiply(const Polynomial &a, const Polynomial &b);
/// Coefficient-wise maximum: at least each of a and b for all dims >= 0.
Polynomial upperBound(const Polynomial &a, const Polynomial &b);
/// Whether a <= b coefficient-wise (so for all dims >= 0).
bool lessOrEqual(const Polynomial &a, const Polynomial &b);
/// Every coefficient rounded up to a multiple of `alignment`: at least the
/// value rounded up to it, for all dims >= 1 (each monomial is >= 1).
Polynomial roundUpCoefficients(const Polynomial &p, int64_t alignment);
/// The value with every dim set to `dimValue` (to rank candidates).
int64_t evaluateAt(const Polynomial &p, int64_t dimValue);
/// "8192*batch + 1640448".
std::string format(const Polynomial &p);

class BufferSizes {
public:
  explicit BufferSizes(mlir::func::FuncOp func) : func(func) {}

  /// The bytes of `alloc`, or nothing when a size is read from data at run
  /// time (a Reshape target computed in the graph).
  std::optional<Polynomial> bytesOf(mlir::memref::AllocOp alloc);

  /// The value of dim `name` in `func`: a memref.dim of the first argument
  /// that names it, built at `builder`'s point (null if none names it).
  static mlir::Value dimValue(mlir::OpBuilder &builder, mlir::func::FuncOp func,
                              llvm::StringRef name);

  /// `p` as index arithmetic (dims from `dims`, one value per name).
  static mlir::Value
  materialize(mlir::OpBuilder &builder, mlir::Location loc, const Polynomial &p,
              const std::map<std::string, mlir::Value> &dims);

private:
  std::optional<Polynomial> indexValue(mlir::Value value);
  std::optional<Polynomial> dimOf(mlir::Value buffer, int64_t d);

  mlir::func::FuncOp func;
};

} // namespace odt

#endif // ODT_CODEGEN_PASSES_BUFFERSIZES_H
