//===- ONNXBase.td - the onnx dialect------------------------*- tablegen -*-===//
//
// One op per supported ONNX operator. ai.onnx ops are named `onnx.<OpType>`;
// com.microsoft training ops `onnx.ms.<OpType>`. Attribute names are the ONNX
// attribute names, so the importer converts attributes generically; absent
// optional inputs are values of `none` type made by `onnx.NoValue`.
//
// The ops are defined in ops/<Group>.td by family; adding an op: define it
// there, put its verifier and shape inference in ops/<OpType>.cpp, its
// lowering in codegen/conversion/<OpType>.cpp and tests under test/ (see
// docs/adding-an-op.md).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_BASE
#define ODT_ONNX_BASE

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

// ONNX integer attributes are signed (a negative axis counts from the end),
// but MLIR's I64Attr reads its value zero-extended into a uint64_t; every op
// here uses this one instead, read sign-extended into an int64_t.
def ONNX_I64Attr : TypedSignlessIntegerAttrBase<
    I64, "int64_t", "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
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

#endif // ODT_ONNX_BASE
