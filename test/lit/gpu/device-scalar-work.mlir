// RUN: odt-opt %s --pass-pipeline='builtin.module(func.func(odt-gpu-device-scalar-work))' | FileCheck %s
// RUN: odt-opt %s --pass-pipeline='builtin.module(func.func(odt-gpu-device-scalar-work,canonicalize))' | FileCheck %s --check-prefix=HOST

// A full reduction (a loss summed over the batch: a loop with no parallel
// dim) runs in a one-iteration parallel loop: a kernel of one thread, not
// host code reading device memory.
// CHECK-LABEL: func.func @sum
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT:      memref.store %{{.*}}, %[[SUM:.*]][] : memref<f32>
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT:      scf.for
// CHECK:             memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK:             memref.store %{{.*}}, %[[SUM]][] : memref<f32>
func.func @sum(%x: memref<?xf32> {odt.role = "user_input"},
               %sum: memref<f32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  memref.store %zero, %sum[] : memref<f32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = memref.load %sum[] : memref<f32>
    %t = arith.addf %s, %v : f32
    memref.store %t, %sum[] : memref<f32>
  }
  return
}

// A flag read on the host (the lazy-reset flag) and used by a kernel is
// read by the kernel instead: a copy of the load at the top of its body.
// CHECK-LABEL: func.func @flag
// CHECK:         scf.parallel
// CHECK-NEXT:      %[[FLAG:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xi1>
// CHECK:           arith.select %[[FLAG]]
func.func @flag(%reset: memref<1xi1> {odt.role = "lazy_reset_grad"},
                %grad: memref<64xf32> {odt.role = "gradient_buffer"},
                %new: memref<64xf32> {odt.role = "user_input"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %flag = memref.load %reset[%c0] : memref<1xi1>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %g = memref.load %grad[%i] : memref<64xf32>
    %n = memref.load %new[%i] : memref<64xf32>
    %s = arith.addf %g, %n : f32
    %r = arith.select %flag, %n, %s : f32
    memref.store %r, %grad[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// A value a kernel writes between the host's load and the kernel that uses
// it is not moved: the kernel would read the new value.
// CHECK-LABEL: func.func @written_between
// CHECK:         %[[READ:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK:         scf.parallel
// CHECK:         scf.parallel
// CHECK-NOT:       memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK:           arith.mulf %{{.*}}, %[[READ]]
func.func @written_between(%scale: memref<4xf32> {odt.role = "user_input"},
                           %out: memref<64xf32> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %s = memref.load %scale[%c0] : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %two, %scale[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %out[%i] : memref<64xf32>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %out[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// A single-element gradient accumulated in place (a PReLU slope's: read,
// add, store): the store becomes a kernel of one thread, and the loads and
// arithmetic move into it although it writes the buffer it reads: its one
// thread reads first. (The host's loads are left dead; canonicalization
// removes them.)
// CHECK-LABEL: func.func @accumulate_in_place
// CHECK:         scf.parallel
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %[[GRAD:.*]][%{{.*}}] : memref<1xf32>
// CHECK-NEXT:      %[[NEW:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xf32>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]]
// CHECK-NEXT:      memref.store %[[SUM]], %[[GRAD]]
func.func @accumulate_in_place(%grad: memref<1xf32> {odt.role = "gradient_buffer"},
                               %step: memref<1xf32> {odt.role = "user_input"}) {
  %c0 = arith.constant 0 : index
  %old = memref.load %grad[%c0] : memref<1xf32>
  %new = memref.load %step[%c0] : memref<1xf32>
  %sum = arith.addf %old, %new : f32
  memref.store %sum, %grad[%c0] : memref<1xf32>
  return
}

// A kernel of many threads writing the buffer keeps the load on the host:
// another thread could write before this one reads.
// CHECK-LABEL: func.func @many_threads_write
// CHECK:         %[[READ:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK:         scf.parallel
// CHECK-NOT:       memref.load %{{.*}}[%c0{{.*}}] : memref<4xf32>
// CHECK:           arith.addf %{{.*}}, %[[READ]]
func.func @many_threads_write(%buffer: memref<4xf32> {odt.role = "gradient_buffer"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %first = memref.load %buffer[%c0] : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %buffer[%i] : memref<4xf32>
    %s = arith.addf %v, %first : f32
    memref.store %s, %buffer[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// The optimizer's bias correction, 1 - beta^step, powers beta in f64 (as
// ORT does), which kernels have no pow for: with an integer exponent it is
// computed by squaring, so the kernel that uses it reads the step and the
// learning rate itself and the host code reads nothing.
// CHECK-LABEL: func.func @bias_correction
// CHECK-NOT:     math.powf
// CHECK:         scf.parallel
// CHECK-DAG:       memref.load %{{.*}}[%{{.*}}] : memref<1xf32>
// CHECK-DAG:       memref.load %{{.*}}[%{{.*}}] : memref<1xi64>
// CHECK:           %[[POWER:.*]]:3 = scf.while
// CHECK:             arith.cmpi ne
// CHECK:             scf.condition
// CHECK:             arith.andi
// CHECK:             arith.mulf {{.*}} : f64
// CHECK:             arith.shrui
// CHECK:           arith.divf %{{.*}}, %[[POWER]]#0 : f64
// CHECK:           arith.truncf
// CHECK-NOT:     math.powf
// CHECK:         return
// What the host computed from the loads is dead then; canonicalization
// removes it, and the host code reads no buffer.
// HOST-LABEL: func.func @bias_correction
// HOST-NOT:     memref.load
// HOST:         scf.parallel
// HOST:           memref.load
func.func @bias_correction(%lr: memref<1xf32> {odt.role = "learning_rate"},
                           %step: memref<1xi64> {odt.role = "step"},
                           %w: memref<64xf32> {odt.role = "parameter"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %beta = arith.constant 0.9 : f64
  %one = arith.constant 1.0 : f32
  %rate = memref.load %lr[%c0] : memref<1xf32>
  %n = memref.load %step[%c0] : memref<1xi64>
  %nf = arith.sitofp %n : i64 to f64
  %power = math.powf %beta, %nf : f64
  %power32 = arith.truncf %power : f64 to f32
  %correction = arith.subf %one, %power32 : f32
  %scaled = arith.divf %rate, %correction : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %w[%i] : memref<64xf32>
    %m = arith.mulf %v, %scaled : f32
    memref.store %m, %w[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// A load of a constant global at constant indices (the optimizer's
// "updated" flag) is its value: nothing reads the global on the host.
memref.global "private" constant @flag_true : memref<1xi1> = dense<true>
// CHECK-LABEL: func.func @constant_flag
// CHECK-NOT:     memref.load
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         scf.parallel
// CHECK:           memref.store %[[TRUE]]
func.func @constant_flag(%out: memref<1xi1> {odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %global = memref.get_global @flag_true : memref<1xi1>
  %v = memref.load %global[%c0] : memref<1xi1>
  memref.store %v, %out[%c0] : memref<1xi1>
  return
}
