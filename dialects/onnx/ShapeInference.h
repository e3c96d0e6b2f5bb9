//===- ShapeInference.h - symbolic dims for onnx ops ------------*- C++ -*-===//
//
// Symbolic shape inference. A dim is a constant times a product of symbols
// (784, N, 3*N*C): a symbol is an ONNX dim_param such as "batch", or a fresh
// one for an unnamed dynamic dim or a size nothing else can express. Symbols
// form equivalence classes (union-find); a class can be bound to a size or to
// a product of other symbols, which every dim of the class then becomes. The
// result is written back into the IR as refined tensor types plus `onnx.dims`
// attributes naming the dims of entry-point arguments and results (a product
// is named "3*N*C"), so the runtime can check caller shapes.
//
// Small integer tensors computed from shapes (Shape -> Gather -> Concat ->
// Reshape, as PyTorch exports them) carry their known *values* as Dims, so
// such chains resolve at compile time: setValues/getValues.
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

/// One dimension: a constant times a product of symbols (sorted symbol ids,
/// repeated for powers). Without symbols it is a static size. As a known
/// *value* of a shape computation the constant may be negative (-1 in a
/// Reshape target); as a dim it never is.
class Dim {
public:
  static Dim size(int64_t value) { return Dim(value, {}); }
  static Dim symbol(int id) { return Dim(1, {id}); }
  /// `coefficient` times the product of `symbols` (in any order).
  static Dim product(int64_t coefficient, llvm::ArrayRef<int> symbols);

  /// No symbols: the size is known.
  bool isStatic() const { return symbols.empty(); }
  /// Exactly one symbol with coefficient 1.
  bool isSymbol() const { return coefficient == 1 && symbols.size() == 1; }
  /// The size of a static dim; -1 for a symbolic one.
  int64_t getSize() const { return isStatic() ? coefficient : -1; }
  /// The symbol of a plain symbol (isSymbol()); -1 otherwise.
  int getSymbol() const { return isSymbol() ? symbols.front() : -1; }
  int64_t getCoefficient() const { return coefficient; }
  llvm::ArrayRef<int> getSymbols() const { return symbols; }

  bool operator==(const Dim &other) const {
    return coefficient == other.coefficient && symbols == other.symbols;
  }
  bool operator!=(const Dim &other) const { return !(*this == other); }

private:
  Dim(int64_t coefficient, llvm::SmallVector<int, 2> symbols)
      : coefficient(coefficient), symbols(std::move(symbols)) {}
  int64_t coefficient;
  llvm::SmallVector<int, 2> symbols;
};

using Shape = llvm::SmallVector<Dim, 4>;

/// The known values of a small integer tensor, flattened in row-major order;
/// std::nullopt for an element whose value is not known at compile time.
using Values = llvm::SmallVector<std::optional<Dim>, 4>;

/// Holds the symbolic shape of every ranked value seen so far, the known
/// values of small integer tensors and the equivalence classes of symbols.
class ShapeContext {
public:
  /// Tensors with more elements than this carry no values.
  static constexpr int64_t kMaxValues = 64;

  /// A new symbol; `name` is kept for diagnostics and descriptors.
  Dim newSymbol(llvm::StringRef name);
  /// A symbol for `name`, shared by every dim that carries the same name.
  Dim namedSymbol(llvm::StringRef name);

  /// The canonical form of `dim`: each symbol replaced by its class's binding
  /// (a size or a product) or by the class's representative.
  Dim resolve(Dim dim) const;
  Shape resolve(llvm::ArrayRef<Dim> shape) const;

  /// Requires `a == b`. Binds a symbol when one side is a plain symbol (after
  /// cancelling common factors) or a static size solves it; emits an error at
  /// `op` mentioning `what` and fails if they provably differ (two different
  /// sizes, or k*S = c with k not dividing c). Other equations (N*C = 784)
  /// are assumed to hold.
  mlir::LogicalResult unify(Dim a, Dim b, mlir::Operation *op,
                            llvm::StringRef what);

  /// The name of a dim: its size, its class's name, or a product such as
  /// "3*N*C".
  std::string symbolName(Dim dim) const;

  /// Arithmetic on resolved dims (or values). std::nullopt where the result
  /// is not a Dim or the constant overflows.
  std::optional<Dim> multiply(Dim a, Dim b) const;
  std::optional<Dim> product(llvm::ArrayRef<Dim> dims) const;
  /// a / b when b divides a exactly (b's symbols are among a's and its
  /// constant divides a's).
  std::optional<Dim> divideExact(Dim a, Dim b) const;
  /// a + b when both have the same symbols (2*N + N = 3*N), or one is 0.
  std::optional<Dim> add(Dim a, Dim b) const;
  /// `dim` if known and a valid size (no negative coefficient), else a
  /// fresh symbol named `name`.
  Dim dimOrNewSymbol(std::optional<Dim> dim, llvm::StringRef name);
  /// A fresh symbol for dim `dim` of result `result` of `op` (a size only
  /// known at run time), named after the node: "<node>_dim<d>" or
  /// "<node>_out<r>_dim<d>".
  Dim newResultSymbol(mlir::Operation *op, int64_t dim, unsigned result = 0);

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
  /// The size `symbol` takes when nothing has bound it by refineTypes (a
  /// pooling gradient's input: several sizes pool to dY's, and the
  /// smallest is assumed when no reader of dX says which).
  void setFallbackSize(Dim symbol, int64_t size) {
    fallbackSizes.push_back({symbol, size});
  }

  /// Records the known values of `value` (its shape must be recorded and
  /// static, with at most kMaxValues elements, else nothing is recorded).
  void setValues(mlir::Value value, llvm::ArrayRef<std::optional<Dim>> values);
  void setValues(mlir::Value value, llvm::ArrayRef<Dim> values);
  /// The values of `value`, resolved: recorded ones, or those of an integer
  /// onnx.Constant. std::nullopt if nothing is known about them.
  std::optional<Values> getPartialValues(mlir::Value value) const;
  /// The values of `value` if every one of them is known.
  std::optional<llvm::SmallVector<Dim>> getValues(mlir::Value value) const;
  /// The values of `value` if every one is a known static integer.
  std::optional<llvm::SmallVector<int64_t>>
  getStaticValues(mlir::Value value) const;
  /// Gives `to` the values of `from`, if any are known (for ops that only
  /// move or reinterpret data: Identity, Cast between integer types).
  void forwardValues(mlir::Value from, mlir::Value to);

  /// The shape a ranked tensor type implies, with a fresh symbol for each
  /// dynamic dim (used for values whose dims nothing names).
  Shape shapeFromType(mlir::Type type, llvm::StringRef hint);

  /// The static-or-dynamic dims of a resolved shape, for a tensor type.
  llvm::SmallVector<int64_t> toStaticDims(llvm::ArrayRef<Dim> shape) const;

  /// Numpy-style multidirectional broadcasting of two shapes.
  mlir::FailureOr<Shape> broadcast(llvm::ArrayRef<Dim> lhs,
                                   llvm::ArrayRef<Dim> rhs,
                                   mlir::Operation *op);

  /// A requirement the symbols cannot express: `dividend` (a product of
  /// symbols) must be a multiple of `divisor`, else `reason` (a Reshape
  /// with -1 whose other dims do not divide the element count) computes a
  /// wrong result. Checked by the runtime once the symbols are bound.
  struct Divisibility {
    Dim dividend;
    int64_t divisor;
    std::string reason;
  };
  void requireDivisible(Dim dividend, int64_t divisor, std::string reason) {
    divisibility.push_back({dividend, divisor, std::move(reason)});
  }
  llvm::ArrayRef<Divisibility> getDivisibilityRequirements() const {
    return divisibility;
  }

  /// Where the run time reads a symbol's size: dim `dim` of `value`, the
  /// first value recorded with that symbol as a dim (a function argument:
  /// the caller's size; an op result: the size the op computes).
  struct DimSite {
    mlir::Value value;
    int64_t dim;
  };
  /// A size the run time can compute: `dim` (resolved), as its coefficient
  /// times the sizes read at `factors`, one per symbol of `dim`.
  struct SizeReading {
    Dim dim = Dim::size(0);
    llvm::SmallVector<DimSite, 2> factors;
  };
  /// Two sizes the generated code takes to be equal although no symbol says
  /// so, which the runtime must compare before each step:
  /// - with a `site`: the size an op computes there (or an input's dim the
  ///   caller need not have made that product), whose symbol unification
  ///   merged with `expected` (a Concat of 1 + (batch - 1) rows met labels
  ///   of `batch` rows: the symbols cannot say these are equal);
  /// - with an `op`: an equation its inference assumed without solving it
  ///   (N*C = 784, 2*N = 3*M).
  struct AssumedDim {
    std::optional<DimSite> site;
    mlir::Operation *op = nullptr;
    SizeReading actual, expected;
  };
  /// Every such pair whose sizes the run time can read: merged symbols in
  /// symbol order, then equations in the order they were met. Left out:
  /// dims the unification made static (the types carry the size from then
  /// on), an argument's dim merged with another argument's symbol (the
  /// runtime binds both to one name and compares them already), and pairs
  /// that resolve to the same dim.
  llvm::SmallVector<AssumedDim> getAssumedDims() const;

private:
  int find(int symbol) const;
  Dim resolveImpl(const Dim &dim, unsigned depth) const;
  void bind(int root, Dim value);

  llvm::SmallVector<std::string> names;
  mutable llvm::SmallVector<int> parent;
  // The binding of a class (on its representative): a size or a product of
  // other symbols. Never refers to its own class (no cycles).
  llvm::SmallVector<std::optional<Dim>> binding;
  // Per symbol: where it first appeared (setShape), if it has.
  llvm::SmallVector<std::optional<DimSite>> sites;
  // Equations unify assumed without solving them, with the op that asked.
  struct Equation {
    Dim a, b;
    mlir::Operation *op;
  };
  llvm::SmallVector<Equation> equations;
  llvm::SmallVector<std::pair<Dim, int64_t>> fallbackSizes;
  llvm::StringMap<int> byName;
  llvm::DenseMap<mlir::Value, Shape> shapes;
  llvm::DenseMap<mlir::Value, Values> values;
  llvm::SmallVector<Divisibility> divisibility;
};

/// `axis` in [-rank, rank) made non-negative; std::nullopt if out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Axes in [-rank, rank) made non-negative and sorted; std::nullopt if one
/// is out of range or given twice.
std::optional<llvm::SmallVector<int64_t>>
normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// Prints a shape as "[N, 784]" for diagnostics.
std::string formatShape(const ShapeContext &context, llvm::ArrayRef<Dim> shape);

/// Infers the shapes of `op`'s results (ONNXOpInterface::inferShapes), then
/// propagates known values through elementwise integer arithmetic on shape
/// values (Cast, Add, Sub, Mul, Div, Neg, Floor, Ceil) that the op did not
/// record itself.
mlir::LogicalResult inferOp(mlir::Operation *op, ShapeContext &context);

/// Runs shape inference over the ops of `region` in order: every op must
/// implement ONNXOpInterface or be a known pass-through (func.return).
/// Operand shapes of block arguments must already be in `context`.
mlir::LogicalResult inferShapesInBlock(mlir::Block &block,
                                       ShapeContext &context);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_SHAPEINFERENCE_H
