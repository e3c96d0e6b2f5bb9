//===- Passes.td - odt's code-generation passes -------------*- tablegen -*-===//

#ifndef ODT_CODEGEN_PASSES
#define ODT_CODEGEN_PASSES

include "mlir/Pass/PassBase.td"

def ConvertONNXToLinalg : Pass<"odt-convert-onnx-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower onnx ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every onnx op becomes linalg.generic (or fill/constant) ops on tensors with
    dynamic dims taken from tensor.dim, so one compiled model serves any batch
    size. Fails, naming each node, if an op has no lowering.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
}

def GenerateShapeFunctions
    : Pass<"odt-generate-shape-functions", "mlir::ModuleOp"> {
  let summary = "Give entry points with run-time output shapes a shape function";
  let description = [{
    For every entry point whose outputs have dims that no argument binds
    (codegen/ShapeFunctions.h), adds `<entry>_shapes`: a copy of the entry
    point returning one tensor<Kxi64> with every dim of every output (results
    tied to an argument excluded), cut down by canonicalization and dead-code
    elimination to the computation those dims depend on.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def DestinationPassing : Pass<"odt-destination-passing", "mlir::ModuleOp"> {
  let summary = "Make entry points write into caller buffers";
  let description = [{
    Rewrites every entry point (a func.func whose arguments carry odt.role)
    from tensors in, tensors out to memrefs in and out: arguments become
    memrefs read through bufferization.to_tensor (restrict; writable when a
    result updates them), results tied to an argument (odt.tied) are
    materialized into that argument's buffer, other results into new output
    buffers appended to the arguments. The function gets
    llvm.emit_c_interface.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def EraseUnsignedTypes : Pass<"odt-erase-unsigned-types", "mlir::ModuleOp"> {
  let summary = "Retype unsigned integers as signless ones of the same width";
  let description = [{
    After the lowering to linalg, signedness lives in the ops (divui, maxui,
    cmpi ult, uitofp), and arith, bufferization and the LLVM lowering take
    signless integers only. This pass replaces every unsigned integer type
    in the module (values, block arguments, function types, constants) by
    the signless type of the same width, which has the same bits, and drops
    the tensor.bitcasts that only changed signedness. The descriptor keeps
    the ONNX element types: it is built before this pass.
  }];
}

def ExpandStridedCopies : Pass<"odt-expand-strided-copies", "mlir::ModuleOp"> {
  let summary = "Turn memref.copy between non-contiguous buffers into loops";
  let description = [{
    finalize-memref-to-llvm lowers a memref.copy between buffers that are not
    both contiguous to a call to `memrefCopy` from MLIR's C runner library,
    which a compiled model must not depend on. This pass rewrites those
    copies to linalg.copy, which convert-linalg-to-loops turns into plain
    loops; contiguous copies stay memref.copy and become memcpy. It also
    rewrites a memref.expand_shape with several dynamic dims in one group,
    which expand-strided-metadata crashes on, as a reinterpret_cast with the
    row-major strides of the result.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect"];
}

def InterchangeReductions
    : Pass<"odt-interchange-reductions", "mlir::ModuleOp"> {
  let summary = "Move reduction loops outside the innermost output loop";
  let description = [{
    convert-linalg-to-loops nests loops in iterator order, which puts a
    matmul's or convolution's reduction innermost: a strided walk through
    one operand and a serial floating-point reduction that LLVM cannot
    vectorize. For a linalg op with at least two parallel loops whose last
    loop is a reduction and whose output's innermost dim is the last
    parallel loop, this pass orders the loops as: the other parallel loops,
    the reductions, then that last parallel loop. The innermost loop then
    walks the output (and usually an operand) contiguously and carries no
    dependence, so LLVM vectorizes it. Each output element still sums its
    terms in the same order, so results do not change.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def PackEntryPoints : Pass<"odt-pack-entry-points", "mlir::ModuleOp"> {
  let summary = "Give each entry point a packed C wrapper and hide the rest";
  let description = [{
    On the LLVM dialect: for each entry point F (with its _mlir_ciface_F
    interface), adds `void <prefix>_F(void **args)` that passes args[i] (a
    pointer to the i-th memref descriptor) to _mlir_ciface_F, and gives every
    other defined function internal linkage so several models can be linked
    into one program.
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", "\"odt_model\"",
           "Prefix of the exported symbols">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // ODT_CODEGEN_PASSES
