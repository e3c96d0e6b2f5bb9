//===- Reduction.td - reductions, normalizations, softmax and losses -*- tablegen -*-===//
//
// ai.onnx opsets 13 to 21. Reductions accumulate float16/bfloat16 in f32;
// shapes follow from constant axes, K and axis inputs (they decide ranks and
// dims, so the importer's callers fix them at compile time when they are
// graph inputs).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS_REDUCTION
#define ODT_ONNX_OPS_REDUCTION

include "dialects/onnx/ONNXBase.td"

// Every ONNX numeric element type (ONNX's signed integers are signless
// here, its unsigned ones unsigned).
defvar ReductionNumericTypes = [F16, BF16, F32, F64, I8, I16, I32, I64,
                                UI8, UI16, UI32, UI64];
def ONNX_ReductionNumericTensor : TensorOf<ReductionNumericTypes>;

//===----------------------------------------------------------------------===//
// Reduce*: axes as an attribute (opsets 13-17, all but ReduceSum) or as an
// input (ReduceSum from 13, the others from 18); the two forms never meet in
// one node. The axes input is named `axes_input` because `axes` names the
// attribute.
//===----------------------------------------------------------------------===//

class ONNX_ReduceOp<string mnemonic, list<Type> types, string what>
    : ONNX_Op<mnemonic> {
  let summary = "ai.onnx " # mnemonic # ": " # what;
  let description = [{
    Reduces `data` over the axes given by the `axes` attribute or the
    `axes_input` input (negative axes count from the end). No axes reduce
    every dim, or none with `noop_with_empty_axes` = 1. `keepdims` = 1 keeps
    the reduced dims as 1s.
  }];
  let arguments = (ins TensorOf<types>:$data, ONNX_OptI64Tensor:$axes_input,
                       OptionalAttr<DenseI64ArrayAttr>:$axes,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The normalized (non-negative, sorted, unique) reduction axes: empty
    /// for a no-op; failure if the axes input is not a constant or an axis
    /// is out of range.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>> getConstantAxes();
  }];
}

def ONNX_ReduceSumOp
    : ONNX_ReduceOp<"ReduceSum", ReductionNumericTypes, "sum"> {
  let summary = "ai.onnx ReduceSum (opset 13+: axes as an input only)";
}
def ONNX_ReduceMeanOp
    : ONNX_ReduceOp<"ReduceMean", ReductionNumericTypes,
                    "mean (the sum divided by the element count)">;
def ONNX_ReduceMaxOp
    : ONNX_ReduceOp<"ReduceMax", !listconcat(ReductionNumericTypes, [I1]),
                    "maximum (-inf or the type's minimum for no elements)">;
def ONNX_ReduceMinOp
    : ONNX_ReduceOp<"ReduceMin", !listconcat(ReductionNumericTypes, [I1]),
                    "minimum (+inf or the type's maximum for no elements)">;
def ONNX_ReduceL2Op
    : ONNX_ReduceOp<"ReduceL2", ReductionNumericTypes,
                    "sqrt of the sum of squares">;
def ONNX_ReduceLogSumExpOp
    : ONNX_ReduceOp<"ReduceLogSumExp", ReductionNumericTypes,
                    "log of the sum of exp, computed stably">;
def ONNX_ReduceProdOp
    : ONNX_ReduceOp<"ReduceProd", ReductionNumericTypes,
                    "product (1 for no elements)">;
def ONNX_ReduceL1Op
    : ONNX_ReduceOp<"ReduceL1", ReductionNumericTypes,
                    "sum of absolute values">;
def ONNX_ReduceSumSquareOp
    : ONNX_ReduceOp<"ReduceSumSquare", ReductionNumericTypes,
                    "sum of squares">;
def ONNX_ReduceLogSumOp
    : ONNX_ReduceOp<"ReduceLogSum", ReductionNumericTypes, "log of the sum">;

//===----------------------------------------------------------------------===//
// Index reductions, sorting and scans.
//===----------------------------------------------------------------------===//

def ONNX_ArgMaxOp : ONNX_Op<"ArgMax"> {
  let summary = "ai.onnx ArgMax: int64 indices of the maxima along `axis`";
  let description = [{
    The first maximum, or the last with `select_last_index` = 1. NaN counts
    as larger than any number.
  }];
  let arguments = (ins ONNX_ReductionNumericTensor:$data,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$select_last_index);
  let results = (outs AnyTensor:$reduced);
  let hasVerifier = 1;
}

def ONNX_TopKOp : ONNX_Op<"TopK"> {
  let summary = "ai.onnx TopK: the K largest (or smallest) along `axis`";
  let description = [{
    Values and their int64 indices, always sorted (also for `sorted` = 0,
    where ONNX leaves the order open); equal values keep their input order.
    NaN counts as larger than any number. K is a one-element int64 tensor;
    a constant K gives a static output dim.
  }];
  let arguments = (ins ONNX_ReductionNumericTensor:$X, TensorOf<[I64]>:$K,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$largest,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$sorted);
  let results = (outs AnyTensor:$Values, AnyTensor:$Indices);
  let hasVerifier = 1;
}

def ONNX_CumSumOp : ONNX_Op<"CumSum"> {
  let summary = "ai.onnx CumSum: running sums along a constant axis";
  let arguments = (ins ONNX_ReductionNumericTensor:$x, ONNX_IndexTensor:$axis,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$exclusive,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$reverse);
  let results = (outs AnyTensor:$y);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The normalized axis, or failure if the axis input is not a constant
    /// or is out of range.
    ::mlir::FailureOr<int64_t> getConstantAxis();
  }];
}

//===----------------------------------------------------------------------===//
// Softmax and normalizations.
//===----------------------------------------------------------------------===//

def ONNX_SoftmaxOp : ONNX_Op<"Softmax"> {
  let summary = "ai.onnx Softmax (opset 13: along one axis, default -1)";
  let arguments = (ins ONNX_FloatTensor:$input,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_LogSoftmaxOp : ONNX_Op<"LogSoftmax"> {
  let summary = "ai.onnx LogSoftmax (opset 13: along one axis, default -1)";
  let arguments = (ins ONNX_FloatTensor:$input,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_InstanceNormalizationOp : ONNX_Op<"InstanceNormalization"> {
  let summary = "ai.onnx InstanceNormalization: each (image, channel) "
                "normalized over its spatial dims, then scale[C] and B[C]";
  let description = [{
    Composite: odt-decompose-composite-ops rewrites it as a
    LayerNormalization over the spatial dims followed by the per-channel
    affine map, before autodiff and code generation.
  }];
  let arguments = (ins ONNX_FloatTensor:$input, ONNX_FloatTensor:$scale,
                       ONNX_FloatTensor:$B,
                       DefaultValuedAttr<F32Attr, "1e-05">:$epsilon);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_GroupNormalizationOp : ONNX_Op<"GroupNormalization"> {
  let summary = "ai.onnx GroupNormalization (opsets 18 and 21): channels "
                "normalized in num_groups groups, then scale and bias";
  let description = [{
    scale and bias have one value per channel (opset 21) or per group
    (opset 18, when their size is num_groups and that differs from the
    channel count). Composite: odt-decompose-composite-ops rewrites it as a
    LayerNormalization over [channels of a group, spatial dims].
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$scale,
                       ONNX_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
                       ONNX_I64Attr:$num_groups,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_LayerNormalizationOp : ONNX_Op<"LayerNormalization"> {
  let summary = "ai.onnx LayerNormalization (opset 17)";
  let description = [{
    Normalizes X over the dims from `axis` on: Y = (X - Mean) * InvStdDev *
    Scale + B, with Mean and InvStdDev = 1 / sqrt(Var + epsilon) of shape
    X's dims before `axis` followed by 1s, computed in `stash_type` (an ONNX
    TensorProto data type: 1 float, 10 float16, 11 double, 16 bfloat16).
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$Scale,
                       ONNX_OptFloatTensor:$B,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y, AnyTensor:$Mean, AnyTensor:$InvStdDev);
  let hasVerifier = 1;
}

def ONNX_BatchNormalizationOp : ONNX_Op<"BatchNormalization"> {
  let summary = "ai.onnx BatchNormalization (opsets 14/15)";
  let description = [{
    X is [N, C, D1, ...]; scale, B, input_mean and input_var are [C].
    training_mode = 0: Y = (X - input_mean) / sqrt(input_var + epsilon) *
    scale + B, and running_mean/running_var are the inputs. training_mode =
    1: Y is normalized with the batch's mean and (biased) variance, and
    running_* = input_* * momentum + batch_* * (1 - momentum).
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$scale,
                       ONNX_FloatTensor:$B, ONNX_FloatTensor:$input_mean,
                       ONNX_FloatTensor:$input_var,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.9">:$momentum,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$training_mode);
  let results = (outs AnyTensor:$Y, AnyTensor:$running_mean,
                      AnyTensor:$running_var);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Losses.
//===----------------------------------------------------------------------===//

def ONNX_SoftmaxCrossEntropyLossOp : ONNX_Op<"SoftmaxCrossEntropyLoss"> {
  let summary = "ai.onnx SoftmaxCrossEntropyLoss";
  let arguments = (ins ONNX_FloatTensor:$scores, ONNX_IndexTensor:$labels,
                       ONNX_OptFloatTensor:$weights,
                       OptionalAttr<ONNX_I64Attr>:$ignore_index,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$output, AnyTensor:$log_prob);
  let hasVerifier = 1;
}

def ONNX_NegativeLogLikelihoodLossOp : ONNX_Op<"NegativeLogLikelihoodLoss"> {
  let summary = "ai.onnx NegativeLogLikelihoodLoss";
  let description = [{
    input [N, C] or [N, C, d1, ...] (log-probabilities), target [N] or
    [N, d1, ...], optional per-class weight [C]:
    loss[s] = -input[s, target[s]] * w[s], w[s] = 0 for ignore_index, else
    weight[target[s]] (or 1); reduced by none, sum or mean (divided by the
    sum of w).
  }];
  let arguments = (ins ONNX_FloatTensor:$input, ONNX_IndexTensor:$target,
                       ONNX_OptFloatTensor:$weight,
                       OptionalAttr<ONNX_I64Attr>:$ignore_index,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$loss);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Einsum.
//===----------------------------------------------------------------------===//

def ONNX_EinsumOp : ONNX_Op<"Einsum"> {
  let summary = "ai.onnx Einsum";
  let description = [{
    Sums of products over an equation such as "bij,bjk->bik": explicit or
    implicit output (the labels used once, in alphabetical order), repeated
    labels (diagonals), and "..." for broadcast dims.
  }];
  let arguments = (ins Variadic<ONNX_ReductionNumericTensor>:$Inputs,
                       StrAttr:$equation);
  let results = (outs AnyTensor:$Output);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_REDUCTION
