//===- ConvGrad.cpp - onnx.ms.ConvGrad -> linalg --------------------------===//
//
// dY [N, M, o...], X [N, C, i...], W [M, Cg, k...] with group g, Cg = C / g,
// Mg = M / g (W's dims static); filter m belongs to group m / Mg.
//   dB[m]          = sum_{n, o} dY[n, m, o]
//   dW[m, c, k]    = sum_{n, o} dY[n, m, o] * Xpad[n, (m / Mg) * Cg + c,
//                                                  o * s + k * d]
//   dX[n, ci, p]   = sum_{mi, k} W[(ci / Cg) * Mg + mi, ci % Cg, k]
//                       * dY[n, (ci / Cg) * Mg + mi, (p + pad - k * d) / s]
//                    over the k where p + pad - k * d is a non-negative
//                    multiple of s below out * s (a gather, read with
//                    tensor.extract at a clamped index).
// Xpad is X zero-padded by pads. Results nothing reads are not computed.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/MiddleContract.h"
#include "codegen/conversion/NNUtil.h"
#include "codegen/conversion/TrainingUtil.h"
#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::codegen {
namespace {

/// What the parts of ConvGrad's lowering share.
struct ConvGradShape {
  Value dY, x, w;
  Type type;
  int64_t n, group, filters, cg, mg;
  SmallVector<int64_t> kernel;
  onnx::GradWindow window;
  SmallVector<OpFoldResult> dySizes, xSizes;
};

/// dB[m] = sum over images and positions of dY[n, m, o].
Value biasGradient(OpBuilder &rewriter, Location loc, const ConvGradShape &g) {
  MLIRContext *context = rewriter.getContext();
  SmallVector<int64_t> reduced = {0};
  for (int64_t i = 0; i < g.n; ++i)
    reduced.push_back(2 + i);
  return sumOver(rewriter, loc, g.dySizes, reduced, {g.dY},
                 {identityMap(context, g.n + 2)}, {g.type},
                 [](OpBuilder &, Location, ValueRange args) {
                   return SmallVector<Value>{args[0]};
                 })
      .front();
}

/// dW as the middle's filter-gradient generic (MiddleContract.h): one
/// sum over every image and output position. How it is split and run (per
/// image, in products) is the backend's.
Value filterGradient(OpBuilder &rewriter, Location loc,
                     const ConvGradShape &g) {
  SmallVector<OpFoldResult> low = {rewriter.getIndexAttr(0),
                                   rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> high = low;
  for (int64_t i = 0; i < g.n; ++i) {
    low.push_back(rewriter.getIndexAttr(g.window.padsBegin[i]));
    high.push_back(rewriter.getIndexAttr(g.window.padsEnd[i]));
  }
  Value zero = createScalar(rewriter, loc, g.type, 0.0);
  Value padded = tensor::PadOp::create(rewriter, loc, Type(), g.x, low, high,
                                       zero, /*nofold=*/false)
                     .getResult();
  // Loops (m, c, k..., nb, o...), the last 1 + n summed.
  SmallVector<OpFoldResult> domain = {rewriter.getIndexAttr(g.filters),
                                      rewriter.getIndexAttr(g.cg)};
  for (int64_t i = 0; i < g.n; ++i)
    domain.push_back(rewriter.getIndexAttr(g.kernel[i]));
  domain.push_back(g.dySizes[0]);
  SmallVector<int64_t> reduced = {2 + g.n};
  for (int64_t i = 0; i < g.n; ++i) {
    domain.push_back(g.dySizes[2 + i]);
    reduced.push_back(3 + g.n + i);
  }
  return sumOver(
             rewriter, loc, domain, reduced, {g.dY, padded},
             getFilterGradientInputMaps(rewriter.getContext(), g.window.strides,
                                        g.window.dilations, g.group, g.mg,
                                        g.cg),
             {g.type},
             [](OpBuilder &b, Location l, ValueRange args) {
               return SmallVector<Value>{
                   arith::MulFOp::create(b, l, args[0], args[1])};
             },
             /*staged=*/false)
      .front();
}

/// The loops (nb, ci, p..., mi, k...) of a sum into dX (or a part of it of
/// `sizes`): its dims, then the filters of ci's group and `taps` window
/// positions per dim, those summed (`reduced`).
SmallVector<OpFoldResult> inputGradientDomain(OpBuilder &rewriter,
                                              const ConvGradShape &g,
                                              ArrayRef<OpFoldResult> sizes,
                                              ArrayRef<int64_t> taps,
                                              SmallVector<int64_t> &reduced) {
  SmallVector<OpFoldResult> domain(sizes.begin(), sizes.end());
  domain.push_back(rewriter.getIndexAttr(g.mg));
  reduced = {2 + g.n};
  for (int64_t i = 0; i < g.n; ++i) {
    domain.push_back(rewriter.getIndexAttr(taps[i]));
    reduced.push_back(3 + g.n + i);
  }
  return domain;
}

/// The correlation of `paddedDY` with taps of the flipped filter, into a
/// tensor of `sizes` (dX, or one phase of it): out[nb, ci, p] =
/// sum_{mi, j} paddedDY[nb, g(ci) + mi, p + j * d] * W[g(ci) + mi, ci % Cg,
/// tap(i, j)], with `taps[i]` terms along dim i and `tap` giving W's window
/// position of term j (an affine expression of j).
Value correlateWithTaps(
    OpBuilder &rewriter, Location loc, const ConvGradShape &g, Value paddedDY,
    ArrayRef<OpFoldResult> sizes, ArrayRef<int64_t> taps,
    ArrayRef<int64_t> dilations,
    llvm::function_ref<AffineExpr(int64_t, AffineExpr)> tap) {
  MLIRContext *context = rewriter.getContext();
  auto d = [&](int64_t i) { return getAffineDimExpr(i, context); };
  if (g.group == 1 && g.n == 2) {
    // A convolution of paddedDY with the flipped, transposed filter
    // Wt[c, m, j] = W[m, c, tap(j)]: a linalg.conv_2d_nchw_fchw (which the
    // CPU computes as products).
    SmallVector<int64_t> flippedShape = {g.cg, g.filters, taps[0], taps[1]};
    Value flippedEmpty = createEmpty(
        rewriter, loc, getAsIndexOpFoldResult(context, flippedShape), g.type);
    Value flipped =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{flippedEmpty.getType()}, ValueRange{g.w},
            ValueRange{flippedEmpty},
            ArrayRef<AffineMap>{
                AffineMap::get(4, 0, {d(1), d(0), tap(0, d(2)), tap(1, d(3))},
                               context),
                AffineMap::getMultiDimIdentityMap(4, context)},
            SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
    Value init = createFilled(rewriter, loc, sizes, g.type, 0.0);
    SmallVector<int64_t> ones(g.n, 1);
    return buildConvolution(rewriter, loc, paddedDY, flipped, init, ones,
                            dilations, /*group=*/1);
  }
  int64_t rank = 3 + 2 * g.n;
  AffineExpr nb = d(0), ci = d(1), mi = d(2 + g.n);
  AffineExpr filter = ci.floorDiv(g.cg) * g.mg + mi;
  SmallVector<AffineExpr> dyExprs = {nb, filter}, wExprs = {filter, ci % g.cg};
  SmallVector<int64_t> reduced;
  SmallVector<OpFoldResult> domain =
      inputGradientDomain(rewriter, g, sizes, taps, reduced);
  for (int64_t i = 0; i < g.n; ++i) {
    AffineExpr j = d(3 + g.n + i);
    dyExprs.push_back(d(2 + i) + j * dilations[i]);
    wExprs.push_back(tap(i, j));
  }
  // The window's terms in one running sum (a staged sum would write a
  // partial per window row: for a depthwise 3x3 layer, 3x the size of dX).
  return sumOver(
             rewriter, loc, domain, reduced, {paddedDY, g.w},
             {AffineMap::get(rank, 0, dyExprs, context),
              AffineMap::get(rank, 0, wExprs, context)},
             {g.type},
             [](OpBuilder &b, Location l, ValueRange args) {
               return SmallVector<Value>{
                   arith::MulFOp::create(b, l, args[0], args[1])};
             },
             /*staged=*/false)
      .front();
}

/// dX as a correlation of dY (spread out by the strides, zero-padded)
/// with the flipped filter; see inputGradient.
Value inputGradientCorrelation(OpBuilder &rewriter, Location loc,
                               const ConvGradShape &g, bool strided,
                               ArrayRef<int64_t> length) {
  Value zero = createScalar(rewriter, loc, g.type, 0.0);
  Value spreadDY = g.dY;
  // The correlation's padding: (K - 1) * d - padBegin low; high
  // (K - 1) * d - padEnd at stride 1, in + padBegin - length strided.
  if (strided) {
    SmallVector<OpFoldResult> sizes = {g.dySizes[0], g.dySizes[1]};
    SmallVector<OpFoldResult> offsets(g.n + 2, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
    for (int64_t i = 0; i < g.n; ++i) {
      sizes.push_back(length[i] < 0 ? g.dySizes[2 + i]
                                    : rewriter.getIndexAttr(length[i]));
      strides.push_back(rewriter.getIndexAttr(g.window.strides[i]));
    }
    Value zeros = createFilled(rewriter, loc, sizes, g.type, 0.0);
    spreadDY = tensor::InsertSliceOp::create(rewriter, loc, g.dY, zeros,
                                             offsets, g.dySizes, strides)
                   .getResult();
  }
  SmallVector<OpFoldResult> low = {rewriter.getIndexAttr(0),
                                   rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> high = low;
  for (int64_t i = 0; i < g.n; ++i) {
    int64_t reach = (g.kernel[i] - 1) * g.window.dilations[i];
    low.push_back(rewriter.getIndexAttr(reach - g.window.padsBegin[i]));
    high.push_back(rewriter.getIndexAttr(
        length[i] < 0 ? reach - g.window.padsEnd[i]
                      : *getConstantIntValue(g.xSizes[2 + i]) +
                            g.window.padsBegin[i] - length[i]));
  }
  Value paddedDY = tensor::PadOp::create(rewriter, loc, Type(), spreadDY, low,
                                         high, zero, /*nofold=*/false)
                       .getResult();
  return correlateWithTaps(rewriter, loc, g, paddedDY, g.xSizes, g.kernel,
                           g.window.dilations,
                           [&](int64_t i, AffineExpr j) -> AffineExpr {
                             return g.kernel[i] - 1 - j;
                           });
}

/// One phase r of dX's positions along one spatial dim (p = q * s + r):
/// the taps k = firstTap, firstTap + s, ... (those with k = r + pad modulo
/// s) and dY padded by `low` and `high` (cropped where negative), so that
/// dX[q * s + r] = sum_j dYpad[q + j] * W[firstTap + (taps - 1 - j) * s].
struct StridePhase {
  int64_t offset, taps, firstTap, positions, low, high;
};

/// The phases of one dim of length `in` (out = dY's length) with at least
/// one position.
SmallVector<StridePhase> stridePhases(int64_t in, int64_t out, int64_t stride,
                                      int64_t kernel, int64_t padBegin) {
  SmallVector<StridePhase> phases;
  for (int64_t r = 0; r < stride && r < in; ++r) {
    StridePhase phase;
    phase.offset = r;
    phase.positions = (in - r + stride - 1) / stride;
    phase.firstTap = (r + padBegin) % stride;
    phase.taps = phase.firstTap < kernel
                     ? (kernel - 1 - phase.firstTap) / stride + 1
                     : 0;
    // The first tap reads dY at q - t0 (exact: the tap's term lands on p).
    int64_t t0 = (phase.firstTap - r - padBegin) / stride;
    phase.low = t0 + phase.taps - 1;
    phase.high = phase.positions + phase.taps - 1 - phase.low - out;
    phases.push_back(phase);
  }
  return phases;
}

/// dX of a strided 2-D convolution without dilation as one
/// correlation per phase of its positions (p mod s along each dim): a
/// phase sums only its own taps of the flipped, transposed filter over dY,
/// so dX costs what the forward convolution costs. (dY spread out with
/// zeros, inputGradientCorrelation's way, multiplies s^2 - 1 zeros for
/// each term: 4x the work on a stride-2 layer.) Each phase is
/// correlateWithTaps over its taps; the phases fill dX's positions r,
/// r + s, ... with strided inserts. Every phase reads a window of one
/// copy of dY padded for all of them (by the largest low and high pad
/// along each dim): padded per phase, dY was copied three more times on a
/// stride-2 layer, each copy a zero fill and a pass of its own, and the
/// producer of dY could write into only one of them.
Value inputGradientPhases(OpBuilder &rewriter, Location loc,
                          const ConvGradShape &g, ArrayRef<int64_t> in,
                          ArrayRef<int64_t> out) {
  SmallVector<StridePhase> rows = stridePhases(
      in[0], out[0], g.window.strides[0], g.kernel[0], g.window.padsBegin[0]);
  SmallVector<StridePhase> columns = stridePhases(
      in[1], out[1], g.window.strides[1], g.kernel[1], g.window.padsBegin[1]);
  auto index = [&](int64_t v) -> OpFoldResult {
    return rewriter.getIndexAttr(v);
  };
  Value dX = createEmpty(rewriter, loc, g.xSizes, g.type);
  auto hasTerms = [&](const StridePhase &row, const StridePhase &column) {
    int64_t rowsLeft = out[0] - std::max<int64_t>(0, -row.low) -
                       std::max<int64_t>(0, -row.high);
    int64_t columnsLeft = out[1] - std::max<int64_t>(0, -column.low) -
                          std::max<int64_t>(0, -column.high);
    return row.taps && column.taps && rowsLeft > 0 && columnsLeft > 0;
  };
  // The pads every phase with terms needs: dY[i] is at i + lowMost in the
  // shared copy, and a phase's own padded dY[j] = dY[j - low] is its window
  // from lowMost - low.
  int64_t lowMost[2] = {0, 0}, highMost[2] = {0, 0};
  for (const StridePhase &row : rows)
    for (const StridePhase &column : columns) {
      if (!hasTerms(row, column))
        continue;
      const StridePhase *phase[2] = {&row, &column};
      for (int i = 0; i < 2; ++i) {
        lowMost[i] = std::max(lowMost[i], phase[i]->low);
        highMost[i] = std::max(highMost[i], phase[i]->high);
      }
    }
  // Made where the first phase that reads past dY needs it: a phase that
  // reads dY itself comes before it, so that odt-pad-into-producer's
  // insert of dY into the padded copy follows every read of dY itself
  // (one after it would make bufferization copy dY into the padded copy).
  Value paddedDY;
  auto window = [&](const StridePhase &row,
                    const StridePhase &column) -> Value {
    if (row.low == 0 && row.high == 0 && column.low == 0 && column.high == 0)
      return g.dY;
    if (!paddedDY)
      paddedDY =
          tensor::PadOp::create(
              rewriter, loc, Type(), g.dY,
              {index(0), index(0), index(lowMost[0]), index(lowMost[1])},
              {index(0), index(0), index(highMost[0]), index(highMost[1])},
              createScalar(rewriter, loc, g.type, 0.0), /*nofold=*/false)
              .getResult();
    return tensor::ExtractSliceOp::create(
        rewriter, loc, paddedDY,
        {index(0), index(0), index(lowMost[0] - row.low),
         index(lowMost[1] - column.low)},
        {g.dySizes[0], g.dySizes[1], index(out[0] + row.low + row.high),
         index(out[1] + column.low + column.high)},
        {index(1), index(1), index(1), index(1)});
  };
  // Where every phase has in / s positions along each dim, the phases are
  // interleaved into dX by one elementwise op reading each phase at
  // (h floordiv sh, w floordiv sw) and picking by (h mod sh, w mod sw): a
  // row of dX is then one vector write (odt-vectorize-rows spreads each
  // phase's row over it), where s^2 strided inserts each wrote every s-th
  // element one at a time (a quarter of a 3x3 stride-2 layer's input
  // gradient).
  int64_t strides[2] = {g.window.strides[0], g.window.strides[1]};
  bool interleave = static_cast<int64_t>(rows.size()) == strides[0] &&
                    static_cast<int64_t>(columns.size()) == strides[1] &&
                    in[0] % strides[0] == 0 && in[1] % strides[1] == 0;
  SmallVector<Value> parts;
  for (const StridePhase &row : rows) {
    for (const StridePhase &column : columns) {
      SmallVector<OpFoldResult> sizes = {g.xSizes[0], g.xSizes[1],
                                         index(row.positions),
                                         index(column.positions)};
      Value part;
      if (!hasTerms(row, column)) {
        part = createFilled(rewriter, loc, sizes, g.type, 0.0);
      } else {
        Value padded = window(row, column);
        const StridePhase *phase[2] = {&row, &column};
        part = correlateWithTaps(rewriter, loc, g, padded, sizes,
                                 {row.taps, column.taps}, {1, 1},
                                 [&](int64_t i, AffineExpr j) -> AffineExpr {
                                   int64_t stride = g.window.strides[i];
                                   return phase[i]->firstTap +
                                          (phase[i]->taps - 1) * stride -
                                          j * stride;
                                 });
      }
      if (interleave) {
        parts.push_back(part);
        continue;
      }
      dX = tensor::InsertSliceOp::create(
               rewriter, loc, part, dX,
               {index(0), index(0), index(row.offset), index(column.offset)},
               sizes,
               {index(1), index(1), index(g.window.strides[0]),
                index(g.window.strides[1])})
               .getResult();
    }
  }
  if (!interleave)
    return dX;
  MLIRContext *context = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  AffineMap phaseMap = AffineMap::get(
      4, 0, {d(0), d(1), d(2).floorDiv(strides[0]), d(3).floorDiv(strides[1])},
      context);
  SmallVector<AffineMap> maps(parts.size(), phaseMap);
  maps.push_back(AffineMap::getMultiDimIdentityMap(4, context));
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{dX.getType()}, parts, ValueRange{dX},
             maps,
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [&](OpBuilder &b, Location l, ValueRange args) {
               // Phase (r, c) is args[r * sw + c]; picked row phase by
               // row phase, column phase by column phase.
               auto phaseOf = [&](unsigned dim, int64_t stride) -> Value {
                 return arith::RemUIOp::create(
                     b, l, linalg::IndexOp::create(b, l, dim),
                     arith::ConstantIndexOp::create(b, l, stride));
               };
               auto isPhase = [&](Value phase, int64_t value) -> Value {
                 return arith::CmpIOp::create(
                     b, l, arith::CmpIPredicate::eq, phase,
                     arith::ConstantIndexOp::create(b, l, value));
               };
               Value rowPhase = phaseOf(2, strides[0]);
               Value columnPhase = phaseOf(3, strides[1]);
               auto pickColumn = [&](int64_t r) -> Value {
                 Value picked = args[r * strides[1] + strides[1] - 1];
                 for (int64_t c = strides[1] - 2; c >= 0; --c)
                   picked = arith::SelectOp::create(
                       b, l, isPhase(columnPhase, c), args[r * strides[1] + c],
                       picked);
                 return picked;
               };
               Value picked = pickColumn(strides[0] - 1);
               for (int64_t r = strides[0] - 2; r >= 0; --r)
                 picked = arith::SelectOp::create(b, l, isPhase(rowPhase, r),
                                                  pickColumn(r), picked);
               linalg::YieldOp::create(b, l, picked);
             })
      .getResult(0);
}

/// dX as a sum over the filter of dY gathered at (p + pad - k * d) / s,
/// where that is a whole output position: the general form.
Value inputGradientGather(OpBuilder &rewriter, Location loc,
                          const ConvGradShape &g) {
  MLIRContext *context = rewriter.getContext();
  Value dX;
  int64_t rank = 3 + 2 * g.n;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, context); };
  AffineExpr ci = d(1), mi = d(2 + g.n);
  SmallVector<AffineExpr> wExprs = {ci.floorDiv(g.cg) * g.mg + mi, ci % g.cg};
  SmallVector<int64_t> reduced;
  SmallVector<OpFoldResult> domain =
      inputGradientDomain(rewriter, g, g.xSizes, g.kernel, reduced);
  for (int64_t i = 0; i < g.n; ++i)
    wExprs.push_back(d(3 + g.n + i));
  SmallVector<Value> outSizes;
  for (int64_t i = 0; i < g.n; ++i)
    outSizes.push_back(
        getValueOrCreateConstantIndexOp(rewriter, loc, g.dySizes[2 + i]));
  dX = sumOver(
           rewriter, loc, domain, reduced, {g.w},
           {AffineMap::get(rank, 0, wExprs, context)}, {g.type},
           [&](OpBuilder &b, Location l, ValueRange args) {
             auto index = [&](int64_t i) -> Value {
               return linalg::IndexOp::create(b, l, i);
             };
             auto cst = [&](int64_t v) { return indexConstant(b, l, v); };
             Value channel = arith::AddIOp::create(
                 b, l,
                 arith::MulIOp::create(
                     b, l, arith::DivUIOp::create(b, l, index(1), cst(g.cg)),
                     cst(g.mg)),
                 index(2 + g.n));
             SmallVector<Value> at = {index(0), channel};
             Value valid;
             for (int64_t i = 0; i < g.n; ++i) {
               auto [o, ok] = windowAt(b, l, index(2 + i), index(3 + g.n + i),
                                       g.window, i, outSizes[i]);
               valid = valid ? arith::AndIOp::create(b, l, valid, ok) : ok;
               at.push_back(o);
             }
             Value grad = tensor::ExtractOp::create(b, l, g.dY, at);
             Value product = arith::MulFOp::create(b, l, grad, args[0]);
             Value zero = createScalar(b, l, product.getType(), 0.0);
             return SmallVector<Value>{
                 arith::SelectOp::create(b, l, valid, product, zero)};
           },
           /*staged=*/false)
           .front();
  return dX;
}

/// dX over the domain (nb, ci, p..., mi, k...).
/// With stride 1, dX is a plain correlation of dY, zero-padded by
/// (K - 1) * d - pad on each side, with the flipped kernel:
///   dX[nb, ci, p] = sum_{mi, k} dYpad[nb, g(ci) + mi, p + k * d]
///                                * W[g(ci) + mi, ci % Cg, K - 1 - k]
/// (g(ci) = (ci / Cg) * Mg): no gather, no conditions, so the loop along
/// p vectorizes. With stride s > 1 (and static spatial sizes), dY is
/// first spread out with s - 1 zeros between its elements (dYs[o * s] =
/// dY[o]): the same correlation then holds on dYs, and the product
/// kernels do s^n times the multiply-adds instead of a scalar gather
/// with a division and a bounds check per term (50x slower on a 3x3
/// stride-2 layer). A 2-D convolution without dilation sums
/// each phase of the strides on its own instead (inputGradientPhases),
/// without the zeros. Other cases take the general form below.
/// length[i]: dYs's extent (out - 1) * s + 1 along a strided dim, -1
/// along a stride-1 one (dY is used as it is there).
Value inputGradient(OpBuilder &rewriter, Location loc, const ConvGradShape &g) {
  bool correlation = true, strided = false;
  SmallVector<int64_t> length(g.n, -1);
  for (int64_t i = 0; i < g.n; ++i) {
    correlation &= (g.kernel[i] - 1) * g.window.dilations[i] >=
                   std::max(g.window.padsBegin[i], g.window.padsEnd[i]);
    if (g.window.strides[i] == 1)
      continue;
    strided = true;
    std::optional<int64_t> in = getConstantIntValue(g.xSizes[2 + i]);
    std::optional<int64_t> out = getConstantIntValue(g.dySizes[2 + i]);
    correlation &= in && out && *out >= 1;
    if (out)
      length[i] = (*out - 1) * g.window.strides[i] + 1;
  }
  if (strided && g.n == 2 &&
      llvm::all_of(g.window.dilations, [](int64_t d) { return d == 1; })) {
    std::optional<int64_t> inRows = getConstantIntValue(g.xSizes[2]),
                           inColumns = getConstantIntValue(g.xSizes[3]),
                           outRows = getConstantIntValue(g.dySizes[2]),
                           outColumns = getConstantIntValue(g.dySizes[3]);
    if (inRows && inColumns && outRows && outColumns)
      return inputGradientPhases(rewriter, loc, g, {*inRows, *inColumns},
                                 {*outRows, *outColumns});
  }
  if (correlation)
    return inputGradientCorrelation(rewriter, loc, g, strided, length);
  return inputGradientGather(rewriter, loc, g);
}

struct LowerConvGrad : OpConversionPattern<onnx::ConvGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConvGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dY = adaptor.getDY(), x = adaptor.getX(), w = adaptor.getW();
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    Type type = xType.getElementType();
    if (!wType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "W must have a static shape");
    int64_t n = xType.getRank() - 2;
    int64_t group = op.getGroup();
    int64_t filters = wType.getDimSize(0), cg = wType.getDimSize(1);
    int64_t mg = filters / group;
    SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
    SmallVector<int64_t> inputSpatial;
    for (int64_t i = 0; i < n; ++i)
      inputSpatial.push_back(xType.getDimSize(2 + i));
    FailureOr<onnx::GradWindow> window =
        onnx::readGradWindow(op, kernel, inputSpatial);
    if (failed(window))
      return failure();
    SmallVector<OpFoldResult> dySizes = getSizes(rewriter, loc, dY);
    SmallVector<OpFoldResult> xSizes = getSizes(rewriter, loc, x);
    auto placeholder = [&](Value result) -> Value {
      auto resultType = cast<RankedTensorType>(result.getType());
      SmallVector<OpFoldResult> sizes =
          result == op.getDX() ? xSizes : getSizes(rewriter, loc, w);
      if (result == op.getDB())
        sizes = {rewriter.getIndexAttr(filters)};
      return emptyLike(rewriter, loc, resultType, sizes);
    };

    ConvGradShape g{dY, x,  w,      type,    n,       group, filters,
                    cg, mg, kernel, *window, dySizes, xSizes};
    Value dB = placeholder(op.getDB());
    if (!op.getDB().use_empty())
      dB = biasGradient(rewriter, loc, g);
    Value dW = placeholder(op.getDW());
    if (!op.getDW().use_empty())
      dW = filterGradient(rewriter, loc, g);
    Value dX = placeholder(op.getDX());
    if (!op.getDX().use_empty())
      dX = inputGradient(rewriter, loc, g);
    rewriter.replaceOp(op,
                       {castTensor(rewriter, loc, dX, op.getDX().getType()),
                        castTensor(rewriter, loc, dW, op.getDW().getType()),
                        castTensor(rewriter, loc, dB, op.getDB().getType())});
    return success();
  }
};

} // namespace

void populateConvGradLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConvGrad>(patterns.getContext());
}

} // namespace odt::codegen
