//===- TrainingUtil.cpp - helpers of the training-op lowerings ------------===//

#include "codegen/conversion/TrainingUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;

namespace odt::codegen {

ValueRange buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                        ValueRange outputs, ArrayRef<AffineMap> maps,
                        ArrayRef<utils::IteratorType> iterators, BodyFn body) {
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(outputs), inputs, outputs, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return generic.getResults();
}

AffineMap projection(MLIRContext *context, unsigned rank,
                     ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim : dims)
    exprs.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(rank, 0, exprs, context);
}

SmallVector<int64_t> keptDims(unsigned rank, ArrayRef<int64_t> removed) {
  SmallVector<int64_t> kept;
  for (unsigned i = 0; i < rank; ++i)
    if (!llvm::is_contained(removed, int64_t(i)))
      kept.push_back(i);
  return kept;
}

SmallVector<Value> sumOver(OpBuilder &b, Location loc,
                           ArrayRef<OpFoldResult> domain,
                           ArrayRef<int64_t> reduced, ValueRange inputs,
                           ArrayRef<AffineMap> inputMaps, TypeRange types,
                           BodyFn body, bool staged) {
  MLIRContext *context = b.getContext();
  // Over several dims ([N, H, W] per channel of a BatchNorm), floats are
  // summed in two stages: each slice of the outermost reduced dim on its
  // own, then those partial sums. One running sum over all N*H*W terms
  // accumulates rounding error along a chain that long; the partial sums
  // keep the chains short, as PyTorch's cascaded sums do (the BatchNorm
  // gradients of a CIFAR ResNet were 3x further from float64 than
  // PyTorch's with one chain). A slice ([H, W] of one image) is summed by
  // one op, not staged again row by row: odt-vectorize-rows then keeps a
  // vector of running sums down the slice's rows (each lane's chain is
  // H*W / lanes long) and reduces it across lanes once per slice, where
  // per-row partial sums cost a reduction across lanes, a store and a
  // second pass per row (mobilenetv2 b32 training step 8.9 -> 7.7 ms).
  bool floats = llvm::all_of(types, [](Type t) { return isa<FloatType>(t); });
  if (staged && floats && reduced.size() >= 2) {
    int64_t outer = *llvm::min_element(reduced);
    SmallVector<int64_t> inner;
    for (int64_t dim : reduced)
      if (dim != outer)
        inner.push_back(dim);
    SmallVector<Value> partials = sumOver(b, loc, domain, inner, inputs,
                                          inputMaps, types, body,
                                          /*staged=*/false);
    // The partial sums keep the dims not in `inner`, in order: the outer
    // reduced dim sits among the kept ones.
    SmallVector<int64_t> partialDims = keptDims(domain.size(), inner);
    SmallVector<OpFoldResult> partialSizes;
    for (int64_t dim : partialDims)
      partialSizes.push_back(domain[dim]);
    int64_t outerPosition =
        llvm::find(partialDims, outer) - partialDims.begin();
    unsigned partialRank = partialDims.size();
    SmallVector<AffineMap> identities(partials.size(),
                                      identityMap(context, partialRank));
    SmallVector<Value> sums;
    for (auto [index, partial] : llvm::enumerate(partials)) {
      Value sum = sumOver(b, loc, partialSizes, {outerPosition}, {partial},
                          {identities[index]}, {types[index]},
                          [](OpBuilder &, Location, ValueRange args) {
                            return SmallVector<Value>{args[0]};
                          })
                      .front();
      sums.push_back(sum);
    }
    return sums;
  }
  unsigned rank = domain.size();
  SmallVector<int64_t> kept = keptDims(rank, reduced);
  SmallVector<OpFoldResult> keptSizes;
  for (int64_t dim : kept)
    keptSizes.push_back(domain[dim]);
  SmallVector<Value> inits;
  for (Type type : types)
    inits.push_back(createFilled(b, loc, keptSizes, type, 0.0));
  SmallVector<Value> operands(inputs.begin(), inputs.end());
  SmallVector<AffineMap> maps(inputMaps.begin(), inputMaps.end());
  // linalg infers each loop's range from an operand dim indexed by it
  // alone; dims only read through compound expressions (or not at all)
  // get one from an extra, never read, operand shaped like them.
  SmallVector<int64_t> unranged;
  for (unsigned dim = 0; dim < rank; ++dim) {
    auto isDim = [&](AffineExpr e) {
      auto d = dyn_cast<AffineDimExpr>(e);
      return d && d.getPosition() == dim;
    };
    bool ranged = llvm::is_contained(kept, int64_t(dim)) ||
                  llvm::any_of(inputMaps, [&](AffineMap map) {
                    return llvm::any_of(map.getResults(), isDim);
                  });
    if (!ranged)
      unranged.push_back(dim);
  }
  if (!unranged.empty()) {
    SmallVector<OpFoldResult> shape;
    for (int64_t dim : unranged)
      shape.push_back(domain[dim]);
    operands.push_back(createEmpty(b, loc, shape, b.getI1Type()));
    maps.push_back(projection(context, rank, unranged));
  }
  maps.append(types.size(), projection(context, rank, kept));
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  for (int64_t dim : reduced)
    iterators[dim] = utils::IteratorType::reduction;
  unsigned numInputs = inputs.size(), numOperands = operands.size();
  ValueRange sums = buildGeneric(
      b, loc, operands, inits, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> contributions =
            body(nb, l, args.take_front(numInputs));
        SmallVector<Value> results;
        for (auto [acc, contribution] :
             llvm::zip(args.drop_front(numOperands), contributions)) {
          if (isa<FloatType>(acc.getType()))
            results.push_back(arith::AddFOp::create(nb, l, acc, contribution));
          else
            results.push_back(arith::AddIOp::create(nb, l, acc, contribution));
        }
        return results;
      });
  return SmallVector<Value>(sums.begin(), sums.end());
}

/// Groups of a collapse that drops the dims `keep` marks false: every kept
/// dim absorbs the unit dims before it; trailing unit dims join the last
/// group (none: a rank-0 result).
static SmallVector<ReassociationIndices> unitDimGroups(ArrayRef<bool> keep) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [index, kept] : llvm::enumerate(keep)) {
    pending.push_back(index);
    if (kept) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

Value dropUnitDims(OpBuilder &b, Location loc, Value value,
                   ArrayRef<bool> keep) {
  if (llvm::all_of(keep, [](bool k) { return k; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (auto [index, kept] : llvm::enumerate(keep))
    if (kept)
      shape.push_back(type.getDimSize(index));
  auto collapsedType = RankedTensorType::get(shape, type.getElementType());
  return tensor::CollapseShapeOp::create(b, loc, collapsedType, value,
                                         unitDimGroups(keep));
}

Value insertUnitDims(OpBuilder &b, Location loc, Value value,
                     RankedTensorType type, ArrayRef<bool> keep) {
  if (llvm::all_of(keep, [](bool k) { return k; }))
    return castTensor(b, loc, value, type);
  SmallVector<OpFoldResult> sizes;
  int64_t source = 0;
  for (auto [index, kept] : llvm::enumerate(keep)) {
    if (!kept) {
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    sizes.push_back(tensor::getMixedSize(b, loc, value, source++));
  }
  // The expanded type takes the static dims of `value` where `type` has
  // dynamic ones; a cast gives `type` then.
  auto sourceType = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  source = 0;
  for (auto [index, kept] : llvm::enumerate(keep))
    shape.push_back(kept ? sourceType.getDimSize(source++) : 1);
  auto expandedType = RankedTensorType::get(shape, type.getElementType());
  Value expanded = tensor::ExpandShapeOp::create(b, loc, expandedType, value,
                                                 unitDimGroups(keep), sizes);
  return castTensor(b, loc, expanded, type);
}

Value sumToShape(OpBuilder &b, Location loc, Value full,
                 RankedTensorType target) {
  auto fullType = cast<RankedTensorType>(full.getType());
  int64_t rank = fullType.getRank(), targetRank = target.getRank();
  int64_t offset = rank - targetRank;
  SmallVector<int64_t> reduced;
  SmallVector<bool> keep;
  for (int64_t j = 0; j < rank; ++j) {
    if (j < offset) {
      reduced.push_back(j);
      continue;
    }
    bool broadcast =
        target.getDimSize(j - offset) == 1 && fullType.getDimSize(j) != 1;
    keep.push_back(!broadcast);
    if (broadcast)
      reduced.push_back(j);
  }
  if (reduced.empty())
    return castTensor(b, loc, full, target);
  Value sum =
      sumOver(b, loc, getSizes(b, loc, full), reduced, {full},
              {identityMap(b.getContext(), rank)}, {target.getElementType()},
              [](OpBuilder &, Location, ValueRange args) {
                return SmallVector<Value>{args[0]};
              })
          .front();
  return insertUnitDims(b, loc, sum, target, keep);
}

Value reduceSumAxes(OpBuilder &b, Location loc, Value data,
                    ArrayRef<int64_t> axes, bool keepdims,
                    RankedTensorType resultType) {
  if (axes.empty())
    return castTensor(b, loc, data, resultType);
  auto type = cast<RankedTensorType>(data.getType());
  int64_t rank = type.getRank();
  Value sum =
      sumOver(b, loc, getSizes(b, loc, data), axes, {data},
              {identityMap(b.getContext(), rank)}, {type.getElementType()},
              [](OpBuilder &, Location, ValueRange args) {
                return SmallVector<Value>{args[0]};
              })
          .front();
  if (!keepdims)
    return castTensor(b, loc, sum, resultType);
  SmallVector<bool> keep;
  for (int64_t i = 0; i < rank; ++i)
    keep.push_back(!llvm::is_contained(axes, i));
  return insertUnitDims(b, loc, sum, resultType, keep);
}

Value dimProduct(OpBuilder &b, Location loc, Value tensor, int64_t begin,
                 int64_t end) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t staticProduct = 1;
  Value product;
  for (int64_t i = begin; i < end; ++i) {
    if (!type.isDynamicDim(i)) {
      staticProduct *= type.getDimSize(i);
      continue;
    }
    Value dim = dimValue(b, loc, tensor, i);
    product = product ? arith::MulIOp::create(b, loc, product, dim) : dim;
  }
  Value constant = indexConstant(b, loc, staticProduct);
  if (!product)
    return constant;
  if (staticProduct == 1)
    return product;
  return arith::MulIOp::create(b, loc, product, constant);
}

Value indexToFloat(OpBuilder &b, Location loc, Value index, Type type) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> mixed;
  for (int64_t i = 0; i < type.getRank(); ++i)
    mixed.push_back(type.isDynamicDim(i)
                        ? sizes[i]
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(i))));
  return createEmpty(b, loc, mixed, type.getElementType());
}

SmallVector<OpFoldResult> sizesFromShapeTensor(OpBuilder &b, Location loc,
                                               Value shape,
                                               RankedTensorType type) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i))
      sizes.push_back(b.getIndexAttr(type.getDimSize(i)));
    else
      sizes.push_back(extractIndex(b, loc, shape, i));
  }
  return sizes;
}

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> sizes) {
  SmallVector<Value> coords(sizes.size());
  Value rest = linear;
  for (int64_t i = sizes.size() - 1; i >= 0; --i) {
    if (i == 0) {
      coords[i] = rest;
      break;
    }
    coords[i] = arith::RemUIOp::create(b, loc, rest, sizes[i]);
    rest = arith::DivUIOp::create(b, loc, rest, sizes[i]);
  }
  return coords;
}

std::pair<Value, Value> windowAt(OpBuilder &b, Location loc, Value position,
                                 Value offset, const onnx::GradWindow &window,
                                 int64_t axis, Value outSize) {
  auto cst = [&](int64_t v) { return indexConstant(b, loc, v); };
  Value zero = cst(0);
  Value t = arith::SubIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, position, cst(window.padsBegin[axis])),
      arith::MulIOp::create(b, loc, offset, cst(window.dilations[axis])));
  Value stride = cst(window.strides[axis]);
  Value o = arith::DivSIOp::create(b, loc, t, stride);
  Value exists = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::RemSIOp::create(b, loc, t, stride), zero));
  exists = arith::AndIOp::create(
      b, loc, exists,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, o, outSize));
  return {arith::SelectOp::create(b, loc, exists, o, zero), exists};
}

} // namespace odt::codegen
