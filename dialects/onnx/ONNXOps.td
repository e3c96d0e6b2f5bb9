//===- ONNXOps.td - the onnx dialect ------------------------*- tablegen -*-===//
//
// One op per supported ONNX operator. ai.onnx ops are named `onnx.<OpType>`;
// com.microsoft training ops `onnx.ms.<OpType>`. Attribute names are the ONNX
// attribute names, so the importer converts attributes generically; absent
// optional inputs are values of `none` type made by `onnx.NoValue`.
//
// Adding an op: define it here, put its verifier and shape inference in
// ops/<OpType>.cpp, its lowering in codegen/lowering/<OpType>.cpp and tests
// under test/ (see docs/adding-an-op.md).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS
#define ODT_ONNX_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "dialects/onnx/ONNXOpInterface.td"

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::odt::onnx";
  let summary = "ONNX and com.microsoft training operators at tensor level";
  let description = [{
    Value-semantics operators mirroring ONNX (ai.onnx, opsets 13 and later)
    and the com.microsoft training operators ONNX Runtime's training graphs
    use. State updates that ORT performs in place (gradient accumulation,
    optimizer updates) are results here; the training-program assembly ties
    them to the buffers they update.
  }];
  let hasConstantMaterializer = 0;
}

// The number of operands (arguments that are not attributes) of an op, and
// whether any of them is variadic.
class ONNX_CountInputs<dag arguments> {
  int value = !foldl(0, !range(!size(arguments)), count, i,
      !add(count, !if(!isa<Attr>(!getdagarg<Constraint>(arguments, i)), 0, 1)));
  int variadic = !foldl(0, !range(!size(arguments)), count, i,
      !add(count, !if(!isa<Variadic>(!getdagarg<Constraint>(arguments, i)), 1, 0)));
}

// Base class: every op is pure at tensor level, infers shapes and knows its
// ONNX input count. An op that needs its own extraClassDeclaration must start
// it with `onnxClassDeclaration #`.
//
// Results are declared AnyTensor on purpose: the importer creates each op with
// placeholder result types, verifies operands and attributes, then lets the
// op's inferShapes set the exact result types. The result types are given in
// each op's summary and enforced by inference.
class ONNX_Op<string mnemonic, list<Trait> traits = []>
    : Op<ONNX_Dialect, mnemonic,
         !listconcat(traits, [Pure,
             DeclareOpInterfaceMethods<ONNXOpInterface>])> {
  let assemblyFormat =
      "`(` operands `)` attr-dict `:` functional-type(operands, results)";
  code onnxClassDeclaration = "static constexpr unsigned kONNXInputCount = "
      # ONNX_CountInputs<arguments>.value # ";"
      # "static constexpr bool kHasVariadicONNXInputs = "
      # !if(ONNX_CountInputs<arguments>.variadic, "true", "false") # ";"
      # "static constexpr unsigned kONNXOutputCount = "
      # !size(results) # ";"
      # "static constexpr bool kHasVariadicONNXOutputs = "
      # !if(ONNX_CountInputs<results>.variadic, "true", "false") # ";";
  let extraClassDeclaration = onnxClassDeclaration;
}

// com.microsoft operators.
class ONNX_MSOp<string mnemonic, list<Trait> traits = []>
    : ONNX_Op<"ms." # mnemonic, traits>;

def ONNX_FloatTensor : TensorOf<[F16, BF16, F32, F64]>;
def ONNX_IndexTensor : TensorOf<[I32, I64]>;
def ONNX_BoolTensor : TensorOf<[I1]>;
def ONNX_OptFloatTensor : AnyTypeOf<[ONNX_FloatTensor, NoneType]>;
def ONNX_OptI64Tensor : AnyTypeOf<[TensorOf<[I64]>, NoneType]>;
def ONNX_OptBoolTensor : AnyTypeOf<[ONNX_BoolTensor, NoneType]>;

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

def ONNX_NoValueOp : Op<ONNX_Dialect, "NoValue", [Pure, ConstantLike]> {
  let summary = "an absent optional input";
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}

def ONNX_ConstantOp : ONNX_Op<"Constant", [ConstantLike]> {
  let summary = "a constant tensor (ONNX initializers and Constant nodes)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def ONNX_IdentityOp : ONNX_Op<"Identity"> {
  let summary = "ai.onnx Identity";
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
}

//===----------------------------------------------------------------------===//
// Forward operators
//===----------------------------------------------------------------------===//

def ONNX_GemmOp : ONNX_Op<"Gemm"> {
  let summary = "ai.onnx Gemm: Y = alpha * A' * B' + beta * C";
  let arguments = (ins ONNX_FloatTensor:$A, ONNX_FloatTensor:$B,
                       ONNX_OptFloatTensor:$C,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<I64Attr, "0">:$transA,
                       DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_ReluOp : ONNX_Op<"Relu"> {
  let summary = "ai.onnx Relu";
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_ReduceSumOp : ONNX_Op<"ReduceSum"> {
  let summary = "ai.onnx ReduceSum (opset 13+: axes as an input)";
  let arguments = (ins ONNX_FloatTensor:$data, ONNX_OptI64Tensor:$axes,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The normalized (non-negative, sorted) reduction axes, or failure if
    /// the axes input is not a constant.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>> getConstantAxes();
  }];
}

def ONNX_SoftmaxCrossEntropyLossOp : ONNX_Op<"SoftmaxCrossEntropyLoss"> {
  let summary = "ai.onnx SoftmaxCrossEntropyLoss";
  let arguments = (ins ONNX_FloatTensor:$scores, ONNX_IndexTensor:$labels,
                       ONNX_OptFloatTensor:$weights,
                       OptionalAttr<I64Attr>:$ignore_index,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$output, AnyTensor:$log_prob);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// com.microsoft gradient operators
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

//===----------------------------------------------------------------------===//
// com.microsoft optimizers. ONNX sequences are resolved at import against the
// training model's parameter list, so each sequence becomes one operand group.
// Like ORT's kernels, they update float32 state only.
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

#endif // ODT_ONNX_OPS
