// RUN: odt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(odt-gpu-constants-in-kernels),gpu-kernel-outlining,odt-gpu-merge-kernel-modules)' | FileCheck %s

// Two kernels read the same constant (an eval step's running statistics):
// each reads it with its own get_global, outlining copies the global into
// each kernel's module, and the merged module keeps one copy. No kernel
// takes the host's copy as an argument.
// CHECK-LABEL: func.func @eval
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>)
// CHECK:         %[[HOST:.*]] = memref.get_global @mean
// CHECK:         gpu.launch_func @kernels::@eval_kernel {{.*}} args(%[[X]] : memref<4xf32>)
// CHECK:         gpu.launch_func @kernels::@eval_kernel_0 {{.*}} args(%[[X]] : memref<4xf32>)
// CHECK:         memref.load %[[HOST]]
// CHECK:       gpu.module @kernels {
// CHECK-NOT:     memref.global
// CHECK:         gpu.func @eval_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK:           memref.get_global @mean
// CHECK:         memref.global "private" constant @mean
// CHECK:         gpu.func @eval_kernel_0(%{{.*}}: memref<4xf32>) kernel
// CHECK:           memref.get_global @mean
// CHECK-NOT:     memref.global {{.*}}@mean
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  memref.global "private" constant @mean : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func @eval(%x: memref<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %mean = memref.get_global @mean : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      %m = memref.load %mean[%tx] : memref<4xf32>
      %v = memref.load %x[%tx] : memref<4xf32>
      %d = arith.subf %v, %m : f32
      memref.store %d, %x[%tx] : memref<4xf32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      %m = memref.load %mean[%tx] : memref<4xf32>
      %v = memref.load %x[%tx] : memref<4xf32>
      %d = arith.mulf %v, %m : f32
      memref.store %d, %x[%tx] : memref<4xf32>
      gpu.terminator
    }
    // The host's own read of the constant stays the host's.
    %first = memref.load %mean[%c0] : memref<4xf32>
    return %first : f32
  }
}

// -----

// A view of a constant (a subview at a position the host computes) moves
// in with it: the kernel takes the position, not the host's view.
// CHECK-LABEL: func.func @row
// CHECK:         gpu.launch_func @kernels::@row_kernel {{.*}} args(%{{.*}} : index, %{{.*}} : memref<2xf32>)
// CHECK:         gpu.func @row_kernel(%[[I:.*]]: index, %{{.*}}: memref<2xf32>) kernel
// CHECK:           %[[G:.*]] = memref.get_global @table
// CHECK:           memref.subview %[[G]][%[[I]]] [2] [1]
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func @row(%out: memref<2xf32>, %i: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %table = memref.get_global @table : memref<4xf32>
    %row = memref.subview %table[%i] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: ?>>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
      %v = memref.load %row[%tx] : memref<2xf32, strided<[1], offset: ?>>
      memref.store %v, %out[%tx] : memref<2xf32>
      gpu.terminator
    }
    return
  }
}
