// The wait names the copy's own token (as MLIR's pipeliner tests do) and no group is ever
// created: the token links the read to the copy, but the copy belongs to no committed group
// (nvgpu.device_async_wait lowers to cp.async.wait_group, which covers committed groups only).
// Hand-written for corpus/nvgpu (scripts/foreign_nvgpu.sh).
func.func @wait_copy_token(%global: memref<64xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %shared = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
  %copy = nvgpu.device_async_copy %global[%c0], %shared[%c0], 4 : memref<64xf32> to memref<4xf32, #gpu.address_space<workgroup>>
  nvgpu.device_async_wait %copy
  %x = memref.load %shared[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
  memref.store %x, %out[%c0] : memref<4xf32>
  return
}
