//===- ShapeInference.h - symbolic dims for onnx ops ------------*- C++ -*-===//
//
// Symbolic shape inference. A dim is either a known size or a symbol (an ONNX
// dim_param such as "batch", or a fresh one for an unnamed dynamic dim).
// Symbols form equivalence classes (union-find); binding a class to a size
// makes every dim of the class static. The result is written back into the
// IR as refined tensor types plus `onnx.dims` attributes naming the symbols of
// entry-point arguments and results, so the runtime can check caller shapes.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_DIALECTS_ONNX_SHAPEINFERENCE_H
#define ODT_DIALECTS_ONNX_SHAPEINFERENCE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace odt::onnx {

/// One dimension: a static size (>= 0) or a symbol id.
class Dim {
public:
  static Dim size(int64_t value) { return Dim(value, -1); }
  static Dim symbol(int id) { return Dim(-1, id); }

  bool isStatic() const { return symbolId < 0; }
  int64_t getSize() const { return value; }
  int getSymbol() const { return symbolId; }
  bool operator==(const Dim &other) const {
    return value == other.value && symbolId == other.symbolId;
  }

private:
  Dim(int64_t value, int symbolId) : value(value), symbolId(symbolId) {}
  int64_t value;
  int symbolId;
};

using Shape = llvm::SmallVector<Dim, 4>;

/// Holds the symbolic shape of every ranked value seen so far and the
/// equivalence classes of symbols.
class ShapeContext {
public:
  /// A new symbol; `name` is kept for diagnostics and descriptors.
  Dim newSymbol(llvm::StringRef name);
  /// A symbol for `name`, shared by every dim that carries the same name.
  Dim namedSymbol(llvm::StringRef name);

  /// The canonical form of `dim`: its size if its class is bound, else the
  /// representative symbol of its class.
  Dim resolve(Dim dim) const;
  Shape resolve(llvm::ArrayRef<Dim> shape) const;

  /// Requires `a == b`. Emits an error at `op` mentioning `what` and fails if
  /// both are known and differ.
  mlir::LogicalResult unify(Dim a, Dim b, mlir::Operation *op,
                            llvm::StringRef what);

  /// The name of a symbol's class (the name of its representative).
  std::string symbolName(Dim dim) const;

  /// Whether `value` has a known symbolic shape (it is a ranked tensor).
  bool hasShape(mlir::Value value) const { return shapes.count(value); }
  /// The shape of `value`, resolved. Only valid if hasShape(value).
  Shape getShape(mlir::Value value) const;
  /// The element type of a shaped value.
  static mlir::Type getElementType(mlir::Value value);
  /// Records the shape of `value` and sets its type to a ranked tensor of
  /// `elementType` with the dims known so far.
  void setShape(mlir::Value value, llvm::ArrayRef<Dim> shape,
                mlir::Type elementType);
  /// Re-types every recorded value with its dims resolved now: dims bound by
  /// later unification become static everywhere.
  void refineTypes();

  /// The shape a ranked tensor type implies, with a fresh symbol for each
  /// dynamic dim (used for values whose dims nothing names).
  Shape shapeFromType(mlir::Type type, llvm::StringRef hint);

  /// The static-or-dynamic dims of a resolved shape, for a tensor type.
  llvm::SmallVector<int64_t> toStaticDims(llvm::ArrayRef<Dim> shape) const;

  /// Numpy-style multidirectional broadcasting of two shapes.
  mlir::FailureOr<Shape> broadcast(llvm::ArrayRef<Dim> lhs,
                                   llvm::ArrayRef<Dim> rhs,
                                   mlir::Operation *op);

private:
  int find(int symbol) const;

  llvm::SmallVector<std::string> names;
  mutable llvm::SmallVector<int> parent;
  llvm::SmallVector<std::optional<int64_t>> boundSize;
  llvm::StringMap<int> byName;
  llvm::DenseMap<mlir::Value, Shape> shapes;
};

/// Prints a shape as "[N, 784]" for diagnostics.
std::string formatShape(const ShapeContext &context, llvm::ArrayRef<Dim> shape);

/// Runs shape inference over the ops of `region` in order: every op must
/// implement ONNXOpInterface or be a known pass-through (func.return).
/// Operand shapes of block arguments must already be in `context`.
mlir::LogicalResult inferShapesInBlock(mlir::Block &block,
                                       ShapeContext &context);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_SHAPEINFERENCE_H
