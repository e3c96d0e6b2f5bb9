//===- KernelLaunches.cpp - a GPU build's launches as runtime calls -------===//
//
// See KernelLaunches.h. Each launch packs its parameters in a struct on the
// stack and passes an array of the fields' addresses (cuLaunchKernel's
// kernelParams), between a stack save and restore, since a launch may sit
// in a host loop.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/KernelLaunches.h"
#include "codegen/common/GPUKernelTable.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace odt {

namespace {

struct LaunchFuncToRuntimeCall
    : public ConvertOpToLLVMPattern<gpu::LaunchFuncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(gpu::LaunchFuncOp launch, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = launch.getLoc();
    MLIRContext *context = launch.getContext();
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
        launch.getAsyncObject() || launch.hasClusterSize())
      return launch.emitError()
             << "odt's launcher takes synchronous launches without clusters";
    auto module = launch->getParentOfType<ModuleOp>();
    auto kernels = module->getAttrOfType<ArrayAttr>(kGPUKernelsAttr);
    if (!kernels)
      return launch.emitError() << "the module has no " << kGPUKernelsAttr
                                << " (odt-gpu-record-kernels did not run)";
    StringRef name = launch.getKernelName().getValue();
    std::optional<unsigned> index;
    int64_t expectedParameters = 0;
    ArrayRef<int64_t> expectedBytes;
    for (auto [i, attr] : llvm::enumerate(kernels)) {
      auto kernel = cast<DictionaryAttr>(attr);
      if (kernel.getAs<StringAttr>("name").getValue() != name)
        continue;
      index = i;
      expectedParameters = kernel.getAs<IntegerAttr>("parameters").getInt();
      if (auto bytes = kernel.getAs<DenseI64ArrayAttr>("parameter_bytes"))
        expectedBytes = bytes.asArrayRef();
      break;
    }
    if (!index)
      return launch.emitError()
             << "kernel '" << name << "' is not in " << kGPUKernelsAttr;

    // The kernel's parameters, as convert-gpu-to-nvvm made its signature.
    SmallVector<Value> fields;
    for (auto [original, converted] :
         llvm::zip(launch.getKernelOperands(), adaptor.getKernelOperands())) {
      if (auto type = dyn_cast<MemRefType>(original.getType()))
        MemRefDescriptor::unpack(rewriter, loc, converted, type, fields);
      else
        fields.push_back(converted);
    }
    if (int64_t(fields.size()) != expectedParameters)
      return launch.emitError()
             << "kernel '" << name << "' takes " << expectedParameters
             << " parameters but its launch packs " << fields.size();
    // And each field has the size of the kernel's parameter (cuLaunchKernel
    // reads that many bytes at each address).
    if (!expectedBytes.empty()) {
      if (int64_t(expectedBytes.size()) != expectedParameters)
        return launch.emitError()
               << "kernel '" << name << "' has a malformed parameter_bytes";
      for (auto [i, field] : llvm::enumerate(fields))
        if (getKernelParameterBytes(field.getType()) != expectedBytes[i])
          return launch.emitError()
                 << "kernel '" << name << "' parameter " << i << " is "
                 << expectedBytes[i] << " bytes but its launch packs "
                 << field.getType();
    }

    auto ptrType = LLVM::LLVMPointerType::get(context);
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto constantI32 = [&](int64_t value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i32,
                                      rewriter.getI32IntegerAttr(value));
    };
    Value saved = LLVM::StackSaveOp::create(rewriter, loc, ptrType);
    Value addresses;
    if (fields.empty()) {
      addresses = LLVM::ZeroOp::create(rewriter, loc, ptrType);
    } else {
      SmallVector<Type> fieldTypes;
      for (Value field : fields)
        fieldTypes.push_back(field.getType());
      auto storageType = LLVM::LLVMStructType::getLiteral(context, fieldTypes);
      auto addressesType = LLVM::LLVMArrayType::get(ptrType, fields.size());
      Value one = LLVM::ConstantOp::create(rewriter, loc, i64,
                                           rewriter.getI64IntegerAttr(1));
      Value storage =
          LLVM::AllocaOp::create(rewriter, loc, ptrType, storageType, one);
      addresses =
          LLVM::AllocaOp::create(rewriter, loc, ptrType, addressesType, one);
      for (auto [i, field] : llvm::enumerate(fields)) {
        Value fieldAddress =
            LLVM::GEPOp::create(rewriter, loc, ptrType, storageType, storage,
                                ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
        LLVM::StoreOp::create(rewriter, loc, field, fieldAddress);
        Value slot = LLVM::GEPOp::create(rewriter, loc, ptrType, addressesType,
                                         addresses,
                                         ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
        LLVM::StoreOp::create(rewriter, loc, fieldAddress, slot);
      }
    }
    Value sharedBytes = adaptor.getDynamicSharedMemorySize()
                            ? adaptor.getDynamicSharedMemorySize()
                            : constantI32(0);

    SmallVector<Type> hookParameters = {i32, i64, i64, i64,     i64,
                                        i64, i64, i32, ptrType, i32};
    FailureOr<LLVM::LLVMFuncOp> hook =
        LLVM::lookupOrCreateFn(rewriter, module, kGPULaunchHook, hookParameters,
                               LLVM::LLVMVoidType::get(context));
    if (failed(hook))
      return launch.emitError()
             << "'" << kGPULaunchHook << "' is declared with another type";
    LLVM::CallOp::create(
        rewriter, loc, *hook,
        ValueRange{constantI32(*index), adaptor.getGridSizeX(),
                   adaptor.getGridSizeY(), adaptor.getGridSizeZ(),
                   adaptor.getBlockSizeX(), adaptor.getBlockSizeY(),
                   adaptor.getBlockSizeZ(), sharedBytes, addresses,
                   constantI32(fields.size())});
    LLVM::StackRestoreOp::create(rewriter, loc, saved);
    rewriter.eraseOp(launch);
    return success();
  }
};

} // namespace

void populateKernelLaunchToLLVMPatterns(LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<LaunchFuncToRuntimeCall>(converter);
}

} // namespace odt
