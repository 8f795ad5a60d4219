//! tirproof-fuzz: generators of valid programs, driven by `arbitrary::Unstructured` so that
//! proptest, cargo-fuzz and long campaigns share one source of programs.

pub mod gen;
