//===- GenerateArtifacts.h - training artifacts from a forward model -*- C++
//-*-===//
//
// What `odt-compile generate-artifacts` computes: from a plain forward ONNX
// model, ORT's artifact trio (training, eval and optimizer graphs) and the
// parameters of its checkpoint, by odt's own autodiff. Nothing is written
// here; the tool writes the results as one set.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_TRAINING_GENERATEARTIFACTS_H
#define ODT_COMPILER_TRAINING_GENERATEARTIFACTS_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"

#include "onnx/onnx_pb.h"

#include <optional>
#include <string>
#include <vector>

namespace odt {

/// A tensor given on the command line (a .npy file): ONNX data type, dims and
/// little-endian bytes.
struct TensorValue {
  int32_t dataType = 0;
  std::vector<int64_t> dims;
  std::string bytes;
};

struct ArtifactOptions {
  std::string modelPath;
  /// Trainable initializers, as names or glob patterns (a pattern selects
  /// among the weights: ParameterSelection.h); empty: every weight not
  /// frozen.
  std::vector<std::string> requiresGrad;
  /// The option that gave requiresGrad, for messages (--trainable or ORT's
  /// name, --requires-grad).
  std::string trainableOption = "--trainable";
  /// Initializers that become parameters without gradients (names or
  /// patterns, as above).
  std::vector<std::string> frozen;
  /// MSELoss, CrossEntropyLoss, BCEWithLogitsLoss, L1Loss or none (the
  /// loss input is the loss).
  std::string loss = "none";
  /// mean, sum or none.
  std::string reduction = "mean";
  std::optional<int64_t> ignoreIndex;
  /// CrossEntropyLoss: per-class weights [C]; BCEWithLogitsLoss: weights
  /// broadcast to the output.
  std::optional<TensorValue> lossWeight;
  /// BCEWithLogitsLoss: weights of the positive term, broadcast to the output.
  std::optional<TensorValue> posWeight;
  /// The model outputs the loss reads; default: the first output.
  std::vector<std::string> lossInputs;
  /// Model outputs kept as outputs after the loss.
  std::vector<std::string> additionalOutputs;
  /// AdamW or SGD.
  std::string optimizer = "AdamW";
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-6f, weightDecay = 0.0f;
  int64_t adamMode = 1;
  bool biasCorrection = true;
  /// Clip the global gradient norm to this before the update (optimizer
  /// graph, ORT's InplaceClipGradNorm); none when absent.
  std::optional<float> clipGradNorm;
  /// Train a model whose exporter folded training-mode BatchNorms into
  /// convolutions (ExporterTraces.h) as it is, instead of refusing it.
  bool keepFoldedBatchNorm = false;
};

struct ArtifactParameter {
  std::string name;
  bool trainable = true;
  /// ONNX TensorProto data type, dims and little-endian bytes.
  int32_t dataType = 0;
  std::vector<int64_t> dims;
  std::string bytes;
};

struct Artifacts {
  ::onnx::ModelProto training, eval, optimizer;
  /// Trainable parameters in training-graph order, then frozen ones.
  std::vector<ArtifactParameter> parameters;
  /// Floating-point initializers that stay constants, with the reason.
  std::vector<std::pair<std::string, std::string>> constants;
  /// What the generator inferred about the model, for the user to read.
  std::vector<std::string> notes;
};

/// Builds the artifacts. Errors and warnings (a trainable parameter with no
/// path to the loss) go to `context`'s diagnostic handler; fails on bad
/// options, a loss that does not fit the model, or an op on a
/// differentiable path without a gradient rule.
mlir::LogicalResult generateArtifacts(mlir::MLIRContext &context,
                                      const ArtifactOptions &options,
                                      Artifacts &artifacts);

} // namespace odt

#endif // ODT_COMPILER_TRAINING_GENERATEARTIFACTS_H
