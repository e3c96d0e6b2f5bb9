//===- Passes.td - odt's graph-level passes -----------------*- tablegen -*-===//

#ifndef ODT_COMPILER_PASSES
#define ODT_COMPILER_PASSES

include "mlir/Pass/PassBase.td"

def InferShapes : Pass<"odt-infer-shapes", "mlir::func::FuncOp"> {
  let summary = "Infer types and symbolic shapes of onnx ops";
  let description = [{
    Re-runs symbolic shape inference on a function: argument dims come from
    the `onnx.dims` argument attributes (a size or a symbol name), result
    types of every onnx op are refined, and `onnx.dims` is written on the
    arguments and results. The importer runs the same inference while it
    builds the graph; this pass serves IR written by hand and lit tests.

    With `assert-assumed-dims` (odt-compile's graph stage): where
    unification took a size an op computes (a Concat's 1 + (N - 1), a Slice
    with bounds from data) to equal another dim, or assumed an equation it
    could not solve (N*C = 784), the pass states the assumption before the
    return: `cf.assert` that the two sizes, read with `tensor.dim`, are
    equal; two sizes known to differ are an error. odt-generate-shape-functions moves these checks
    into the entry point's shape function, which the runtime calls before
    the step (the entry point itself keeps none). Checks from an earlier run
    are dropped first (with the option, the inference states them again).
  }];
  let options = [
    Option<"assertAssumedDims", "assert-assumed-dims", "bool", "false",
           "State the dims unification assumed as cf.assert checks">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect",
                           "mlir::tensor::TensorDialect"];
}

def AssembleTrainingProgram : Pass<"odt-assemble-training-program", "mlir::ModuleOp"> {
  let summary = "Turn imported graphs into entry points with tied state";
  let description = [{
    ORT's graphs update state in place (InPlaceAccumulatorV2 into gradient
    buffers, the optimizer into weights and moments). This pass returns each
    updated value as a result tied (odt.tied) to the argument it updates, and
    drops ORT's per-parameter accumulation flags, which no user reads.
  }];
}

def AddRandomState : Pass<"odt-add-random-state", "mlir::ModuleOp"> {
  let summary = "Give steps with training-mode Dropout the session's random "
                "state";
  let description = [{
    A Dropout that may run in training mode (its training_mode is not absent
    or a constant false) draws a new mask at every step. Its function gets
    one more argument, int64[2] with role `random_state`: the session's seed
    and its step counter, which the runtime advances before each step. The
    Dropout lowering mixes them with the node's own salt (its seed attribute,
    else a hash of its name), so masks differ between steps and between
    Dropout nodes, are the same for a given seed whatever the thread count,
    and resume from a checkpoint. Functions without such a Dropout are left
    alone.
  }];
}

def DecomposeTrainingOps
    : Pass<"odt-decompose-training-ops", "mlir::func::FuncOp"> {
  let summary = "Rewrite com.microsoft ops that are exact compositions of "
                "ai.onnx ops into those ops";
  let description = [{
    ReluGrad, SigmoidGrad, TanhGrad and LeakyReluGrad become Where/Greater/
    Mul/Sub; com.microsoft Gelu, BiasGelu and FastGelu become ai.onnx Gelu
    (exact or tanh-approximated) after an Add of the bias. The compositions
    are elementwise, so linalg's elementwise fusion makes one loop of them,
    as a dedicated lowering would; the ops need no lowering of their own.
    The new ops keep the node's location, so diagnostics still name it.
  }];
}

def DecomposeCompositeOps
    : Pass<"odt-decompose-composite-ops", "mlir::func::FuncOp"> {
  let summary = "Rewrite ai.onnx ops that are compositions of other ai.onnx "
                "ops into those ops";
  let description = [{
    InstanceNormalization and GroupNormalization become a
    LayerNormalization (without affine map) over the normalized dims
    followed by the per-channel scale and bias; OneHot becomes Equal of the
    indices with a Range, and Where; DepthToSpace and SpaceToDepth become
    Reshape, Transpose, Reshape; Resize becomes one MatMul per resized dim
    with a constant interpolation matrix (any mode and coordinate
    transformation: the matrix rows hold the taps, and its transpose is the
    gradient). RNN, GRU and LSTM in layout 1 become layout-0 ops between
    Transposes. None of these ops then needs a lowering or a gradient rule
    of its own. New ops have unranked types: run odt-infer-shapes next.
    Runs in generate-artifacts before differentiation and in odt-compile's
    graph pipeline.
  }];
}

def FuseDecomposedOps : Pass<"odt-fuse-decomposed-ops", "mlir::func::FuncOp"> {
  let summary = "Recognize PyTorch's decomposed LayerNormalization and "
                "Erf-based GELU and rewrite them into single ops";
  let description = [{
    PyTorch exports LayerNorm before opset 17 as ReduceMean, Sub, Pow,
    ReduceMean, Add(epsilon), Sqrt, Div, Mul(scale), Add(bias), and exact
    GELU as Div(sqrt 2), Erf, Add(1), Mul(x), Mul(0.5). generate-artifacts
    runs this before differentiating, as ORT's generator does, so the
    gradient is ORT's LayerNormalizationGrad / GeluGrad instead of a dozen
    elementwise gradients each holding an intermediate alive. A pattern is
    rewritten only when its inner values have no other uses and its
    constants have the exact values; the fused ops keep the location of the
    last node they replace.
  }];
}

#endif // ODT_COMPILER_PASSES
