// RUN: odt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(odt-infer-shapes{assert-assumed-dims=true}))" | FileCheck %s
// RUN: odt-opt %s --split-input-file --odt-infer-shapes | FileCheck %s --check-prefix=PLAIN
// Run twice, the checks are restated, not doubled.
// RUN: odt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(odt-infer-shapes{assert-assumed-dims=true},odt-infer-shapes{assert-assumed-dims=true}))" | FileCheck %s --check-prefix=TWICE

// odt-infer-shapes with assert-assumed-dims states what unification took for
// granted about sizes ops compute: their symbols cannot say that
// 1 + (batch - 1) is batch, so a Concat's length met by labels of `n` rows
// is checked at run time (odt-generate-shape-functions moves the check into
// the shape function the runtime calls before each step).

// CHECK-LABEL: func.func @computed_meets_input
// CHECK-SAME:    -> (tensor<?xf32> {onnx.dims = ["n"]})
// CHECK:         %[[CAT:.*]] = onnx.Concat
// CHECK:         %[[SUM:.*]] = onnx.Add
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[COMPUTED:.*]] = tensor.dim %[[CAT]], %[[C0]] : tensor<?xf32>
// CHECK-DAG:     %[[GIVEN:.*]] = tensor.dim %arg1, %[[C0]] : tensor<?xf32>
// CHECK:         %[[EQUAL:.*]] = arith.cmpi eq, %[[COMPUTED]], %[[GIVEN]] : index
// CHECK:         cf.assert %[[EQUAL]], "dim 0 of node 'joined' (onnx.Concat) must equal dim 0 of input 'labels'"
// CHECK-NEXT:    return %[[SUM]]
// PLAIN-LABEL: func.func @computed_meets_input
// PLAIN-NOT:   cf.assert
// TWICE-LABEL: func.func @computed_meets_input
// TWICE-COUNT-1: cf.assert
// TWICE-NOT:   cf.assert
func.func @computed_meets_input(%lengths: tensor<?xf32> {odt.name = "lengths", onnx.dims = ["batch"]},
                                %labels: tensor<?xf32> {odt.name = "labels", onnx.dims = ["n"]},
                                %one: tensor<1xf32>) -> tensor<*xf32> {
  %0 = onnx.Concat(%one, %lengths) {axis = 0 : i64} : (tensor<1xf32>, tensor<?xf32>) -> tensor<*xf32> loc("joined")
  %1 = onnx.Add(%0, %labels) : (tensor<*xf32>, tensor<?xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// A product: the computed length must equal 3*batch, read from the input
// that gives batch.
// CHECK-LABEL: func.func @computed_meets_product
// TWICE-LABEL: func.func @computed_meets_product
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[EXPECTED:.*]] = arith.muli %[[C3]], %[[BATCH]] : index
// CHECK:         arith.cmpi eq, %{{.*}}, %[[EXPECTED]] : index
// CHECK:         cf.assert %{{.*}}, "dim 0 of node 'joined' (onnx.Concat) must equal 3*batch (batch: dim 0 of input 'x')"
func.func @computed_meets_product(%x: tensor<?x3xf32> {odt.name = "x", onnx.dims = ["batch", 3]},
                                  %shape: tensor<1xi64>, %y: tensor<?xf32> {odt.name = "y", onnx.dims = ["m"]},
                                  %one: tensor<1xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %flat = onnx.Reshape(%x, %shape) : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  %0 = onnx.Concat(%one, %y) {axis = 0 : i64} : (tensor<1xf32>, tensor<?xf32>) -> tensor<*xf32> loc("joined")
  %1 = onnx.Add(%0, %flat) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %1, %flat : tensor<*xf32>, tensor<*xf32>
}

// -----

// Nothing to check: two inputs' symbols unified are one name for the
// runtime, which compares them itself; a size an op computes that nothing
// else meets (n + 1 rows, an output the shape function sizes) is no
// assumption.
// CHECK-LABEL: func.func @nothing_assumed
// CHECK-NOT:     cf.assert
// CHECK:         return
func.func @nothing_assumed(%a: tensor<?xf32> {odt.name = "a", onnx.dims = ["n"]},
                           %b: tensor<?xf32> {odt.name = "b", onnx.dims = ["m"]},
                           %one: tensor<1xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = onnx.Add(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<*xf32>
  %1 = onnx.Concat(%a, %one) {axis = 0 : i64} : (tensor<?xf32>, tensor<1xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// An equation the inference cannot solve (N*C = 784) is assumed, and
// checked: both sides read where the run time has their symbols.
// CHECK-LABEL: func.func @unsolved_equation
// CHECK-DAG:     %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK-DAG:     %[[C:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[NC:.*]] = arith.muli %[[N]], %[[C]] : index
// CHECK:         %[[EQUAL:.*]] = arith.cmpi eq, %[[NC]], %{{.*}} : index
// CHECK:         cf.assert %[[EQUAL]], "node 'plus_bias' (onnx.Add) takes N*C to equal 784 (N: dim 0 of input 'x', C: dim 1 of input 'x')"
func.func @unsolved_equation(%x: tensor<?x?xf32> {odt.name = "x", onnx.dims = ["N", "C"]},
                             %bias: tensor<784xf32>) -> tensor<*xf32> {
  %shape = onnx.Constant {value = dense<-1> : tensor<1xi64>} : tensor<1xi64>
  %flat = onnx.Reshape(%x, %shape) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<*xf32>
  %0 = onnx.Add(%flat, %bias) : (tensor<*xf32>, tensor<784xf32>) -> tensor<*xf32> loc("plus_bias")
  return %0 : tensor<*xf32>
}
