//===- Elementwise.td - elementwise math, activations, comparisons, logic, casts -*- tablegen -*-===//
//
// ai.onnx elementwise operators, opsets 13 to 21. Binary and variadic ops
// follow ONNX's multidirectional (numpy) broadcasting; their inference
// (ops/Elementwise.cpp) reports shapes that cannot broadcast by node name.
// Integer ops compute with integer arithmetic (signed or unsigned as the
// element type says); float16/bfloat16 ops compute in f32 and round back.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS_ELEMENTWISE
#define ODT_ONNX_OPS_ELEMENTWISE

include "dialects/onnx/ONNXBase.td"

// Element types of the family (ONNX's tensor types odt imports; strings and
// complex types are not supported).
def ONNX_ElemNumericTensor
    : TensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def ONNX_ElemSignedTensor : TensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64]>;
def ONNX_ElemAnyTensor
    : TensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64, UI8, UI16, UI32,
                UI64]>;
def ONNX_ElemOptNumericTensor : AnyTypeOf<[ONNX_ElemNumericTensor, NoneType]>;

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

class ONNX_ElemBinaryOp<string mnemonic, string what>
    : ONNX_Op<mnemonic> {
  let summary = "ai.onnx " # mnemonic # ": C = " # what
                # " (broadcasting; C has A's element type)";
  let arguments = (ins ONNX_ElemNumericTensor:$A, ONNX_ElemNumericTensor:$B);
  let results = (outs AnyTensor:$C);
  let hasVerifier = 1;
}

def ONNX_AddOp : ONNX_ElemBinaryOp<"Add", "A + B">;
def ONNX_SubOp : ONNX_ElemBinaryOp<"Sub", "A - B">;
def ONNX_MulOp : ONNX_ElemBinaryOp<"Mul", "A * B">;
def ONNX_DivOp
    : ONNX_ElemBinaryOp<"Div", "A / B (integers truncate toward zero)">;

def ONNX_PowOp : ONNX_Op<"Pow"> {
  let summary = "ai.onnx Pow: Z = X ^ Y (broadcasting; Z has X's element "
                "type, Y may be of another numeric type)";
  let arguments = (ins TensorOf<[F16, BF16, F32, F64, I32, I64]>:$X,
                       ONNX_ElemNumericTensor:$Y);
  let results = (outs AnyTensor:$Z);
}

def ONNX_NegOp : ONNX_Op<"Neg"> {
  let summary = "ai.onnx Neg: Y = -X";
  let arguments = (ins ONNX_ElemSignedTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_AbsOp : ONNX_Op<"Abs"> {
  let summary = "ai.onnx Abs: Y = |X|";
  let arguments = (ins ONNX_ElemNumericTensor:$X);
  let results = (outs AnyTensor:$Y);
}

//===----------------------------------------------------------------------===//
// Float math: Y = f(X), Y of X's type
//===----------------------------------------------------------------------===//

class ONNX_ElemFloatUnaryOp<string mnemonic, string what>
    : ONNX_Op<mnemonic> {
  let summary = "ai.onnx " # mnemonic # ": Y = " # what;
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_SqrtOp : ONNX_ElemFloatUnaryOp<"Sqrt", "sqrt(X)">;
def ONNX_ReciprocalOp : ONNX_ElemFloatUnaryOp<"Reciprocal", "1 / X">;
def ONNX_ExpOp : ONNX_ElemFloatUnaryOp<"Exp", "exp(X)">;
def ONNX_LogOp : ONNX_ElemFloatUnaryOp<"Log", "log(X)">;
def ONNX_TanhOp : ONNX_ElemFloatUnaryOp<"Tanh", "tanh(X)">;
def ONNX_SigmoidOp : ONNX_ElemFloatUnaryOp<"Sigmoid", "1 / (1 + exp(-X))">;
def ONNX_SinOp : ONNX_ElemFloatUnaryOp<"Sin", "sin(X)">;
def ONNX_AtanOp : ONNX_ElemFloatUnaryOp<"Atan", "atan(X)">;
def ONNX_CosOp : ONNX_ElemFloatUnaryOp<"Cos", "cos(X)">;
def ONNX_SoftplusOp : ONNX_ElemFloatUnaryOp<"Softplus", "log(1 + exp(X))">;

def ONNX_FloorOp : ONNX_ElemFloatUnaryOp<"Floor", "floor(X)">;
def ONNX_CeilOp : ONNX_ElemFloatUnaryOp<"Ceil", "ceil(X)">;
def ONNX_RoundOp
    : ONNX_ElemFloatUnaryOp<"Round", "X rounded to the nearest integer, "
                                     "halves to even">;

def ONNX_SignOp : ONNX_Op<"Sign"> {
  let summary = "ai.onnx Sign: Y = -1, 0 or 1 by the sign of X (NaN stays "
                "NaN)";
  let arguments = (ins ONNX_ElemNumericTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_ModOp : ONNX_Op<"Mod"> {
  let summary = "ai.onnx Mod: C = A mod B (broadcasting). fmod = 0 "
                "(integers only): the sign of B, as Python's %; fmod = 1: the "
                "sign of A, as C's fmod";
  let arguments = (ins ONNX_ElemNumericTensor:$A, ONNX_ElemNumericTensor:$B,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$fmod);
  let results = (outs AnyTensor:$C);
  let hasVerifier = 1;
}

def ONNX_IsNaNOp : ONNX_Op<"IsNaN"> {
  let summary = "ai.onnx IsNaN: Y = X is NaN (bool)";
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_IsInfOp : ONNX_Op<"IsInf"> {
  let summary = "ai.onnx IsInf: Y = X is an infinity of a detected sign "
                "(bool)";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$detect_negative,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$detect_positive);
  let results = (outs AnyTensor:$Y);
}

def ONNX_ErfOp : ONNX_Op<"Erf"> {
  let summary = "ai.onnx Erf: Y = erf(X) (integers: erf of the value, "
                "truncated back)";
  let arguments = (ins ONNX_ElemNumericTensor:$X);
  let results = (outs AnyTensor:$Y);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

def ONNX_ReluOp : ONNX_Op<"Relu"> {
  let summary = "ai.onnx Relu: Y = max(X, 0) (floats and, since opset 14, "
                "signed integers)";
  let arguments = (ins ONNX_ElemSignedTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_LeakyReluOp : ONNX_Op<"LeakyRelu"> {
  let summary = "ai.onnx LeakyRelu: Y = X < 0 ? alpha * X : X";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
  let results = (outs AnyTensor:$Y);
}

def ONNX_EluOp : ONNX_Op<"Elu"> {
  let summary = "ai.onnx Elu: Y = X < 0 ? alpha * (exp(X) - 1) : X";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
}

def ONNX_HardSigmoidOp : ONNX_Op<"HardSigmoid"> {
  let summary = "ai.onnx HardSigmoid: Y = max(0, min(1, alpha * X + beta))";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5">:$beta);
  let results = (outs AnyTensor:$Y);
}

def ONNX_HardSwishOp : ONNX_Op<"HardSwish"> {
  let summary = "ai.onnx HardSwish: Y = X * max(0, min(1, X / 6 + 1 / 2))";
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_MishOp : ONNX_Op<"Mish"> {
  let summary = "ai.onnx Mish: Y = X * tanh(softplus(X))";
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_PReluOp : ONNX_Op<"PRelu"> {
  let summary = "ai.onnx PRelu: Y = X < 0 ? slope * X : X (slope broadcast "
                "to X)";
  let arguments = (ins ONNX_ElemSignedTensor:$X, ONNX_ElemSignedTensor:$slope);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_SeluOp : ONNX_Op<"Selu"> {
  let summary = "ai.onnx Selu: Y = gamma * (X > 0 ? X : alpha * (exp(X) - 1))";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma);
  let results = (outs AnyTensor:$Y);
}

def ONNX_CeluOp : ONNX_Op<"Celu"> {
  let summary = "ai.onnx Celu: Y = max(0, X) + min(0, alpha * (exp(X / alpha) "
                "- 1))";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_ThresholdedReluOp : ONNX_Op<"ThresholdedRelu"> {
  let summary = "ai.onnx ThresholdedRelu: Y = X > alpha ? X : 0";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
}

def ONNX_GeluOp : ONNX_Op<"Gelu"> {
  let summary = "ai.onnx Gelu (opset 20): Y = X * Phi(X), exact (\"none\") "
                "or with the tanh approximation (\"tanh\")";
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_ClipOp : ONNX_Op<"Clip"> {
  let summary = "ai.onnx Clip: output = min(max(input, min), max); absent "
                "bounds do not clip";
  let arguments = (ins ONNX_ElemNumericTensor:$input,
                       ONNX_ElemOptNumericTensor:$min,
                       ONNX_ElemOptNumericTensor:$max);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

// Ops over one or more inputs broadcast together (ops/Variadic.cpp).
class ONNX_ElemVariadicOp<string mnemonic, string what, Type elementTypes>
    : ONNX_Op<mnemonic> {
  let summary = "ai.onnx " # mnemonic # ": " # what;
  let arguments = (ins Variadic<elementTypes>:$data_0);
  let results = (outs AnyTensor:$result);
  let hasVerifier = 1;
}

def ONNX_MaxOp : ONNX_ElemVariadicOp<"Max",
    "the elementwise maximum of one or more inputs (broadcasting; NaN "
    "propagates)", ONNX_ElemNumericTensor>;
def ONNX_MinOp : ONNX_ElemVariadicOp<"Min",
    "the elementwise minimum of one or more inputs (broadcasting; NaN "
    "propagates)", ONNX_ElemNumericTensor>;
def ONNX_SumOp : ONNX_ElemVariadicOp<"Sum",
    "the elementwise sum of one or more inputs (broadcasting)",
    TensorOf<[F16, BF16, F32, F64]>>;
def ONNX_MeanOp : ONNX_ElemVariadicOp<"Mean",
    "the elementwise mean of one or more inputs (broadcasting)",
    TensorOf<[F16, BF16, F32, F64]>>;

//===----------------------------------------------------------------------===//
// Selection, comparisons and logic
//===----------------------------------------------------------------------===//

def ONNX_WhereOp : ONNX_Op<"Where"> {
  let summary = "ai.onnx Where: output = condition ? X : Y (broadcasting "
                "all three)";
  let arguments = (ins ONNX_BoolTensor:$condition, ONNX_ElemAnyTensor:$X,
                       ONNX_ElemAnyTensor:$Y);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

class ONNX_ElemCompareOp<string mnemonic, string what, TypeConstraint operand>
    : ONNX_Op<mnemonic> {
  let summary = "ai.onnx " # mnemonic # ": C = A " # what
                # " B (broadcasting; C is i1; NaN compares false)";
  let arguments = (ins operand:$A, operand:$B);
  let results = (outs AnyTensor:$C);
  let hasVerifier = 1;
}

def ONNX_EqualOp : ONNX_ElemCompareOp<"Equal", "==", ONNX_ElemAnyTensor>;
def ONNX_LessOp : ONNX_ElemCompareOp<"Less", "<", ONNX_ElemNumericTensor>;
def ONNX_GreaterOp
    : ONNX_ElemCompareOp<"Greater", ">", ONNX_ElemNumericTensor>;

def ONNX_NotOp : ONNX_Op<"Not"> {
  let summary = "ai.onnx Not: Y = !X (i1)";
  let arguments = (ins ONNX_BoolTensor:$X);
  let results = (outs AnyTensor:$Y);
}

class ONNX_ElemLogicOp<string mnemonic, string what> : ONNX_Op<mnemonic> {
  let summary = "ai.onnx " # mnemonic # ": C = A " # what
                # " B (i1, broadcasting)";
  let arguments = (ins ONNX_BoolTensor:$A, ONNX_BoolTensor:$B);
  let results = (outs AnyTensor:$C);
}

def ONNX_AndOp : ONNX_ElemLogicOp<"And", "&&">;
def ONNX_OrOp : ONNX_ElemLogicOp<"Or", "||">;

//===----------------------------------------------------------------------===//
// Cast and Dropout
//===----------------------------------------------------------------------===//

def ONNX_CastOp : ONNX_Op<"Cast"> {
  let summary = "ai.onnx Cast: output = input converted to the ONNX data "
                "type `to` (bool, [u]int8..64, float16, bfloat16, float, "
                "double); `saturate` (opset 19) only concerns float8 types, "
                "which odt does not support";
  let arguments = (ins ONNX_ElemAnyTensor:$input, ONNX_I64Attr:$to,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$saturate);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The element type `to` names, or null for a type odt does not support.
    ::mlir::Type getTargetElementType();
  }];
}

def ONNX_DropoutOp : ONNX_Op<"Dropout"> {
  let summary = "ai.onnx Dropout: output = data and mask = true unless "
                "training_mode; in training, mask = u >= ratio and output = "
                "mask ? data / (1 - ratio) : 0";
  let description = [{
    In training mode the uniform u in [0, 1) of each element comes from odt's
    own counter-based generator: a 64-bit mix of (seed, linear element
    index), with `seed` 0 when absent. The masks are deterministic for a seed
    and differ from ONNX Runtime's (no RNG state is shared with ORT).
  }];
  let arguments = (ins ONNX_FloatTensor:$data, ONNX_OptFloatTensor:$ratio,
                       ONNX_OptBoolTensor:$training_mode,
                       OptionalAttr<ONNX_I64Attr>:$seed);
  let results = (outs AnyTensor:$output, AnyTensor:$mask);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_ELEMENTWISE
