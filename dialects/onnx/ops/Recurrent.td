//===- Recurrent.td - RNN, GRU, LSTM and their training ops -*- tablegen -*-===//
//
// ai.onnx RNN, GRU and LSTM (opsets 14-21: layout, directions, initial
// states, activations) and the com.microsoft ops a training graph uses for
// them: GRUTraining/LSTMTraining run the forward pass and keep what the
// backward pass needs (every hidden state, the gates, the cell states);
// GRUGrad/LSTMGrad/RNNGrad run back through time. Shapes, with D the number
// of directions, S the sequence length, N the batch and H hidden_size:
//   X [S, N, I] (layout 1: [N, S, I]); W [D, G*H, I]; R [D, G*H, H];
//   B [D, 2*G*H]; sequence_lens [N]; initial_h (and initial_c) [D, N, H]
//   (layout 1: [N, D, H]); Y [S, D, N, H] (layout 1: [N, S, D, H]);
//   Y_h, Y_c [D, N, H] (layout 1: [N, D, H]); G = 1 (RNN), 3 (GRU: z, r, h),
//   4 (LSTM: i, o, f, c); LSTM's peepholes P [D, 3*H] (i, o, f).
// The training ops' saved values always use layout 0: HAll [S, D, N, H],
// the gates [S, D, N, G*H], CAll [S, D, N, H].
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS_RECURRENT
#define ODT_ONNX_OPS_RECURRENT

include "dialects/onnx/ONNXBase.td"

def ONNX_OptI32Tensor : AnyTypeOf<[TensorOf<[I32]>, NoneType]>;

// The attributes every ONNX recurrent op has.
defvar ONNX_RecurrentAttrs = (ins OptionalAttr<DenseF32ArrayAttr>:$activation_alpha,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_beta,
                   OptionalAttr<StrArrayAttr>:$activations,
                   OptionalAttr<F32Attr>:$clip,
                   DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
                   OptionalAttr<ONNX_I64Attr>:$hidden_size,
                   DefaultValuedAttr<ONNX_I64Attr, "0">:$layout);

class ONNX_RecurrentOp<string mnemonic> : ONNX_Op<mnemonic> {
  let hasVerifier = 1;
}

def ONNX_RNNOp : ONNX_RecurrentOp<"RNN"> {
  let summary = "ai.onnx RNN: Ht = f(Xt W^T + Ht-1 R^T + Wb + Rb), f = Tanh "
                "by default";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h),
      ONNX_RecurrentAttrs);
  let results = (outs AnyTensor:$Y, AnyTensor:$Y_h);
}

def ONNX_GRUOp : ONNX_RecurrentOp<"GRU"> {
  let summary = "ai.onnx GRU: gates z, r and h (Sigmoid, Tanh by default); "
                "Ht = (1 - zt) ht + zt Ht-1";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h),
      ONNX_RecurrentAttrs,
      (ins DefaultValuedAttr<ONNX_I64Attr, "0">:$linear_before_reset));
  let results = (outs AnyTensor:$Y, AnyTensor:$Y_h);
}

def ONNX_LSTMOp : ONNX_RecurrentOp<"LSTM"> {
  let summary = "ai.onnx LSTM: gates i, o, f and c (Sigmoid, Tanh, Tanh by "
                "default), optional peepholes";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h, ONNX_OptFloatTensor:$initial_c,
           ONNX_OptFloatTensor:$P),
      ONNX_RecurrentAttrs,
      (ins DefaultValuedAttr<ONNX_I64Attr, "0">:$input_forget));
  let results = (outs AnyTensor:$Y, AnyTensor:$Y_h, AnyTensor:$Y_c);
}

def ONNX_GRUTrainingOp : ONNX_MSOp<"GRUTraining"> {
  let summary = "com.microsoft GRUTraining: GRU that also returns the gates "
                "of every step (ZRH: z, r, and h before the update)";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h),
      ONNX_RecurrentAttrs,
      (ins DefaultValuedAttr<ONNX_I64Attr, "0">:$linear_before_reset));
  let results = (outs AnyTensor:$HAll, AnyTensor:$Y_h, AnyTensor:$ZRH);
  let hasVerifier = 1;
}

def ONNX_LSTMTrainingOp : ONNX_MSOp<"LSTMTraining"> {
  let summary = "com.microsoft LSTMTraining: LSTM that also returns every "
                "cell state (CAll) and the gates of every step (IOFC)";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h, ONNX_OptFloatTensor:$initial_c,
           ONNX_OptFloatTensor:$P),
      ONNX_RecurrentAttrs,
      (ins DefaultValuedAttr<ONNX_I64Attr, "0">:$input_forget));
  let results = (outs AnyTensor:$HAll, AnyTensor:$Y_h, AnyTensor:$Y_c,
                      AnyTensor:$CAll, AnyTensor:$IOFC);
  let hasVerifier = 1;
}

def ONNX_RNNGradOp : ONNX_MSOp<"RNNGrad"> {
  let summary = "com.microsoft RNNGrad (odt): RNN's gradients from its "
                "hidden states HAll and the gradients of Y and Y_h";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h, ONNX_FloatTensor:$HAll,
           ONNX_OptFloatTensor:$grad_HAll, ONNX_OptFloatTensor:$grad_Y_h),
      ONNX_RecurrentAttrs);
  let results = (outs AnyTensor:$dX, AnyTensor:$dW, AnyTensor:$dR,
                      AnyTensor:$dB, AnyTensor:$dH0);
  let hasVerifier = 1;
}

def ONNX_GRUGradOp : ONNX_MSOp<"GRUGrad"> {
  let summary = "com.microsoft GRUGrad: GRU's gradients from HAll, ZRH and "
                "the gradients of HAll and Y_h";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h, ONNX_FloatTensor:$HAll,
           ONNX_FloatTensor:$ZRH, ONNX_OptFloatTensor:$grad_HAll,
           ONNX_OptFloatTensor:$grad_Y_h),
      ONNX_RecurrentAttrs,
      (ins DefaultValuedAttr<ONNX_I64Attr, "0">:$linear_before_reset));
  let results = (outs AnyTensor:$dX, AnyTensor:$dW, AnyTensor:$dR,
                      AnyTensor:$dB, AnyTensor:$dH0);
  let hasVerifier = 1;
}

def ONNX_LSTMGradOp : ONNX_MSOp<"LSTMGrad"> {
  let summary = "com.microsoft LSTMGrad: LSTM's gradients from HAll, CAll, "
                "IOFC and the gradients of HAll, Y_h and Y_c";
  let arguments = !con(
      (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W, ONNX_FloatTensor:$R,
           ONNX_OptFloatTensor:$B, ONNX_OptI32Tensor:$sequence_lens,
           ONNX_OptFloatTensor:$initial_h, ONNX_OptFloatTensor:$initial_c,
           ONNX_OptFloatTensor:$P, ONNX_FloatTensor:$HAll,
           ONNX_FloatTensor:$CAll, ONNX_FloatTensor:$IOFC,
           ONNX_OptFloatTensor:$grad_HAll, ONNX_OptFloatTensor:$grad_Y_h,
           ONNX_OptFloatTensor:$grad_Y_c),
      ONNX_RecurrentAttrs,
      (ins DefaultValuedAttr<ONNX_I64Attr, "0">:$input_forget));
  let results = (outs AnyTensor:$dX, AnyTensor:$dW, AnyTensor:$dR,
                      AnyTensor:$dB, AnyTensor:$dH0, AnyTensor:$dC0,
                      AnyTensor:$dP);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_RECURRENT
