//! The lexer (placeholder until the parser lands).
