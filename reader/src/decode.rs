//! Source bytes to text: the reader takes UTF-8 only, and says where it is not.
//!
//! Invariant: invalid UTF-8 is a located diagnostic at the first invalid byte (line and column
//! counted as the lexer counts them), never an I/O error; the text returned alongside is the
//! lossy decoding, so nothing downstream sees invalid data.

use tirproof_ir::diag::Diagnostic;
use tirproof_ir::span::Span;

/// The text of `bytes`, and the diagnostic of its first invalid UTF-8 sequence if it has one.
pub fn decode_source(bytes: Vec<u8>) -> (String, Option<Diagnostic>) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(error) => {
            let bytes = error.as_bytes();
            let valid_up_to = error.utf8_error().valid_up_to();
            let invalid_len = error.utf8_error().error_len().unwrap_or(bytes.len() - valid_up_to);
            let valid = String::from_utf8_lossy(bytes.get(..valid_up_to).unwrap_or_default());
            let found = bytes
                .get(valid_up_to..valid_up_to + invalid_len)
                .unwrap_or_default()
                .iter()
                .map(|b| format!("{b:#04x}"))
                .collect::<Vec<_>>()
                .join(" ");
            let diag =
                Diagnostic::error(Span::after(&valid), "invalid UTF-8").expected("UTF-8 text", format!("byte {found}"));
            (String::from_utf8_lossy(bytes).into_owned(), Some(diag))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_text_is_kept() {
        assert_eq!(decode_source(b"x = 1\n".to_vec()), ("x = 1\n".to_string(), None));
    }

    #[test]
    fn the_first_invalid_byte_is_located_after_any_line_end() {
        for (bytes, at) in
            [(&b"\xff"[..], "1:1"), (b"ab\r\nc\xe9d\xff", "2:2"), (b"a\rb\r\x80", "3:1"), (b"\xc3\xa9\xc3", "1:2")]
        {
            let (text, diag) = decode_source(bytes.to_vec());
            let diag = diag.expect("invalid UTF-8 is reported");
            assert_eq!(diag.span.to_string(), at, "{bytes:?}");
            assert!(diag.headline().contains("invalid UTF-8"), "{}", diag.headline());
            assert!(text.contains('\u{fffd}'));
        }
    }
}
