//===- Training.td - com.microsoft training operators: gradients, accumulation, optimizers -*- tablegen -*-===//
//
// The operators ONNX Runtime's gradient builder and training transformers
// put into training graphs, with ORT's inputs, outputs, attribute names and
// defaults (orttraining/core/graph/training_op_defs.cc, contrib_defs.cc).
// Most are com.microsoft (`onnx.ms.<OpType>`); MaxPoolGrad and
// AveragePoolGrad are registered by ORT in the default domain, so they are
// `onnx.<OpType>`.
//
// Gradient ops copy the attributes of their forward node (ORT allows
// unchecked attributes there): attributes such as LayerNormalizationGrad's
// epsilon and stash_type are declared so the importer accepts them, even
// where the gradient does not use them.
//
// Verifiers and shape inference: ops/<OpType>.cpp (files grouping several
// ops say so in their header); lowerings: codegen/conversion/<OpType>.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS_TRAINING
#define ODT_ONNX_OPS_TRAINING

include "dialects/onnx/ONNXBase.td"

def ONNX_TrainingOptIndexTensor : AnyTypeOf<[ONNX_IndexTensor, NoneType]>;

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

def ONNX_SoftmaxCrossEntropyLossGradOp
    : ONNX_MSOp<"SoftmaxCrossEntropyLossGrad"> {
  let summary = "com.microsoft SoftmaxCrossEntropyLossGrad";
  let description = [{
    d_logits = (exp(log_prob) - onehot(label)) * w[label] * dY / normalizer,
    with normalizer = sum of the weights of non-ignored labels for "mean".
  }];
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$log_prob,
                       ONNX_IndexTensor:$label, ONNX_OptFloatTensor:$weight,
                       ONNX_OptFloatTensor:$bias,
                       OptionalAttr<ONNX_I64Attr>:$ignore_index,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$d_logits);
  let hasVerifier = 1;
}

def ONNX_SoftmaxCrossEntropyLossInternalOp
    : ONNX_MSOp<"SoftmaxCrossEntropyLossInternal"> {
  let summary = "com.microsoft SoftmaxCrossEntropyLossInternal: "
                "SoftmaxCrossEntropyLoss with ignore_index as an input";
  let description = [{
    scores [N, C, D1..Dk], labels [N, D1..Dk], optional per-class weights
    [C] and optional ignore_index (an int64 scalar tensor). Results: the
    loss (scalar, or labels-shaped for reduction "none") and log_prob, in
    output_type (a TensorProto data type; the scores' type when absent).
  }];
  let arguments = (ins ONNX_FloatTensor:$scores, ONNX_IndexTensor:$labels,
                       ONNX_OptFloatTensor:$weights,
                       ONNX_OptI64Tensor:$ignore_index,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction,
                       OptionalAttr<ONNX_I64Attr>:$output_type);
  let results = (outs AnyTensor:$output, AnyTensor:$log_prob);
  let hasVerifier = 1;
}

def ONNX_SoftmaxCrossEntropyLossInternalGradOp
    : ONNX_MSOp<"SoftmaxCrossEntropyLossInternalGrad"> {
  let summary = "com.microsoft SoftmaxCrossEntropyLossInternalGrad";
  let description = [{
    d_logits = (exp(log_prob) - onehot(label)) * w[label] * g + bias, with
    w = 0 for ignored labels and g = dY[s] (none), dY (sum) or dY / sum(w)
    (mean); output_type as for the forward op.
  }];
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$log_prob,
                       ONNX_IndexTensor:$label, ONNX_OptFloatTensor:$weight,
                       ONNX_OptI64Tensor:$ignore_index,
                       ONNX_OptFloatTensor:$bias,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction,
                       OptionalAttr<ONNX_I64Attr>:$output_type);
  let results = (outs AnyTensor:$d_logits);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Activations and their gradients (elementwise)
//===----------------------------------------------------------------------===//

def ONNX_ReluGradOp : ONNX_MSOp<"ReluGrad"> {
  let summary = "com.microsoft ReluGrad: dX = X > 0 ? dY : 0";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_SigmoidGradOp : ONNX_MSOp<"SigmoidGrad"> {
  let summary = "com.microsoft SigmoidGrad: dX = dY * Y * (1 - Y), Y the "
                "Sigmoid output";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$Y);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_TanhGradOp : ONNX_MSOp<"TanhGrad"> {
  let summary = "com.microsoft TanhGrad: dX = dY * (1 - Y * Y), Y the Tanh "
                "output";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$Y);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_LeakyReluGradOp : ONNX_MSOp<"LeakyReluGrad"> {
  let summary = "com.microsoft LeakyReluGrad: dX = Y > 0 ? dY : alpha * dY, "
                "Y the LeakyRelu output";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$Y,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_GeluGradOp : ONNX_MSOp<"GeluGrad"> {
  let summary = "com.microsoft GeluGrad: dX = dY * (Phi(X) + X * phi(X)) "
                "for the exact (erf) Gelu";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_FastGeluGradOp : ONNX_MSOp<"FastGeluGrad"> {
  let summary = "com.microsoft FastGeluGrad: the gradient of the tanh "
                "approximation of Gelu";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_MSGeluOp : ONNX_MSOp<"Gelu"> {
  let summary = "com.microsoft Gelu: Y = 0.5 * X * (1 + erf(X / sqrt(2)))";
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_BiasGeluOp : ONNX_MSOp<"BiasGelu"> {
  let summary = "com.microsoft BiasGelu: C = Gelu(A + B), B a 1-D bias over "
                "A's last dim";
  let arguments = (ins ONNX_FloatTensor:$A, ONNX_FloatTensor:$B);
  let results = (outs AnyTensor:$C);
  let hasVerifier = 1;
}

def ONNX_FastGeluOp : ONNX_MSOp<"FastGelu"> {
  let summary = "com.microsoft FastGelu: the tanh approximation of Gelu of "
                "X (+ an optional 1-D bias over X's last dim)";
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_OptFloatTensor:$bias);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Softmax gradients
//===----------------------------------------------------------------------===//

def ONNX_SoftmaxGradOp : ONNX_MSOp<"SoftmaxGrad"> {
  let summary = "com.microsoft SoftmaxGrad (opset < 13 Softmax): "
                "dX = Y * (dY - sum(Y * dY)), the sum over dims [axis, rank)";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$Y,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$axis);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_SoftmaxGrad_13Op : ONNX_MSOp<"SoftmaxGrad_13"> {
  let summary = "com.microsoft SoftmaxGrad_13: dX = Y * (dY - sum(Y * dY)), "
                "the sum over the single dim axis";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$Y,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_LogSoftmaxGradOp : ONNX_MSOp<"LogSoftmaxGrad"> {
  let summary = "com.microsoft LogSoftmaxGrad (opset < 13 LogSoftmax): "
                "dX = dY - exp(X) * sum(dY), X the LogSoftmax output, the "
                "sum over dims [axis, rank)";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$axis);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_LogSoftmaxGrad_13Op : ONNX_MSOp<"LogSoftmaxGrad_13"> {
  let summary = "com.microsoft LogSoftmaxGrad_13: dX = dY - exp(X) * "
                "sum(dY), X the LogSoftmax output, the sum over dim axis";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def ONNX_LayerNormalizationGradOp : ONNX_MSOp<"LayerNormalizationGrad"> {
  let summary = "com.microsoft LayerNormalizationGrad: X_grad, scale_grad, "
                "bias_grad from X, scale and the saved mean and inv_std_dev";
  let description = [{
    Over the normalized dims [axis, rank) with M elements per row:
      xhat = (X - mean) * inv_std_dev, g = Y_grad * scale
      bias_grad = sum_rows(Y_grad), scale_grad = sum_rows(Y_grad * xhat)
      X_grad = inv_std_dev * (g - mean_M(g) - xhat * mean_M(g * xhat))
    mean and inv_std_dev hold one value per row (shape [d0..d(axis-1)]
    with or without trailing 1s). epsilon and stash_type come from the
    forward node and are not used.
  }];
  let arguments = (ins ONNX_FloatTensor:$Y_grad, ONNX_FloatTensor:$X,
                       ONNX_FloatTensor:$scale, ONNX_FloatTensor:$mean,
                       ONNX_FloatTensor:$inv_std_dev,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
                       OptionalAttr<F32Attr>:$epsilon,
                       OptionalAttr<ONNX_I64Attr>:$stash_type);
  let results = (outs AnyTensor:$X_grad, AnyTensor:$scale_grad,
                      AnyTensor:$bias_grad);
  let hasVerifier = 1;
}

def ONNX_SimplifiedLayerNormalizationOp
    : ONNX_Op<"SimplifiedLayerNormalization"> {
  let summary = "SimplifiedLayerNormalization (ORT contrib, default "
                "domain): RMS normalization Y = X * inv_std_var * scale";
  let description = [{
    inv_std_var = 1 / sqrt(mean(X^2) + epsilon) over the dims [axis, rank),
    one value per row, shaped [d0..d(axis-1), 1, ..., 1].
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$scale,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y, AnyTensor:$inv_std_var);
  let hasVerifier = 1;
}

def ONNX_SimplifiedLayerNormalizationGradOp
    : ONNX_MSOp<"SimplifiedLayerNormalizationGrad"> {
  let summary = "com.microsoft SimplifiedLayerNormalizationGrad: X_grad and "
                "scale_grad of RMS normalization";
  let description = [{
    xhat = X * inv_std_var, g = Y_grad * scale, scale_grad = sum_rows(Y_grad
    * xhat), X_grad = inv_std_var * (g - xhat * mean_M(g * xhat)).
  }];
  let arguments = (ins ONNX_FloatTensor:$Y_grad, ONNX_FloatTensor:$X,
                       ONNX_FloatTensor:$scale, ONNX_FloatTensor:$inv_std_var,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
                       OptionalAttr<F32Attr>:$epsilon,
                       OptionalAttr<ONNX_I64Attr>:$stash_type);
  let results = (outs AnyTensor:$X_grad, AnyTensor:$scale_grad);
  let hasVerifier = 1;
}

def ONNX_BatchNormInternalOp : ONNX_MSOp<"BatchNormInternal"> {
  let summary = "com.microsoft BatchNormInternal: training-mode "
                "BatchNormalization with the saved batch statistics";
  let description = [{
    X [N, C, D1..Dk]; per channel over the other dims: mean, biased var;
    Y = (X - mean) * saved_inv_std * scale + B with saved_inv_std =
    1 / sqrt(var + epsilon); running_mean = momentum * input_mean +
    (1 - momentum) * mean, running_var likewise with var; saved_mean = mean.
    With training_mode = 0: Y from input_mean and input_var; the other
    results are the inputs' values.
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$scale,
                       ONNX_FloatTensor:$B, ONNX_FloatTensor:$input_mean,
                       ONNX_FloatTensor:$input_var,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.9">:$momentum,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$training_mode);
  let results = (outs AnyTensor:$Y, AnyTensor:$running_mean,
                      AnyTensor:$running_var, AnyTensor:$saved_mean,
                      AnyTensor:$saved_inv_std);
  let hasVerifier = 1;
}

def ONNX_BatchNormalizationGradOp : ONNX_MSOp<"BatchNormalizationGrad"> {
  let summary = "com.microsoft BatchNormalizationGrad from the saved mean "
                "and inverse standard deviation";
  let description = [{
    ORT's gradient builder feeds BatchNormInternal's saved_mean and
    saved_inv_std as `mean` and `variance`; per channel c with M = N * D
    elements: bias_grad = sum(dY), scale_grad = sum(dY * (X - mean) *
    inv_std), X_grad = scale * inv_std / M * (M * dY - bias_grad -
    (X - mean) * inv_std * scale_grad). epsilon is not used.
  }];
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X,
                       ONNX_FloatTensor:$scale, ONNX_FloatTensor:$mean,
                       ONNX_FloatTensor:$variance,
                       OptionalAttr<F32Attr>:$epsilon);
  let results = (outs AnyTensor:$X_grad, AnyTensor:$scale_grad,
                      AnyTensor:$bias_grad);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling gradients
//===----------------------------------------------------------------------===//

def ONNX_ConvGradOp : ONNX_MSOp<"ConvGrad"> {
  let summary = "com.microsoft ConvGrad: dX, dW and dB of Conv (the Conv "
                "node's attributes)";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X,
                       ONNX_FloatTensor:$W,
                       DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$dX, AnyTensor:$dW, AnyTensor:$dB);
  let hasVerifier = 1;
}

def ONNX_MaxPoolGradOp : ONNX_Op<"MaxPoolGrad"> {
  let summary = "MaxPoolGrad (ORT, default domain): dX = zeros, then "
                "dX.flat[Indices[i]] += dY[i]";
  let description = [{
    Indices are MaxPool's flat indices into X. dX has X's shape: taken from
    the MaxPool that produced Indices, else computed from the attributes
    (the smallest input that gives dY's spatial dims).
  }];
  let arguments = (ins ONNX_FloatTensor:$dY, TensorOf<[I64]>:$Indices,
                       DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$ceil_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$storage_order,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_AveragePoolGradOp : ONNX_Op<"AveragePoolGrad"> {
  let summary = "AveragePoolGrad (ORT, default domain): each dY element "
                "spread evenly over its window of dX";
  let description = [{
    The window of output o along an axis is [o * s - pad, o * s - pad + k)
    clipped to [0, in); the divisor is the kernel size with
    count_include_pad = 1, else the clipped window's size (ORT's kernel).
    dX's spatial dims are the smallest input that gives dY's.
  }];
  let arguments = (ins ONNX_FloatTensor:$dY,
                       DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$count_include_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Structural gradients and helpers
//===----------------------------------------------------------------------===//

def ONNX_GatherGradOp : ONNX_MSOp<"GatherGrad"> {
  let summary = "com.microsoft GatherGrad: dX = zeros(shape) with dY "
                "scatter-added at indices along axis";
  let arguments = (ins ONNX_IndexTensor:$shape, ONNX_IndexTensor:$indices,
                       ONNX_FloatTensor:$dY,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_GatherElementsGradOp : ONNX_MSOp<"GatherElementsGrad"> {
  let summary = "com.microsoft GatherElementsGrad: dX = zeros(shape), "
                "dX[..., indices[i], ...] += dY[i] along axis";
  let arguments = (ins ONNX_FloatTensor:$dY, TensorOf<[I64]>:$shape,
                       ONNX_IndexTensor:$indices,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_DropoutGradOp : ONNX_MSOp<"DropoutGrad"> {
  let summary = "com.microsoft DropoutGrad: dx = mask ? dy / (1 - ratio) : "
                "0 (ratio 0.5 when absent)";
  let arguments = (ins ONNX_FloatTensor:$dy, ONNX_BoolTensor:$mask,
                       ONNX_OptFloatTensor:$ratio,
                       ONNX_OptBoolTensor:$training_mode);
  let results = (outs AnyTensor:$dx);
  let hasVerifier = 1;
}

def ONNX_SliceGradOp : ONNX_MSOp<"SliceGrad"> {
  let summary = "com.microsoft SliceGrad: dX = zeros(shape) with dY written "
                "where Slice(starts, ends, axes, steps) read";
  let arguments = (ins AnyTensor:$dY, TensorOf<[I64]>:$shape,
                       ONNX_IndexTensor:$starts, ONNX_IndexTensor:$ends,
                       ONNX_TrainingOptIndexTensor:$axes,
                       ONNX_TrainingOptIndexTensor:$steps);
  let results = (outs AnyTensor:$dX);
  let hasVerifier = 1;
}

def ONNX_DivGradOp : ONNX_MSOp<"DivGrad"> {
  let summary = "com.microsoft DivGrad: dA = dY / B and dB = -dY * A / B^2, "
                "each summed over the dims its input was broadcast along";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$A,
                       ONNX_FloatTensor:$B);
  let results = (outs AnyTensor:$dA, AnyTensor:$dB);
  let hasVerifier = 1;
}

def ONNX_ReduceSumTrainingOp : ONNX_MSOp<"ReduceSumTraining"> {
  let summary = "com.microsoft ReduceSumTraining: ReduceSum with the axes "
                "as a required input";
  let arguments = (ins TensorOf<[F16, BF16, F32, F64, I32, I64]>:$data,
                       TensorOf<[I64]>:$axes,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The normalized (non-negative, sorted) reduction axes when the axes
    /// are known at compile time (a constant, or a BroadcastGradientArgs
    /// result over known shapes); empty means "all" or "none" as
    /// noop_with_empty_axes says.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>> getStaticAxes();
  }];
}

def ONNX_BroadcastGradientArgsOp : ONNX_MSOp<"BroadcastGradientArgs"> {
  let summary = "com.microsoft BroadcastGradientArgs: the axes (last to "
                "first) along which each of two broadcast inputs was "
                "expanded";
  let description = [{
    a_shape and b_shape are 1-D int64 shape tensors. odt computes the axes
    at compile time from the shapes they hold (onnx.Shape of a ranked value
    or a constant): a static 1 facing another size is a broadcast axis, two
    symbolic dims are equal (odt's broadcasting rule), and the leading dims
    of the longer shape are broadcast axes of the shorter input.
  }];
  let arguments = (ins TensorOf<[I64]>:$a_shape, TensorOf<[I64]>:$b_shape);
  let results = (outs AnyTensor:$a_axes, AnyTensor:$b_axes);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The axes of result `index` (0: a_axes, 1: b_axes) in ORT's order,
    /// when the input shapes are known at compile time.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>>
    getStaticAxes(unsigned index);
  }];
}

def ONNX_FusedMatMulOp : ONNX_MSOp<"FusedMatMul"> {
  let summary = "com.microsoft FusedMatMul: Y = alpha * op(A) @ op(B) with "
                "numpy batch broadcasting; transA/transB transpose the last "
                "two dims";
  let arguments = (ins ONNX_FloatTensor:$A, ONNX_FloatTensor:$B,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$transA,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$transB,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$transBatchA,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$transBatchB);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_ScaleOp : ONNX_MSOp<"Scale"> {
  let summary = "com.microsoft Scale: output = input * scale, or input / "
                "scale with scale_down = 1 (scale a one-element tensor)";
  let arguments = (ins ONNX_FloatTensor:$input,
                       TensorOf<[F16, F32, F64, I32, I64]>:$scale,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$scale_down);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_SplitTrainingOp : ONNX_MSOp<"SplitTraining"> {
  let summary = "com.microsoft SplitTraining: Split with the lengths as an "
                "input (ConcatTraining's per_input_length)";
  let arguments = (ins AnyTensor:$input, TensorOf<[I64]>:$split,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs Variadic<AnyTensor>:$outputs);
  let hasVerifier = 1;
}

def ONNX_ConcatTrainingOp : ONNX_MSOp<"ConcatTraining"> {
  let summary = "com.microsoft ConcatTraining: Concat that also returns the "
                "length of each input along axis";
  let arguments = (ins Variadic<AnyTensor>:$inputs, ONNX_I64Attr:$axis);
  let results = (outs AnyTensor:$concat_result, AnyTensor:$per_input_length);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Accumulation and gradient control (in place in ORT)
//===----------------------------------------------------------------------===//

def ONNX_InPlaceAccumulatorOp : ONNX_MSOp<"InPlaceAccumulator"> {
  let summary = "com.microsoft InPlaceAccumulator: new_sum = old_sum + "
                "value; with update_signal false, new_sum = old_sum";
  let description = [{
    ORT updates old_sum in place; here new_sum is a result that the
    training-program assembly writes back into old_sum's buffer when it is
    a graph input.
  }];
  let arguments = (ins ONNX_FloatTensor:$old_sum, ONNX_FloatTensor:$value,
                       ONNX_OptBoolTensor:$update_signal);
  let results = (outs AnyTensor:$new_sum);
  let hasVerifier = 1;
}

def ONNX_ZeroGradientOp : ONNX_MSOp<"ZeroGradient"> {
  let summary = "com.microsoft ZeroGradient: zero_gradient = zeros like "
                "old_gradient (reset_signal only orders the op)";
  let arguments = (ins ONNX_FloatTensor:$old_gradient, AnyTensor:$reset_signal);
  let results = (outs AnyTensor:$zero_gradient);
  let hasVerifier = 1;
}

def ONNX_InPlaceAccumulatorV2Op : ONNX_MSOp<"InPlaceAccumulatorV2"> {
  let summary = "com.microsoft InPlaceAccumulatorV2";
  let description = [{
    accumulation_buffer_out = overwrite_flag ? value : buffer + value.
    ORT updates the buffer in place; here the new buffer is a result that the
    training-program assembly writes back into the gradient buffer.
  }];
  let arguments = (ins ONNX_FloatTensor:$buffer, ONNX_FloatTensor:$value,
                       ONNX_OptBoolTensor:$overwrite_flag);
  let results = (outs AnyTensor:$updated_flag,
                      AnyTensor:$accumulation_buffer_out);
  let hasVerifier = 1;
}

def ONNX_InplaceClipGradNormOp : ONNX_MSOp<"InplaceClipGradNorm"> {
  let summary = "com.microsoft InplaceClipGradNorm over a resolved sequence: "
                "every gradient times min(max_norm / (norm + 1e-6), 1), "
                "norm the Frobenius norm of all of them together";
  let arguments = (ins Variadic<ONNX_FloatTensor>:$gradients,
                       DefaultValuedAttr<F32Attr, "1.0">:$max_norm,
                       DefaultValuedAttr<StrAttr, "\"fro\"">:$norm_type);
  let results = (outs Variadic<AnyTensor>:$clipped_gradients);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

def ONNX_AdamWOptimizerOp
    : ONNX_MSOp<"AdamWOptimizer", [SameVariadicOperandSize,
                                   SameVariadicResultSize]> {
  let summary = "com.microsoft AdamWOptimizer over resolved sequences";
  let description = [{
    adam_mode 0 (PyTorch AdamW) and 1 (Hugging Face AdamW); see
    docs/optimizers.md for the exact update order. `step` is the 1-based step
    of this update, used for bias correction.
  }];
  let arguments = (ins TensorOf<[F32]>:$lr, TensorOf<[I64]>:$step,
                       Variadic<TensorOf<[F32]>>:$weights,
                       Variadic<TensorOf<[F32]>>:$gradients,
                       Variadic<TensorOf<[F32]>>:$momentums_1,
                       Variadic<TensorOf<[F32]>>:$momentums_2,
                       DefaultValuedAttr<F32Attr, "0.9">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.999">:$beta,
                       DefaultValuedAttr<F32Attr, "1e-8">:$epsilon,
                       DefaultValuedAttr<F32Attr, "1e-2">:$weight_decay,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$correct_bias,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$adam_mode);
  let results = (outs AnyTensor:$updated_flag,
                      Variadic<AnyTensor>:$updated_weights,
                      Variadic<AnyTensor>:$updated_momentums_1,
                      Variadic<AnyTensor>:$updated_momentums_2);
  let hasVerifier = 1;
}

def ONNX_SGDOptimizerV2Op
    : ONNX_MSOp<"SGDOptimizerV2", [SameVariadicOperandSize,
                                   SameVariadicResultSize]> {
  let summary = "com.microsoft SGDOptimizerV2 over resolved sequences: "
                "w -= lr * g";
  let arguments = (ins TensorOf<[F32]>:$lr,
                       Variadic<TensorOf<[F32]>>:$weights,
                       Variadic<TensorOf<[F32]>>:$gradients);
  let results = (outs AnyTensor:$update_completed,
                      Variadic<AnyTensor>:$updated_weights);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_TRAINING
