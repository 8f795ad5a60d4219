//! The table of known intrinsics (placeholder until the parser lands).
