// RUN: odt-opt %s --split-input-file --odt-outline-parallel-loops --convert-scf-to-cf \
// RUN:   --finalize-memref-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-index-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts --odt-pack-entry-points=prefix=m \
// RUN:   | FileCheck %s

// A parallel loop over a static memref<8x16xf32> and a dynamic
// memref<?x16xf32>: its task's context struct holds only what the body
// reads, the aligned pointers and the row count it computes with, not
// the whole descriptors (allocated pointers, offsets, static sizes and
// strides); the task passes poison for the rest.
// CHECK-LABEL: llvm.func internal @step(
// CHECK:         %[[STORAGE:.*]] = llvm.alloca %{{.*}} x !llvm.array<24 x i8> {alignment = 8 : i64}
// CHECK-COUNT-3: llvm.store
// CHECK-NOT:     llvm.store
// CHECK:         llvm.call %{{.*}}(%{{.*}}, %[[STORAGE]], %{{.*}})
// CHECK-LABEL: llvm.func internal @__odt_par_0_task(
// CHECK-SAME:      %[[CONTEXT:.*]]: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-DAG:     llvm.mlir.poison : !llvm.ptr
// CHECK-DAG:     llvm.getelementptr %[[CONTEXT]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)>
// CHECK-DAG:     llvm.getelementptr %[[CONTEXT]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)>
// CHECK-DAG:     llvm.getelementptr %[[CONTEXT]][0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, ptr)>
// CHECK-NOT:     llvm.getelementptr %[[CONTEXT]][0, 3]
// CHECK:         llvm.call @__odt_par_0(
func.func @step(%a: memref<8x16xf32>, %b: memref<?x16xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %rows = memref.dim %b, %c0 : memref<?x16xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a[%i, %c0] : memref<8x16xf32>
    %last = arith.subi %rows, %c1 : index
    memref.store %x, %b[%last, %c1] : memref<?x16xf32>
    scf.reduce
  }
  return
}

// -----

// Two parallel loops in one function: their contexts, (f32, ptr) and
// (i64, f32, ptr), are filled in turn in one buffer of the caller's frame,
// as large and as aligned as the larger (the hook returns when a task has
// run).
// CHECK-LABEL: llvm.func internal @two_loops(
// CHECK:         %[[BUFFER:.*]] = llvm.alloca %{{.*}} x !llvm.array<24 x i8> {alignment = 8 : i64}
// CHECK-NOT:     llvm.alloca
// CHECK:         llvm.getelementptr %[[BUFFER]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(f32, ptr)>
// CHECK:         llvm.call %{{.*}}(%{{.*}}, %[[BUFFER]], %{{.*}})
// CHECK:         llvm.getelementptr %[[BUFFER]][0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, f32, ptr)>
// CHECK:         llvm.call %{{.*}}(%{{.*}}, %[[BUFFER]], %{{.*}})
func.func @two_loops(%a: memref<8xf32>, %b: memref<?xf32>, %scale: memref<f32>) attributes {llvm.emit_c_interface} {
  %s = memref.load %scale[] : memref<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %s, %a[%i] : memref<8xf32>
    scf.reduce
  }
  %n = memref.dim %b, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %last = arith.subi %n, %c1 : index
    memref.store %s, %b[%last] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A parallel body that passes a buffer to an outlined serial nest
// (odt-outline-serial-loops) whose body reads only the buffer's aligned
// pointer and size: the nest loses the descriptor's other fields, the call
// the operands that fed them, and so the body no longer uses them either:
// the task's context holds the aligned pointer and the size only.
// CHECK-LABEL: llvm.func internal @nested(
// CHECK:         llvm.alloca %{{.*}} x !llvm.array<16 x i8>
// CHECK-LABEL: llvm.func internal @__odt_loop_0(
// CHECK-SAME:      %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64)
// CHECK-LABEL: llvm.func internal @__odt_par_0(
// CHECK:         llvm.call @__odt_loop_0(%{{.*}}, %{{.*}}) : (!llvm.ptr, i64) -> ()
// CHECK-LABEL: llvm.func internal @__odt_par_0_task(
// CHECK-NOT:     llvm.getelementptr %{{.*}}[0, 2]
// CHECK:         llvm.call @__odt_par_0(
func.func @nested(%b: memref<?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %b, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    func.call @__odt_loop_0(%b, %n) : (memref<?xf32>, index) -> ()
    scf.reduce
  }
  return
}
func.func private @__odt_loop_0(%b: memref<?xf32>, %n: index) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %j = %c0 to %n step %c1 {
    memref.store %zero, %b[%j] : memref<?xf32>
  }
  return
}
