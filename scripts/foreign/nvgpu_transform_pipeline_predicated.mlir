// Transform script for scripts/foreign_nvgpu.sh: MLIR's shared-memory copy pipeliner with two
// stages on every scf.for of the payload; keeps the epilogue in the loop, predicating the copies of the last iterations to zero bytes.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %pipelined = transform.nvgpu.pipeline_shared_memory_copies failures(propagate) %loop { depth = 2 } : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
