//! The registry of engines: every engine tirproof runs programs on, named by the closed
//! [`EngineName`] and described once by its [`Registration`] (its key on the command line, a
//! one-line summary, the engine itself).
//!
//! Adding an engine is one file here (its `Engine` impl) and one registration: a variant of
//! [`EngineName`], its place in [`EngineName::ALL`] and its arm in
//! [`EngineName::registration`]. The command line's `--engine` values, their help and the
//! engine each one runs all derive from it.

mod gpu;
mod interp;
mod ptx;

use std::fmt;
use std::str::FromStr;

use tirproof_ptx::Arch;

pub use gpu::GpuEngine;
pub use interp::Interpreter;
pub use ptx::{kernel_args, LoweredKernel, PtxEmulator};

use crate::Engine;

/// The PTX target the registered PTX engines lower for.
const DEFAULT_ARCH: Arch = Arch::Sm80;

/// A registered engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EngineName {
    /// The reference interpreter.
    Interpreter,
    /// The lowering pipeline, codegen and the PTX emulator.
    Ptx,
    /// The same PTX on the GPU.
    Gpu,
}

/// What the registry knows of one engine.
#[derive(Clone, Copy)]
pub struct Registration {
    /// Its spelling on the command line and in messages about the choice (`ptx`).
    pub key: &'static str,
    /// What it is, in one line (the command line's help of its value).
    pub summary: &'static str,
    /// The engine, configured as the command line and the oracles run it.
    pub engine: &'static (dyn Engine + Sync),
}

impl EngineName {
    /// Every engine, in the order the command line lists them.
    pub const ALL: [EngineName; 3] = [EngineName::Interpreter, EngineName::Ptx, EngineName::Gpu];

    /// The one place each engine is registered.
    pub fn registration(self) -> Registration {
        match self {
            EngineName::Interpreter => {
                Registration { key: "interpreter", summary: "The reference interpreter", engine: &Interpreter }
            }
            EngineName::Ptx => Registration {
                key: "ptx",
                summary: "The lowering pipeline, codegen for sm_80 and the PTX emulator (threads in order)",
                engine: &PtxEmulator { arch: DEFAULT_ARCH },
            },
            EngineName::Gpu => Registration {
                key: "gpu",
                summary: "The same PTX on the GPU (device 0), after the emulator found it free of faults",
                engine: &GpuEngine { arch: DEFAULT_ARCH },
            },
        }
    }

    /// Its spelling on the command line.
    pub fn key(self) -> &'static str {
        self.registration().key
    }

    /// The registered engine.
    pub fn engine(self) -> &'static (dyn Engine + Sync) {
        self.registration().engine
    }
}

impl fmt::Display for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A name that is not the key of a registered engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine `{name}` (expected one of: {})", EngineName::ALL.map(EngineName::key).join(", "))]
pub struct UnknownEngine {
    pub name: String,
}

impl FromStr for EngineName {
    type Err = UnknownEngine;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EngineName::ALL.into_iter().find(|e| e.key() == s).ok_or_else(|| UnknownEngine { name: s.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_is_registered_once_under_a_key_that_parses_back() {
        for name in EngineName::ALL {
            assert_eq!(name.key().parse::<EngineName>(), Ok(name));
            assert_eq!(EngineName::ALL.iter().filter(|other| other.key() == name.key()).count(), 1, "{name}");
        }
        assert_eq!(EngineName::Ptx.engine().name(), "PTX emulator");
        assert_eq!(EngineName::Gpu.engine().ptx_target(), Some(DEFAULT_ARCH));
        let unknown = "cpu".parse::<EngineName>().map_err(|e| e.to_string());
        assert_eq!(unknown, Err("unknown engine `cpu` (expected one of: interpreter, ptx, gpu)".to_string()));
    }
}
