//! tirproof-fuzz: generators of valid programs, differential oracles and the differential
//! execution they share.
//!
//! Generators are driven by `arbitrary::Unstructured` so that proptest, cargo-fuzz and long
//! campaigns share one source of programs; the oracles answer with closed outcome enums.
//! Programs run on `tirproof_exec`'s engines, and its one driver (`tirproof_exec::compare`)
//! compares two of them.

pub mod campaign;
pub mod cutoff;
pub mod foreign_peer;
pub mod gen;
pub mod mlir_peer;
pub mod oracle;
pub mod peer;
pub mod publish;
pub mod reduce;
pub mod report;
pub mod targets;
pub mod witness;
