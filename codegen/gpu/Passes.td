//===- Passes.td - the GPU backend's passes ----------------*- tablegen -*-===//

#ifndef ODT_CODEGEN_GPU_PASSES
#define ODT_CODEGEN_GPU_PASSES

include "mlir/Pass/PassBase.td"

def CopiesAsLoops : Pass<"odt-gpu-copies-as-loops", "mlir::func::FuncOp"> {
  let summary = "Make each memref.copy a linalg.copy, so that it becomes a kernel";
  let description = [{
    Before convert-linalg-to-parallel-loops. Bufferization leaves copies
    between buffers (into a concatenation's slice, a convolution's padded
    input) as memref.copy, which would stay in the host code and read
    device memory there. As linalg.copy each is a parallel loop like any
    other op: a kernel, fused or merged with its neighbours where legal.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def AccumulateInRegisters
    : Pass<"odt-gpu-accumulate-in-registers", "mlir::func::FuncOp"> {
  let summary = "Lower reductions with each output element summed in a register";
  let description = [{
    After odt-gpu-parallel-dims-outermost, before
    convert-linalg-to-parallel-loops. A linalg.generic on buffers whose
    reductions follow its parallel dims (one or more, not all of static
    size 1: a full reduction is odt-gpu-device-scalar-work's one-thread
    kernel), whose outputs are indexed by the
    parallel dims alone and are buffers distinct from every input
    (different allocations or entry arguments), becomes an scf.parallel
    over the parallel dims whose body loads each output element once,
    carries it through the reduction loops (scf.for iter_args) and stores it
    once, instead of a load and a store per term. The terms are added in the
    same order: the results are bit-identical.

    A long sum over few outputs (every parallel dim static, at most 4096
    outputs, at least 4096 terms per output with a dim of unknown size
    counted as 32: a batch norm's
    statistics, a filter gradient, a loss summed to a scalar; full
    reductions included) whose outputs are sums, maxima or minima is split
    instead: a first parallel loop sums slices of the terms, a thread per
    (slice, output), into a scratch buffer [slices, outputs...] (the slice
    count chosen at run time from the shapes, see the rule in the source);
    a second adds each output's slices to it in slice order (a register
    reduction as above, or a full reduction's one-thread kernel). The terms
    are added in another order than the one-thread sum's.

    Each thread of a register reduction computes a tile of register-tile x
    register-tile outputs along the innermost pair of parallel dims of
    which one input's map uses the first and not the second and another's
    the second and not the first (a product's rows and columns, a
    convolution's filters and output columns): per term it loads a column
    of the tile from one input and a row from the other, each reused from
    registers. A tile past the end of a dim computes its last element again
    and does not store it. The sums are the untiled ones, to the bit.

    The elementwise op right after a register reduction that reads each sum
    at the element the reduction wrote it (a bias, an activation; same
    elements, no output that the reduction reads; ops free of memory effects
    and allocations between the two move above the reduction) runs in the
    reduction's threads on each sum as it is stored, the sum taken from its
    register (an epilogue): one kernel where the tiles would otherwise keep
    the loop fusion from joining them. What wrote every
    element of an output just before the reduction is folded into its
    registers' start: a linalg.fill's value, or an elementwise generic's
    result (a Gemm's bias broadcast) computed by the thread, when it does
    not read the output and its inputs are separate from every output.
  }];
  let options = [
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Run an elementwise op that reads the sums where they are written "
           "in the reduction's threads">,
    Option<"registerTile", "register-tile", "int64_t", "4",
           "Outputs per thread along each of the two dims a tile spans (1: a "
           "thread per output)">,
    Option<"splitLongSums", "split-long-sums", "bool", "true",
           "Split long sums over few outputs into slices summed by threads "
           "of their own">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect"];
}

def ParallelDimsOutermost
    : Pass<"odt-gpu-parallel-dims-outermost", "mlir::func::FuncOp"> {
  let summary = "Order each linalg.generic's loops parallel dims first";
  let description = [{
    Before convert-linalg-to-parallel-loops. A generic whose reduction dims
    come before parallel ones (a bias gradient, (r, c) summing over r)
    would lower to a sequential loop around a parallel one: on the GPU, a
    kernel launch per reduced row from the host. Its loops are interchanged
    so that the parallel dims come first (each group keeping its order):
    one parallel loop, the reductions sequential in each thread, every
    output summed in the same order as before. Named ops with reductions
    (convolutions, products, linalg.reduce) are made generics first, so
    that odt-gpu-accumulate-in-registers, which takes generics, keeps their
    sums in registers.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def TensorCoreProducts
    : Pass<"odt-gpu-tensor-core-products", "mlir::func::FuncOp"> {
  let summary = "Compute matrix products with warp-wide mma.sync (tf32, tf32x3, bf16)";
  let description = [{
    After odt-gpu-parallel-dims-outermost, before
    odt-gpu-accumulate-in-registers, when a precision other than fp32 is
    asked for (--gpu-precision). A linalg.generic on f32 buffers computing
    out += a * b with projected permutation maps, one reduction dim k used
    by both inputs, its output indexed by every parallel dim and separate
    memory from both inputs: rows m (C's innermost dim used by A and not
    B's), columns n (C's innermost used by B and not A), the other parallel
    dims batch entries. It becomes an scf.parallel over batch entries,
    warp tiles of (16 x mTiles) x (8 x nTiles) outputs (chooseWarpTile: up
    to 2 x 4) and an innermost lane dim of 32, which the distribution
    collapses last into blocks of a multiple of 32 threads, so a warp tile's
    lanes are one warp. Lane l (group g = l / 4, t = l % 4) owns the
    outputs (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1) of each mma
    tile; it loads them once (or starts from the fill that wrote C right
    before, which goes), runs k in steps of 8 (tf32: mma.sync m16n8k8,
    fragments A (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) and B (t, g),
    (t + 4, g), each rounded to nearest, ties away from zero, as
    cvt.rna.tf32.f32 does) or 16 (bf16: m16n8k16,
    pairs of A (g, 2t..), (g + 8, 2t..), (g, 2t + 8..), (g + 8, 2t + 8..) and
    of B (2t.., g), (2t + 8.., g), rounded to nearest even), and stores them
    once. tf32x3 splits each input into its tf32 value and the tf32 of the
    rest and adds small x big, big x small, then big x big (three mma.sync:
    about fp32's accuracy). Elements past a dim's end are loaded as zeros
    (indices clamped into the buffer). With `emulate` (--gpu-loops-on-cpu,
    where a warp's lanes run one after another) each lane computes its own
    outputs from the step's rounded inputs in k order instead of mma.sync:
    the tiling, the ownership and the rounding are checked on the CPU, the
    fragments' register order and the tensor cores' additions are not.
    Convolutions (non-permutation maps) keep the FFMA kernels; the epilogue
    fusion of odt-gpu-accumulate-in-registers does not apply to these
    products.
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"fp32\"",
           "fp32 (no change), tf32, tf32x3 or bf16">,
    Option<"emulate", "emulate", "bool", "false",
           "Each lane computes its outputs itself (a CPU run of the loops)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def DeviceScalarWork : Pass<"odt-gpu-device-scalar-work", "mlir::func::FuncOp"> {
  let summary = "Scalar work on buffers runs in kernels, not in the host code";
  let description = [{
    After convert-linalg-to-parallel-loops, canonicalize and CSE, before the
    loop fusion. Two kinds of work would otherwise read or write device
    memory from the host code:
    - sequential work at the top of a function: a store (what a zero-dim op
      became) or a loop or branch without results (a full reduction, the
      loss's sum over the batch): each runs in a parallel loop of one
      iteration, a kernel of one thread (one kernel for adjacent ones after
      the fusion);
    - scalars computed on the host from loads of buffers (the lazy-reset
      flag, the learning rate and the optimizer's bias correction, a loss's
      normalizer): a kernel using one gets a copy of the loads and
      arithmetic it needs at the top of its body, when the buffer is
      separate memory that nothing writes from the load to the kernel.
    The optimizer's bias correction powers its betas in f64 (1 - beta^step,
    as ORT does), and kernels have no f64 pow: a power with an integer
    exponent becomes a loop of multiplications by squaring first, which
    kernels can run. A load of a constant global at constant indices (the
    optimizer's "updated" flag) becomes its value.
    What cannot move stays, and odt-gpu-check-host-code reports it.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def FuseParallelLoops
    : Pass<"odt-gpu-fuse-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Fuse adjacent parallel loops over the same elements";
  let description = [{
    After convert-linalg-to-parallel-loops (and canonicalize + CSE, which
    make equal bounds the same values), before the distribution: adjacent
    scf.parallel loops with the same bounds become one (one kernel) where
    upstream's fusion finds it legal: what the second loop reads of the
    first's writes, it reads at its own index (a fill and the reduction
    into the filled buffer, a chain of elementwise ops), and no other write
    and read can meet. Its alias test is told what odt knows: different
    allocations and different arguments of an entry point (arguments with
    odt.role; docs/abi.md: they never overlap) are separate memory; views
    of one buffer and anything else go to MLIR's alias analysis.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def SinkHostLoops : Pass<"odt-gpu-sink-host-loops", "mlir::func::FuncOp"> {
  let summary = "Move a host loop around one parallel loop into it";
  let description = [{
    After odt-gpu-fuse-parallel-loops, before the distribution. A
    sequential loop outside any parallel loop whose body is index
    arithmetic, loads and one parallel loop would launch that loop's kernel
    once per iteration, from the host, reading on the host what the
    arithmetic needs (an embedding gradient: a kernel per token, each token
    id read on the host). When every buffer the parallel loop writes is
    touched only at elements whose coordinates in that buffer include each
    induction variable (directly, or through one subview with static zero
    offset and unit stride in those dims), the same in every access, and
    the loads before it read buffers nothing in the loop writes, the
    iterations of the parallel loop touch separate elements whatever the
    sequential iteration: the parallel loop goes outside and each of its
    iterations runs the whole sequential loop, in order. One kernel, and
    every element's updates in the sequential order: the same sums, to the
    bit, as the CPU's loop. A buffer allocated in the loop that passes a
    value between two fused loops (stored, then loaded at the same
    element) is replaced by that value first.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def DistributeParallelLoops
    : Pass<"odt-gpu-distribute-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Map each outermost parallel loop to blocks of GPU threads";
  let description = [{
    On memrefs, after convert-linalg-to-parallel-loops, before
    convert-parallel-loops-to-gpu. Each outermost scf.parallel (one per
    linalg op: its parallel dims; its reductions are scf.for inside) has
    its dims collapsed into one, so that consecutive threads take
    consecutive elements of the innermost dim (coalesced accesses), and is
    tiled by `block-size` without min/max bounds: the outer loop, over
    ceil(elements / block-size) blocks, is mapped to the grid's x
    dimension (a grid sized at run time for symbolic dims), the inner one
    to the threads of a block, its body guarded by a bounds check. A
    parallel loop nested in another becomes sequential scf.for loops in
    its thread (convert-parallel-loops-to-gpu cannot map a parallel loop
    that sits inside a sequential one, and would leave the whole loop on
    the host).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect"];
}

def FuseRowConsumers
    : Pass<"odt-gpu-fuse-row-consumers", "mlir::func::FuncOp"> {
  let summary = "Do a row's elementwise work in the kernel that reduced the row";
  let description = [{
    After odt-gpu-fuse-parallel-loops, before odt-gpu-warp-reductions and
    the distribution. An outermost scf.parallel over rows (dims from 0 by
    1) followed, with only pure ops and allocations between, by one over
    the same rows and one more innermost dim of C columns (static, at most
    the trip count of the row loop's longest sequential loop, so that a
    thread's work per row at most doubles) becomes one: the second loop's
    body, as an scf.for over the columns, at the end of the first's body (a
    softmax's maximum and sum then its division, a LayerNorm's moments then
    its normalization: one kernel instead of two). Legal where every load
    and store of either loop to a buffer either loop writes is indexed
    first by the loop's own row (rows stay independent, and the second
    loop's reads of the first's writes are of its own row, written earlier
    by the same thread) through one view, of a buffer that is separate
    memory (an allocation or an entry point's argument). Each row's work
    is the same computation in the same order, so --gpu-loops-on-cpu
    builds train to the same losses to the bit. Repeats while the next
    loop is another such consumer.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def WarpReductions : Pass<"odt-gpu-warp-reductions", "mlir::func::FuncOp"> {
  let summary = "Sum each row of a row reduction over the lanes of a warp";
  let description = [{
    On memrefs, before odt-gpu-distribute-parallel-loops, in a GPU build
    only (--gpu-loops-on-cpu runs the threads one after another, and
    shuffles need the lanes of a warp to run together). An outermost
    scf.parallel whose body's sequential loops are all row reductions
    (each at least `min-terms` terms with static bounds, one or two
    loop-carried f32 values each an addf, maximumf, minimumf, maxnumf or
    minnumf of itself and a term, no store or loop inside, and every load
    that depends on the loop's index reading it as the innermost index of
    a unit-stride dim: a softmax's maximum and sum of exponentials, a
    LayerNorm's moments, a norm over the last dim) gets an innermost lane
    dim of 32, which the distribution collapses last and tiles by a
    multiple of 32, so that each output's 32 lanes are one warp. In each
    row loop lane l takes terms l, l + 32, ... (consecutive lanes read
    consecutive addresses), a sum from zero with its initial value added
    once after, a maximum or minimum from its initial value; then five
    gpu.shuffle xor steps (16, 8, 4, 2, 1) combine the lanes, leaving
    every lane with the same total bit for bit, so the rest of the body
    runs in every lane as it ran in the one thread (its stores write the
    same value to the same address). The body's other loops may be a row's
    elementwise work (odt-gpu-fuse-row-consumers': nothing carried, each
    store at the loop's index, innermost): lane l takes its iterations l,
    l + 32, ... too. All spread loops start at 0 with step 1, so element k
    is lane k mod 32's in each; a buffer written in a spread loop is
    touched only in spread loops, and one the lane-uniform code writes is
    read in spread loops only after that write. The terms add in another
    order than one thread's. A sum down a column (coalesced across threads
    already), a register tile's products (sixteen values) and loops nested
    in others stay as they are. The threshold is a first choice, not
    measured on a GPU.
  }];
  let options = [
    Option<"minTerms", "min-terms", "int64_t", "64",
           "Fewest terms of a row that a warp sums">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect"];
}

def MergeIndependentLoops
    : Pass<"odt-gpu-merge-independent-loops", "mlir::func::FuncOp"> {
  let summary = "One launch for consecutive kernels that do not depend on each other";
  let description = [{
    After odt-gpu-distribute-parallel-loops. Consecutive distributed loops
    (only index arithmetic and allocations between them) whose threads only
    load and store separate buffers (allocations and an entry point's
    arguments: see FuseParallelLoops), where none writes a buffer another
    reads or writes, become one loop: its blocks cover each loop's blocks
    in turn (each element count rounded up to whole blocks) and each block
    runs the body of its own loop, its bounds guard included. The
    optimizer's per-parameter updates become one kernel; so do independent
    gradients in a training step. The merged loop stands where the last one
    stood.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block (the distribution's)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect"];
}

def ConstantsInKernels
    : Pass<"odt-gpu-constants-in-kernels", "mlir::func::FuncOp"> {
  let summary = "Kernels read the model's constants from their own module";
  let description = [{
    Before gpu-kernel-outlining: a constant global (memref.get_global in a
    host function) that a gpu.launch body reads would become a kernel
    argument holding the address of the host's copy, which a kernel cannot
    read. The get_global is cloned into each launch body that reads it, so
    outlining copies the global into the kernel's gpu.module: the constant
    travels in the PTX (a .global array with its initializer) and each
    kernel reads the device's copy. (Eval steps read BatchNorm's running
    statistics as constants, for example.)
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect"];
}

def MergeKernelModules
    : Pass<"odt-gpu-merge-kernel-modules", "mlir::ModuleOp"> {
  let summary = "Put every outlined kernel in one gpu.module";
  let description = [{
    After gpu-kernel-outlining, which makes a gpu.module per kernel: their
    functions move into the first one (named `kernels`), and every
    gpu.launch_func refers to it. One module per model means one PTX image
    per chip: the runtime loads it once, and ptxas assembles it in one
    call. A constant global that several kernels read (outlining copied it
    into each one's module) is kept once.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def LowerKernelMath
    : Pass<"odt-gpu-lower-kernel-math", "mlir::gpu::GPUModuleOp"> {
  let summary = "Math in kernels as arithmetic and NVPTX's own instructions";
  let description = [{
    Before convert-gpu-to-nvvm, which turns math ops into calls of
    libdevice's __nv_* functions (linked only when a CUDA toolkit's
    libdevice is found at compile time: the PTX would then depend on the
    machine that compiled it). Transcendentals (exp, log, tanh, erf, sin,
    ...) become upstream's polynomial approximations (f16/bf16 computed in
    f32), powf and the hyperbolic functions their expansions, and the rest
    (sqrt, fma, floor, abs, ...) LLVM intrinsics that NVPTX has
    instructions for. Then any external function a kernel would call is an
    error naming it.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def CheckKernelCalls
    : Pass<"odt-gpu-check-kernel-calls", "mlir::gpu::GPUModuleOp"> {
  let summary = "Refuse kernels that call functions the PTX does not define";
  let description = [{
    After convert-gpu-to-nvvm: an external function in the kernel module
    (a libdevice __nv_* function for a math op odt-gpu-lower-kernel-math
    did not lower, or anything else) is an error at its declaration. The
    PTX then never depends on a libdevice found on the compiling machine.
  }];
}

def HostScratchOnStack
    : Pass<"odt-gpu-host-scratch-on-stack", "mlir::ModuleOp"> {
  let summary = "The host code's own scratch arrays on its stack";
  let description = [{
    After bufferization-lower-deallocations, before the arena is planned: in
    a GPU build every memref.alloc is device memory (the runtime's
    allocator), but the lowered deallocations of buffers that loops carry
    (recurrent models) keep small arrays the host itself reads and writes:
    the buffers' addresses and ownership flags that `dealloc_helper`
    compares. An allocation of such an array (index or i1 elements, static
    shape, at most 4096 elements) whose every use is a host load or store,
    a cast, a call of a private function of the module or its own dealloc
    in the same block becomes a memref.alloca at the start of its function
    (reused by each iteration of a loop around it), and its deallocs go. odt-gpu-check-host-code then accepts those accesses, and
    refuses any other.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def RecordKernels : Pass<"odt-gpu-record-kernels", "mlir::ModuleOp"> {
  let summary = "Name the kernels and count their parameters for the host";
  let description = [{
    After the kernels are lowered to NVVM, before they become PTX: writes
    `odt.gpu_kernels` on the module (codegen/common/GPUKernelTable.h), each
    kernel's name and its number of parameters, in the kernel module's
    order. The host's launches number kernels by this list and check their
    packed arguments against the count; the descriptor gives both to the
    runtime, which checks every launch again.
  }];
}

def TakeKernelImages : Pass<"odt-gpu-take-kernel-images", "mlir::ModuleOp"> {
  let summary = "Move the kernels' PTX out of the module, into odt.gpu_images";
  let description = [{
    At the end of a GPU build, after the host code's launches became calls
    of the runtime's launcher: the gpu.binary's PTX for each chip becomes
    the module attribute `odt.gpu_images` (for the model descriptor) and
    the binary is erased, so that translation to LLVM IR sees only host
    code (upstream's would embed the image and register it with global
    constructors calling the CUDA runtime, which a model loaded without a
    GPU must never do). A gpu.launch_func left in the host code is an
    error.
  }];
}

def CheckHostCode : Pass<"odt-gpu-check-host-code", "mlir::ModuleOp"> {
  let summary = "Refuse computation left in the host functions";
  let description = [{
    After gpu-kernel-outlining: a parallel loop or a linalg op left in a
    host function (convert-parallel-loops-to-gpu leaves a loop it cannot
    map where it was, silently) would compute on the host over device
    memory: an error at the op, naming its function (so is a memref.copy,
    which odt-gpu-copies-as-loops makes a kernel). So is a load or store
    on the host of anything but its own stack or a constant global (the
    step's buffers are device memory: odt-gpu-device-scalar-work moves such
    scalar work into kernels), and a kernel argument that is the host's
    copy of a constant global (odt-gpu-constants-in-kernels moves those).
  }];
}

#endif // ODT_CODEGEN_GPU_PASSES
