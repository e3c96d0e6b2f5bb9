//===- Training.td - com.microsoft training operators: gradients, accumulation, optimizers -*- tablegen -*-===//

#ifndef ODT_ONNX_OPS_TRAINING
#define ODT_ONNX_OPS_TRAINING

include "dialects/onnx/ONNXBase.td"

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
                       OptionalAttr<I64Attr>:$ignore_index,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$d_logits);
  let hasVerifier = 1;
}

def ONNX_ReluGradOp : ONNX_MSOp<"ReluGrad"> {
  let summary = "com.microsoft ReluGrad: dX = X > 0 ? dY : 0";
  let arguments = (ins ONNX_FloatTensor:$dY, ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$dX);
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
                       DefaultValuedAttr<I64Attr, "1">:$correct_bias,
                       DefaultValuedAttr<I64Attr, "0">:$adam_mode);
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
