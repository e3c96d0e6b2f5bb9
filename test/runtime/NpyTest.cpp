// .npy reading and writing: round trips of every dtype, files laid out as
// NumPy writes them (built here byte by byte), and malformed files.

#include "Npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <unistd.h>

namespace odt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TempDir {
public:
  TempDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::string(ODT_TEST_TMP_DIR) + "/" + info->test_suite_name() + "." + info->name() +
           "." + std::to_string(::getpid());
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

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeText(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// A .npy file as NumPy lays it out: magic, version, little-endian header
/// length, header padded with spaces to `alignment` and ended by '\n', data.
std::string npyBytes(const std::string &dict, const std::string &data, int major = 1,
                     size_t alignment = 64) {
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = (prefix + dict.size() + 1 + alignment - 1) / alignment * alignment;
  size_t headerLength = total - prefix;
  std::string bytes = std::string("\x93NUMPY", 6) + char(major) + char(0);
  for (size_t i = 0; i < prefix - 8; ++i)
    bytes += char((headerLength >> (8 * i)) & 0xff);
  bytes += dict + std::string(total - prefix - dict.size() - 1, ' ') + "\n";
  return bytes + data;
}

template <typename T> std::string rawBytes(std::initializer_list<T> values) {
  std::string bytes;
  for (T value : values)
    bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
  return bytes;
}

Result<Tensor> readFromText(const std::string &bytes) {
  return readNpyFromBuffer(bytes.data(), bytes.size(), "test.npy");
}

Tensor patterned(DataType type, Shape shape) {
  Tensor tensor = Tensor::zeros(type, std::move(shape));
  auto *bytes = tensor.data<uint8_t>();
  for (size_t i = 0; i < tensor.byteSize(); ++i)
    bytes[i] = type == DataType::Bool ? uint8_t(i % 3 == 0) : uint8_t(i * 13 + 1);
  return tensor;
}

void expectSameTensor(const Tensor &a, const Tensor &b) {
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.byteSize(), b.byteSize());
  if (a.byteSize()) {
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
  }
}

TEST(NpyTest, RoundTripEveryDtype) {
  TempDir dir;
  const std::pair<DataType, const char *> types[] = {
      {DataType::Float, "<f4"},  {DataType::Double, "<f8"}, {DataType::Float16, "<f2"},
      {DataType::Int8, "|i1"},   {DataType::Int16, "<i2"},  {DataType::Int32, "<i4"},
      {DataType::Int64, "<i8"},  {DataType::UInt8, "|u1"},  {DataType::UInt16, "<u2"},
      {DataType::UInt32, "<u4"}, {DataType::UInt64, "<u8"}, {DataType::Bool, "|b1"},
      {DataType::BFloat16, "<V2"},
  };
  for (const auto &[type, descr] : types) {
    SCOPED_TRACE(descr);
    EXPECT_EQ(npyDescr(type), descr);
    Tensor tensor = patterned(type, {2, 3});
    std::string path = dir.file(std::string("t") + descr + ".npy");
    Status written = writeNpy(path, tensor);
    ASSERT_TRUE(written.isOk()) << written.message();

    std::string bytes = readText(path);
    ASSERT_GE(bytes.size(), 10u);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    size_t headerLength = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
    EXPECT_EQ((10 + headerLength) % 64, 0u);
    EXPECT_EQ(bytes[10 + headerLength - 1], '\n');
    std::string dict =
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2, 3), }";
    EXPECT_EQ(bytes.substr(10, dict.size()), dict);
    EXPECT_EQ(bytes.size(), 10 + headerLength + tensor.byteSize());

    Result<Tensor> read = readNpy(path);
    ASSERT_TRUE(read.isOk()) << read.getStatus().message();
    expectSameTensor(tensor, *read);
  }
  EXPECT_EQ(dir.entries().size(), 13u); // no temporary files left behind
}

TEST(NpyTest, RoundTripShapes) {
  TempDir dir;
  for (const Shape &shape : {Shape{}, Shape{7}, Shape{2, 3, 4}, Shape{0, 3}, Shape{1, 1, 1, 1, 5}}) {
    SCOPED_TRACE(formatShape(shape));
    Tensor tensor = patterned(DataType::Float, shape);
    std::string path = dir.file("shape.npy");
    ASSERT_TRUE(writeNpy(path, tensor).isOk());
    Result<Tensor> read = readNpy(path);
    ASSERT_TRUE(read.isOk()) << read.getStatus().message();
    expectSameTensor(tensor, *read);
  }
  // The header spells shapes as NumPy does.
  Tensor scalar = Tensor::zeros(DataType::Double, {});
  scalar.data<double>()[0] = 2.5;
  ASSERT_TRUE(writeNpy(dir.file("scalar.npy"), scalar).isOk());
  EXPECT_THAT(readText(dir.file("scalar.npy")), HasSubstr("'shape': (), }"));
  Result<Tensor> read = readNpy(dir.file("scalar.npy"));
  ASSERT_TRUE(read.isOk());
  EXPECT_EQ(read->rank(), 0);
  EXPECT_EQ(read->size(), 1);
  EXPECT_EQ(read->data<double>()[0], 2.5);
  ASSERT_TRUE(writeNpy(dir.file("vector.npy"), patterned(DataType::Int32, {5})).isOk());
  EXPECT_THAT(readText(dir.file("vector.npy")), HasSubstr("'shape': (5,), }"));
}

TEST(NpyTest, ReadsNumPyVersion1File) {
  // np.save of np.arange(6, dtype=np.float32).reshape(2, 3) (NumPy >= 1.?:
  // header padded to 64 bytes).
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string header = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict +
                       std::string(58, ' ') + "\n";
  ASSERT_EQ(header.size(), 128u);
  EXPECT_EQ(header, npyBytes(dict, ""));
  std::string bytes = header + rawBytes<float>({0, 1, 2, 3, 4, 5});
  Result<Tensor> read = readFromText(bytes);
  ASSERT_TRUE(read.isOk()) << read.getStatus().message();
  EXPECT_EQ(read->dtype(), DataType::Float);
  EXPECT_EQ(read->shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(read->data<float>()[i], float(i));

  // The same through a file.
  TempDir dir;
  writeText(dir.file("numpy.npy"), bytes);
  Result<Tensor> fromFile = readNpy(dir.file("numpy.npy"));
  ASSERT_TRUE(fromFile.isOk()) << fromFile.getStatus().message();
  expectSameTensor(*read, *fromFile);
}

TEST(NpyTest, ReadsOlderAndOtherHeaderSpellings) {
  // Older NumPy padded headers to 16 bytes.
  Result<Tensor> old = readFromText(
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
               rawBytes<int64_t>({-1, 0, 1}), 1, 16));
  ASSERT_TRUE(old.isOk()) << old.getStatus().message();
  EXPECT_EQ(old->dtype(), DataType::Int64);
  EXPECT_EQ(old->shape(), (Shape{3}));
  EXPECT_EQ(old->data<int64_t>()[0], -1);

  // Python 2 longs.
  Result<Tensor> longs = readFromText(npyBytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 1L), }", rawBytes<double>({1.5, 2.5})));
  ASSERT_TRUE(longs.isOk()) << longs.getStatus().message();
  EXPECT_EQ(longs->shape(), (Shape{2, 1}));

  // Any key order, double quotes, no trailing comma, '=' byte order, extra spaces.
  Result<Tensor> reordered = readFromText(npyBytes(
      "{ \"shape\" : ( 4 , ) , \"fortran_order\": False,'descr':'=u2' }", rawBytes<uint16_t>({1, 2, 3, 4})));
  ASSERT_TRUE(reordered.isOk()) << reordered.getStatus().message();
  EXPECT_EQ(reordered->dtype(), DataType::UInt16);
  EXPECT_EQ(reordered->shape(), (Shape{4}));
  EXPECT_EQ(reordered->data<uint16_t>()[3], 4);

  // Scalars, bools and half floats.
  Result<Tensor> scalar = readFromText(
      npyBytes("{'descr': '<f2', 'fortran_order': False, 'shape': (), }", rawBytes<uint16_t>({0x3c00})));
  ASSERT_TRUE(scalar.isOk()) << scalar.getStatus().message();
  EXPECT_EQ(scalar->dtype(), DataType::Float16);
  EXPECT_EQ(scalar->rank(), 0);
  Result<Tensor> bools =
      readFromText(npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                            std::string("\x01\x00", 2)));
  ASSERT_TRUE(bools.isOk()) << bools.getStatus().message();
  EXPECT_EQ(bools->dtype(), DataType::Bool);
  Result<Tensor> bytes =
      readFromText(npyBytes("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", "abc"));
  ASSERT_TRUE(bytes.isOk()) << bytes.getStatus().message();
  EXPECT_EQ(bytes->dtype(), DataType::Int8);
}

TEST(NpyTest, ReadsVersion2And3Headers) {
  for (int major : {2, 3}) {
    SCOPED_TRACE(major);
    std::string bytes = npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                                 rawBytes<int32_t>({1, -2, 3, -4}), major);
    ASSERT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY", 6) + char(major) + char(0));
    ASSERT_EQ((12 + (uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8)) % 64, 0);
    Result<Tensor> read = readFromText(bytes);
    ASSERT_TRUE(read.isOk()) << read.getStatus().message();
    EXPECT_EQ(read->dtype(), DataType::Int32);
    EXPECT_EQ(read->shape(), (Shape{2, 2}));
    EXPECT_EQ(read->data<int32_t>()[3], -4);
  }
}

TEST(NpyTest, RejectsFortranOrder) {
  std::string message =
      readFromText(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                            std::string(24, '\0')))
          .getStatus()
          .message();
  EXPECT_THAT(message, HasSubstr("test.npy: "));
  EXPECT_THAT(message, HasSubstr("Fortran-order"));
}

TEST(NpyTest, RejectsBigEndian) {
  Result<Tensor> read =
      readFromText(npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                            std::string(8, '\0')));
  ASSERT_FALSE(read.isOk());
  EXPECT_THAT(read.getStatus().message(), HasSubstr("big-endian data ('>f4') is not supported"));
  // One-byte types have no byte order to get wrong.
  EXPECT_TRUE(readFromText(npyBytes("{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }", "ab"))
                  .isOk());
}

TEST(NpyTest, RejectsTruncatedData) {
  TempDir dir;
  std::string path = dir.file("short.npy");
  writeText(path, npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                           std::string(20, '\0')));
  Result<Tensor> read = readNpy(path);
  ASSERT_FALSE(read.isOk());
  EXPECT_THAT(read.getStatus().message(), HasSubstr("npy file '" + path + "'"));
  EXPECT_THAT(read.getStatus().message(), HasSubstr("truncated"));
  EXPECT_THAT(read.getStatus().message(), HasSubstr("needs 24 bytes, found 20"));

  Result<Tensor> trailing = readFromText(
      npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", std::string(25, '\0')));
  ASSERT_FALSE(trailing.isOk());
  EXPECT_THAT(trailing.getStatus().message(), HasSubstr("trailing bytes"));

  // A header length that runs past the end of the file.
  std::string cut = npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", "");
  cut.resize(40);
  EXPECT_THAT(readFromText(cut).getStatus().message(), HasSubstr("truncated"));
}

TEST(NpyTest, RejectsBadMagicAndVersion) {
  EXPECT_THAT(readFromText("PK\x03\x04 not numpy at all").getStatus().message(),
              HasSubstr("bad magic"));
  EXPECT_THAT(readFromText("").getStatus().message(), HasSubstr("bad magic"));
  std::string future = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
                                std::string(4, '\0'));
  future[6] = 4;
  EXPECT_THAT(readFromText(future).getStatus().message(), HasSubstr("unsupported .npy format version 4.0"));
}

TEST(NpyTest, RejectsMalformedHeaders) {
  const std::pair<const char *, const char *> cases[] = {
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "unsupported dtype '<c8'"},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "unsupported dtype '|O'"},
      {"{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }", "no byte order"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "structured"},
      {"{'descr': '<f4', 'shape': (1,), }", "lacks"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': 3, }", "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", "not True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,) ", "malformed header"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", "malformed header"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "appears twice"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}",
       "too large"},
      {"", "malformed header"},
  };
  for (const auto &[dict, expected] : cases) {
    SCOPED_TRACE(dict);
    Result<Tensor> read = readFromText(npyBytes(dict, std::string(4, '\0')));
    ASSERT_FALSE(read.isOk());
    EXPECT_THAT(read.getStatus().message(), HasSubstr(expected));
  }
}

TEST(NpyTest, CorruptedBytesNeverCrash) {
  std::string original = npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
                                  std::string(24, '\x05'));
  std::mt19937 random(7);
  int failures = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string bytes = original;
    int flips = 1 + int(random() % 3);
    for (int i = 0; i < flips; ++i)
      bytes[random() % 128] ^= char(1 + random() % 255); // magic, length and header
    if (random() % 4 == 0)
      bytes.resize(random() % bytes.size());
    Result<Tensor> read = readFromText(bytes);
    if (!read.isOk()) {
      ++failures;
      EXPECT_THAT(read.getStatus().message(), HasSubstr("test.npy: "));
    } else {
      EXPECT_EQ(read->byteSize() + 128, bytes.size());
    }
  }
  EXPECT_GT(failures, 0);
}

TEST(NpyTest, MissingFile) {
  std::string path = std::string(ODT_TEST_TMP_DIR) + "/no/such/file.npy";
  Result<Tensor> read = readNpy(path);
  ASSERT_FALSE(read.isOk());
  EXPECT_EQ(read.getStatus().message(),
            "cannot open npy file '" + path + "': No such file or directory");
}

TEST(NpyTest, ReadsBFloat16AsMlDtypesAndNumPySaveIt) {
  // np.save(f, np.array([1.5, -2.25], dtype=ml_dtypes.bfloat16)) writes
  // '<V2'; np.save of the same bits viewed as np.dtype('V2') writes '|V2'.
  for (const char *descr : {"<V2", "|V2"}) {
    SCOPED_TRACE(descr);
    std::string dict =
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }";
    Result<Tensor> read = readFromText(npyBytes(dict, rawBytes<uint16_t>({0x3fc0, 0xc010})));
    ASSERT_TRUE(read.isOk()) << read.getStatus().message();
    EXPECT_EQ(read->dtype(), DataType::BFloat16);
    EXPECT_EQ(read->shape(), (Shape{2}));
    EXPECT_EQ(read->data<uint16_t>()[0], 0x3fc0); // 1.5
    EXPECT_EQ(read->data<uint16_t>()[1], 0xc010); // -2.25
  }
  // Other void sizes are not bfloat16.
  Result<Tensor> other =
      readFromText(npyBytes("{'descr': '<V4', 'fortran_order': False, 'shape': (1,), }",
                            rawBytes<uint32_t>({0})));
  ASSERT_FALSE(other.isOk());
  EXPECT_THAT(other.getStatus().message(), HasSubstr("unsupported dtype '<V4'"));
}

TEST(NpyTest, WriteErrors) {
  TempDir dir;
  Status status = writeNpy(dir.file("text.npy"), Tensor::zeros(DataType::String, {2}));
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("no dtype for string"));
  status = writeNpy(dir.file("empty.npy"), Tensor());
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("'" + dir.file("empty.npy") + "'"));
  status = writeNpy(dir.file("missing/x.npy"), Tensor::zeros(DataType::Float, {2}));
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("No such file or directory"));
  EXPECT_TRUE(dir.entries().empty());
}

} // namespace
} // namespace odt
