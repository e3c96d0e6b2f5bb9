//===- GenerateArtifacts.cpp - training artifacts from a forward model ----===//
//
// The forward model is imported with its parameters as arguments; the loss
// is appended in the onnx dialect; the eval graph is that function, the
// training graph the same plus odt's autodiff and ORT's gradient
// accumulation (InPlaceAccumulatorV2 into `<p>_grad.accumulation.buffer`
// under `lazy_reset_grad`); both are exported back to ONNX. The optimizer
// graph is ORT's one-node graph over sequences.
//
//===----------------------------------------------------------------------===//

#include "compiler/training/GenerateArtifacts.h"
#include "compiler/autodiff/Autodiff.h"
#include "compiler/autodiff/GradientBuilder.h"
#include "compiler/export/ModelExporter.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/import/ModelReader.h"
#include "compiler/passes/Passes.h"
#include "compiler/training/EmbeddingBags.h"
#include "compiler/training/ExporterTraces.h"
#include "compiler/training/ParameterSelection.h"
#include "compiler/training/Roles.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/GlobPattern.h"

using namespace mlir;

namespace odt {
namespace {

bool isFloatDataType(int32_t type) {
  return type == ::onnx::TensorProto::FLOAT ||
         type == ::onnx::TensorProto::DOUBLE ||
         type == ::onnx::TensorProto::FLOAT16 ||
         type == ::onnx::TensorProto::BFLOAT16;
}

class Generator {
public:
  Generator(MLIRContext &context, const ArtifactOptions &options,
            Artifacts &artifacts)
      : context(context), options(options), artifacts(artifacts),
        fileLoc(FileLineColLoc::get(&context, options.modelPath, 0, 0)) {}

  LogicalResult run();

private:
  /// An error about the model or the options, naming the model file.
  InFlightDiagnostic error() {
    return emitError(fileLoc) << "'" << options.modelPath << "': ";
  }
  LogicalResult readExporterTraces();
  /// A note "<count><what><names, comma-separated>", if there are names.
  void noteNames(ArrayRef<std::string> names, StringRef what) {
    if (names.empty())
      return;
    std::string list;
    for (const std::string &name : names)
      list += (list.empty() ? "" : ", ") + name;
    artifacts.notes.push_back(std::to_string(names.size()) + what.str() + list);
  }
  LogicalResult chooseParameters();
  LogicalResult addLoss(func::FuncOp func);
  LogicalResult checkBroadcast(const TensorValue &value, StringRef option,
                               RankedTensorType outputType,
                               ArrayRef<onnx::Dim> outputShape);
  LogicalResult buildTraining(func::FuncOp func);
  void useBatchStatistics(func::FuncOp func);
  void useRecurrentTraining(func::FuncOp func);
  LogicalResult simplifyAndType(func::FuncOp func);
  LogicalResult exportModel(func::FuncOp func, ::onnx::ModelProto &out,
                            const GraphExportOptions &exportOptions);
  void buildOptimizer();
  Value addArgument(func::FuncOp func, unsigned index, Type type,
                    StringRef name, ArgRole role, ArrayAttr dims = {});

  MLIRContext &context;
  const ArtifactOptions &options;
  Artifacts &artifacts;
  Location fileLoc;
  std::unique_ptr<::onnx::ModelProto> model;
  llvm::StringMap<const ::onnx::TensorProto *> initializers;
  std::vector<std::string> trainable, frozen;
  /// Initializers the exporter made for its own lowerings (ExporterTraces).
  llvm::StringSet<> exporterConstants;
  unsigned numUserInputs = 0;
};

LogicalResult Generator::readExporterTraces() {
  std::vector<BatchNormTrace> folded =
      findFoldedTrainingBatchNorms(model->graph());
  if (!folded.empty() && !options.keepFoldedBatchNorm) {
    InFlightDiagnostic diagnostic = error();
    diagnostic << folded.size()
               << " BatchNorm module(s) that PyTorch trains with batch "
                  "statistics were folded into the preceding node by the "
                  "exporter's optimizer (torch.onnx.export(dynamo=True) with "
                  "optimize=True), so the graph cannot train as the module "
                  "does:";
    for (const BatchNormTrace &trace : folded)
      diagnostic << "\n  " << (trace.module.empty() ? "?" : trace.module)
                 << " (folded into node '" << trace.node << "')";
    diagnostic << "\nexport with torch.onnx.export(..., dynamo=True, "
                  "optimize=False) or dynamo=False, or pass "
                  "--keep-folded-batchnorm to train the folded graph as it is";
    return failure();
  }
  std::vector<std::string> untied =
      untieMergedInitializers(*model->mutable_graph());
  noteNames(
      untied,
      " parameter(s) that the exporter merged into another initializer of "
      "equal value train apart again, as in PyTorch: ");
  std::vector<std::string> biases =
      restoreRemovedBiases(*model->mutable_graph());
  noteNames(biases, " zero bias(es) that the exporter's optimizer removed are "
                    "parameters again, as in PyTorch: ");
  for (const std::string &name : findExporterConstants(model->graph()))
    exporterConstants.insert(name);
  std::vector<std::string> padded =
      markEmbeddingPaddingIndices(*model->mutable_graph());
  noteNames(padded,
            " embedding lookup(s) with a padding_idx (which ONNX cannot carry) "
            "give that row no gradient, as in PyTorch: ");
  std::vector<EmbeddingBagRewrite> bags;
  std::string bagError;
  if (!rewriteEmbeddingBagLoops(*model->mutable_graph(),
                                getOpsetVersion(*model, ""), bags, bagError))
    return error() << bagError;
  for (const EmbeddingBagRewrite &bag : bags)
    artifacts.notes.push_back("EmbeddingBag '" + bag.node + "' (mode " +
                              bag.mode + ", weight " + bag.weight +
                              "), exported as a loop over its bags, is "
                              "computed as " +
                              (bag.rowsOfIds
                                   ? "a reduction over the rows of its ids"
                                   : "one segment sum"));
  std::vector<BatchNormTrace> restored =
      restoreTrainingBatchNorms(*model->mutable_graph());
  std::vector<std::string> modules;
  for (const BatchNormTrace &trace : restored)
    modules.push_back(trace.module.empty() ? trace.node : trace.module);
  noteNames(modules,
            " BatchNormalization node(s) exported in inference form from a "
            "module in training mode normalize with batch statistics in the "
            "training graph, as in PyTorch: ");
  return success();
}

LogicalResult Generator::chooseParameters() {
  const auto &graph = model->graph();
  for (const auto &tensor : graph.initializer())
    initializers[tensor.name()] = &tensor;
  llvm::StringMap<InitializerKind> kinds = classifyInitializers(graph);
  for (const auto &constant : exporterConstants)
    if (kinds.count(constant.getKey()))
      kinds[constant.getKey()] = InitializerKind::ExporterConstant;

  // Each option's names and glob patterns, resolved to initializers in
  // initializer order. A name is taken as given (it must exist); a pattern
  // selects among the weights, so that '*' never picks a scalar or a
  // running statistic.
  auto select = [&](ArrayRef<std::string> patterns, StringRef option,
                    llvm::StringSet<> &selected) -> LogicalResult {
    llvm::StringSet<> given;
    for (const std::string &pattern : patterns) {
      if (!given.insert(pattern).second)
        return error() << option << " '" << pattern << "' is given twice";
      if (!isGlobPattern(pattern)) {
        if (!initializers.count(pattern))
          return error() << option << " '" << pattern
                         << "' is not an initializer of the model";
        selected.insert(pattern);
        continue;
      }
      llvm::Expected<llvm::GlobPattern> glob =
          llvm::GlobPattern::create(pattern);
      if (!glob) {
        std::string why = llvm::toString(glob.takeError());
        return error() << option << " '" << pattern
                       << "' is not a valid glob pattern: " << why;
      }
      bool matched = false;
      for (const auto &tensor : graph.initializer())
        if (kinds.lookup(tensor.name()) == InitializerKind::Weight &&
            glob->match(tensor.name())) {
          selected.insert(tensor.name());
          matched = true;
        }
      if (!matched)
        return error() << option << " '" << pattern
                       << "' matches no weight of the model";
    }
    return success();
  };
  llvm::StringSet<> frozenSet, trainableSet;
  if (failed(select(options.frozen, "--frozen", frozenSet)) ||
      failed(
          select(options.requiresGrad, options.trainableOption, trainableSet)))
    return failure();
  for (const auto &tensor : graph.initializer()) {
    const std::string &name = tensor.name();
    if (trainableSet.contains(name) && !isFloatDataType(tensor.data_type()))
      return error() << options.trainableOption << " '" << name
                     << "' is not floating-point; only floating-point "
                        "parameters have gradients";
    if (trainableSet.contains(name) && frozenSet.contains(name))
      return error() << "'" << name << "' is given both to "
                     << options.trainableOption << " and to --frozen";
  }
  // Initializer order is the parameter order (stable across runs). By
  // default every weight not frozen trains; other floats stay constants
  // (ParameterSelection.h says why each is not a parameter).
  for (const auto &tensor : graph.initializer()) {
    const std::string &name = tensor.name();
    InitializerKind kind = kinds.lookup(name);
    bool isTrainable =
        options.requiresGrad.empty()
            ? kind == InitializerKind::Weight && !frozenSet.contains(name)
            : trainableSet.contains(name);
    if (isTrainable)
      trainable.push_back(name);
    else if (frozenSet.contains(name))
      frozen.push_back(name);
    else if (isFloatDataType(tensor.data_type()))
      artifacts.constants.push_back(
          {name, kind == InitializerKind::Weight
                     ? "not selected by " + options.trainableOption
                     : describeInitializerKind(kind).str()});
  }
  if (trainable.empty())
    return error() << "the model has no trainable parameter (no "
                      "floating-point weight that is not frozen; "
                      "--trainable NAME takes any initializer)";
  // A trained value the FX graph computed from something else: PyTorch
  // trains what it came from, not it. Chosen by default, that is worth a
  // word (chosen by name, the user said so).
  if (options.requiresGrad.empty())
    for (const FoldedFxValue &value : findFoldedFxValues(graph))
      if (llvm::is_contained(trainable, value.initializer))
        artifacts.notes.push_back(
            "parameter '" + value.initializer +
            "' is a value the module computes (read by node '" + value.node +
            "'), which the exporter's optimizer folded into a constant: "
            "PyTorch trains what it is computed from (weight_norm's g and "
            "v, another parametrization), odt trains it as one parameter. "
            "To train the module's own parameters, export with "
            "torch.onnx.export(..., dynamo=True, optimize=False); to keep "
            "it fixed, pass --frozen " +
            value.initializer);
  for (const auto &input : graph.input())
    if (!initializers.count(input.name()))
      ++numUserInputs;
    else
      return error() << "graph input '" << input.name()
                     << "' is also an initializer (an IR < 4 model); "
                        "re-export the model without it";
  return success();
}

/// A weight tensor must have the output's element type and broadcast to
/// the output (numpy rules, no larger).
LogicalResult Generator::checkBroadcast(const TensorValue &value,
                                        StringRef option,
                                        RankedTensorType outputType,
                                        ArrayRef<onnx::Dim> outputShape) {
  bool fits = value.dataType == getONNXDataType(outputType.getElementType()) &&
              value.dims.size() <= outputShape.size();
  for (size_t i = 0; fits && i < value.dims.size(); ++i) {
    const onnx::Dim &dim =
        outputShape[outputShape.size() - value.dims.size() + i];
    fits = value.dims[i] == 1 ||
           (dim.isStatic() && dim.getSize() == value.dims[i]);
  }
  if (!fits)
    return error() << option << " must have the scores' element type and "
                   << "broadcast to the output's shape " << outputType;
  return success();
}

Value Generator::addArgument(func::FuncOp func, unsigned index, Type type,
                             StringRef name, ArgRole role, ArrayAttr dims) {
  Builder builder(&context);
  SmallVector<NamedAttribute> attrs = {
      builder.getNamedAttr(kNameAttr, builder.getStringAttr(name)),
      builder.getNamedAttr(kRoleAttr,
                           builder.getStringAttr(getRoleName(role)))};
  if (dims)
    attrs.push_back(builder.getNamedAttr(kDimsAttr, dims));
  (void)func.insertArgument(index, type, builder.getDictionaryAttr(attrs),
                            NameLoc::get(builder.getStringAttr(name)));
  return func.getArgument(index);
}

/// Names `value` in the exported graph (ORT's `<p>_grad`), through the
/// attribute the exporter reads, so the name survives CSE and folding. The
/// first name given wins (one value can be two parameters' gradient only if
/// they are the same value).
void nameResult(Value value, StringRef name) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return;
  Operation *op = result.getOwner();
  Builder builder(op->getContext());
  SmallVector<Attribute> names(op->getNumResults(), builder.getStringAttr(""));
  if (auto existing = op->getAttrOfType<ArrayAttr>(kResultNamesAttr))
    names.assign(existing.begin(), existing.end());
  if (!cast<StringAttr>(names[result.getResultNumber()]).empty())
    return;
  names[result.getResultNumber()] = builder.getStringAttr(name);
  op->setAttr(kResultNamesAttr, builder.getArrayAttr(names));
}

/// A named constant holding a command-line tensor.
Value constantOf(GradientBuilder &b, onnx::ShapeContext &shapes,
                 const TensorValue &value, StringRef name) {
  OpBuilder &builder = b.getBuilder();
  Type element = convertElementType(builder.getContext(), value.dataType);
  auto type = RankedTensorType::get(value.dims, element);
  auto attr = DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(value.bytes.data(), value.bytes.size()));
  auto constant = onnx::ConstantOp::create(
      builder, NameLoc::get(builder.getStringAttr(name)), type, attr);
  shapes.setShape(constant, shapes.shapeFromType(type, name), element);
  return constant;
}

/// Makes `results` (named by `resultAttrs`) what `func` returns.
void replaceResults(func::FuncOp func, func::ReturnOp returnOp,
                    ValueRange results, ArrayRef<DictionaryAttr> resultAttrs) {
  OpBuilder builder(returnOp);
  func::ReturnOp::create(builder, returnOp.getLoc(), results);
  returnOp.erase();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.front().getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
}

/// The dims of `value` as an `onnx.dims` attribute (sizes and symbol names).
ArrayAttr dimsAttr(Builder &builder, onnx::ShapeContext &shapes,
                   ArrayRef<onnx::Dim> dims) {
  SmallVector<Attribute> attrs;
  for (const onnx::Dim &dim : dims)
    attrs.push_back(
        dim.isStatic()
            ? Attribute(builder.getI64IntegerAttr(dim.getSize()))
            : Attribute(builder.getStringAttr(shapes.symbolName(dim))));
  return builder.getArrayAttr(attrs);
}

LogicalResult Generator::addLoss(func::FuncOp func) {
  auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
  auto outputNamed = [&](StringRef name) -> Value {
    for (unsigned i = 0; i < returnOp.getNumOperands(); ++i)
      if (auto attr = func.getResultAttrOfType<StringAttr>(i, kNameAttr))
        if (attr.getValue() == name)
          return returnOp.getOperand(i);
    return Value();
  };
  std::vector<std::string> lossInputs = options.lossInputs;
  if (lossInputs.empty()) {
    auto first = func.getResultAttrOfType<StringAttr>(0, kNameAttr);
    lossInputs.push_back(first.str());
  }
  if (lossInputs.size() != 1)
    return error() << "--loss " << options.loss << " reads one model output, "
                   << lossInputs.size() << " were given to --loss-input";
  Value output = outputNamed(lossInputs[0]);
  if (!output)
    return error() << "--loss-input '" << lossInputs[0]
                   << "' is not an output of the model";
  SmallVector<Value> additional;
  for (const std::string &name : options.additionalOutputs) {
    Value value = outputNamed(name);
    if (!value)
      return error() << "--additional-output '" << name
                     << "' is not an output of the model";
    additional.push_back(value);
  }

  onnx::ShapeContext shapes;
  if (failed(inferFunctionShapes(func, shapes)))
    return failure();
  auto outputType = dyn_cast<RankedTensorType>(output.getType());
  if (!outputType || !isa<FloatType>(outputType.getElementType()))
    return error() << "the loss input '" << lossInputs[0] << "' has type "
                   << output.getType() << "; --loss " << options.loss
                   << " needs floating-point scores";
  onnx::Shape outputShape = shapes.getShape(output);
  Builder attrBuilder(&context);
  OpBuilder builder(returnOp);
  GradientBuilder b(builder, shapes);

  StringRef loss = options.loss;
  if (options.lossWeight && loss != "CrossEntropyLoss" &&
      loss != "BCEWithLogitsLoss")
    return error() << "--loss-weight applies to CrossEntropyLoss and "
                      "BCEWithLogitsLoss only";
  if (options.posWeight && loss != "BCEWithLogitsLoss")
    return error() << "--pos-weight applies to BCEWithLogitsLoss only";
  if (loss != "none" && options.reduction != "mean" &&
      options.reduction != "sum" && options.reduction != "none")
    return error() << "--reduction must be mean, sum or none, not '"
                   << options.reduction << "'";
  auto reduce = [&](Value perElement) -> Value {
    if (options.reduction == "none")
      return perElement;
    return b.create(options.reduction == "mean" ? "onnx.ReduceMean"
                                                : "onnx.ReduceSum",
                    {perElement}, {b.intAttr("keepdims", 0)});
  };
  Value lossValue;
  if (loss == "none") {
    lossValue = output;
  } else if (loss == "CrossEntropyLoss") {
    if (outputShape.size() < 2)
      return error() << "--loss CrossEntropyLoss needs scores of shape [N, C, "
                        "...]; the output '"
                     << lossInputs[0] << "' has rank " << outputShape.size();
    onnx::Shape labelShape(outputShape);
    labelShape.erase(labelShape.begin() + 1);
    SmallVector<int64_t> staticDims = shapes.toStaticDims(labelShape);
    Value labels = addArgument(
        func, numUserInputs,
        RankedTensorType::get(staticDims, attrBuilder.getI64Type()), "labels",
        ArgRole::UserInput, dimsAttr(attrBuilder, shapes, labelShape));
    shapes.setShape(labels, labelShape, attrBuilder.getI64Type());
    SmallVector<NamedAttribute> attrs = {
        b.stringAttr("reduction", options.reduction)};
    if (options.ignoreIndex)
      attrs.push_back(b.intAttr("ignore_index", *options.ignoreIndex));
    SmallVector<Value> operands = {output, labels};
    if (options.lossWeight) {
      const TensorValue &weight = *options.lossWeight;
      const onnx::Dim &classes = outputShape[1];
      if (weight.dims.size() != 1 ||
          weight.dataType != getONNXDataType(outputType.getElementType()) ||
          (classes.isStatic() && weight.dims[0] != classes.getSize()))
        return error() << "--loss-weight for CrossEntropyLoss must be a 1-D "
                          "tensor of the scores' type with one weight per "
                          "class ("
                       << shapes.symbolName(classes) << ")";
      operands.push_back(constantOf(b, shapes, weight, "loss.weight"));
    }
    Operation *op =
        b.createOp("onnx.SoftmaxCrossEntropyLoss", operands, attrs, 2);
    lossValue = op ? op->getResult(0) : Value();
  } else if (loss == "MSELoss" || loss == "L1Loss" ||
             loss == "BCEWithLogitsLoss") {
    Value target = addArgument(func, numUserInputs, outputType, "target",
                               ArgRole::UserInput,
                               dimsAttr(attrBuilder, shapes, outputShape));
    shapes.setShape(target, outputShape, outputType.getElementType());
    Value perElement;
    if (loss == "MSELoss") {
      Value diff = b.create("onnx.Sub", {output, target});
      perElement = b.create("onnx.Mul", {diff, diff});
    } else if (loss == "L1Loss") {
      perElement =
          b.create("onnx.Abs", {b.create("onnx.Sub", {output, target})});
    } else if (!options.posWeight) {
      // max(x, 0) - x t + log(1 + exp(-|x|)): no overflow for any x.
      Value positive = b.create("onnx.Relu", {output});
      Value product = b.create("onnx.Mul", {output, target});
      Value negAbs = b.create("onnx.Neg", {b.create("onnx.Abs", {output})});
      Value softplus = b.create("onnx.Softplus", {negAbs});
      perElement = b.create(
          "onnx.Add", {b.create("onnx.Sub", {positive, product}), softplus});
    } else {
      // PyTorch's -[p t log s(x) + (1 - t) log(1 - s(x))] with
      // -log s(x) = softplus(-x): (1 - t) x + (1 + (p - 1) t) softplus(-x).
      if (failed(checkBroadcast(*options.posWeight, "--pos-weight", outputType,
                                outputShape)))
        return failure();
      Value posWeight =
          constantOf(b, shapes, *options.posWeight, "loss.pos_weight");
      Type element = outputType.getElementType();
      Value one = b.scalar(1.0, element);
      Value softplus =
          b.create("onnx.Softplus", {b.create("onnx.Neg", {output})});
      Value negativeTerm =
          b.create("onnx.Mul", {b.create("onnx.Sub", {one, target}), output});
      Value scale = b.create(
          "onnx.Add",
          {one, b.create("onnx.Mul",
                         {b.create("onnx.Sub", {posWeight, one}), target})});
      perElement = b.create(
          "onnx.Add", {negativeTerm, b.create("onnx.Mul", {scale, softplus})});
    }
    if (options.lossWeight) {
      if (failed(checkBroadcast(*options.lossWeight, "--loss-weight",
                                outputType, outputShape)))
        return failure();
      perElement =
          b.create("onnx.Mul",
                   {perElement,
                    constantOf(b, shapes, *options.lossWeight, "loss.weight")});
    }
    lossValue = reduce(perElement);
  } else {
    return error() << "--loss must be MSELoss, CrossEntropyLoss, "
                      "BCEWithLogitsLoss, L1Loss or none, not '"
                   << loss << "'";
  }
  if (!lossValue || b.failed())
    return failure();
  if (auto lossType = dyn_cast<RankedTensorType>(lossValue.getType());
      !lossType || !isa<FloatType>(lossType.getElementType()))
    return error() << "the loss has type " << lossValue.getType()
                   << "; it must be floating-point";

  // Results: the loss, then the additional outputs.
  SmallVector<Value> results = {lossValue};
  results.append(additional.begin(), additional.end());
  SmallVector<DictionaryAttr> resultAttrs;
  auto resultAttr = [&](StringRef name) {
    return attrBuilder.getDictionaryAttr(
        {attrBuilder.getNamedAttr(kNameAttr, attrBuilder.getStringAttr(name)),
         attrBuilder.getNamedAttr(
             kRoleAttr,
             attrBuilder.getStringAttr(getRoleName(ArgRole::UserOutput)))});
  };
  resultAttrs.push_back(
      resultAttr(loss == "none" ? StringRef(lossInputs[0]) : "loss"));
  for (const std::string &name : options.additionalOutputs)
    resultAttrs.push_back(resultAttr(name));
  replaceResults(func, returnOp, results, resultAttrs);
  return success();
}

/// BatchNormalization in training mode becomes ORT's BatchNormInternal in the
/// training graph, as ORT's own generator does: the same function plus the
/// saved batch mean and inverse standard deviation its gradient
/// (BatchNormalizationGrad) reads. The running statistics stay constants, as
/// in ORT's artifacts.
void Generator::useBatchStatistics(func::FuncOp func) {
  SmallVector<onnx::BatchNormalizationOp> norms;
  func.walk([&](onnx::BatchNormalizationOp norm) {
    auto mode = norm->getAttrOfType<IntegerAttr>("training_mode");
    if (mode && mode.getInt() != 0)
      norms.push_back(norm);
  });
  for (onnx::BatchNormalizationOp norm : norms) {
    OpBuilder builder(norm);
    OperationState state(norm.getLoc(), "onnx.ms.BatchNormInternal");
    state.addOperands(norm->getOperands());
    state.addAttributes(norm->getAttrs());
    state.types.assign(5, norm->getResult(0).getType());
    Operation *internal = builder.create(state);
    for (unsigned i = 0; i < norm->getNumResults(); ++i)
      norm->getResult(i).replaceAllUsesWith(internal->getResult(i));
    norm->erase();
  }
}

/// GRU and LSTM train as GRUTraining and LSTMTraining, which also return
/// what back-propagation through time needs (the gates of every step, the
/// cell states); their first results are the forward op's (layout 0:
/// odt-decompose-composite-ops has rewritten layout 1 around them).
void Generator::useRecurrentTraining(func::FuncOp func) {
  SmallVector<Operation *> recurrent;
  func.walk([&](Operation *op) {
    if (isa<onnx::GRUOp, onnx::LSTMOp>(op))
      recurrent.push_back(op);
  });
  for (Operation *op : recurrent) {
    bool lstm = isa<onnx::LSTMOp>(op);
    OpBuilder builder(op);
    OperationState state(op->getLoc(),
                         lstm ? "onnx.ms.LSTMTraining" : "onnx.ms.GRUTraining");
    state.addOperands(op->getOperands());
    state.addAttributes(op->getAttrs());
    Type unranked = UnrankedTensorType::get(
        cast<ShapedType>(op->getOperand(0).getType()).getElementType());
    state.types.assign(lstm ? 5 : 3, unranked);
    Operation *training = builder.create(state);
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      op->getResult(i).replaceAllUsesWith(training->getResult(i));
    op->erase();
  }
}

LogicalResult Generator::buildTraining(func::FuncOp func) {
  onnx::ShapeContext shapes;
  if (failed(inferFunctionShapes(func, shapes)))
    return failure();
  auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
  Value loss = returnOp.getOperand(0);
  unsigned firstParameter =
      func.getNumArguments() - trainable.size() - frozen.size();
  SmallVector<Value> parameters;
  for (unsigned i = 0; i < trainable.size(); ++i)
    parameters.push_back(func.getArgument(firstParameter + i));
  FailureOr<GradientResult> gradients =
      differentiate(func, loss, parameters, shapes);
  if (failed(gradients))
    return failure();

  Builder attrBuilder(&context);
  SmallVector<Value> buffers;
  for (auto [name, parameter] : llvm::zip(trainable, parameters))
    buffers.push_back(addArgument(
        func, func.getNumArguments(), parameter.getType(),
        name + "_grad.accumulation.buffer", ArgRole::GradientBuffer));
  auto flagType = RankedTensorType::get({1}, attrBuilder.getI1Type());
  Value lazyReset = addArgument(func, func.getNumArguments(), flagType,
                                "lazy_reset_grad", ArgRole::LazyResetGrad);
  for (Value buffer : buffers)
    shapes.setShape(buffer, shapes.shapeFromType(buffer.getType(), "buffer"),
                    GradientBuilder::elementType(buffer));
  shapes.setShape(lazyReset, {onnx::Dim::size(1)}, attrBuilder.getI1Type());

  OpBuilder builder(returnOp);
  GradientBuilder b(builder, shapes);
  nameResult(gradients->seed,
             func.getResultAttrOfType<StringAttr>(0, kNameAttr).str() +
                 "_grad");
  SmallVector<Value> results(returnOp.getOperands());
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0; i < results.size(); ++i)
    resultAttrs.push_back(func.getResultAttrDict(i));
  for (unsigned i = 0; i < trainable.size(); ++i) {
    Value gradient = gradients->gradients[i];
    if (!gradient) {
      emitWarning(fileLoc) << "'" << options.modelPath << "': parameter '"
                           << trainable[i]
                           << "' has no path to the loss; its gradient is "
                              "zero (freeze it with --frozen)";
      gradient = b.fullLike(parameters[i], 0.0);
    }
    nameResult(gradient, trainable[i] + "_grad");
    Operation *accumulate =
        b.createOp("onnx.ms.InPlaceAccumulatorV2",
                   {buffers[i], gradient, lazyReset}, {}, 2);
    if (!accumulate)
      return failure();
    results.push_back(accumulate->getResult(0));
    resultAttrs.push_back(attrBuilder.getDictionaryAttr(
        {attrBuilder.getNamedAttr(kNameAttr,
                                  attrBuilder.getStringAttr(
                                      trainable[i] + "_grad.accumulation.out")),
         attrBuilder.getNamedAttr(
             kRoleAttr,
             attrBuilder.getStringAttr(getRoleName(ArgRole::GradAccumFlag)))}));
  }
  replaceResults(func, returnOp, results, resultAttrs);
  return success();
}

LogicalResult Generator::simplifyAndType(func::FuncOp func) {
  // CSE merges the recomputed shapes and constants rules build; dead-code
  // elimination drops outputs nobody asked for and unused gradient results.
  // Named values must survive: only their ops' uses keep them alive, and the
  // names are read back after this, so names of erased values are dropped.
  PassManager pm(&context, func::FuncOp::getOperationName());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createInferShapes());
  return pm.run(func);
}

LogicalResult Generator::exportModel(func::FuncOp func, ::onnx::ModelProto &out,
                                     const GraphExportOptions &exportOptions) {
  out.set_ir_version(model->ir_version());
  out.set_producer_name("odt");
  bool hasMicrosoft = false;
  for (const auto &opset : model->opset_import()) {
    *out.add_opset_import() = opset;
    hasMicrosoft |= opset.domain() == "com.microsoft";
  }
  if (!hasMicrosoft) {
    auto *opset = out.add_opset_import();
    opset->set_domain("com.microsoft");
    opset->set_version(1);
  }
  return exportFunction(func, exportOptions, *out.mutable_graph());
}

void Generator::buildOptimizer() {
  ::onnx::ModelProto &out = artifacts.optimizer;
  out.set_ir_version(model->ir_version());
  out.set_producer_name("odt");
  for (const auto &opset : model->opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      *out.add_opset_import() = opset;
  auto *microsoft = out.add_opset_import();
  microsoft->set_domain("com.microsoft");
  microsoft->set_version(1);
  auto *graph = out.mutable_graph();
  graph->set_name("optimizer");
  auto tensorInput = [&](const char *name, int32_t type) {
    auto *input = graph->add_input();
    input->set_name(name);
    auto *tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    tensor->mutable_shape()->add_dim()->set_dim_value(1);
  };
  int32_t paramType = initializers.lookup(trainable.front())->data_type();
  auto sequenceInput = [&](const char *name) {
    auto *input = graph->add_input();
    input->set_name(name);
    input->mutable_type()
        ->mutable_sequence_type()
        ->mutable_elem_type()
        ->mutable_tensor_type()
        ->set_elem_type(paramType);
  };
  tensorInput("learning_rate", ::onnx::TensorProto::FLOAT);
  tensorInput("step", ::onnx::TensorProto::INT64);
  sequenceInput("params");
  sequenceInput("gradients");
  sequenceInput("first_order_moments");
  bool adamW = options.optimizer == "AdamW";
  if (adamW)
    sequenceInput("second_order_moments");
  std::string gradients = "gradients";
  auto addAttr = [](::onnx::NodeProto *node, const char *name) {
    auto *attr = node->add_attribute();
    attr->set_name(name);
    return attr;
  };
  if (options.clipGradNorm) {
    auto *clip = graph->add_node();
    clip->set_op_type("InplaceClipGradNorm");
    clip->set_domain("com.microsoft");
    clip->set_name("InplaceClipGradNorm");
    clip->add_input("gradients");
    gradients = "clipped_gradients";
    clip->add_output(gradients);
    auto *maxNorm = addAttr(clip, "max_norm");
    maxNorm->set_type(::onnx::AttributeProto::FLOAT);
    maxNorm->set_f(*options.clipGradNorm);
    auto *normType = addAttr(clip, "norm_type");
    normType->set_type(::onnx::AttributeProto::STRING);
    normType->set_s("fro");
  }
  auto *node = graph->add_node();
  node->set_domain("com.microsoft");
  node->set_name(adamW ? "AdamWOptimizer" : "SGDOptimizerV2");
  node->set_op_type(node->name());
  node->add_input("learning_rate");
  if (adamW)
    node->add_input("step");
  node->add_input("params");
  node->add_input(gradients);
  if (adamW) {
    node->add_input("first_order_moments");
    node->add_input("second_order_moments");
    auto floatAttr = [&](const char *name, float value) {
      auto *attr = addAttr(node, name);
      attr->set_type(::onnx::AttributeProto::FLOAT);
      attr->set_f(value);
    };
    auto intAttr = [&](const char *name, int64_t value) {
      auto *attr = addAttr(node, name);
      attr->set_type(::onnx::AttributeProto::INT);
      attr->set_i(value);
    };
    floatAttr("alpha", options.beta1);
    floatAttr("beta", options.beta2);
    floatAttr("epsilon", options.epsilon);
    floatAttr("weight_decay", options.weightDecay);
    intAttr("adam_mode", options.adamMode);
    intAttr("correct_bias", options.biasCorrection);
  }
  node->add_output("updated_flag");
  auto *output = graph->add_output();
  output->set_name("updated_flag");
  auto *flag = output->mutable_type()->mutable_tensor_type();
  flag->set_elem_type(::onnx::TensorProto::BOOL);
  flag->mutable_shape()->add_dim()->set_dim_value(1);
}

LogicalResult Generator::run() {
  if (options.optimizer != "AdamW" && options.optimizer != "SGD")
    return error() << "--optimizer must be AdamW or SGD, not '"
                   << options.optimizer << "'";
  if (options.clipGradNorm && !(*options.clipGradNorm > 0))
    return error() << "--clip-grad-norm must be positive";
  std::string message;
  model = readModelFile(options.modelPath, message);
  if (!model)
    return emitError(fileLoc) << message;
  if (!upgradeOldOpset(*model, options.modelPath, message))
    return emitError(fileLoc) << message;
  if (failed(readExporterTraces()))
    return failure();
  if (failed(chooseParameters()))
    return failure();

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  GraphImportOptions importOptions;
  importOptions.sourcePath = options.modelPath;
  importOptions.classifyInput = [](StringRef) {
    return std::make_pair(ArgRole::UserInput, -1);
  };
  importOptions.classifyOutput = [](StringRef) { return ArgRole::UserOutput; };
  importOptions.keepValueNames = true;
  int index = 0;
  for (const std::string &name : trainable)
    importOptions.initializerParameters.push_back({name, index++});
  for (const std::string &name : frozen)
    importOptions.initializerParameters.push_back({name, index++});
  FailureOr<func::FuncOp> imported =
      importGraph(*model, *module, "eval", importOptions);
  if (failed(imported))
    return failure();
  func::FuncOp eval = *imported;
  // PyTorch's decomposed LayerNorm and GELU become single ops first, as in
  // ORT's generator: one gradient op each instead of a dozen.
  {
    PassManager pm(&context, func::FuncOp::getOperationName());
    pm.addPass(createDecomposeCompositeOps());
    pm.addPass(createInferShapes());
    pm.addPass(createFuseDecomposedOps());
    if (failed(pm.run(eval)))
      return failure();
  }
  if (failed(addLoss(eval)))
    return failure();
  // CSE before differentiating (a value computed twice would get two
  // gradient chains) and after (the rules recompute shapes and constants).
  if (failed(simplifyAndType(eval)))
    return failure();
  func::FuncOp training = eval.clone();
  training.setSymName("train");
  module->push_back(training);
  useBatchStatistics(training);
  useRecurrentTraining(training);
  if (failed(buildTraining(training)))
    return failure();
  // The eval graph normalizes with the running statistics...
  eval.walk([&](onnx::BatchNormalizationOp norm) {
    norm->setAttr("training_mode", Builder(&context).getI64IntegerAttr(0));
  });
  // ...and runs Dropout in inference mode (PyTorch's training-mode exports
  // feed training_mode = true): the input is dropped, as absent.
  eval.walk([&](onnx::DropoutOp dropout) {
    Value mode = dropout->getOperand(2);
    if (isa<NoneType>(mode.getType()))
      return;
    OpBuilder builder(dropout);
    dropout->setOperand(2, onnx::NoValueOp::create(builder, dropout.getLoc(),
                                                   builder.getNoneType()));
  });
  if (failed(simplifyAndType(eval)) || failed(simplifyAndType(training)))
    return failure();
  for (auto [func, out] : {std::make_pair(eval, &artifacts.eval),
                           std::make_pair(training, &artifacts.training)}) {
    onnx::ShapeContext shapes;
    if (failed(inferFunctionShapes(func, shapes)))
      return failure();
    GraphExportOptions exportOptions;
    exportOptions.shapes = &shapes;
    if (failed(exportModel(func, *out, exportOptions)))
      return failure();
  }
  buildOptimizer();

  for (const std::string &name : trainable)
    artifacts.parameters.emplace_back().name = name;
  for (const std::string &name : frozen) {
    artifacts.parameters.emplace_back().name = name;
    artifacts.parameters.back().trainable = false;
  }
  for (ArtifactParameter &parameter : artifacts.parameters) {
    const ::onnx::TensorProto *tensor = initializers.lookup(parameter.name);
    FailureOr<ElementsAttr> value =
        convertTensorProto(&context, *tensor, options.modelPath, fileLoc);
    ::onnx::TensorProto raw;
    if (failed(value) || failed(exportElements(*value, parameter.name, raw)))
      return error() << "cannot read the values of parameter '"
                     << parameter.name << "'";
    parameter.dataType = raw.data_type();
    parameter.dims.assign(raw.dims().begin(), raw.dims().end());
    parameter.bytes = raw.raw_data();
  }
  return success();
}

} // namespace

LogicalResult generateArtifacts(MLIRContext &context,
                                const ArtifactOptions &options,
                                Artifacts &artifacts) {
  return Generator(context, options, artifacts).run();
}

} // namespace odt
