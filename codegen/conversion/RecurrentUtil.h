//===- RecurrentUtil.h - shared by the recurrent lowerings -----*- C++ -*-===//
//
// What the forward (Recurrent.cpp) and gradient (RecurrentGrad.cpp)
// lowerings of RNN, GRU and LSTM share: the attributes that shape them,
// the activations, the operands by role, and the Emitter of linalg and
// tensor ops they are written with.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CONVERSION_RECURRENTUTIL_H
#define ODT_CODEGEN_CONVERSION_RECURRENTUTIL_H

#include "codegen/conversion/ShapeUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace odt::codegen::recurrent {

// The lowering files use MLIR names throughout; this header is theirs.
using namespace mlir;

enum class Cell { RNN, GRU, LSTM };

int64_t gateCount(Cell cell);

/// One activation function of the ONNX recurrent ops, with its parameters.
struct Activation {
  std::string name;
  double alpha = 0.0, beta = 0.0;
};

/// The attributes that shape the computation.
struct Config {
  Cell cell = Cell::RNN;
  int64_t directions = 1;
  bool reverseOnly = false;
  /// Per direction: f (RNN), f and g (GRU), f, g and h (LSTM).
  SmallVector<SmallVector<Activation, 3>, 2> activations;
  std::optional<double> clip;
  bool linearBeforeReset = false;
  bool inputForget = false;

  bool isReverse(int64_t direction) const {
    return reverseOnly || direction == 1;
  }
};

FailureOr<Config> readConfig(Operation *op, Cell cell);

Value constant(OpBuilder &b, Location loc, Type type, double value);

Value sigmoid(OpBuilder &b, Location loc, Value x);

Value activate(OpBuilder &b, Location loc, Value x, const Activation &a);

/// d activation / d input from the activation's output y (the training ops
/// support Sigmoid, Tanh and Relu).
Value activationSlope(OpBuilder &b, Location loc, Value y, StringRef name);

/// Tensor building blocks on ranked tensors of one float element type.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Type element;

  OpFoldResult idx(int64_t v) { return b.getIndexAttr(v); }
  OpFoldResult size(Value tensor, int64_t d) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(d))
      return b.getIndexAttr(type.getDimSize(d));
    return dimValue(b, loc, tensor, d);
  }

  /// The slice of `source` at `offsets` with `sizes`, dropping the dims
  /// listed in `dropped` (each of size 1).
  Value extract(Value source, ArrayRef<OpFoldResult> offsets,
                ArrayRef<OpFoldResult> sizes, ArrayRef<int64_t> dropped = {}) {
    auto sourceType = cast<RankedTensorType>(source.getType());
    SmallVector<int64_t> shape;
    for (auto [d, s] : llvm::enumerate(sizes)) {
      if (llvm::is_contained(dropped, int64_t(d)))
        continue;
      // Static only where the size is an attribute: tensor.insert_slice
      // infers its slice type the same way.
      shape.push_back(isa<Attribute>(s) ? *getConstantIntValue(s)
                                        : ShapedType::kDynamic);
    }
    auto type = RankedTensorType::get(shape, sourceType.getElementType());
    SmallVector<OpFoldResult> strides(sizes.size(), idx(1));
    return tensor::ExtractSliceOp::create(b, loc, type, source, offsets, sizes,
                                          strides);
  }
  Value insert(Value source, Value dest, ArrayRef<OpFoldResult> offsets,
               ArrayRef<OpFoldResult> sizes) {
    SmallVector<OpFoldResult> strides(sizes.size(), idx(1));
    return tensor::InsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                         strides);
  }
  /// Columns [first, first + count) of a 2-D tensor.
  Value columns(Value matrix, int64_t first, int64_t count) {
    return extract(matrix, {idx(0), idx(first)}, {size(matrix, 0), idx(count)});
  }
  /// Rows [first, first + count) of a 2-D tensor.
  Value rows(Value matrix, int64_t first, int64_t count) {
    return extract(matrix, {idx(first), idx(0)}, {idx(count), size(matrix, 1)});
  }
  /// Row `index` (an index value or constant) of a 3-D tensor as 2-D.
  Value plane(Value tensor, OpFoldResult index) {
    return extract(tensor, {index, idx(0), idx(0)},
                   {idx(1), size(tensor, 1), size(tensor, 2)}, {0});
  }
  /// Direction `d` of a [D, A, B] tensor as [A, B].
  Value direction(Value tensor, int64_t d) { return plane(tensor, idx(d)); }
  /// Direction `d` of a [D, K] tensor as [K].
  Value vectorOf(Value tensor, int64_t d) {
    return extract(tensor, {idx(d), idx(0)}, {idx(1), size(tensor, 1)}, {0});
  }
  Value slice1D(Value vector, int64_t first, int64_t count) {
    return extract(vector, {idx(first)}, {idx(count)});
  }

  Value zeros(ArrayRef<OpFoldResult> sizes) {
    return createFilled(b, loc, sizes, element, 0.0);
  }
  Value empty(ArrayRef<OpFoldResult> sizes) {
    return createEmpty(b, loc, sizes, element);
  }
  /// A buffer of its own for a loop-carried state (its first value, a
  /// copy of `initial` or zeros): bufferization.alloc_tensor, which
  /// odt-destination-passing leaves alone (it replaces tensor.empty
  /// destinations only). Seeded from a slice of an
  /// argument or of a result, the carried buffer would get a fully dynamic
  /// layout, which the product kernels cannot read with vector loads.
  Value state(ArrayRef<OpFoldResult> sizes, Value initial = Value()) {
    // alloc_tensor copy(...) is a copy no canonicalization folds away (an
    // identity linalg.generic would be).
    if (initial)
      return bufferization::AllocTensorOp::create(
          b, loc, cast<RankedTensorType>(initial.getType()), ValueRange{},
          initial);
    SmallVector<Value> dynamic;
    SmallVector<int64_t> shape;
    for (OpFoldResult s : sizes) {
      if (isa<Attribute>(s)) {
        shape.push_back(*getConstantIntValue(s));
      } else {
        shape.push_back(ShapedType::kDynamic);
        dynamic.push_back(cast<Value>(s));
      }
    }
    Value buffer = bufferization::AllocTensorOp::create(
        b, loc, RankedTensorType::get(shape, element), dynamic);
    return linalg::FillOp::create(b, loc,
                                  ValueRange{constant(b, loc, element, 0.0)},
                                  ValueRange{buffer})
        .getResult(0);
  }

  /// `vector` [K] broadcast to [M, K].
  Value broadcastRows(Value vector, OpFoldResult rowCount) {
    Value init = empty({rowCount, size(vector, 0)});
    return buildElementwise(b, loc, {vector}, {init},
                            [](OpBuilder &, Location, ValueRange args) {
                              return SmallVector<Value>{args[0]};
                            })
        .front();
  }

  /// C = op(A) op(B) (+ init when given, else 0): a linalg.generic
  /// contraction in Gemm's form, which odt-vectorize-contractions tiles.
  Value matmul(Value a, bool transA, Value bMatrix, bool transB,
               Value init = Value()) {
    MLIRContext *context = b.getContext();
    OpFoldResult m = size(a, transA ? 1 : 0);
    OpFoldResult n = size(bMatrix, transB ? 0 : 1);
    if (!init)
      init = zeros({m, n});
    AffineExpr i = getAffineDimExpr(0, context),
               j = getAffineDimExpr(1, context),
               k = getAffineDimExpr(2, context);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0,
                       transA ? ArrayRef<AffineExpr>{k, i}
                              : ArrayRef<AffineExpr>{i, k},
                       context),
        AffineMap::get(3, 0,
                       transB ? ArrayRef<AffineExpr>{j, k}
                              : ArrayRef<AffineExpr>{k, j},
                       context),
        AffineMap::get(3, 0, {i, j}, context)};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{a, bMatrix},
               ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
                 linalg::YieldOp::create(
                     nb, l,
                     Value(arith::AddFOp::create(nb, l, args[2], product)));
               })
        .getResult(0);
  }

  /// Sums a 2-D tensor over its rows: [M, K] -> [K].
  Value sumRows(Value matrix) {
    MLIRContext *context = b.getContext();
    Value init = zeros({size(matrix, 1)});
    AffineExpr i = getAffineDimExpr(0, context),
               k = getAffineDimExpr(1, context);
    SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {i, k}, context),
                                   AffineMap::get(2, 0, {k}, context)};
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{matrix},
               ValueRange{init}, maps,
               SmallVector<utils::IteratorType>{utils::IteratorType::reduction,
                                                utils::IteratorType::parallel},
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 linalg::YieldOp::create(
                     nb, l,
                     Value(arith::AddFOp::create(nb, l, args[1], args[0])));
               })
        .getResult(0);
  }

  /// [S, N, K] <-> [S * N, K].
  Value flatten(Value sequence) {
    return tensor::CollapseShapeOp::create(
        b, loc, sequence, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }
  Value unflatten(Value matrix, OpFoldResult steps, OpFoldResult batch) {
    auto type = cast<RankedTensorType>(matrix.getType());
    SmallVector<int64_t> shape;
    for (OpFoldResult s : {steps, batch})
      shape.push_back(isa<Attribute>(s) ? *getConstantIntValue(s)
                                        : ShapedType::kDynamic);
    shape.push_back(type.getDimSize(1));
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, element), matrix,
        SmallVector<ReassociationIndices>{{0, 1}, {2}},
        SmallVector<OpFoldResult>{steps, batch, size(matrix, 1)});
  }

  /// Elementwise over `shape` ([N, H]): the body gets the inputs' scalars
  /// and yields `outputs` values.
  /// `reuse[i]`, where given, is the buffer output i is written into: a
  /// loop-carried state updated in place (each element is read before it
  /// is written), so the loop yields the buffer it was given.
  SmallVector<Value> elementwise(
      ValueRange inputs, unsigned outputs, ArrayRef<OpFoldResult> shape,
      function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body,
      ArrayRef<Value> reuse = {}) {
    SmallVector<Value> inits;
    for (unsigned i = 0; i < outputs; ++i)
      inits.push_back(i < reuse.size() && reuse[i] ? reuse[i] : empty(shape));
    ValueRange results = buildElementwise(
        b, loc, inputs, inits, [&](OpBuilder &nb, Location l, ValueRange args) {
          return body(nb, l, args.take_front(inputs.size()));
        });
    return SmallVector<Value>(results.begin(), results.end());
  }
};

inline bool isPresent(Value value) {
  return value && !isa<NoneType>(value.getType());
}

/// The operands of a recurrent op (after conversion), by ONNX input index.
struct Operands {
  Value x, w, r, b, sequenceLens, initialH, initialC, peepholes;
};

Operands readOperands(ValueRange operands, Cell cell);

/// The per-direction weights: W [G*H, I], R [G*H, H], input and recurrent
/// biases [G*H] (null when absent), peepholes [3*H].
struct DirectionWeights {
  Value w, r, inputBias, recurrentBias, peepholes;
};

DirectionWeights directionWeights(Emitter &e, const Operands &o, int64_t d,
                                  int64_t gateRows);

/// The processing step `k` as a time index: k, or S - 1 - k backwards.
Value timeIndex(OpBuilder &b, Location loc, Value k, Value steps, bool reverse);

int64_t hiddenSizeOf(Operation *op);

LogicalResult checkTypes(Operation *op, ConversionPatternRewriter &rewriter,
                         Type &element);

/// The element type (checkTypes) and the attributes (readConfig) of a
/// recurrent op of `cell`, or failure.
FailureOr<Config> readCellOp(Operation *op, Cell cell,
                             ConversionPatternRewriter &rewriter,
                             Type &element);

/// Replaces `op` by `replacements`, each cast to its result's type.
void replaceWithResults(ConversionPatternRewriter &rewriter, Operation *op,
                        SmallVector<Value> replacements);

/// The gradient ops' patterns (RecurrentGrad.cpp).
void populateRecurrentGradientPatterns(RewritePatternSet &patterns);

} // namespace odt::codegen::recurrent

#endif // ODT_CODEGEN_CONVERSION_RECURRENTUTIL_H
