// The wait names the copy's own token rather than its group's, without numGroups (wait for
// every group); the copy was committed in a group first, so the wait covers it.
// Hand-written for corpus/nvgpu (scripts/foreign_nvgpu.sh).
func.func @wait_copy_token_grouped(%global: memref<64xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %shared = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
  %copy = nvgpu.device_async_copy %global[%c0], %shared[%c0], 4 : memref<64xf32> to memref<4xf32, #gpu.address_space<workgroup>>
  %group = nvgpu.device_async_create_group %copy
  nvgpu.device_async_wait %copy
  %x = memref.load %shared[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
  memref.store %x, %out[%c0] : memref<4xf32>
  return
}
