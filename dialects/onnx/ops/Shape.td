//===- Shape.td - shape and data movement: reshape, transpose, gather, slice, ... -*- tablegen -*-===//
//
// Ops that move data without arithmetic. Inputs that decide a result's dims
// (Reshape's shape, Slice's bounds, Pad's pads, ...) are read at compile time
// when their values are known (constants, or shape computations that
// ShapeContext resolves); otherwise the dims they decide are fresh symbols
// and the lowering computes them at run time.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS_SHAPE
#define ODT_ONNX_OPS_SHAPE

include "dialects/onnx/ONNXBase.td"

def ONNX_OptIndexTensor : AnyTypeOf<[ONNX_IndexTensor, NoneType]>;

def ONNX_IdentityOp : ONNX_Op<"Identity"> {
  let summary = "ai.onnx Identity";
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
}

def ONNX_ReshapeOp : ONNX_Op<"Reshape"> {
  let summary = "ai.onnx Reshape (allowzero of opset 14; -1 and 0 in shape)";
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$shape,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$allowzero);
  let results = (outs AnyTensor:$reshaped);
  let hasVerifier = 1;
}

def ONNX_TransposeOp : ONNX_Op<"Transpose"> {
  let summary = "ai.onnx Transpose (perm defaults to reversing the dims)";
  let arguments = (ins AnyTensor:$data,
                       OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs AnyTensor:$transposed);
  let hasVerifier = 1;
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The permutation (the default one if perm is absent); empty if the
    /// rank of data is unknown.
    ::llvm::SmallVector<int64_t> getPermutation();
  }];
}

def ONNX_FlattenOp : ONNX_Op<"Flatten"> {
  let summary = "ai.onnx Flatten: [d0..d(axis-1), d(axis)..] -> 2-D";
  let arguments = (ins AnyTensor:$input,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$axis);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_SqueezeOp : ONNX_Op<"Squeeze"> {
  let summary = "ai.onnx Squeeze (axes as an input, opset 13+)";
  let arguments = (ins AnyTensor:$data, ONNX_OptI64Tensor:$axes);
  let results = (outs AnyTensor:$squeezed);
  let hasVerifier = 1;
}

def ONNX_UnsqueezeOp : ONNX_Op<"Unsqueeze"> {
  let summary = "ai.onnx Unsqueeze (axes as an input, opset 13+)";
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$axes);
  let results = (outs AnyTensor:$expanded);
  let hasVerifier = 1;
}

def ONNX_ConcatOp : ONNX_Op<"Concat"> {
  let summary = "ai.onnx Concat";
  let arguments = (ins Variadic<AnyTensor>:$inputs, ONNX_I64Attr:$axis);
  let results = (outs AnyTensor:$concat_result);
  let hasVerifier = 1;
}

def ONNX_SplitOp : ONNX_Op<"Split"> {
  let summary = "ai.onnx Split (split as an input, 13; num_outputs, 18)";
  let description = [{
    One result per ONNX output. Without `split`, the dim is split into
    `num_outputs` parts (opset 18: the last one smaller if it does not
    divide) or, before opset 18, into as many equal parts as there are
    results.
  }];
  let arguments = (ins AnyTensor:$input, ONNX_OptI64Tensor:$split,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
                       OptionalAttr<ONNX_I64Attr>:$num_outputs);
  let results = (outs Variadic<AnyTensor>:$outputs);
  let hasVerifier = 1;
}

def ONNX_SliceOp : ONNX_Op<"Slice"> {
  let summary = "ai.onnx Slice (starts/ends/axes/steps as inputs)";
  let arguments = (ins AnyTensor:$data, ONNX_IndexTensor:$starts,
                       ONNX_IndexTensor:$ends, ONNX_OptIndexTensor:$axes,
                       ONNX_OptIndexTensor:$steps);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_GatherOp : ONNX_Op<"Gather"> {
  let summary = "ai.onnx Gather (negative indices count from the end)";
  let arguments = (ins AnyTensor:$data, ONNX_IndexTensor:$indices,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_GatherElementsOp : ONNX_Op<"GatherElements"> {
  let summary = "ai.onnx GatherElements";
  let arguments = (ins AnyTensor:$data, ONNX_IndexTensor:$indices,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_ScatterElementsOp : ONNX_Op<"ScatterElements"> {
  let summary = "ai.onnx ScatterElements (reduction none/add/mul/max/min)";
  let arguments = (ins AnyTensor:$data, ONNX_IndexTensor:$indices,
                       AnyTensor:$updates,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_GatherNDOp : ONNX_Op<"GatherND"> {
  let summary = "ai.onnx GatherND: slices of data at index tuples (the last "
                "dim of indices), after batch_dims leading batch dims";
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$indices,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$batch_dims);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_ScatterNDOp : ONNX_Op<"ScatterND"> {
  let summary = "ai.onnx ScatterND: data with the slices at index tuples "
                "replaced by (or combined with) updates (reduction "
                "none/add/mul/max/min)";
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$indices,
                       AnyTensor:$updates,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_OneHotOp : ONNX_Op<"OneHot"> {
  let summary = "ai.onnx OneHot: values[1] where the position along `axis` "
                "equals the index (negative indices count from depth), "
                "values[0] elsewhere";
  let description = [{
    Composite: odt-decompose-composite-ops rewrites it as Equal of the
    indices with a Range, and Where.
  }];
  let arguments = (ins AnyTensor:$indices, AnyTensor:$depth,
                       AnyTensor:$values,
                       DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_DepthToSpaceOp : ONNX_Op<"DepthToSpace"> {
  let summary = "ai.onnx DepthToSpace (modes DCR and CRD): [N, C, H, W] -> "
                "[N, C / b^2, H * b, W * b]";
  let description = [{
    Composite: odt-decompose-composite-ops rewrites it as Reshape,
    Transpose, Reshape.
  }];
  let arguments = (ins AnyTensor:$input, ONNX_I64Attr:$blocksize,
                       DefaultValuedAttr<StrAttr, "\"DCR\"">:$mode);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_SpaceToDepthOp : ONNX_Op<"SpaceToDepth"> {
  let summary = "ai.onnx SpaceToDepth: [N, C, H, W] -> [N, C * b^2, H / b, "
                "W / b]";
  let description = [{
    Composite: odt-decompose-composite-ops rewrites it as Reshape,
    Transpose, Reshape.
  }];
  let arguments = (ins AnyTensor:$input, ONNX_I64Attr:$blocksize);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_ExpandOp : ONNX_Op<"Expand"> {
  let summary = "ai.onnx Expand (bidirectional broadcast to shape)";
  let arguments = (ins AnyTensor:$input, TensorOf<[I64]>:$shape);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_TileOp : ONNX_Op<"Tile"> {
  let summary = "ai.onnx Tile";
  let arguments = (ins AnyTensor:$input, TensorOf<[I64]>:$repeats);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_PadOp : ONNX_Op<"Pad"> {
  let summary = "ai.onnx Pad (constant/reflect/edge/wrap; axes of opset 18)";
  let arguments = (ins AnyTensor:$data, TensorOf<[I64]>:$pads,
                       AnyTypeOf<[AnyTensor, NoneType]>:$constant_value,
                       ONNX_OptIndexTensor:$axes,
                       DefaultValuedAttr<StrAttr, "\"constant\"">:$mode);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

def ONNX_ShapeOp : ONNX_Op<"Shape"> {
  let summary = "ai.onnx Shape (start/end of opset 15)";
  let arguments = (ins AnyTensor:$data,
                       DefaultValuedAttr<ONNX_I64Attr, "0">:$start,
                       OptionalAttr<ONNX_I64Attr>:$end);
  let results = (outs AnyTensor:$shape);
  let extraClassDeclaration = onnxClassDeclaration # [{
    /// The dims [start, end) of data that the result lists (clamped as
    /// ONNX says); requires a ranked data type.
    std::pair<int64_t, int64_t> getDimRange();
  }];
}

def ONNX_SizeOp : ONNX_Op<"Size"> {
  let summary = "ai.onnx Size (int64 scalar)";
  let arguments = (ins AnyTensor:$data);
  let results = (outs AnyTensor:$size);
}

def ONNX_TriluOp : ONNX_Op<"Trilu"> {
  let summary = "ai.onnx Trilu (upper or lower triangle, diagonal offset k)";
  let arguments = (ins AnyTensor:$input, ONNX_OptI64Tensor:$k,
                       DefaultValuedAttr<ONNX_I64Attr, "1">:$upper);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
}

#endif // ODT_ONNX_OPS_SHAPE
