// OnnxExport: the protobuf wire-format reader and writer (round trips,
// malformed input), and the inference-model rewrite on templates built here
// with the writer (pruning, inputs, initializers, outputs, value_info,
// external data, errors), down to exportInferenceModel's files.

#include "CompiledModel.h"
#include "FileUtil.h"
#include "OnnxExport.h"
#include "model_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <unistd.h>

namespace odt {
namespace {

namespace fs = std::filesystem;
using protowire::Field;
using protowire::WireType;
using protowire::Writer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

//===----------------------------------------------------------------------===//
// Wire format
//===----------------------------------------------------------------------===//

/// Parses a copy kept alive for the whole test program, so the fields
/// (views into it) stay valid whatever the caller's string does.
std::vector<Field> parseOk(const std::string &bytes) {
  static std::deque<std::string> arena;
  arena.push_back(bytes);
  Result<std::vector<Field>> fields = protowire::parseMessage(arena.back());
  EXPECT_TRUE(fields) << fields.getStatus().message();
  return fields ? *fields : std::vector<Field>{};
}

std::string parseError(const std::string &bytes) {
  Result<std::vector<Field>> fields = protowire::parseMessage(bytes, "TestProto");
  EXPECT_FALSE(fields) << "parsed " << bytes.size() << " bytes without error";
  return fields ? "" : fields.getStatus().message();
}

TEST(ProtoWireTest, VarintRoundTrip) {
  const uint64_t values[] = {0,        1,           127,        128,
                             300,      16383,       16384,      (1ull << 32) - 1,
                             1ull << 32, UINT64_MAX, uint64_t(-1), uint64_t(int64_t(-784))};
  for (uint64_t value : values) {
    Writer writer;
    writer.varint(3, value);
    std::vector<Field> fields = parseOk(writer.str());
    ASSERT_EQ(fields.size(), 1u);
    EXPECT_EQ(fields[0].number, 3u);
    EXPECT_EQ(fields[0].type, WireType::Varint);
    EXPECT_EQ(fields[0].value, value);
    EXPECT_EQ(fields[0].rawSize, writer.size());
  }
  // Known encodings (protobuf's documentation): 150 -> 96 01, -1 -> 10 bytes.
  std::string out;
  protowire::appendVarint(out, 150);
  EXPECT_EQ(out, std::string("\x96\x01"));
  out.clear();
  protowire::appendVarint(out, uint64_t(int64_t(-1)));
  EXPECT_EQ(out.size(), 10u);
}

TEST(ProtoWireTest, FieldsRoundTrip) {
  Writer inner;
  inner.bytes(1, "fc1.weight");
  inner.varint(2, 1);
  Writer writer;
  writer.varint(1, 7);
  writer.bytes(2, std::string("a\0b", 3));
  writer.message(7, std::move(inner));
  writer.bytes(536870911, "max field number");
  writer.bytes(4, "");
  EXPECT_EQ(inner.size(), 0u); // moved out
  std::string bytes = writer.str();
  EXPECT_EQ(bytes.size(), writer.size());

  std::vector<Field> fields = parseOk(bytes);
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0].value, 7u);
  EXPECT_EQ(fields[1].bytes(), std::string("a\0b", 3));
  EXPECT_EQ(fields[2].number, 7u);
  EXPECT_EQ(fields[3].number, 536870911u);
  EXPECT_EQ(fields[3].bytes(), "max field number");
  EXPECT_EQ(fields[4].type, WireType::Bytes);
  EXPECT_EQ(fields[4].size, 0u);
  std::vector<Field> nested = parseOk(std::string(fields[2].bytes()));
  ASSERT_EQ(nested.size(), 2u);
  EXPECT_EQ(nested[0].bytes(), "fc1.weight");
  EXPECT_EQ(nested[1].value, 1u);

  // Verbatim copies reproduce the bytes.
  Writer copy;
  for (const Field &field : fields)
    copy.copy(field);
  EXPECT_EQ(copy.str(), bytes);
}

TEST(ProtoWireTest, FixedWidthFields) {
  // Field 1 fixed32 = 0x04030201, field 2 fixed64 = 0x0807060504030201.
  std::string bytes("\x0d\x01\x02\x03\x04\x11\x01\x02\x03\x04\x05\x06\x07\x08", 14);
  std::vector<Field> fields = parseOk(bytes);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[0].type, WireType::Fixed32);
  EXPECT_EQ(fields[0].value, 0x04030201u);
  EXPECT_EQ(fields[1].type, WireType::Fixed64);
  EXPECT_EQ(fields[1].value, 0x0807060504030201ull);
}

TEST(ProtoWireTest, BorrowedBytesAreReferenced) {
  std::vector<float> data(1000, 1.5f);
  Writer writer;
  writer.varint(1, 2);
  writer.borrowedBytes(9, data.data(), data.size() * sizeof(float));
  writer.varint(2, 1);
  std::vector<ByteSpan> pieces = writer.pieces();
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[1].data, data.data());
  std::vector<Field> fields = parseOk(writer.str());
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[1].size, 4000u);
  EXPECT_EQ(std::memcmp(fields[1].data, data.data(), 4000), 0);
}

TEST(ProtoWireTest, MalformedInputIsAnError) {
  EXPECT_THAT(parseError(std::string("\x80", 1)), HasSubstr("malformed TestProto"));
  EXPECT_THAT(parseError(std::string("\x80", 1)), HasSubstr("tag"));
  EXPECT_THAT(parseError(std::string("\x08", 1)), HasSubstr("varint"));
  EXPECT_THAT(parseError(std::string("\x08\xff\xff", 3)), HasSubstr("varint"));
  // 11-byte varint.
  EXPECT_THAT(parseError(std::string("\x08") + std::string(10, '\xff') + "\x01"),
              HasSubstr("overlong"));
  // Length beyond the end.
  EXPECT_THAT(parseError(std::string("\x0a\x05" "abc", 5)), HasSubstr("claims 5 bytes, 3 remain"));
  EXPECT_THAT(parseError(std::string("\x0a\xff\xff\xff\xff\x0f", 6)), HasSubstr("claims"));
  EXPECT_THAT(parseError(std::string("\x0a", 1)), HasSubstr("length"));
  // Field number 0, groups and undefined wire types.
  EXPECT_THAT(parseError(std::string("\x00\x01", 2)), HasSubstr("field number 0"));
  EXPECT_THAT(parseError(std::string("\x0b", 1)), HasSubstr("wire type 3"));
  EXPECT_THAT(parseError(std::string("\x0c", 1)), HasSubstr("wire type 4"));
  EXPECT_THAT(parseError(std::string("\x0e", 1)), HasSubstr("wire type 6"));
  EXPECT_THAT(parseError(std::string("\x0f", 1)), HasSubstr("wire type 7"));
  // Truncated fixed-width fields.
  EXPECT_THAT(parseError(std::string("\x0d\x01\x02", 3)), HasSubstr("truncated"));
  EXPECT_THAT(parseError(std::string("\x09\x01\x02\x03\x04", 5)), HasSubstr("truncated"));
  // The offset of the bad field is reported.
  EXPECT_THAT(parseError(std::string("\x08\x01\x0f", 3)), HasSubstr("at byte 2"));
  // Empty input is an empty message.
  EXPECT_TRUE(parseOk("").empty());
}

//===----------------------------------------------------------------------===//
// Templates: a small graph written with the writer
//===----------------------------------------------------------------------===//

Writer valueInfo(const std::string &name, int32_t elemType,
                 const std::vector<std::string> &dims) {
  Writer shape;
  for (const std::string &dim : dims) {
    Writer d;
    if (!dim.empty() && std::isdigit(static_cast<unsigned char>(dim[0])))
      d.varint(1, std::stoull(dim));
    else
      d.bytes(2, dim);
    shape.message(1, std::move(d));
  }
  Writer tensor;
  tensor.varint(1, elemType);
  tensor.message(2, std::move(shape));
  Writer type;
  type.message(1, std::move(tensor));
  Writer info;
  info.bytes(1, name);
  info.message(2, std::move(type));
  return info;
}

Writer node(const std::string &name, const std::string &opType,
            const std::vector<std::string> &inputs,
            const std::vector<std::string> &outputs) {
  Writer writer;
  for (const std::string &input : inputs)
    writer.bytes(1, input);
  for (const std::string &output : outputs)
    writer.bytes(2, output);
  writer.bytes(3, name);
  writer.bytes(4, opType);
  return writer;
}

Writer rawTensor(const std::string &name, const std::vector<int64_t> &dims,
                 const std::string &raw) {
  Writer tensor;
  for (int64_t dim : dims)
    tensor.varint(1, dim);
  tensor.varint(2, 1);
  tensor.bytes(8, name);
  tensor.bytes(9, raw);
  return tensor;
}

constexpr int kFloat = 1, kInt64 = 7;

/// x[N,16] -MatMul W[64,16]^T-> h -Add B-> y -Relu-> r -Mul C-> out
///                                 y -Neg-> dead        r,labels -Loss-> loss, extra
/// unused -Identity-> u2;  If-like node reading y inside its subgraph -> sub
/// W and B are parameters; C (4096 bytes) and K (8 bytes) are initializers.
struct TemplateOptions {
  bool withSubgraph = true;
};

std::string makeTemplate(TemplateOptions options = {}) {
  Writer graph;
  graph.message(1, node("mm", "MatMul", {"x", "W"}, {"h"}));
  graph.message(1, node("add", "Add", {"h", "B"}, {"y"}));
  graph.message(1, node("relu", "Relu", {"y"}, {"r"}));
  graph.message(1, node("mul", "Mul", {"r", "C"}, {"out"}));
  graph.message(1, node("neg", "Neg", {"y"}, {"dead"}));
  graph.message(1, node("loss", "Loss", {"r", "labels", ""}, {"loss", "extra"}));
  graph.message(1, node("ident", "Identity", {"unused"}, {"u2"}));
  graph.message(1, node("scale", "Mul", {"r", "K"}, {"scaled"}));
  if (options.withSubgraph) {
    // A node whose subgraph reads outer-scope "y" (not a node input).
    Writer body;
    body.message(1, node("inner", "Identity", {"y"}, {"z"}));
    body.bytes(2, "body");
    Writer attribute;
    attribute.bytes(1, "then_branch");
    attribute.message(6, std::move(body));
    attribute.varint(20, 5); // GRAPH
    Writer ifNode = node("if", "If", {"cond"}, {"sub"});
    ifNode.message(5, std::move(attribute));
    graph.message(1, std::move(ifNode));
  }
  graph.bytes(2, "main_graph");
  graph.message(5, rawTensor("C", {1024}, std::string(4096, '\x07')));
  graph.message(5, rawTensor("K", {2}, std::string(8, '\x03')));
  graph.bytes(10, "the graph's doc");
  graph.message(11, valueInfo("x", kFloat, {"batch", "16"}));
  graph.message(11, valueInfo("labels", kInt64, {"batch"}));
  graph.message(11, valueInfo("W", kFloat, {"64", "16"}));
  graph.message(11, valueInfo("B", kFloat, {"64"}));
  graph.message(11, valueInfo("unused", kFloat, {"3"}));
  graph.message(11, valueInfo("cond", 9, {}));
  graph.message(12, valueInfo("loss", kFloat, {}));
  graph.message(13, valueInfo("h", kFloat, {"batch", "64"}));
  graph.message(13, valueInfo("y", kFloat, {"batch", "64"}));
  graph.message(13, valueInfo("r", kFloat, {"batch", "64"}));
  graph.message(13, valueInfo("out", kFloat, {"batch", "1024"}));
  graph.message(13, valueInfo("dead", kFloat, {"batch", "64"}));
  graph.message(13, valueInfo("extra", kFloat, {"batch", "64"}));
  graph.message(13, valueInfo("loss", kFloat, {}));
  Writer opset;
  opset.varint(2, 17);
  Writer model;
  model.varint(1, 8);        // ir_version
  model.bytes(2, "pytorch"); // producer_name
  model.message(8, std::move(opset));
  model.message(7, std::move(graph));
  model.bytes(6, "the model's doc");
  return model.str();
}

const std::vector<std::string> kTemplateParameters = {"W", "B"};

std::shared_ptr<Parameter> makeParameter(const std::string &name, Shape shape,
                                         float first) {
  auto param = std::make_shared<Parameter>();
  param->name = name;
  param->data = Tensor::zeros(DataType::Float, shape);
  float *data = param->data.data<float>();
  for (int64_t i = 0; i < param->data.size(); ++i)
    data[i] = first + static_cast<float>(i);
  return param;
}

std::vector<std::shared_ptr<Parameter>> makeParameters() {
  return {makeParameter("W", {64, 16}, 0.5f), makeParameter("B", {64}, -3.0f)};
}

/// What a written model holds, read back with the reader.
struct ModelView {
  std::vector<std::pair<uint32_t, std::string>> modelFields; // number, bytes
  std::vector<std::string> nodes, inputs, outputs, initializers, valueInfos;
  std::map<std::string, std::string> initializerBytes; // name -> TensorProto
  std::map<std::string, std::string> outputInfos;      // name -> ValueInfoProto
  std::string graphName, graphDoc;
};

std::string nameIn(std::string_view message, uint32_t number) {
  std::string name;
  for (const Field &field : parseOk(std::string(message)))
    if (field.number == number)
      name = std::string(field.bytes());
  return name;
}

ModelView view(const std::string &bytes) {
  ModelView result;
  for (const Field &field : parseOk(bytes)) {
    result.modelFields.push_back({field.number, std::string(field.bytes())});
    if (field.number != 7)
      continue;
    for (const Field &item : parseOk(std::string(field.bytes()))) {
      std::string payload(item.bytes());
      switch (item.number) {
      case 1: result.nodes.push_back(nameIn(payload, 3)); break;
      case 2: result.graphName = payload; break;
      case 5:
        result.initializers.push_back(nameIn(payload, 8));
        result.initializerBytes[result.initializers.back()] = payload;
        break;
      case 10: result.graphDoc = payload; break;
      case 11: result.inputs.push_back(nameIn(payload, 1)); break;
      case 12:
        result.outputs.push_back(nameIn(payload, 1));
        result.outputInfos[result.outputs.back()] = payload;
        break;
      case 13: result.valueInfos.push_back(nameIn(payload, 1)); break;
      }
    }
  }
  return result;
}

Result<InferenceModelFiles> build(const std::vector<std::string> &outputs,
                                  const std::string &templ,
                                  const std::vector<std::shared_ptr<Parameter>> &params,
                                  uint64_t threshold = kDefaultExportExternalDataThreshold) {
  return buildInferenceModel(reinterpret_cast<const uint8_t *>(templ.data()),
                             templ.size(), kTemplateParameters, params, outputs,
                             "model.onnx.data", threshold);
}

ModelView buildAndView(const std::vector<std::string> &outputs,
                       const std::vector<std::shared_ptr<Parameter>> &params = makeParameters()) {
  std::string templ = makeTemplate();
  Result<InferenceModelFiles> files = build(outputs, templ, params);
  EXPECT_TRUE(files) << files.getStatus().message();
  if (!files)
    return {};
  EXPECT_FALSE(files->hasExternalData);
  return view(files->model.str());
}

std::string buildError(const std::vector<std::string> &outputs,
                       const std::vector<std::shared_ptr<Parameter>> &params = makeParameters()) {
  std::string templ = makeTemplate();
  Result<InferenceModelFiles> files = build(outputs, templ, params);
  EXPECT_FALSE(files);
  return files ? "" : files.getStatus().message();
}

//===----------------------------------------------------------------------===//
// Pruning
//===----------------------------------------------------------------------===//

TEST(OnnxExportTest, IntermediateOutputPrunesDownstreamNodes) {
  ModelView m = buildAndView({"r"});
  EXPECT_THAT(m.nodes, ElementsAre("mm", "add", "relu"));
  // labels, unused, cond and the parameters are not inputs any more.
  EXPECT_THAT(m.inputs, ElementsAre("x"));
  EXPECT_THAT(m.outputs, ElementsAre("r"));
  // Parameters became initializers; C and K are read by no kept node.
  EXPECT_THAT(m.initializers, ElementsAre("W", "B"));
  // value_info of kept intermediates, not of the outputs.
  EXPECT_THAT(m.valueInfos, ElementsAre("h", "y"));
  // The output keeps its declared type (from value_info), filed as output.
  EXPECT_EQ(m.outputInfos["r"], valueInfo("r", kFloat, {"batch", "64"}).str());
}

TEST(OnnxExportTest, ParametersHoldCurrentValues) {
  std::vector<std::shared_ptr<Parameter>> params = makeParameters();
  params[0]->data.data<float>()[5] = 42.0f; // "after training"
  ModelView m = buildAndView({"y"}, params);
  ASSERT_EQ(m.initializerBytes.count("W"), 1u);
  std::vector<Field> fields = parseOk(m.initializerBytes["W"]);
  std::vector<uint64_t> dims;
  std::string raw;
  uint64_t dataType = 0;
  for (const Field &field : fields) {
    if (field.number == 1) dims.push_back(field.value);
    if (field.number == 2) dataType = field.value;
    if (field.number == 9) raw = std::string(field.bytes());
    EXPECT_NE(field.number, 14u); // not external
  }
  EXPECT_THAT(dims, ElementsAre(64u, 16u));
  EXPECT_EQ(dataType, 1u);
  ASSERT_EQ(raw.size(), 64u * 16u * 4u);
  EXPECT_EQ(std::memcmp(raw.data(), params[0]->data.data(), raw.size()), 0);
  float fifth;
  std::memcpy(&fifth, raw.data() + 5 * 4, 4);
  EXPECT_EQ(fifth, 42.0f);
}

TEST(OnnxExportTest, ValueReadBySeveralNodesKeepsItsProducerOnce) {
  // y feeds relu (-> out) and neg (-> dead): add is kept once, both branches.
  ModelView m = buildAndView({"out", "dead"});
  EXPECT_THAT(m.nodes, ElementsAre("mm", "add", "relu", "mul", "neg"));
  EXPECT_THAT(m.outputs, ElementsAre("out", "dead"));
  EXPECT_THAT(m.initializers, ElementsAre("C", "W", "B"));
  EXPECT_THAT(m.valueInfos, ElementsAre("h", "y", "r"));
}

TEST(OnnxExportTest, NodeWithSeveralOutputsIsKeptWhole) {
  ModelView m = buildAndView({"extra"});
  EXPECT_THAT(m.nodes, ElementsAre("mm", "add", "relu", "loss"));
  EXPECT_THAT(m.inputs, ElementsAre("x", "labels"));
  // The other output of the kept node stays described.
  EXPECT_THAT(m.valueInfos, ElementsAre("h", "y", "r", "loss"));
}

TEST(OnnxExportTest, OutputsInTheOrderAsked) {
  ModelView m = buildAndView({"loss", "r", "h"});
  EXPECT_THAT(m.outputs, ElementsAre("loss", "r", "h"));
  EXPECT_THAT(m.valueInfos, ElementsAre("y", "extra"));
  EXPECT_EQ(m.outputInfos["loss"], valueInfo("loss", kFloat, {}).str());
}

TEST(OnnxExportTest, OutputThatIsAGraphInputStaysAnInput) {
  ModelView m = buildAndView({"x"});
  EXPECT_TRUE(m.nodes.empty());
  EXPECT_THAT(m.inputs, ElementsAre("x"));
  EXPECT_THAT(m.outputs, ElementsAre("x"));
  EXPECT_TRUE(m.initializers.empty());
  EXPECT_EQ(m.outputInfos["x"], valueInfo("x", kFloat, {"batch", "16"}).str());
}

TEST(OnnxExportTest, OutputThatIsAParameterIsAnInitializer) {
  ModelView m = buildAndView({"W"});
  EXPECT_TRUE(m.nodes.empty());
  EXPECT_TRUE(m.inputs.empty());
  EXPECT_THAT(m.initializers, ElementsAre("W"));
  EXPECT_THAT(m.outputs, ElementsAre("W"));
  EXPECT_EQ(m.outputInfos["W"], valueInfo("W", kFloat, {"64", "16"}).str());
}

TEST(OnnxExportTest, OutputThatIsAnInitializerGetsItsType) {
  ModelView m = buildAndView({"K"});
  EXPECT_TRUE(m.nodes.empty());
  EXPECT_THAT(m.initializers, ElementsAre("K"));
  EXPECT_EQ(m.outputInfos["K"], valueInfo("K", kFloat, {"2"}).str());
}

TEST(OnnxExportTest, SubgraphReadsOfOuterValuesKeepTheirProducers) {
  ModelView m = buildAndView({"sub"});
  EXPECT_THAT(m.nodes, ElementsAre("mm", "add", "if"));
  EXPECT_THAT(m.inputs, ElementsAre("x", "cond"));
  EXPECT_THAT(m.initializers, ElementsAre("W", "B"));
  // No type is known for "sub": the output is its name alone.
  EXPECT_EQ(m.outputInfos["sub"], [] {
    Writer bare;
    bare.bytes(1, "sub");
    return bare.str();
  }());
}

TEST(OnnxExportTest, OtherFieldsAreKept) {
  ModelView m = buildAndView({"r"});
  std::vector<uint32_t> numbers;
  for (auto &[number, bytes] : m.modelFields)
    numbers.push_back(number);
  EXPECT_THAT(numbers, ElementsAre(1u, 2u, 8u, 7u, 6u));
  EXPECT_EQ(m.modelFields[1].second, "pytorch");
  EXPECT_EQ(m.modelFields[4].second, "the model's doc");
  EXPECT_EQ(m.graphName, "main_graph");
  EXPECT_EQ(m.graphDoc, "the graph's doc");
}

TEST(OnnxExportTest, UnusedParametersNeedNotBeGiven) {
  // Only x -> nothing: neither W nor B is read.
  ModelView m = buildAndView({"x"}, {});
  EXPECT_TRUE(m.initializers.empty());
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(OnnxExportTest, Errors) {
  EXPECT_THAT(buildError({}), HasSubstr("no output names given"));
  std::string unknown = buildError({"r", "logits"});
  EXPECT_THAT(unknown, HasSubstr("'logits' is not a value of the eval graph"));
  EXPECT_THAT(unknown, HasSubstr("the graph's outputs are 'loss'"));
  EXPECT_THAT(buildError({""}), HasSubstr("'' is not a value"));
  EXPECT_THAT(buildError({"r", "r"}), HasSubstr("output 'r' is named twice"));

  std::vector<std::shared_ptr<Parameter>> params = makeParameters();
  EXPECT_THAT(buildError({"r"}, {params[0]}),
              HasSubstr("reads parameter 'B', which is not among the parameters given"));

  std::vector<std::shared_ptr<Parameter>> nominal = makeParameters();
  nominal[1]->data = Tensor();
  EXPECT_THAT(buildError({"r"}, nominal),
              HasSubstr("parameter 'B' has no data (the checkpoint state is nominal)"));
  // Nominal is an error even for a parameter the outputs do not need (ORT
  // refuses to export a nominal state).
  EXPECT_THAT(buildError({"x"}, nominal), HasSubstr("parameter 'B' has no data"));

  std::vector<std::shared_ptr<Parameter>> wrongShape = makeParameters();
  wrongShape[0] = makeParameter("W", {16, 64}, 0.0f);
  EXPECT_THAT(buildError({"r"}, wrongShape),
              HasSubstr("parameter 'W' has shape [16, 64], the eval graph declares [64, 16]"));

  std::vector<std::shared_ptr<Parameter>> wrongType = makeParameters();
  wrongType[1]->data = Tensor::zeros(DataType::Double, {64});
  EXPECT_THAT(buildError({"r"}, wrongType),
              HasSubstr("parameter 'B' is float64, the eval graph declares float32"));
}

TEST(OnnxExportTest, MalformedTemplatesAreErrors) {
  std::vector<std::shared_ptr<Parameter>> params = makeParameters();
  auto error = [&](const std::string &templ,
                   const std::vector<std::string> &outputs = {"r"}) {
    Result<InferenceModelFiles> files = build(outputs, templ, params);
    EXPECT_FALSE(files);
    return files ? "" : files.getStatus().message();
  };
  EXPECT_THAT(error(""), HasSubstr("the model has no graph"));
  EXPECT_THAT(error("garbage!"), HasSubstr("malformed"));
  Writer twoGraphs;
  twoGraphs.bytes(7, "");
  twoGraphs.bytes(7, "");
  EXPECT_THAT(error(twoGraphs.str()), HasSubstr("exactly one graph"));
  Writer badGraph;
  badGraph.bytes(7, std::string("\x0a\x09", 2));
  EXPECT_THAT(error(badGraph.str()), HasSubstr("malformed GraphProto"));
  // A marked parameter that is not a graph input.
  Writer graph;
  graph.message(11, valueInfo("x", kFloat, {"2"}));
  graph.message(12, valueInfo("x", kFloat, {"2"}));
  Writer model;
  model.message(7, std::move(graph));
  EXPECT_THAT(error(model.str(), {"x"}), HasSubstr("parameter 'W' is not a graph input"));
}

TEST(OnnxExportTest, CorruptTemplatesNeverCrash) {
  // Every truncation and many random byte flips of a valid template: each
  // either exports or fails with a message.
  std::string templ = makeTemplate();
  std::vector<std::shared_ptr<Parameter>> params = makeParameters();
  for (size_t length = 0; length < templ.size(); length += 7) {
    Result<InferenceModelFiles> files = build({"r"}, templ.substr(0, length), params);
    if (!files)
      EXPECT_FALSE(files.getStatus().message().empty());
  }
  std::mt19937 random(20240923);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string corrupt = templ;
    for (int flips = 0; flips < 3; ++flips)
      corrupt[random() % corrupt.size()] = static_cast<char>(random() & 0xff);
    Result<InferenceModelFiles> files = build({"loss", "sub"}, corrupt, params);
    if (!files)
      EXPECT_FALSE(files.getStatus().message().empty());
  }
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

struct ExternalEntry {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool external = false;
  bool hasRawData = false;
};

ExternalEntry externalEntry(const std::string &tensor) {
  ExternalEntry entry;
  for (const Field &field : parseOk(tensor)) {
    if (field.number == 9)
      entry.hasRawData = true;
    if (field.number == 14)
      entry.external = field.value == 1;
    if (field.number != 13)
      continue;
    std::string key, value;
    for (const Field &kv : parseOk(std::string(field.bytes())))
      (kv.number == 1 ? key : value) = std::string(kv.bytes());
    if (key == "location")
      entry.location = value;
    else if (key == "offset")
      entry.offset = std::stoull(value);
    else if (key == "length")
      entry.length = std::stoull(value);
  }
  return entry;
}

TEST(OnnxExportTest, ExternalDataAboveTheThreshold) {
  std::string templ = makeTemplate();
  std::vector<std::shared_ptr<Parameter>> params = makeParameters();
  // Below the threshold: everything inline.
  Result<InferenceModelFiles> inlined = build({"out", "scaled"}, templ, params, 1u << 20);
  ASSERT_TRUE(inlined) << inlined.getStatus().message();
  EXPECT_FALSE(inlined->hasExternalData);
  EXPECT_EQ(inlined->data.size(), 0u);

  Result<InferenceModelFiles> files = build({"out", "scaled"}, templ, params, 1000);
  ASSERT_TRUE(files) << files.getStatus().message();
  EXPECT_TRUE(files->hasExternalData);
  ModelView m = view(files->model.str());
  EXPECT_THAT(m.initializers, ElementsAre("C", "K", "W", "B"));
  std::string data = files->data.str();

  // W (4096 bytes) and C (4096 bytes) go out, page-aligned; B (256) and K (8)
  // stay inline (under kExportExternalDataMinBytes).
  ExternalEntry c = externalEntry(m.initializerBytes["C"]);
  ExternalEntry w = externalEntry(m.initializerBytes["W"]);
  for (const ExternalEntry *entry : {&c, &w}) {
    EXPECT_TRUE(entry->external);
    EXPECT_FALSE(entry->hasRawData);
    EXPECT_EQ(entry->location, "model.onnx.data");
    EXPECT_EQ(entry->length, 4096u);
    EXPECT_EQ(entry->offset % kExportExternalDataAlignment, 0u);
    ASSERT_LE(entry->offset + entry->length, data.size());
  }
  EXPECT_EQ(c.offset, 0u);
  EXPECT_EQ(w.offset, 4096u);
  EXPECT_EQ(data.substr(c.offset, c.length), std::string(4096, '\x07'));
  EXPECT_EQ(std::memcmp(data.data() + w.offset, params[0]->data.data(), 4096), 0);
  EXPECT_FALSE(externalEntry(m.initializerBytes["B"]).external);
  EXPECT_TRUE(externalEntry(m.initializerBytes["B"]).hasRawData);
  EXPECT_FALSE(externalEntry(m.initializerBytes["K"]).external);
  // The rest of C's TensorProto is kept: dims, data_type, name.
  std::vector<uint32_t> numbers;
  for (const Field &field : parseOk(m.initializerBytes["C"]))
    numbers.push_back(field.number);
  EXPECT_THAT(numbers, ElementsAre(1u, 2u, 8u, 13u, 13u, 13u, 14u));
}

//===----------------------------------------------------------------------===//
// exportInferenceModel: a CompiledModel from a descriptor built here
//===----------------------------------------------------------------------===//

class TempDir {
public:
  TempDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::string(ODT_TEST_TMP_DIR) + "/" + info->test_suite_name() + "." +
           info->name() + "." + std::to_string(::getpid());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string file(const std::string &name) const { return path + "/" + name; }
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto &entry : fs::directory_iterator(path))
      names.insert(entry.path().filename().string());
    return names;
  }
  std::string path;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::shared_ptr<CompiledModel> modelWithTemplate(bool withTemplate) {
  flatbuffers::FlatBufferBuilder fbb;
  std::string templ = makeTemplate();
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> evalModel;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> names;
  if (withTemplate) {
    evalModel = fbb.CreateVector(reinterpret_cast<const uint8_t *>(templ.data()),
                                 templ.size());
    names = fbb.CreateVectorOfStrings(kTemplateParameters);
  }
  auto model = fb::CreateModel(fbb, kModelABIVersion, fbb.CreateString("test"),
                               fbb.CreateString("odt_model"), 0, 0, 0, evalModel,
                               names);
  fb::FinishModelBuffer(fbb, model);
  auto resolve = [](void *, const char *) -> void * { return nullptr; };
  Result<std::shared_ptr<CompiledModel>> compiled = CompiledModel::fromDescriptor(
      fbb.GetBufferPointer(), fbb.GetSize(), resolve, nullptr, "test-model");
  EXPECT_TRUE(compiled) << compiled.getStatus().message();
  return compiled ? *compiled : nullptr;
}

TEST(OnnxExportFileTest, WritesTheModel) {
  TempDir dir;
  std::shared_ptr<CompiledModel> model = modelWithTemplate(true);
  ASSERT_TRUE(model);
  // The descriptor's bytes were copied: the builder is gone.
  EXPECT_EQ(model->evalModelTemplate().size(), makeTemplate().size());
  EXPECT_EQ(model->evalModelParameters(), kTemplateParameters);
  std::string path = dir.file("model.onnx");
  Status status = exportInferenceModel(*model, makeParameters(), path, {"r"});
  ASSERT_TRUE(status) << status.message();
  EXPECT_EQ(dir.entries(), std::set<std::string>{"model.onnx"});
  ModelView m = view(readFile(path));
  EXPECT_THAT(m.outputs, ElementsAre("r"));
  EXPECT_THAT(m.initializers, ElementsAre("W", "B"));
}

TEST(OnnxExportFileTest, WritesExternalDataNextToTheModel) {
  TempDir dir;
  std::shared_ptr<CompiledModel> model = modelWithTemplate(true);
  ASSERT_TRUE(model);
  std::string path = dir.file("m.onnx");
  std::vector<std::shared_ptr<Parameter>> params = makeParameters();
  Status status = exportInferenceModel(*model, params, path, {"r"}, 100);
  ASSERT_TRUE(status) << status.message();
  EXPECT_EQ(dir.entries(), (std::set<std::string>{"m.onnx", "m.onnx.data"}));
  ModelView m = view(readFile(path));
  ExternalEntry w = externalEntry(m.initializerBytes["W"]);
  EXPECT_EQ(w.location, "m.onnx.data");
  std::string data = readFile(path + ".data");
  ASSERT_LE(w.offset + w.length, data.size());
  EXPECT_EQ(std::memcmp(data.data() + w.offset, params[0]->data.data(), w.length), 0);
}

TEST(OnnxExportFileTest, Errors) {
  TempDir dir;
  std::shared_ptr<CompiledModel> bare = modelWithTemplate(false);
  ASSERT_TRUE(bare);
  Status none = exportInferenceModel(*bare, makeParameters(), dir.file("a.onnx"), {"r"});
  ASSERT_FALSE(none);
  EXPECT_THAT(none.message(), HasSubstr("'test-model' has no eval graph to export"));

  std::shared_ptr<CompiledModel> model = modelWithTemplate(true);
  ASSERT_TRUE(model);
  Status unwritable = exportInferenceModel(*model, makeParameters(),
                                           dir.file("no/such/dir/a.onnx"), {"r"});
  ASSERT_FALSE(unwritable);
  EXPECT_THAT(unwritable.message(), HasSubstr("cannot write inference model"));
  EXPECT_THAT(unwritable.message(), HasSubstr("No such file or directory"));

  Status unknown = exportInferenceModel(*model, makeParameters(), dir.file("a.onnx"),
                                        {"nope"});
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.message(), HasSubstr("exporting '" + dir.file("a.onnx") + "'"));
  EXPECT_THAT(unknown.message(), HasSubstr("'nope' is not a value of the eval graph"));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(OnnxExportFileTest, FailedWriteLeavesOldFilesUntouched) {
  TempDir dir;
  std::shared_ptr<CompiledModel> model = modelWithTemplate(true);
  ASSERT_TRUE(model);
  std::string path = dir.file("m.onnx");
  std::ofstream(path) << "old model";
  std::ofstream(path + ".data") << "old data";
  // Fail in the .data file, then in the model file after the .data file is
  // complete: neither replaces anything, no temporary file is left.
  for (int64_t bytes : {int64_t(10), int64_t(8192 + 100)}) {
    testing::setWriteFailureAfterBytes(bytes);
    Status status = exportInferenceModel(*model, makeParameters(), path, {"out"}, 100);
    testing::setWriteFailureAfterBytes(-1);
    ASSERT_FALSE(status);
    EXPECT_THAT(status.message(), HasSubstr("No space left on device"));
    EXPECT_EQ(readFile(path), "old model");
    EXPECT_EQ(readFile(path + ".data"), "old data");
    EXPECT_EQ(dir.entries(), (std::set<std::string>{"m.onnx", "m.onnx.data"}));
  }
  ASSERT_TRUE(exportInferenceModel(*model, makeParameters(), path, {"out"}, 100));
  EXPECT_NE(readFile(path), "old model");
}

} // namespace
} // namespace odt
