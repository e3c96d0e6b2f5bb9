//===- ParallelCodegen.cpp - one object from parts compiled on threads ----===//
//
// LLVM's optimizer and instruction selection take most of a compilation and
// run on one function at a time, so the module is cut into parts that are
// optimized and emitted on the driver's threads, and the part objects are
// linked into the one relocatable object users link (lld -r).
//
// The cut: every defined function or variable starts as its own cluster; a
// local symbol used from one function only (a parallel body called from its
// task, a constant read by one kernel) joins that function's cluster, so the
// inliner and constant folding see it, unless it is a function whose address
// is taken (a task handed to the thread pool); every other local symbol
// becomes a
// hidden global named `<prefix>.<name>` (a name no C symbol can have, so it
// cannot collide with the application's own symbols; the shared library
// keeps hidden symbols local). Clusters go, largest first, to the smallest
// part. The number of parts follows the code's size, not the machine, so the
// object is the same whatever the thread count.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/CPUBackend.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Pass.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <map>

namespace odt {

namespace {

/// Instructions per part below which a module is not cut further: a part
/// costs a bitcode round trip and its declarations.
constexpr size_t kInstructionsPerPart = 4000;
/// The most parts a module is cut into.
constexpr unsigned kMaxParts = 8;

/// The functions that use `value`, looking through constant expressions.
void collectUsingFunctions(const llvm::Value *value,
                           llvm::SmallPtrSetImpl<const llvm::Function *> &out,
                           bool &usedOutsideFunctions) {
  for (const llvm::User *user : value->users()) {
    if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(user))
      out.insert(instruction->getFunction());
    else if (llvm::isa<llvm::Constant>(user) &&
             !llvm::isa<llvm::GlobalValue>(user))
      collectUsingFunctions(user, out, usedOutsideFunctions);
    else
      usedOutsideFunctions = true; // a global's initializer, an alias
  }
}

/// Assigns every defined symbol of `module` a part in [0, parts); makes the
/// symbols used across clusters hidden globals named `<prefix>.<name>`.
std::map<const llvm::GlobalValue *, unsigned>
assignParts(llvm::Module &module, unsigned parts, const std::string &prefix) {
  llvm::EquivalenceClasses<const llvm::GlobalValue *> clusters;
  std::vector<llvm::GlobalValue *> defined;
  for (llvm::GlobalValue &value : module.global_values())
    if (!value.isDeclaration()) {
      defined.push_back(&value);
      clusters.insert(&value);
    }
  for (llvm::GlobalValue *value : defined) {
    if (!value->hasLocalLinkage())
      continue;
    llvm::SmallPtrSet<const llvm::Function *, 4> users;
    bool usedOutsideFunctions = false;
    collectUsingFunctions(value, users, usedOutsideFunctions);
    // A function whose address is taken (a parallel loop's task, handed to
    // the thread pool) gains nothing from its user's part (nothing inlines
    // through a pointer); keeping every task with its entry point put
    // nearly all of a model's code in one part (resnet18_cifar: 1.9 s of
    // 2.7 in one part of eight).
    auto *function = llvm::dyn_cast<llvm::Function>(value);
    if (!usedOutsideFunctions && users.size() == 1 &&
        !(function && function->hasAddressTaken())) {
      clusters.unionSets(value, *users.begin());
      continue;
    }
    value->setLinkage(llvm::GlobalValue::ExternalLinkage);
    value->setVisibility(llvm::GlobalValue::HiddenVisibility);
    value->setName(prefix + "." + value->getName());
  }

  // Cluster sizes in instructions (variables count as one), then largest
  // first onto the smallest part; ties by the leader's name keep it
  // deterministic.
  struct Cluster {
    const llvm::GlobalValue *leader;
    size_t size = 0;
  };
  std::map<const llvm::GlobalValue *, Cluster> byLeader;
  for (llvm::GlobalValue *value : defined) {
    const llvm::GlobalValue *leader = clusters.getLeaderValue(value);
    Cluster &cluster = byLeader[leader];
    cluster.leader = leader;
    if (auto *function = llvm::dyn_cast<llvm::Function>(value))
      cluster.size += function->getInstructionCount();
    else
      cluster.size += 1;
  }
  std::vector<Cluster> ordered;
  for (auto &[leader, cluster] : byLeader)
    ordered.push_back(cluster);
  std::sort(ordered.begin(), ordered.end(),
            [](const Cluster &a, const Cluster &b) {
              if (a.size != b.size)
                return a.size > b.size;
              return a.leader->getName() < b.leader->getName();
            });
  std::vector<size_t> partSize(parts, 0);
  std::map<const llvm::GlobalValue *, unsigned> partOfLeader;
  for (const Cluster &cluster : ordered) {
    unsigned smallest =
        std::min_element(partSize.begin(), partSize.end()) - partSize.begin();
    partOfLeader[cluster.leader] = smallest;
    partSize[smallest] += cluster.size;
  }
  std::map<const llvm::GlobalValue *, unsigned> partOf;
  for (llvm::GlobalValue *value : defined)
    partOf[value] = partOfLeader[clusters.getLeaderValue(value)];
  return partOf;
}

/// Optimizes and emits one part given as bitcode, in a context of its own.
bool compilePart(llvm::StringRef bitcode, const CodegenTarget &target,
                 std::string &object, std::string &error) {
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> part =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "part"), context);
  if (!part) {
    error = "internal error: reading a code part back: " +
            llvm::toString(part.takeError());
    return false;
  }
  // A target machine per thread: its passes keep state.
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, error);
  if (!machine)
    return false;
  optimizeModule(**part, *machine);
  return emitObject(**part, /*assembly=*/false, *machine, object, error);
}

/// Joins the part objects into one relocatable object, through files in a
/// temporary folder (lld reads files).
bool joinParts(const std::vector<std::string> &objects, std::string &combined,
               std::string &error) {
  llvm::SmallString<128> folder;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("odt-codegen", folder)) {
    error = "cannot create a temporary folder: " + ec.message();
    return false;
  }
  auto join = [&]() {
    std::vector<std::string> paths;
    for (size_t i = 0; i < objects.size(); ++i) {
      llvm::SmallString<128> path(folder);
      llvm::sys::path::append(path, "part" + std::to_string(i) + ".o");
      std::error_code ec;
      llvm::raw_fd_ostream out(path, ec);
      if (!ec) {
        out << objects[i];
        out.close();
        if (out.has_error()) {
          ec = out.error();
          out.clear_error();
        }
      }
      if (ec) {
        error = "cannot write '" + path.str().str() + "': " + ec.message();
        return false;
      }
      paths.push_back(std::string(path));
    }
    llvm::SmallString<128> output(folder);
    llvm::sys::path::append(output, "model.o");
    if (!linkRelocatable(paths, std::string(output), error))
      return false;
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
        llvm::MemoryBuffer::getFile(output);
    if (!bytes) {
      error = "cannot read '" + output.str().str() +
              "': " + bytes.getError().message();
      return false;
    }
    combined = (*bytes)->getBuffer().str();
    return true;
  };
  bool joined = join();
  llvm::sys::fs::remove_directories(folder);
  return joined;
}

} // namespace

bool compileToObject(llvm::Module &module, const CodegenTarget &target,
                     const std::string &prefix, unsigned threads,
                     std::string &object, std::string &error,
                     CodegenSummary *summary) {
  // Checks the target and applies odt's code generation settings on this
  // thread, before any other starts.
  if (!getTargetMachine(target, error))
    return false;
  size_t instructions = 0;
  for (const llvm::Function &function : module)
    instructions += function.getInstructionCount();
  unsigned parts =
      std::clamp<size_t>(instructions / kInstructionsPerPart, 1, kMaxParts);
  if (!threads)
    threads = llvm::hardware_concurrency().compute_thread_count();
  threads = std::min(threads, parts);
  // --time-passes: one report of every part's passes, from one thread.
  if (llvm::TimePassesIsEnabled)
    threads = 1;
  if (summary)
    *summary = {instructions, parts, threads};

  if (parts == 1) {
    llvm::TargetMachine *machine = getTargetMachine(target, error);
    if (!machine)
      return false;
    optimizeModule(module, *machine);
    return emitObject(module, /*assembly=*/false, *machine, object, error);
  }

  std::map<const llvm::GlobalValue *, unsigned> partOf =
      assignParts(module, parts, prefix);
  std::vector<std::string> bitcodes(parts);
  for (unsigned part = 0; part < parts; ++part) {
    llvm::ValueToValueMapTy mapping;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(module, mapping, [&](const llvm::GlobalValue *value) {
          auto found = partOf.find(value);
          return found != partOf.end() && found->second == part;
        });
    llvm::raw_string_ostream stream(bitcodes[part]);
    llvm::WriteBitcodeToFile(*clone, stream);
  }

  std::vector<std::string> objects(parts), errors(parts);
  std::vector<char> succeeded(parts, 0);
  {
    // Largest first, so that no large part starts last while the other
    // threads have nothing left (parts take 0.1 to 0.7 s for
    // resnet18_cifar).
    std::vector<unsigned> order(parts);
    for (unsigned part = 0; part < parts; ++part)
      order[part] = part;
    std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
      if (bitcodes[a].size() != bitcodes[b].size())
        return bitcodes[a].size() > bitcodes[b].size();
      return a < b;
    });
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    for (unsigned part : order)
      pool.async([&, part]() {
        succeeded[part] =
            compilePart(bitcodes[part], target, objects[part], errors[part]);
      });
    pool.wait();
  }
  for (unsigned part = 0; part < parts; ++part)
    if (!succeeded[part]) {
      error = errors[part];
      return false;
    }
  return joinParts(objects, object, error);
}

} // namespace odt
