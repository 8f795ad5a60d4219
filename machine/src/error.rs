//! The interpreter's own errors (`ExecError`) and the internal `Trap` that carries either
//! such an error or a program fault up to the statement that can locate it.
//!
//! Invariant: a program fault is never an `ExecError`. `ExecError` means the interpreter
//! could not give the program a meaning (unsupported construct, ill-formed or ill-typed IR
//! that the checker should have rejected, missing or malformed inputs, resource limits);
//! a `Fault` is a legitimate outcome of running a well-formed program.

use super::fault::{Fault, FaultKind};
use super::limit::Limit;

/// Why the interpreter could not run a program (as opposed to the program faulting).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// A construct the interpreter does not model (an unknown call, a pointer cast, ...).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// IR the checker should have rejected: lane or type mismatches, unbound variables, ...
    #[error("ill-formed program: {0}")]
    IllFormed(String),
    /// No tensor or scalar was supplied for a parameter.
    #[error("missing input for parameter `{0}`")]
    MissingInput(String),
    /// A supplied input does not fit its parameter.
    #[error("bad input for parameter `{name}`: {message}")]
    BadInput { name: String, message: String },
    /// The program asks for more memory or threads than the interpreter allows.
    #[error("resource limit: {0}")]
    ResourceLimit(String),
    /// The program went past a bound of the machine (`limit`) at a line of its source.
    #[error("line {line}: resource limit: {limit}")]
    LimitExceeded { line: u32, limit: Limit },
}

/// What stops execution below the statement level: a fault not yet located, a fault already
/// located (region-level faults), or an interpreter error. Boxed so `Result<u64, Trap>` stays
/// two words on the hot path.
pub struct Trap(pub Box<TrapKind>);

pub enum TrapKind {
    /// A fault whose statement context is added by the executor.
    Fault {
        kind: FaultKind,
        message: String,
    },
    Located(Fault),
    Error(ExecError),
}

pub type R<T> = Result<T, Trap>;

impl Trap {
    pub fn fault(kind: FaultKind, message: impl Into<String>) -> Trap {
        Trap(Box::new(TrapKind::Fault { kind, message: message.into() }))
    }

    pub fn located(fault: Fault) -> Trap {
        Trap(Box::new(TrapKind::Located(fault)))
    }

    pub fn unsupported(message: impl Into<String>) -> Trap {
        Trap(Box::new(TrapKind::Error(ExecError::Unsupported(message.into()))))
    }

    pub fn ill_formed(message: impl Into<String>) -> Trap {
        Trap(Box::new(TrapKind::Error(ExecError::IllFormed(message.into()))))
    }

    pub fn resource(message: impl Into<String>) -> Trap {
        Trap(Box::new(TrapKind::Error(ExecError::ResourceLimit(message.into()))))
    }
}

impl From<ExecError> for Trap {
    fn from(e: ExecError) -> Self {
        Trap(Box::new(TrapKind::Error(e)))
    }
}

impl std::fmt::Debug for Trap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            TrapKind::Fault { kind, message } => write!(f, "Fault({kind:?}: {message})"),
            TrapKind::Located(fault) => write!(f, "Located({fault})"),
            TrapKind::Error(e) => write!(f, "Error({e})"),
        }
    }
}
