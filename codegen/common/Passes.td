//===- Passes.td - passes every backend shares -------------*- tablegen -*-===//

#ifndef ODT_CODEGEN_COMMON_PASSES
#define ODT_CODEGEN_COMMON_PASSES

include "mlir/Pass/PassBase.td"

def RecordAbi : Pass<"odt-record-abi", "mlir::ModuleOp"> {
  let summary = "Record the entry points' ABI before lowering erases it";
  let description = [{
    Run at the end of the graph stage. Writes the module attribute odt.abi
    (codegen/common/AbiRecord.h): the parameters, and per entry point each
    argument and output buffer in order with its name, role, ONNX data
    type, dims (sizes or symbols), parameter index and whether the entry
    writes it; for integer inputs that index data or name classes, the
    values they may hold (the intersection of what each such op accepts,
    seen through ops that only move values) and the op that narrows them
    most; whether the entry needs a shape function; its divisibility
    requirements; the optimizer's kind and hyper-parameters. The model
    descriptor is built from this record in the final module, after the
    backend. Fails, with an error at the entry point, on a buffer without
    name, role or ranked tensor type, or a dynamic dim without a symbol.
  }];
}

def VerifyMiddle : Pass<"odt-verify-middle", "mlir::ModuleOp"> {
  let summary = "Refuse what the shared middle's contract does not allow";
  let description = [{
    Run at the end of the linalg stage (docs/middle-contract.md): every
    backend starts from this IR, so it must hold no target decision and
    nothing of the stages before or after it. Refused, each with an error
    at the outermost offending op: an op of a dialect outside builtin,
    func (func, return), linalg, tensor, arith, math, scf (for, if, while,
    condition, yield) and bufferization.alloc_tensor (a loop-carried
    state's own buffer); an onnx op that was not lowered; a parallel loop
    (scf.forall, scf.parallel: how work is distributed is a backend's
    decision); a value, block argument or function signature of memref or
    vector type (buffers and vector widths are the backends').
  }];
}

def GenerateShapeFunctions
    : Pass<"odt-generate-shape-functions", "mlir::ModuleOp"> {
  let summary = "Give entry points with run-time output shapes a shape function";
  let description = [{
    For every entry point whose outputs have dims that no argument binds
    (codegen/common/ShapeFunctions.h), adds `<entry>_shapes`: a copy of the entry
    point returning one tensor<Kxi64> with every dim of every output (results
    tied to an argument excluded), cut down by canonicalization and dead-code
    elimination to the computation those dims depend on. The entry point's
    dim checks (cf.assert from odt-infer-shapes) move into it: their two
    sizes follow the output dims, their messages go to the ABI record's
    `dim_checks`. Which entry points get one was recorded at the graph stage
    (the ABI record's `shape_function`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect",
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
    buffers appended to the arguments. A result built up from tensor.empty
    (through destination-style inits, loop initial values, both branches of
    an scf.if) is built up in its output's tensor instead: upstream's
    empty-tensor elimination for the outputs, without the second One-Shot
    analysis it runs. The function gets
    llvm.emit_c_interface. Arguments past those the module's odt.abi
    record lists (codegen's panel caches) join the record, before its
    outputs; an entry point with fewer arguments than recorded is an
    error.
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
    the ONNX element types: odt-record-abi recorded them before this pass.
  }];
}

def ExpandStridedCopies : Pass<"odt-expand-strided-copies", "mlir::ModuleOp"> {
  let summary = "Turn memref.copy between non-contiguous buffers into loops";
  let description = [{
    finalize-memref-to-llvm lowers a memref.copy between buffers that are not
    both contiguous to a call to `memrefCopy` from MLIR's C runner library,
    which a compiled model must not depend on. This pass rewrites those
    copies to linalg.copy, which convert-linalg-to-loops turns into plain
    loops; contiguous copies stay memref.copy and become memcpy. A copy of a
    buffer onto itself (left by bufferizing a parallel_insert_slice of a
    slice written in place) is erased. It also
    rewrites a memref.expand_shape with several dynamic dims in one group,
    which expand-strided-metadata crashes on, as a reinterpret_cast with the
    row-major strides of the result.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect"];
}

def FuseGradientAccumulation
    : Pass<"odt-fuse-gradient-accumulation", "mlir::func::FuncOp"> {
  let summary = "After a gradient reset, write gradients straight into their "
                "accumulation buffers";
  let description = [{
    On memrefs, after bufferization and before odt-free-after-last-use. The
    lowering of ORT's InPlaceAccumulatorV2 is an elementwise generic that
    writes `buffer = reset ? g : buffer + g` in place, where `g` is a fresh
    allocation. When `g` is written only by a run of consecutive ops just
    before (a product kernel, or a fill and a sum), read only by that
    generic, and nothing else touches the buffer, they become
    `scf.if reset { the producers, writing the buffer instead of g }
    else { the producers and the generic, unchanged }`. The common case (a
    reset before each step) then writes each gradient once, where it is
    kept; results are bit for bit the same in both cases.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def FuseElementwise : Pass<"odt-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse elementwise producers into their consumers, never "
                "into a product that would recompute them";
  let description = [{
    upstream's linalg-fuse-elementwise-ops with one more rule: a producer
    is fused into a consumer that has reduction loops only when the fused
    operand is read once per consumer iteration (its indexing map uses every
    loop). Fusing ReLU into the matrix product that reads its result would
    recompute it once per output column and hide the product from
    odt-vectorize-contractions. Producers with one use only, as upstream,
    except a cheap one (elementwise, at most four adds, multiplies,
    comparisons or selects, at most one input as large as its result) whose
    every consumer would fuse it and whose large input a later op reads
    anyway: it is copied into each consumer, so its result is never
    written (BatchNorm's output, read by ReLU6 and by ReLU6's gradient).
    After fusion, once more: a fused producer of at most sixteen such ops
    whose consumers (elementwise, or reductions that read it through a
    permutation of their loops: no windows) all read one of its large
    inputs already, and whose other large input, if any, nothing else
    reads, is copied into each consumer and fusion runs again: ReLU6's
    gradient mask on dY, read by BatchNorm's gradient sums and by its
    input gradient, is never written. Likewise reshapes are not folded (by
    expanding the op's loops) into or out of ops with reductions, so a
    product over collapsed operands (a convolution as filter times image
    columns) stays a product.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ApproximateMath : Pass<"odt-approximate-math"> {
  let summary = "Polynomial math.exp that LLVM can vectorize";
  let description = [{
    math.exp would become a call to libm's expf per element, which keeps
    softmax, sigmoid and the cross-entropy loss scalar. This pass replaces
    f32 math.exp by upstream's polynomial approximation (range reduction
    and a polynomial in arith ops), which vectorizes with the loop around
    it. The other math functions keep their lowering.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def ExpandBFloat16 : Pass<"odt-expand-bf16"> {
  let summary = "bf16 conversions as integer arithmetic";
  let description = [{
    Without native bf16 conversions (x86 before AVX-512 BF16, most AArch64
    boards), LLVM lowers `fptrunc float to bfloat` to a call of
    `__truncsfbf2`, which only compiler-rt and newer libgcc provide: a
    model would fail to load. This pass rewrites arith.truncf to bf16 and
    arith.extf from bf16 into shifts and integer adds (round to nearest
    even, NaN kept quiet), which every target has. The pipeline runs it
    when the target lacks the instructions.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def FreeAfterLastUse : Pass<"odt-free-after-last-use", "mlir::func::FuncOp"> {
  let summary = "Move each intermediate's dealloc to just after its last use";
  let description = [{
    Ownership-based deallocation frees every intermediate at the end of the
    function, so a step held all of them at once. For an allocation and its
    unconditional dealloc in the function's top-level block, this pass moves
    the dealloc right after the last top-level op that uses the buffer or
    anything derived from it (views, casts, results of ops that take it: a
    conservative alias closure; uses inside loops count at the loop). The
    runtime's step allocator then hands the freed block to a later
    allocation of the same size, so the step's peak memory follows the
    live intermediates, not their sum. Buffers that reach the terminator
    keep their place.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def ReportPeakMemory : Pass<"odt-report-peak-memory", "mlir::ModuleOp"> {
  let summary = "Record each entry point's peak of live intermediate bytes";
  let description = [{
    After bufferization (and odt-free-after-last-use), walks each function's
    top-level ops in order, adding an allocation's bytes (rounded up to its
    64-byte alignment) when it is made and removing them when it is freed;
    an op with allocations inside (a loop) adds its own inner peak while it
    runs. Sizes are polynomials of the entry's symbolic dims (read from the
    `onnx.dims` names of the arguments whose memref.dim they come from). The
    peak is the coefficient-wise maximum over program points: exact when one
    point dominates, otherwise an upper bound for every dim value.
    Allocations sized by data computed at run time (a Reshape target built
    by the graph) are left out and counted. It is stored as the module
    attribute `odt.peak_memory` (entry name -> formula
    string), which odt-compile prints next to odt-plan-arena's arena: the
    least that holding all of them at once needs.
  }];
}

def PlanArena : Pass<"odt-plan-arena", "mlir::ModuleOp"> {
  let summary = "Place intermediates in one arena at offsets fixed at "
                "compile time";
  let description = [{
    After odt-free-after-last-use (whose deallocs mark where each buffer's
    life ends) and odt-report-peak-memory. In each entry point, every
    allocation of the top-level block that is freed in that block and whose
    size is a polynomial of the entry's named dims (see
    odt-report-peak-memory) becomes a memref.view of one arena allocated at
    the entry and freed before it returns. Offsets and the arena size are
    polynomials of the dims, chosen so that buffers whose lives overlap
    never overlap in memory for any dim values (largest buffers first,
    each at the lowest candidate offset that fits: 0 or the end of a
    buffer it lives with); every size is rounded up to 64 bytes, so views
    keep the allocations' alignment. Buffers sized by data at run time and
    those inside loops keep their own allocations. The module attribute
    `odt.arena` (entry name -> "FORMULA bytes for N buffers") is what
    odt-compile reports.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def OrderConstantGlobals
    : Pass<"odt-order-constant-globals", "mlir::ModuleOp"> {
  let summary = "Put the constant globals in an order the input alone fixes";
  let description = [{
    Right after one-shot bufferization, which makes a memref.global of
    each constant tensor (named `__constant_<shape>`, with `_N` added to
    repeated names) in the order it visits functions, and that order
    depends on pointer values: the same model compiled twice gave LLVM IR
    and objects whose globals came in different orders (mobilenetv2, 2
    runs in 6, with threading disabled). This pass moves the module's
    memref.globals to its top in the order of their first memref.get_global
    in program order (unused ones after, by name), and renames each
    `__constant_<shape>[_N]` global by that order: the first of a shape
    keeps `__constant_<shape>`, later ones get `_0`, `_1`, ... So a
    compile's output depends only on its input.
  }];
}

def SplitSharedFills : Pass<"odt-split-shared-fills", "mlir::func::FuncOp"> {
  let summary = "Give every user of a shared linalg.fill its own fill";
  let description = [{
    CSE merges identical fills (the zeros that reductions and products
    accumulate into), and one-shot bufferization then copies the one filled
    buffer for every op that writes into it. Before bufferization, this
    pass clones a fill (and the tensor.empty it fills) for each use beyond
    the first: a memset per consumer instead of an allocation plus a copy.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def SplitEntryModules : Pass<"odt-split-entry-modules", "mlir::ModuleOp"> {
  let summary = "One nested module per entry point, for stages that run "
                "on each in parallel";
  let description = [{
    Each public function with a body (an entry point or its shape function)
    moves into a nested module of its own, with a copy of the module's
    attributes and of every other op of the module (private functions,
    globals; symbol-dce drops those it does not use). Entry points never
    call each other, so a pipeline nested on `builtin.module` then runs on
    each entry point's module on the pass manager's threads, module passes
    (bufferization, deallocation, the conversion to LLVM) included, where
    they would otherwise walk the whole module on one thread. A module
    without an entry point becomes one nested module, so that the nested
    pipeline still runs on it. odt-merge-entry-modules puts them back.
  }];
}

def MergeEntryModules : Pass<"odt-merge-entry-modules", "mlir::ModuleOp"> {
  let summary = "The nested modules of odt-split-entry-modules back into "
                "one";
  let description = [{
    The ops of the nested modules move into the module, in order:
    - a private symbol named as one already moved is renamed
      (`<name>.<n>`, with its uses), unless both are the same declaration
      or the same global without initializer code, when it is dropped;
      two public symbols of one name that differ are an internal error;
    - module attributes are merged: a dictionary key that names an entry
      point comes from that entry point's module (the arena plan, the ABI
      record's entry: each module wrote its own), every other value must
      agree (dictionaries are merged key by key);
    - private functions with the same type, attributes and body are then
      folded into the first (eval's forward kernels are train's), in rounds
      until none is left, since callers become identical once their
      callees are folded.
  }];
}

#endif // ODT_CODEGEN_COMMON_PASSES
