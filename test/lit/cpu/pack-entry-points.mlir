// RUN: odt-opt %s --odt-convert-onnx-to-linalg --odt-destination-passing \
// RUN:   --eliminate-empty-tensors --empty-tensor-to-alloc-tensor \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --buffer-deallocation-pipeline --canonicalize --cse \
// RUN:   --convert-linalg-to-loops --lower-affine --convert-scf-to-cf \
// RUN:   --expand-strided-metadata --finalize-memref-to-llvm --convert-math-to-llvm \
// RUN:   --convert-arith-to-llvm --convert-index-to-llvm --convert-func-to-llvm \
// RUN:   --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN:   --odt-pack-entry-points=prefix=mlp | FileCheck %s --implicit-check-not=odt.

// odt-pack-entry-points after odt-compile's whole lowering (the pipeline of
// runLinalgPipeline and runLLVMPipeline, spelled out): each entry point F
// gets `void <prefix>_F(void **args)` that loads args[i] (a pointer to the
// i-th memref descriptor) and calls _mlir_ciface_F; the allocator and
// parallel hooks are added; every other defined
// function becomes internal and loses odt's argument attributes (no `odt.`
// is left anywhere). The pass on its own (default prefix, errors):
// pack-entry-points-invalid.mlir.

// CHECK-DAG:   llvm.func @malloc(i64) -> !llvm.ptr
// The runtime hooks (docs/abi.md) start as malloc, free and a serial loop.
// CHECK-DAG:   llvm.mlir.global internal @mlp_allocate_fn() {{.*}}!llvm.ptr {
// CHECK-DAG:   llvm.mlir.addressof @malloc
// CHECK-DAG:   llvm.mlir.global internal @mlp_release_fn() {{.*}}!llvm.ptr {
// CHECK-DAG:   llvm.mlir.addressof @free
// CHECK-DAG:   llvm.mlir.global internal @mlp_parallel_fn() {{.*}}!llvm.ptr {
// CHECK-DAG:   llvm.mlir.addressof @mlp_serial_for
// CHECK-DAG:   llvm.func internal @step(
// CHECK-DAG:   llvm.func internal @_mlir_ciface_step(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {llvm.emit_c_interface}
// CHECK-LABEL: llvm.func @mlp_step(
// CHECK-SAME:    %[[ARGS:.*]]: !llvm.ptr) {
// CHECK-NEXT:    %[[S0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S2:.*]] = llvm.getelementptr %[[ARGS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S3:.*]] = llvm.getelementptr %[[ARGS]][3] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A3:.*]] = llvm.load %[[S3]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.call @_mlir_ciface_step(%[[A0]], %[[A1]], %[[A2]], %[[A3]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// CHECK-DAG:   llvm.func internal @mlp_serial_for(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64)
// CHECK-DAG:   llvm.func @mlp_set_allocator(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-DAG:   llvm.func @mlp_set_parallel(%{{.*}}: !llvm.ptr)
// CHECK-NOT:   llvm.func @mlp_
func.func @step(%x: tensor<?x3xf32> {odt.name = "x", odt.role = "user_input"},
                %w: tensor<4x3xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                %g: tensor<4x3xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64})
    -> (tensor<?x4xf32> {odt.name = "y", odt.role = "user_output"},
        tensor<4x3xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64, odt.tied = 2 : i64}) {
  %none = onnx.NoValue
  %y = onnx.Gemm(%x, %w, %none) {transB = 1 : i64} : (tensor<?x3xf32>, tensor<4x3xf32>, none) -> tensor<?x4xf32>
  %r = onnx.Relu(%y) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %dw = onnx.Gemm(%r, %x, %none) {transA = 1 : i64} : (tensor<?x4xf32>, tensor<?x3xf32>, none) -> tensor<4x3xf32>
  %flag, %acc = onnx.ms.InPlaceAccumulatorV2(%g, %dw, %none) : (tensor<4x3xf32>, tensor<4x3xf32>, none) -> (tensor<1xi1>, tensor<4x3xf32>)
  return %r, %acc : tensor<?x4xf32>, tensor<4x3xf32>
}
