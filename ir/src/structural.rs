//! Structural equality and hashing modulo renaming (placeholder until it lands).
