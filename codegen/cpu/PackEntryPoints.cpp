//===- PackEntryPoints.cpp - packed C wrappers for entry points -----------===//

#include "codegen/common/GPUKernelTable.h"
#include "codegen/cpu/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Threading.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_PACKENTRYPOINTS
#include "codegen/cpu/Passes.h.inc"

namespace {

constexpr StringLiteral kCInterfacePrefix = "_mlir_ciface_";

constexpr StringLiteral kAllocateHook = "_mlir_memref_to_llvm_alloc";
constexpr StringLiteral kReleaseHook = "_mlir_memref_to_llvm_free";

struct PackEntryPointsPass : impl::PackEntryPointsBase<PackEntryPointsPass> {
  using PackEntryPointsBase::PackEntryPointsBase;

  /// The function `name` of `type`: the module's, or a new external
  /// declaration.
  static LLVM::LLVMFuncOp getOrDeclare(ModuleOp module, OpBuilder &builder,
                                       StringRef name,
                                       LLVM::LLVMFunctionType type) {
    if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return func;
    builder.setInsertionPointToStart(module.getBody());
    return LLVM::LLVMFuncOp::create(builder, module.getLoc(), name, type);
  }

  /// Exported `void name(void *...)` that stores its arguments into the
  /// pointer globals `slots`, one each; null if `name` is taken.
  static LLVM::LLVMFuncOp createSlotSetter(ModuleOp module, OpBuilder &builder,
                                           StringRef name,
                                           ArrayRef<std::string> slots) {
    if (module.lookupSymbol(name)) {
      module.emitError() << "symbol '" << name << "' already exists";
      return nullptr;
    }
    MLIRContext *context = module.getContext();
    Location loc = module.getLoc();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    builder.setInsertionPointToEnd(module.getBody());
    auto setter = LLVM::LLVMFuncOp::create(
        builder, loc, name,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                    SmallVector<Type>(slots.size(), ptrType)));
    Block *body = setter.addEntryBlock(builder);
    builder.setInsertionPointToStart(body);
    for (auto [slot, value] : llvm::zip(slots, body->getArguments())) {
      Value address = LLVM::AddressOfOp::create(builder, loc, ptrType, slot);
      LLVM::StoreOp::create(builder, loc, value, address);
    }
    LLVM::ReturnOp::create(builder, loc, ValueRange{});
    return setter;
  }

  /// A pointer global initialized to the address of `target`.
  static void createPointerGlobal(ModuleOp module, OpBuilder &builder,
                                  StringRef name, StringRef target) {
    auto ptrType = LLVM::LLVMPointerType::get(builder.getContext());
    builder.setInsertionPointToStart(module.getBody());
    auto global = LLVM::GlobalOp::create(
        builder, module.getLoc(), ptrType, /*isConstant=*/false,
        LLVM::Linkage::Internal, name, Attribute());
    Block *init = builder.createBlock(&global.getInitializerRegion());
    builder.setInsertionPointToStart(init);
    Value address =
        LLVM::AddressOfOp::create(builder, module.getLoc(), ptrType, target);
    LLVM::ReturnOp::create(builder, module.getLoc(), address);
  }

  /// The task for a function outlined by odt-outline-parallel-loops:
  /// `void task(void *context, int64_t begin, int64_t end)` loads the
  /// captured values the function reads (`packed`: its argument positions
  /// after the range, in the context struct's order) and calls the
  /// function, with poison for the arguments it does not read.
  static LLVM::LLVMFuncOp createTask(ModuleOp module, OpBuilder &builder,
                                     LLVM::LLVMFuncOp body,
                                     LLVM::LLVMStructType context,
                                     ArrayRef<unsigned> packed) {
    MLIRContext *ctx = module.getContext();
    Location loc = body.getLoc();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    builder.setInsertionPointToEnd(module.getBody());
    auto task = LLVM::LLVMFuncOp::create(
        builder, loc, (body.getName() + "_task").str(),
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                    {ptrType, i64, i64}));
    Block *entry = task.addEntryBlock(builder);
    builder.setInsertionPointToStart(entry);
    SmallVector<Value> operands = {entry->getArgument(1),
                                   entry->getArgument(2)};
    for (Type type : body.getFunctionType().getParams().drop_front(2))
      operands.push_back(LLVM::PoisonOp::create(builder, loc, type));
    for (auto [i, field] : llvm::enumerate(context.getBody())) {
      Value address = LLVM::GEPOp::create(
          builder, loc, ptrType, context, entry->getArgument(0),
          ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
      operands[packed[i]] = LLVM::LoadOp::create(builder, loc, field, address);
    }
    LLVM::CallOp::create(builder, loc, body, operands);
    LLVM::ReturnOp::create(builder, loc, ValueRange{});
    return task;
  }

  /// Folds `functions`' bodies (a descriptor's struct built and taken
  /// apart again), on the context's threads: each is isolated from the
  /// others.
  static void foldBodies(MLIRContext *context,
                         ArrayRef<LLVM::LLVMFuncOp> functions) {
    parallelForEach(context, functions, [](LLVM::LLVMFuncOp function) {
      (void)applyPatternsGreedily(function.getOperation(),
                                  FrozenRewritePatternSet());
    });
  }

  /// The functions named `prefix...` lose the arguments their folded
  /// bodies do not use, and their calls the operands that fed them. The
  /// serial nests odt-outline-serial-loops made take whole descriptors
  /// too; a parallel body that calls one would otherwise keep, and have
  /// packed, every field of them (the optimizer's: offsets and allocated
  /// pointers of every parameter's views).
  static void dropUnusedArguments(ModuleOp module, StringRef prefix) {
    SmallVector<LLVM::LLVMFuncOp> functions;
    for (auto function : module.getOps<LLVM::LLVMFuncOp>())
      if (function.getName().starts_with(prefix) && !function.isExternal() &&
          !function.getArgAttrs())
        functions.push_back(function);
    foldBodies(module.getContext(), functions);
    llvm::StringMap<llvm::BitVector> unusedOf;
    for (LLVM::LLVMFuncOp function : functions) {
      Block &entry = function.getBody().front();
      llvm::BitVector unused(entry.getNumArguments());
      for (BlockArgument argument : entry.getArguments())
        unused[argument.getArgNumber()] = argument.use_empty();
      if (unused.none())
        continue;
      entry.eraseArguments(unused);
      SmallVector<Type> kept;
      for (auto [index, type] :
           llvm::enumerate(function.getFunctionType().getParams()))
        if (!unused[index])
          kept.push_back(type);
      function.setFunctionType(LLVM::LLVMFunctionType::get(
          function.getFunctionType().getReturnType(), kept));
      unusedOf[function.getName()] = unused;
    }
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && unusedOf.count(*callee))
        calls.push_back(call);
    });
    OpBuilder builder(module.getContext());
    for (LLVM::CallOp call : calls) {
      const llvm::BitVector &unused = unusedOf[*call.getCallee()];
      SmallVector<Value> operands;
      for (auto [index, operand] : llvm::enumerate(call.getArgOperands()))
        if (!unused[index])
          operands.push_back(operand);
      builder.setInsertionPoint(call);
      auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(*call.getCallee());
      LLVM::CallOp::create(builder, call.getLoc(), function, operands);
      call.erase();
    }
  }

  /// Each call of an outlined parallel body, `__odt_par_N(0, count, ...)`,
  /// becomes: the captured values stored in a stack struct, then
  /// `parallel(task, &struct, count)` through the pointer that exported
  /// `void P_set_parallel(void (*)(void (*)(void *, int64_t, int64_t),
  /// void *, int64_t))` sets. It starts as a serial loop over the range, so
  /// the object also works alone.
  LLVM::LLVMFuncOp routeParallelLoops(ModuleOp module, OpBuilder &builder) {
    MLIRContext *context = module.getContext();
    Location loc = module.getLoc();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    auto voidType = LLVM::LLVMVoidType::get(context);
    auto taskType = LLVM::LLVMFunctionType::get(voidType, {ptrType, i64, i64});
    auto hookType =
        LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType, i64});

    // The default hook: the whole range on the calling thread.
    std::string serialName = prefix + "_serial_for";
    builder.setInsertionPointToEnd(module.getBody());
    auto serial = LLVM::LLVMFuncOp::create(builder, loc, serialName, hookType);
    Block *entry = serial.addEntryBlock(builder);
    builder.setInsertionPointToStart(entry);
    Value zero = LLVM::ConstantOp::create(builder, loc, i64,
                                          builder.getI64IntegerAttr(0));
    LLVM::CallOp::create(builder, loc, taskType,
                         ValueRange{entry->getArgument(0),
                                    entry->getArgument(1), zero,
                                    entry->getArgument(2)});
    LLVM::ReturnOp::create(builder, loc, ValueRange{});
    std::string slot = prefix + "_parallel_fn";
    createPointerGlobal(module, builder, slot, serialName);

    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && callee->starts_with(kParallelBodyPrefix))
        calls.push_back(call);
    });
    struct Task {
      LLVM::LLVMFuncOp function;
      LLVM::LLVMStructType context;
      SmallVector<unsigned> packed;
    };
    llvm::StringMap<LLVM::LLVMFuncOp> functions;
    for (auto function : module.getOps<LLVM::LLVMFuncOp>())
      functions[function.getName()] = function;
    // A captured memref arrives as its whole descriptor (allocated and
    // aligned pointers, offset, sizes, strides), but the body reads only
    // its aligned pointer and what its type leaves dynamic: once the
    // descriptor's struct is folded away, the rest are unused arguments,
    // and are not packed. Each call used to store every field
    // (mobilenetv2's train: ~9,000 stores of 49,000 lines). The bodies are
    // folded on the context's threads: each is isolated from the others.
    dropUnusedArguments(module, kSerialNestPrefix);
    SmallVector<LLVM::LLVMFuncOp> bodies;
    llvm::SmallPtrSet<Operation *, 32> seen;
    for (LLVM::CallOp call : calls)
      if (auto body = functions.lookup(*call.getCallee()))
        if (seen.insert(body).second)
          bodies.push_back(body);
    foldBodies(context, bodies);
    llvm::StringMap<Task> tasks;
    // One context buffer per caller, reused by all its calls: the hook
    // returns when the task has run, so each call's context is dead by the
    // next. A buffer per call (resnet18_cifar's train: 346) left the stores
    // into them independent of each other and of the calls, and LLVM's
    // instruction scheduler, which scans the nodes ready to go, took 0.3 s
    // over that one function.
    DataLayout layout(module);
    struct Storage {
      LLVM::AllocaOp buffer;
      uint64_t bytes = 0, alignment = 1;
    };
    llvm::DenseMap<Operation *, Storage> storageOf;
    for (LLVM::CallOp call : calls) {
      auto body = functions.lookup(*call.getCallee());
      if (!body || call.getNumOperands() < 2) {
        call.emitError() << "malformed parallel loop call";
        return nullptr;
      }
      Task &task = tasks[body.getName()];
      if (!task.function) {
        SmallVector<Type> fields;
        for (BlockArgument argument :
             body.getBody().front().getArguments().drop_front(2))
          if (!argument.use_empty()) {
            task.packed.push_back(argument.getArgNumber());
            fields.push_back(argument.getType());
          }
        task.context = LLVM::LLVMStructType::getLiteral(context, fields);
        task.function =
            createTask(module, builder, body, task.context, task.packed);
      }
      LLVM::LLVMStructType contextType = task.context;

      // The struct lives in the caller's frame (entry block: a static
      // alloca), filled right before the call.
      auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
      Storage &storage = storageOf[caller];
      if (!storage.buffer) {
        builder.setInsertionPointToStart(&caller.getBody().front());
        Value one = LLVM::ConstantOp::create(builder, loc, i64,
                                             builder.getI64IntegerAttr(1));
        storage.buffer =
            LLVM::AllocaOp::create(builder, loc, ptrType, contextType, one);
      }
      storage.bytes =
          std::max<uint64_t>(storage.bytes, layout.getTypeSize(contextType));
      storage.alignment = std::max<uint64_t>(
          storage.alignment, layout.getTypeABIAlignment(contextType));
      builder.setInsertionPoint(call);
      for (auto [i, position] : llvm::enumerate(task.packed)) {
        Value address = LLVM::GEPOp::create(
            builder, loc, ptrType, contextType, storage.buffer,
            ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
        LLVM::StoreOp::create(builder, loc, call.getOperand(position), address);
      }
      Value slotAddress =
          LLVM::AddressOfOp::create(builder, loc, ptrType, slot);
      Value hook = LLVM::LoadOp::create(builder, loc, ptrType, slotAddress);
      Value taskAddress = LLVM::AddressOfOp::create(builder, loc, ptrType,
                                                    task.function.getName());
      LLVM::CallOp::create(
          builder, loc, hookType,
          ValueRange{hook, taskAddress, storage.buffer, call.getOperand(1)});
      call.erase();
    }
    // Each buffer as large and as aligned as its largest context.
    for (auto &[caller, storage] : storageOf) {
      storage.buffer.setElemType(LLVM::LLVMArrayType::get(
          IntegerType::get(context, 8), storage.bytes));
      storage.buffer.setAlignment(storage.alignment);
    }

    return createSlotSetter(module, builder, prefix + "_set_parallel", {slot});
  }

  /// finalize-memref-to-llvm aligns a buffer as inttoptr(b - (b % a)) with
  /// b = ptrtoint(p) + a - 1: through an integer, so LLVM no longer knows
  /// the aligned pointer is based on the allocation (whose result is
  /// noalias). The same address as p + (that integer - ptrtoint(p)) keeps
  /// that knowledge.
  static void alignThroughOffsets(ModuleOp module) {
    // The one ptrtoint that `value` is computed from by integer
    // arithmetic with constants: false if there is another leaf; true with
    // a null `address` if there are only constants.
    std::function<bool(Value, int, LLVM::PtrToIntOp &)> fromOneAddress =
        [&](Value value, int depth, LLVM::PtrToIntOp &address) -> bool {
      if (matchPattern(value, m_Constant()))
        return true;
      Operation *definition = value.getDefiningOp();
      if (!definition || depth > 6)
        return false;
      if (auto source = dyn_cast<LLVM::PtrToIntOp>(definition)) {
        if (address && address != source)
          return false;
        address = source;
        return true;
      }
      if (!isa<LLVM::AddOp, LLVM::SubOp, LLVM::AndOp, LLVM::URemOp>(definition))
        return false;
      return llvm::all_of(definition->getOperands(), [&](Value operand) {
        return fromOneAddress(operand, depth + 1, address);
      });
    };
    SmallVector<LLVM::IntToPtrOp> casts;
    module.walk([&](LLVM::IntToPtrOp cast) { casts.push_back(cast); });
    for (LLVM::IntToPtrOp cast : casts) {
      LLVM::PtrToIntOp address;
      if (!fromOneAddress(cast.getArg(), 0, address) || !address ||
          address.getArg().getType() != cast.getType())
        continue;
      OpBuilder builder(cast);
      Location loc = cast.getLoc();
      Value offset = LLVM::SubOp::create(builder, loc, cast.getArg(), address);
      Value aligned =
          LLVM::GEPOp::create(builder, loc, cast.getType(), builder.getI8Type(),
                              address.getArg(), ArrayRef<LLVM::GEPArg>{offset});
      cast.replaceAllUsesWith(aligned);
      cast.erase();
    }
  }

  /// finalize-memref-to-llvm (use-generic-functions) calls kAllocateHook and
  /// kReleaseHook for every heap buffer. They are defined here as calls
  /// through two pointers that start as malloc and free, and exported
  /// `void P_set_allocator(void *(*)(uint64_t), void (*)(void *))` lets the
  /// runtime put its step allocator there (buffers reused across steps).
  LLVM::LLVMFuncOp routeAllocations(ModuleOp module, OpBuilder &builder) {
    MLIRContext *context = module.getContext();
    Location loc = module.getLoc();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    auto voidType = LLVM::LLVMVoidType::get(context);
    auto allocateType = LLVM::LLVMFunctionType::get(ptrType, {i64});
    auto releaseType = LLVM::LLVMFunctionType::get(voidType, {ptrType});
    getOrDeclare(module, builder, "malloc", allocateType);
    getOrDeclare(module, builder, "free", releaseType);
    std::string allocateSlot = prefix + "_allocate_fn";
    std::string releaseSlot = prefix + "_release_fn";
    createPointerGlobal(module, builder, allocateSlot, "malloc");
    createPointerGlobal(module, builder, releaseSlot, "free");

    auto defineHook = [&](StringRef name, LLVM::LLVMFunctionType type,
                          StringRef slot) -> LogicalResult {
      auto hook = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!hook)
        return success(); // the module allocates nothing
      if (!hook.isExternal() || hook.getFunctionType() != type)
        return hook.emitError() << "unexpected definition of '" << name << "'";
      Block *body = hook.addEntryBlock(builder);
      builder.setInsertionPointToStart(body);
      Value slotAddress =
          LLVM::AddressOfOp::create(builder, loc, ptrType, slot);
      Value callee = LLVM::LoadOp::create(builder, loc, ptrType, slotAddress);
      SmallVector<Value> operands = {callee};
      operands.append(body->args_begin(), body->args_end());
      auto call = LLVM::CallOp::create(builder, loc, type, operands);
      LLVM::ReturnOp::create(builder, loc, call.getResults());
      return success();
    };
    if (failed(defineHook(kAllocateHook, allocateType, allocateSlot)) ||
        failed(defineHook(kReleaseHook, releaseType, releaseSlot)))
      return nullptr;
    // A buffer the hook returns is new memory, as malloc's is (the step
    // allocator hands out blocks no live pointer reaches): marked noalias
    // and kept a call, LLVM knows stores into an intermediate cannot change
    // the model's inputs, and vectorizes copies such as a convolution's
    // image columns (they were scalar: every store might have clobbered
    // the next load).
    if (auto allocate = module.lookupSymbol<LLVM::LLVMFuncOp>(kAllocateHook)) {
      allocate.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(),
                             UnitAttr::get(context));
      allocate.setNoInline(true);
      alignThroughOffsets(module);
    }

    return createSlotSetter(module, builder, prefix + "_set_allocator",
                            {allocateSlot, releaseSlot});
  }

  /// A GPU build's launches call kGPULaunchHook (codegen/cpu/
  /// KernelLaunches.cpp). It is defined here as a call through a pointer
  /// that exported `void P_set_launcher(void (*)(int32_t kernel, int64_t
  /// grid x, y, z, int64_t block x, y, z, int32_t shared bytes, void
  /// **parameters, int32_t count))` sets; it starts as a function that
  /// traps: a GPU build run without a launcher (by a runtime that does not
  /// know GPU builds, or called by hand) stops instead of computing nothing
  /// and returning. Null when the module launches no kernels: a CPU
  /// build's module is left as it was.
  LLVM::LLVMFuncOp routeKernelLaunches(ModuleOp module, OpBuilder &builder,
                                       bool &failedRouting) {
    auto hook = module.lookupSymbol<LLVM::LLVMFuncOp>(kGPULaunchHook);
    if (!hook)
      return nullptr;
    if (!hook.isExternal()) {
      hook.emitError() << "unexpected definition of '" << kGPULaunchHook << "'";
      failedRouting = true;
      return nullptr;
    }
    Location loc = module.getLoc();
    auto ptrType = LLVM::LLVMPointerType::get(module.getContext());
    LLVM::LLVMFunctionType type = hook.getFunctionType();
    std::string idleName = prefix + "_no_launcher";
    builder.setInsertionPointToEnd(module.getBody());
    auto idle = LLVM::LLVMFuncOp::create(builder, loc, idleName, type);
    builder.setInsertionPointToStart(idle.addEntryBlock(builder));
    LLVM::Trap::create(builder, loc);
    LLVM::UnreachableOp::create(builder, loc);
    std::string slot = prefix + "_launch_fn";
    createPointerGlobal(module, builder, slot, idleName);

    Block *body = hook.addEntryBlock(builder);
    builder.setInsertionPointToStart(body);
    Value slotAddress = LLVM::AddressOfOp::create(builder, loc, ptrType, slot);
    Value callee = LLVM::LoadOp::create(builder, loc, ptrType, slotAddress);
    SmallVector<Value> operands = {callee};
    operands.append(body->args_begin(), body->args_end());
    LLVM::CallOp::create(builder, loc, type, operands);
    LLVM::ReturnOp::create(builder, loc, ValueRange{});
    LLVM::LLVMFuncOp setter =
        createSlotSetter(module, builder, prefix + "_set_launcher", {slot});
    if (!setter)
      failedRouting = true;
    return setter;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<LLVM::LLVMFuncOp> interfaces;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func.getName().starts_with(kCInterfacePrefix) && !func.isExternal())
        interfaces.push_back(func);

    OpBuilder builder(context);
    auto ptrType = LLVM::LLVMPointerType::get(context);
    SmallVector<LLVM::LLVMFuncOp> wrappers;
    for (LLVM::LLVMFuncOp interface : interfaces) {
      StringRef name = interface.getName().drop_front(kCInterfacePrefix.size());
      std::string wrapperName = prefix + "_" + name.str();
      if (module.lookupSymbol(wrapperName)) {
        interface.emitError()
            << "symbol '" << wrapperName << "' already exists";
        return signalPassFailure();
      }
      builder.setInsertionPointToEnd(module.getBody());
      Location loc = interface.getLoc();
      auto wrapper = LLVM::LLVMFuncOp::create(
          builder, loc, wrapperName,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                      {ptrType}));
      Block *entry = wrapper.addEntryBlock(builder);
      builder.setInsertionPointToStart(entry);
      Value args = entry->getArgument(0);
      SmallVector<Value> operands;
      for (unsigned i = 0; i < interface.getNumArguments(); ++i) {
        if (!isa<LLVM::LLVMPointerType>(interface.getArgumentTypes()[i])) {
          interface.emitError() << "entry point '" << name
                                << "' has a non-pointer C-interface argument";
          return signalPassFailure();
        }
        Value slot = LLVM::GEPOp::create(builder, loc, ptrType, ptrType, args,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
        operands.push_back(LLVM::LoadOp::create(builder, loc, ptrType, slot));
      }
      LLVM::CallOp::create(builder, loc, interface, operands);
      LLVM::ReturnOp::create(builder, loc, ValueRange{});
      wrappers.push_back(wrapper);
    }

    LLVM::LLVMFuncOp setter = routeAllocations(module, builder);
    if (!setter)
      return signalPassFailure();
    wrappers.push_back(setter);
    setter = routeParallelLoops(module, builder);
    if (!setter)
      return signalPassFailure();
    wrappers.push_back(setter);
    bool failedRouting = false;
    if ((setter = routeKernelLaunches(module, builder, failedRouting)))
      wrappers.push_back(setter);
    if (failedRouting)
      return signalPassFailure();

    // Only the wrappers (and globals made public on purpose) are exported.
    // odt's own argument attributes (roles, names, dims) were read into the
    // descriptor already; LLVM has no use for them.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal() || llvm::is_contained(wrappers, func))
        continue;
      func.setLinkage(LLVM::Linkage::Internal);
      // All arguments' dictionaries at once: removing attributes one by
      // one rebuilt the whole list each time (a training entry has
      // hundreds of arguments with four attributes each).
      ArrayAttr arguments = func.getAllArgAttrs();
      if (!arguments)
        continue;
      SmallVector<DictionaryAttr> kept;
      for (DictionaryAttr dictionary : arguments.getAsRange<DictionaryAttr>()) {
        SmallVector<NamedAttribute> llvmOnly;
        for (NamedAttribute attr : dictionary)
          if (attr.getName().getValue().starts_with("llvm."))
            llvmOnly.push_back(attr);
        kept.push_back(DictionaryAttr::get(context, llvmOnly));
      }
      func.setAllArgAttrs(kept);
    }
  }
};

} // namespace
} // namespace odt
