//===- Passes.td - the CPU backend's passes ----------------*- tablegen -*-===//

#ifndef ODT_CODEGEN_CPU_PASSES
#define ODT_CODEGEN_CPU_PASSES

include "mlir/Pass/PassBase.td"

def InterchangeReductions
    : Pass<"odt-interchange-reductions", "mlir::ModuleOp"> {
  let summary = "Move reduction loops outside the innermost output loop";
  let description = [{
    convert-linalg-to-loops nests loops in iterator order, which puts a
    matmul's or convolution's reduction innermost: a strided walk through
    one operand and a serial floating-point reduction that LLVM cannot
    vectorize. For a linalg op with at least two parallel loops whose last
    loop is a reduction (all outputs indexed alike: MaxPool's values and
    positions), this pass orders the loops as: the other parallel loops in
    their order, the reductions, then the loop along the output's innermost
    dim (for linalg's depthwise convolution, whose loops are
    (n, oh, ow, c, kh, kw), that is ow, not the last parallel loop c). The
    innermost loop then walks the output (and usually an operand)
    contiguously and carries no dependence, so it vectorizes (here or in
    odt-vectorize-rows). Each output element still sums its terms in the
    same order, so results do not change.
    Except for reductions along rows: a generic whose last loop is a
    reduction that every input it moves has in its innermost index only
    (softmax's sums, LayerNorm's statistics, a row's dot product, a filter
    gradient's sum along a row read at `o * s + k`), where any parallel
    loop sharing that index is no longer than the row (else it is a
    window, as a pooling's `o * s + k` with the short k last, and the
    interchange vectorizes along o), is not interchanged (the inner loop
    would read the inputs down their columns, with gathers); instead each
    output's combining op (addf, maximumf, ...) gets the `reassoc`
    fast-math flag, and the row is vectorized with partial sums. The order
    of the terms then changes (the same on every run and thread count); it
    is usually more accurate than one serial sum.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def HoistInvariantSubexpressions
    : Pass<"odt-hoist-invariant-subexpressions", "mlir::func::FuncOp"> {
  let summary = "Per-channel parts of elementwise bodies computed once";
  let description = [{
    On tensors, before bufferization. In an all-parallel linalg.generic, a
    body op that varies along some of the loops but not all (it reads only
    inputs whose maps leave loops out, and constants) and feeds an op that
    varies along more is a root: BatchNorm's sqrt(var + eps), whose input
    is indexed by the channel alone. Each root whose left-out loops have at
    least min-saving points (a dynamic extent counts as many) and the ops
    it is computed from are cloned into a generic over the root's loops
    only (a tensor.empty of their sizes), whose result becomes a new input
    of the op, read through the projection onto those loops; the ops only
    the roots used are erased. The same operations run on the same values,
    so results do not change. Left in the loops, LLVM recomputed them at
    every element: it cannot hoist the loads of the statistics past the
    stores of the output, whose buffers it cannot tell apart.
  }];
  let options = [
    Option<"minSaving", "min-saving", "int64_t", "4",
           "Fewest points of the left-out loops per hoisted value">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def PadIntoProducer : Pass<"odt-pad-into-producer", "mlir::func::FuncOp"> {
  let summary = "Padded tensors written by their source's producer";
  let description = [{
    On tensors, before bufferization. A tensor.pad of a constant (a
    convolution's zero padding) with static pads, whose source a linalg op
    in the same block computes into a tensor.empty its body does not read,
    becomes a linalg.fill of the padded tensor, an extract_slice of its
    interior as the producer's output, and an insert_slice of the
    producer's result back at that place, which one-shot bufferization
    computes in place: the producer writes the padded buffer's interior, so
    the copy of the activation into the padded buffer and the activation's
    own buffer are gone. The other uses of the activation read the same
    values there. A source that several pads read is written into the
    first one's buffer; the others stay pads.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def VectorizeRows : Pass<"odt-vectorize-rows", "mlir::func::FuncOp"> {
  let summary = "Short rows of window reductions and elementwise ops as "
                "vector values";
  let description = [{
    On memrefs, after odt-interchange-reductions and
    odt-parallelize-elementwise, before convert-linalg-to-loops. A
    linalg.generic whose last loop (the row) has a static extent in
    [min-length, max-length] becomes a nest of scf.for whose innermost step
    handles the whole row as one vector value:
    - a parallel row that is the innermost dim of the one output, under at
      least one reduction (a convolution or pooling window after the
      interchange): the output row is read once, carried through the
      reduction loops as the accumulator, and written once;
    - the same row under no reduction (an elementwise op over short rows:
      BatchNorm's and ReLU6's on 8-wide image rows, which LLVM left
      scalar): one vector op per body op, the output read only if the body
      uses it; its input may be the output itself read where it is written
      (in place); its ops are those of the scalar loop (no FMA); it may
      have several outputs with the same map (then none read as an input)
      and read its loops' positions (linalg.index: the row's lanes, or an
      outer loop's index for the whole row), as a max pool with indices
      does with its taps unrolled;
    - a linalg.copy (a padded image's interior written into its slice of
      the padded buffer), taken as the elementwise generic it is;
    - a summed row (the last loop a reduction, the body yielding a
      reassociable `addf(out, x)` for every output: a depthwise filter
      gradient's sum over an image's positions, BatchNorm's gradient
      summing dY and dY * x-hat along each row, a loss summed over a whole
      tensor into a scalar): a vector of partial sums per output is carried
      through the reduced loops and reduced once per output element.
    An output that a run of fills right before the op wrote (not read
    through any input, every element written by the op) starts from the
    fill's value (a window's row, a summed row's total) and the fill is
    erased: the zero fill of a depthwise convolution's output and the
    read of it back are gone, the values unchanged.
    A parallel row's outer loops follow its output's layout; reduced loops
    of at most max-unrolled-taps taps in all are unrolled (in their order),
    and then a scalar input the innermost outer loop does not move (a
    depthwise filter) is read before that loop where 12 registers of the
    target's width (odt.target) hold it (an elementwise op's per-channel
    inputs too). In a window or a sum, a product only added is one
    vector.fma.
    Each input is read as a row (its innermost index `row * s + rest`, no
    other index moving with the row: a contiguous read, and for s > 1 a
    read of the span and a shuffle) or, when the row does not move it, as a
    scalar broadcast. The body must be elementwise ops (no linalg.index, no
    memory access). Every other op stays for LLVM: it vectorizes long
    loops well, but left these stores and reloads of the
    output row at every window tap, scalar loops where it could not tell
    the operands' buffers apart, and fully unrolled 16-element rows before
    its vectorizer saw them. Each output element sums its terms in the
    same order for parallel rows, each multiply-add rounded once (FMA); a
    summed row's terms are added in another order, as the reassoc flag
    allows.
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", "4",
           "Shortest row vectorized">,
    Option<"maxLength", "max-length", "int64_t", "64",
           "Longest row vectorized (a row's vectors stay in registers)">,
    Option<"maxUnrolledTaps", "max-unrolled-taps", "int64_t", "32",
           "Most window taps (the product of the reduced loops' extents) "
           "unrolled; a larger or dynamic window stays loops">,
  ];
  let dependentDialects = ["mlir::vector::VectorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::scf::SCFDialect"];
}

def SetCPUTarget : Pass<"odt-set-cpu-target", "mlir::ModuleOp"> {
  let summary = "Record the target the module is compiled for";
  let description = [{
    The first pass of the CPU stage: writes `odt.target` (CPUTarget.h) on
    the module: the triple, CPU and features odt-compile resolved from
    --target, --cpu and --target-features (or this machine), and what odt
    derives from them (the f32 lanes of a vector register, the rows of a
    product kernel's register tile, hardware bf16 conversions). The passes
    that size kernels read it there, so the decisions that depend on the
    target all come from one attribute in the IR.
  }];
  let options = [
    Option<"triple", "triple", "std::string", "\"\"", "Target triple">,
    Option<"cpu", "cpu", "std::string", "\"\"", "Target CPU">,
    Option<"features", "features", "std::string", "\"\"",
           "Target features (+avx2,...)">,
    Option<"vectorWidth", "vector-width", "unsigned", "8",
           "f32 lanes of one vector register">,
    Option<"rows", "rows", "unsigned", "6",
           "Rows of a product kernel's register tile">,
    Option<"nativeBFloat16", "native-bf16", "bool", "false",
           "The target converts f32 <-> bf16 in hardware">
  ];
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

def ConvertToLLVM : Pass<"odt-convert-to-llvm", "mlir::ModuleOp"> {
  let summary = "memref, math, arith, index, func and cf to the LLVM dialect "
                "in one conversion";
  let description = [{
    After convert-vector-to-llvm: every op of these dialects left in the
    module becomes LLVM dialect in one dialect conversion (memref
    allocations call the generic `_mlir_memref_to_llvm_alloc` / `free` that
    the runtime's allocator hooks provide; entry points marked
    llvm.emit_c_interface get their `_mlir_ciface_` wrappers). The upstream
    passes for the same dialects each walk and legalize the whole module,
    and their conversions meet through unrealized casts that a later pass
    removes again: five walks took 0.66 s on resnet18_cifar where this one
    takes 0.27 (and the casts left for reconcile-unrealized-casts are
    fewer).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def OutlineParallelLoops
    : Pass<"odt-outline-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Move each parallel loop's body into a function the runtime "
                "can run on its threads";
  let description = [{
    On memrefs, after scf-forall-to-parallel. A one-dimensional scf.parallel
    from 0 with step 1 and no reductions becomes a call of a new private
    function `__odt_par_<n>(begin, end, captured values...)` that runs the
    body for iterations [begin, end) (constants are cloned in rather than
    captured), called with (0, count, ...). odt-pack-entry-points then turns
    each such call into a call of the model's parallel hook (P_set_parallel)
    with a task that unpacks the captured values; by default the hook runs
    the whole range on the calling thread, the runtime's splits it over its
    thread pool. Loops whose bodies are identical (a network's repeated
    blocks) share one function, so LLVM optimizes and emits it once. Other
    parallel loops stay (convert-scf-to-cf makes them
    sequential loops).
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::scf::SCFDialect"];
}

def OutlineSerialLoops
    : Pass<"odt-outline-serial-loops", "mlir::ModuleOp"> {
  let summary = "Move the serial loop nests left in the entry points into "
                "functions LLVM does not inline";
  let description = [{
    After odt-outline-parallel-loops. Each outermost scf.for of a function
    other than an outlined parallel body, if it has no results and calls
    nothing, becomes a call of a new private, no_inline function
    `__odt_loop_<n>(captured values...)` that runs the whole nest (constants
    are cloned in); identical nests share one function. What stays in an
    entry point is straight-line code: allocations, shape arithmetic and
    calls. LLVM's scalar evolution, which loop strength reduction queries
    for every loop, costs more with every loop a function holds: the 163
    per-channel loops of resnet18_cifar's train step (BatchNorm's
    statistics over 16-64 channels) took 0.33 s of loop strength reduction
    in that one function, and the nests of a network's repeated blocks are
    now compiled once.
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::scf::SCFDialect"];
}

def HoistLoopBuffers : Pass<"odt-hoist-loop-buffers", "mlir::func::FuncOp"> {
  let summary = "A buffer allocated and freed in every iteration of a "
                "serial loop, allocated once around it";
  let description = [{
    After odt-outline-parallel-loops, on the loops that run in order on one
    thread (an outlined parallel body's loop over its chunk of iterations
    among them; scf.parallel and scf.forall bodies are left alone, since
    their iterations may run at once). A memref.alloc directly in an
    scf.for's body whose sizes are defined outside the loop, freed by a
    memref.dealloc in the same block and used by nothing the loop yields,
    moves before the loop and its dealloc after it, from the innermost loop
    out as far as that holds. A convolution's image_columns kernel
    allocated its column panel once per image: a call to the runtime's
    allocator and one to free it for every image of every chunk, which at
    2 threads met in the pool's shared block cache. What the buffer holds
    at an iteration's start was undefined before and is now the last
    iteration's values; nothing read it.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def CollapseElementwise
    : Pass<"odt-collapse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Elementwise ops on buffers over as few loops as their "
                "buffers allow";
  let description = [{
    On memrefs, before odt-parallelize-elementwise. A linalg.generic or
    linalg.copy whose loops are all parallel, whose maps are projected
    permutations and whose body does not use loop positions has each run of
    consecutive loop dims joined into one where every indexing map keeps the
    run contiguous and in order and every buffer's layout lets the run be
    collapsed (memref.collapse_shape): an image's H x W becomes one loop of
    H * W, a per-channel broadcast keeps its channel loop, and a weight's
    update in the optimizer is one loop over all of it. Ops right after a
    fill of one of their outputs stay as they are.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::linalg::LinalgDialect"];
}

def ParallelizeElementwise
    : Pass<"odt-parallelize-elementwise", "mlir::func::FuncOp"> {
  let summary = "Run large elementwise loops as parallel loops over row chunks";
  let description = [{
    On memrefs, before convert-linalg-to-loops. A linalg op (a generic, or
    a named op such as the linalg.copy of a strided copy) outside every
    loop (in a function's body or in the branches of an scf.if there)
    whose iteration space holds at least `min-elements` elements, or has a
    dim known only at run time, becomes an scf.parallel
    over chunks of its outermost parallel loop dim that is not 1 and that
    every output spans: each iteration runs the same op on subviews (at
    least `chunk-elements` iterations each, counting unknown dims as 1, so
    a small batch makes a single chunk, run on the calling thread; operands
    that do not span the dim are passed whole; a body's linalg.index along
    that dim is shifted by the chunk's offset). Chunks write disjoint
    elements, and each runs its reductions whole, so results do not depend
    on the thread count. A sum of a whole tensor into one f32 (a loss),
    which has no such dim, becomes partial sums over the same chunks of its
    outermost dim (each from zero, into a stack array), added to the output
    in chunk order after the loop: also independent of the thread count.
    odt-outline-parallel-loops then hands the chunks to the runtime's
    threads. The optimizer update (one generic per parameter: weight and
    both moments) and large activations' elementwise passes are the loops
    this is for: memory-bound, so a second core's bandwidth is the gain.

    First, each linalg.fill moves down to just before the first op that
    touches its buffer (bufferization leaves it where the tensor program
    made it, often far above its consumer); the ops it passes use buffers
    live while the filled one is, which odt-plan-arena placed elsewhere.
    A run of fills of an op's outputs right before it is split with that
    op, on the same views, in each of its chunks, so odt-vectorize-rows
    finds it there. A fill of a buffer whose rank-preserving subview the
    op writes (a padded buffer's interior) goes in the op's chunks too, on
    the buffer's rows of the chunk, when the subview spans the buffer
    along the split dim from its start (same size: a constant, or the
    operand of the view or allocation that made the buffer); otherwise it
    stays before the op's loop and is split on its own.
    Then (merge) a run of consecutive top-level units, each a loop made
    here or a linalg op left whole, none writing a buffer that another
    reads or writes (buffers compared through their views), becomes one
    scf.parallel over all the units' iterations: iteration i runs unit k's
    iteration i - start(k) for the unit whose range holds i (a chain of
    scf.if), a whole op counting as one iteration. Pure index arithmetic
    between the units stays; any other op ends the run. A run is merged
    when it holds a split loop or its ops reach `min-elements` together.
    For the optimizer this puts every parameter's update (weights, and the
    biases that were too small to split) in one parallel loop.
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", "65536",
           "Smallest iteration space (elements) worth splitting">,
    Option<"chunkElements", "chunk-elements", "int64_t", "16384",
           "Smallest chunk (elements) one parallel iteration runs">,
    Option<"merge", "merge", "bool", "true",
           "Run consecutive independent loops (and the linalg ops between "
           "them) as one parallel loop">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def SelectContractionKernels
    : Pass<"odt-select-contraction-kernels", "mlir::func::FuncOp"> {
  let summary = "Decide how each f32 matrix product is computed, as an "
                "attribute";
  let description = [{
    The CPU backend's one selection place (codegen/cpu/ContractionSelection.h
    and .cpp, where every threshold and its measurement live). The products
    odt-vectorize-contractions takes are first normalized the way it does
    (named products generalized, several reduction or row dims collapsed, a
    transposed B folded); then each gets `odt.contraction`: the kernels in
    the order they are tried (packed, direct, dots, swapped, each with the
    row counts, and k, for which it runs), the register tile, the panel
    depth, whether B's panels are kept between steps and whether the
    parallel iterations are blocks of whole rows. A product that already
    has one keeps it (it is checked: a kernel that cannot compute the
    product, a swapped kernel over more than a vector of rows, or kept
    panels of something that is not a parameter are errors at the op).
    `force-kernel` gives every product that kernel where it can compute
    it; `remarks` says at each product why it got its config.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "unsigned", "0",
           "f32 lanes of one vector register of the target (0: the "
           "module's odt.target, else 16)">,
    Option<"rows", "rows", "unsigned", "0",
           "Rows of the output computed together, the register tile's "
           "height (0: the module's odt.target, else 8)">,
    Option<"depth", "depth", "unsigned", "256",
           "k values per packed panel of B">,
    Option<"cachePanels", "cache-panels", "bool", "true",
           "Let a parameter B keep its packed panels between steps">,
    Option<"forceKernel", "force-kernel", "std::string", "\"\"",
           "packed, direct, dots or swapped: every product that kernel can "
           "compute gets it">,
    Option<"remarks", "remarks", "bool", "false",
           "A remark at each product: why it got its config">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def SelectConvolutionKernels
    : Pass<"odt-select-convolution-kernels", "mlir::func::FuncOp"> {
  let summary = "Decide how each convolution is computed, as an attribute";
  let description = [{
    The CPU backend's selection place for convolutions
    (codegen/cpu/ConvolutionSelection.h and .cpp, with the constants and
    their rationale). Each forward `linalg.conv_2d_nchw_fchw` that is f32
    with a static filter, and each filter gradient of the middle's form
    (codegen/common/MiddleContract.h), gets `odt.convolution`: the kernel
    (`image_columns`: im2col products per image; `image_partials`: a
    partial sum per image; `scattered_columns`: a forward convolution of
    a fully padded input as products over the unpadded input, col2im), for a filter gradient's products the image
    groups summed in parallel, and for a forward convolution whose only
    reader is a Relu, `epilogue = "relu"`; for a forward one whose output
    positions split into whole panels of the target's product tile (two
    vectors), `panel_columns`: its columns laid out as the panels the
    product kernel then reads in place. An op that already has one keeps
    it (odt-lower-convolutions checks it). Other convolutions get none and
    keep linalg's lowering. `force-kernel` gives every convolution that
    kernel where it can compute it (`linalg`: none gets a config);
    `remarks` says at each op why it got its config.
  }];
  let options = [
    Option<"forceKernel", "force-kernel", "std::string", "\"\"",
           "linalg, image_columns, image_partials or scattered_columns: "
           "every convolution that "
           "kernel can compute gets it">,
    Option<"remarks", "remarks", "bool", "false",
           "A remark at each convolution: why it got its config">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def LowerConvolutions
    : Pass<"odt-lower-convolutions", "mlir::func::FuncOp"> {
  let summary = "Compute each convolution with the kernel its config names";
  let description = [{
    On tensors, first in the CPU backend (before
    odt-select-contraction-kernels, which then sees the kernels' matrix
    products). Each op with `odt.convolution` (odt-select-convolution-kernels
    or the input IR) becomes the kernel it names
    (codegen/cpu/ConvolutionKernels.cpp):
    - `image_columns`, forward: an scf.forall over the images, each
      writing its columns ([C*KH*KW, OH*OW]) and multiplying the filter
      ([F, C*KH*KW]) by them into its slice of the output; with
      `epilogue = "relu"` the Relu generic reading the convolution is
      applied to each image's product and replaced;
    - `image_columns`, filter gradient: an scf.forall over `image_groups`
      groups of images, each summing dY's rows times each image's
      position-major columns, then the groups' sums added;
    - `image_partials`, filter gradient: the generic with its image loop
      parallel (a partial per image), then a sum over the images;
    - `scattered_columns`, forward, of a tensor.pad by the window's size
      less one: an scf.forall over the images, each multiplying the filter
      as [F*KH*KW, C] by the pad's unpadded source [C, H*W] and adding the
      product's KH*KW slabs [F, H, W] into its output at their offsets.
    A config that cannot be carried out (a kernel for another form, a
    Relu epilogue without a Relu, unknown fields) is an error at the op.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
}

def VectorizeContractions
    : Pass<"odt-vectorize-contractions", "mlir::func::FuncOp"> {
  let summary = "Register-tiled vector kernels for f32 matrix products";
  let description = [{
    On tensors, before bufferization. Each product's kernels, tile and
    distribution come from its `odt.contraction` attribute
    (odt-select-contraction-kernels; a product without one gets the config
    that pass would give it); what follows describes what each kernel and
    distribution emits. A linalg.generic computing
    C[..., m, n] += A[...] * B[...] (body: one mulf and one addf into the
    output; one reduction dim k; m and n the output's last two dims; every
    other dim parallel) becomes loops: over the other dims, over n in tiles
    of `columns` = 2 x `vector-width` lanes, over m in tiles of `rows` rows
    (then one row at a time for the rest), and over k innermost, where the
    rows x columns accumulator stays in vector registers (scf.for iter_args)
    and each k adds one broadcast element of A times one vector row of B
    (vector.fma). Tiles at the edge of n are masked transfers. The packed
    kernel cuts k in blocks of `depth` and first packs each block of B
    under a column tile into a contiguous zero-padded [depth, columns]
    panel that all row tiles then read; the direct kernel's row tiles read
    B's rows in place. Which kernel runs for which row counts is the
    config's (thresholds and their measurements:
    codegen/cpu/ContractionSelection.cpp). A product summed over several dims that
    lie side by side in the same order in A and in B (a weight gradient
    summed over batch and sequence) is first rewritten as a product over
    one dim, collapsing those dims of both operands.
    Each output element still sums its terms in k order, so results change
    only by the rounding of a fused multiply-add.

    The swapped kernel (a few rows times a transposed B with k innermost
    in A: a linear layer at a small batch; at most one vector of rows)
    computes the product transposed, C^T = B A^T: A's rows are transposed into the panel by register
    shuffles, each tile of `vector-width` columns keeps one vector of all
    the rows per column and adds a broadcast element of B (read in place)
    times the panel's row k, and the tile is transposed back before the
    epilogue and the store (sums still in k order). The dots kernel makes
    each output a dot product along k (vectors of A's and B's rows, reduced at the
    end; the terms summed in lanes, the same way on every run).

    Wide rows (the config's wide_rows, for a short k: a weight gradient
    over a small batch, where writing C costs more than the products): the
    parallel iterations are blocks of whole rows of C, written row after
    row with B read in place, instead of column chunks of many rows with
    packed panels. When k is dynamic the block shapes and the path are
    chosen at run time in the same loop nest.

    Kept panels (the config's kept_panels, when B is a parameter of the
    entry point with a static shape: a weight used as it is): the panels
    of B live in two arguments the pass adds, the panels
    ([column tiles, k, columns]) and a bool[1] stale flag (roles
    packed_panels and panels_stale), both returned updated (odt.tied).
    Before the product, when it will take the packed path and the flag is
    set, all of B is packed into them (in parallel over column tiles) and
    the flag cleared; the kernel reads its panels there. The runtime sets
    the flag when the parameter changes, so a weight is packed at most once
    per change (once per optimizer step) instead of in every product call.

    Epilogues (fuse-epilogues): when C starts as a linalg.generic that
    broadcasts a 1-D bias over the rows (Gemm's C, MatMul + Add), the
    accumulators of the first k block start from the bias vector and the
    broadcast is never stored. When the product's only user is an
    all-parallel generic whose body is elementwise arith and math (ReLU,
    GELU, ReluGrad's mask, a MatMul's bias Add and a residual Add) and whose
    other inputs are laid out as the product or are rows along n (a bias),
    that body runs on each finished tile in registers, its other inputs
    read at the tile, and the kernel writes the consumer's result: the
    product itself is never stored. A product on collapsed rows (a linear
    layer on [batch, sequence, features]) takes the consumer of its
    expanded result the same way. The sums and the body's operations are
    the same, in the same order, as without fusion.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "unsigned", "0",
           "f32 lanes of one vector register of the target (0: the "
           "module's odt.target, else 16)">,
    Option<"rows", "rows", "unsigned", "0",
           "Rows of the output computed together, the register tile's "
           "height (0: the module's odt.target, else 8)">,
    Option<"depth", "depth", "unsigned", "256",
           "k values per packed panel of B (panel: depth x 2 vectors, "
           "sized for L1)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Start the accumulators from a bias broadcast over the rows, and "
           "apply the product's elementwise consumer to the finished tile "
           "in registers">,
    Option<"cachePanels", "cache-panels", "bool", "true",
           "Keep the packed panels of a parameter B between steps: entry "
           "arguments (packed_panels, panels_stale) that the runtime binds "
           "and marks stale when the parameter changes">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect"];
}

#endif // ODT_CODEGEN_CPU_PASSES
