//! The reference interpreter (placeholder until it lands).
