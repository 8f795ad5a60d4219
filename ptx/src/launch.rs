//! Launch rules: what each architecture allows one launch (`Limits`, `Arch::limits`), and the
//! check of a launch against a kernel's own block directives and its target's limits
//! (`Kernel::check_launch`, `Kernel::launched`), answering a typed `LaunchError`.
//!
//! Invariants: this is the one place that states the targets' launch limits; a launch that
//! passes has no empty dimension, meets the kernel's `.reqntid` exactly and its `.maxntid` in
//! threads, and fits the block, grid and shared memory limits of the architecture.

use crate::module::{Arch, Dims, Kernel, Launch};

/// What one architecture allows one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest block in each dimension.
    pub max_block: Dims,
    /// The most threads of one block, all dimensions together.
    pub max_threads_per_block: u64,
    /// The largest grid in each dimension.
    pub max_grid: Dims,
    /// Bytes of shared memory one block may use, static and dynamic together.
    pub max_shared_per_block: u64,
}

impl Arch {
    /// The launch limits of the architecture (sm_80 and sm_90 differ in shared memory only).
    pub fn limits(self) -> Limits {
        let max_shared_per_block = match self {
            Arch::Sm80 => 163 * 1024,
            Arch::Sm90 | Arch::Sm90a => 227 * 1024,
        };
        Limits {
            max_block: Dims([1024, 1024, 64]),
            max_threads_per_block: 1024,
            max_grid: Dims([i32::MAX.unsigned_abs(), 65_535, 65_535]),
            max_shared_per_block,
        }
    }
}

/// Which shape of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Block,
    Grid,
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Shape::Block => "block",
            Shape::Grid => "grid",
        })
    }
}

/// Why a kernel cannot be launched with a shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error("a {shape} of {dims} is empty (every dimension is at least 1)")]
    Empty { shape: Shape, dims: Dims },
    #[error("kernel `{kernel}` is declared for blocks of {required} threads, not {block}")]
    NotRequiredBlock { kernel: String, required: Dims, block: Dims },
    #[error("kernel `{kernel}` allows at most {} threads a block (`.maxntid {max}`), not {block}", max.count())]
    OverMaxThreads { kernel: String, max: Dims, block: Dims },
    #[error("a block of {block} threads does not fit (at most {} and {} threads)", limits.max_block, limits.max_threads_per_block)]
    BlockTooLarge { block: Dims, limits: Limits },
    #[error("a grid of {grid} blocks does not fit (at most {})", limits.max_grid)]
    GridTooLarge { grid: Dims, limits: Limits },
    #[error(
        "{static_bytes} bytes of static and {dynamic_bytes} of dynamic shared memory exceed the {} bytes a block has on {arch}",
        arch.limits().max_shared_per_block
    )]
    SharedTooLarge { static_bytes: u64, dynamic_bytes: u64, arch: Arch },
}

/// A launch as asked for: the shapes left out are the kernel's own (`Kernel::launch`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchRequest {
    pub grid: Option<Dims>,
    pub block: Option<Dims>,
    /// Bytes of dynamic shared memory per block.
    pub dynamic_shared: u64,
}

impl Kernel {
    /// Whether the kernel can be launched with `launch` on `arch`: no empty dimension, the
    /// block its `.reqntid` requires and no more threads than its `.maxntid` allows, and a
    /// block, a grid and shared memory (its static arrays and the dynamic bytes) within the
    /// architecture's limits, checked in that order.
    pub fn check_launch(&self, arch: Arch, launch: &Launch) -> Result<(), LaunchError> {
        let (block, grid) = (Dims(launch.block), Dims(launch.grid));
        for (shape, dims) in [(Shape::Block, block), (Shape::Grid, grid)] {
            if dims.0.contains(&0) {
                return Err(LaunchError::Empty { shape, dims });
            }
        }
        if let Some(required) = self.directives.reqntid.map(Dims).filter(|r| *r != block) {
            return Err(LaunchError::NotRequiredBlock { kernel: self.name.clone(), required, block });
        }
        if let Some(max) = self.directives.maxntid.map(Dims).filter(|m| block.count() > m.count()) {
            return Err(LaunchError::OverMaxThreads { kernel: self.name.clone(), max, block });
        }
        let limits = arch.limits();
        let exceeds = |dims: Dims, max: Dims| dims.0.iter().zip(max.0).any(|(d, m)| *d > m);
        if exceeds(block, limits.max_block) || block.count() > limits.max_threads_per_block {
            return Err(LaunchError::BlockTooLarge { block, limits });
        }
        if exceeds(grid, limits.max_grid) {
            return Err(LaunchError::GridTooLarge { grid, limits });
        }
        let static_bytes = self.static_shared_bytes();
        if static_bytes.saturating_add(launch.dynamic_shared) > limits.max_shared_per_block {
            return Err(LaunchError::SharedTooLarge { static_bytes, dynamic_bytes: launch.dynamic_shared, arch });
        }
        Ok(())
    }

    /// The kernel with the launch `request` asks for (its own shapes where it names none), once
    /// `check_launch` allows it.
    pub fn launched(&self, arch: Arch, request: LaunchRequest) -> Result<Kernel, LaunchError> {
        let launch = Launch {
            block: request.block.map_or(self.launch.block, |b| b.0),
            grid: request.grid.map_or(self.launch.grid, |g| g.0),
            dynamic_shared: request.dynamic_shared,
        };
        self.check_launch(arch, &launch)?;
        Ok(Kernel { launch, ..self.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::{Array, BlockDirectives, Line, StateSpace};

    fn kernel(directives: BlockDirectives, shared: u64) -> Kernel {
        let smem = Array {
            space: StateSpace::Shared,
            name: "smem".into(),
            align: 16,
            bytes: shared,
            dynamic: false,
            origin: None,
        };
        Kernel {
            name: "k".into(),
            params: Vec::new(),
            arrays: vec![smem],
            launch: Launch { block: [128, 1, 1], grid: [4, 1, 1], dynamic_shared: 0 },
            directives,
            source_file: None,
            body: vec![Line::Comment("empty".into())],
        }
    }

    fn ask(block: [u32; 3], grid: [u32; 3], dynamic_shared: u64) -> LaunchRequest {
        LaunchRequest { block: Some(Dims(block)), grid: Some(Dims(grid)), dynamic_shared }
    }

    #[test]
    fn the_kernels_own_launch_is_the_default() {
        let free = kernel(BlockDirectives::default(), 0);
        let launched = free.launched(Arch::Sm80, LaunchRequest::default()).unwrap();
        assert_eq!(launched.launch, free.launch);
        let reshaped = free.launched(Arch::Sm80, ask([32, 2, 1], [7, 1, 1], 64)).unwrap();
        assert_eq!(reshaped.launch, Launch { block: [32, 2, 1], grid: [7, 1, 1], dynamic_shared: 64 });
    }

    #[test]
    fn a_launch_meets_the_kernels_directives() {
        let required = kernel(BlockDirectives { reqntid: Some([128, 1, 1]), maxntid: None }, 0);
        assert!(required.launched(Arch::Sm80, ask([128, 1, 1], [1, 1, 1], 0)).is_ok());
        let error = required.launched(Arch::Sm80, ask([64, 2, 1], [1, 1, 1], 0)).unwrap_err();
        assert_eq!(
            error,
            LaunchError::NotRequiredBlock { kernel: "k".into(), required: Dims([128, 1, 1]), block: Dims([64, 2, 1]) }
        );
        assert_eq!(error.to_string(), "kernel `k` is declared for blocks of 128,1,1 threads, not 64,2,1");
        // `.maxntid` bounds the threads, not each dimension.
        let bounded = kernel(BlockDirectives { reqntid: None, maxntid: Some([128, 1, 1]) }, 0);
        assert!(bounded.launched(Arch::Sm80, ask([32, 4, 1], [1, 1, 1], 0)).is_ok());
        let error = bounded.launched(Arch::Sm80, ask([129, 1, 1], [1, 1, 1], 0)).unwrap_err();
        assert!(matches!(error, LaunchError::OverMaxThreads { block: Dims([129, 1, 1]), .. }), "{error}");
    }

    #[test]
    fn a_launch_fits_the_architectures_limits() {
        let free = kernel(BlockDirectives::default(), 1024);
        let refused = |request| free.launched(Arch::Sm80, request).unwrap_err();
        assert!(matches!(refused(ask([0, 1, 1], [1, 1, 1], 0)), LaunchError::Empty { shape: Shape::Block, .. }));
        assert!(matches!(refused(ask([1, 1, 1], [1, 0, 1], 0)), LaunchError::Empty { shape: Shape::Grid, .. }));
        assert!(matches!(refused(ask([1, 1, 65], [1, 1, 1], 0)), LaunchError::BlockTooLarge { .. }));
        let too_many = refused(ask([64, 32, 1], [1, 1, 1], 0));
        assert_eq!(
            too_many.to_string(),
            "a block of 64,32,1 threads does not fit (at most 1024,1024,64 and 1024 threads)"
        );
        assert!(free.launched(Arch::Sm80, ask([1024, 1, 1], [i32::MAX.unsigned_abs(), 65_535, 1], 0)).is_ok());
        let grid = refused(ask([1, 1, 1], [1, 65_536, 1], 0));
        assert_eq!(grid.to_string(), "a grid of 1,65536,1 blocks does not fit (at most 2147483647,65535,65535)");
        // Static and dynamic shared memory count together, against the architecture's own limit.
        let sm80 = 163 * 1024;
        assert!(free.launched(Arch::Sm80, ask([1, 1, 1], [1, 1, 1], sm80 - 1024)).is_ok());
        let shared = refused(ask([1, 1, 1], [1, 1, 1], sm80 - 1023));
        assert_eq!(
            shared,
            LaunchError::SharedTooLarge { static_bytes: 1024, dynamic_bytes: sm80 - 1023, arch: Arch::Sm80 }
        );
        assert!(shared.to_string().contains("exceed the 166912 bytes a block has on sm_80"), "{shared}");
        assert!(free.launched(Arch::Sm90, ask([1, 1, 1], [1, 1, 1], sm80)).is_ok());
    }
}
