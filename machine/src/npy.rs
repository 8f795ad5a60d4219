//! `.npy` reading: the one reader of numpy's array files into [`Tensor`]s, for every path that
//! takes a `.npy` input (a TIR buffer of known type and shape, or a PTX buffer in the file's own
//! type and shape) and for the `npy` fuzz target.
//!
//! Invariants:
//! - Bounded: the header's declared length is checked against [`MAX_HEADER_BYTES`] before
//!   anything is allocated for it; the data is read no further than the size its shape gives
//!   (plus one byte, to tell a longer file), and that size is checked against the caller's
//!   bound first, so an endless stream or a header claiming gigabytes is an error, not an
//!   allocation.
//! - Linear: the header dictionary is read by a single left-to-right scan with no backtracking;
//!   it stops at the first key that is not one of the three the format defines, without looking
//!   at that key's value (a nested value cannot make it slow).
//! - Strict: the header has exactly `descr`, `fortran_order` and `shape`; the element type is
//!   one a tensor holds; the data is exactly as long as the shape says. Nothing is misread:
//!   Fortran-order data is transposed into C order (any rank) and big-endian elements are
//!   byte-swapped; object and structured arrays are refused.

use std::fmt;
use std::io::Read;

use thiserror::Error;
use tirproof_ir::dtype::{DataType, TypeCode};

use crate::error::ExecError;
use crate::tensor::Tensor;

/// The magic string of every `.npy` file.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The longest header accepted (numpy pads headers to 64 bytes and writes a few hundred at
/// most; a longer one would describe a shape no buffer has).
pub const MAX_HEADER_BYTES: u32 = 64 * 1024;

/// The most dimensions a shape may have (numpy's own limit is 64).
pub const MAX_DIMS: usize = 64;

/// The three keys of a header dictionary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Descr,
    FortranOrder,
    Shape,
}

impl Key {
    const ALL: [Key; 3] = [Key::Descr, Key::FortranOrder, Key::Shape];

    fn name(self) -> &'static str {
        match self {
            Key::Descr => "descr",
            Key::FortranOrder => "fortran_order",
            Key::Shape => "shape",
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}'", self.name())
    }
}

/// What is wrong in a header dictionary, at a byte offset of the header text.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum HeaderProblem {
    #[error("expected {0}")]
    Expected(&'static str),
    #[error("unknown key '{0}' (an .npy header has exactly the keys 'descr', 'fortran_order' and 'shape')")]
    UnknownKey(String),
    #[error("key {0} appears twice")]
    DuplicateKey(Key),
    #[error("key {0} is missing")]
    MissingKey(Key),
    #[error("a string with an escape sequence (no element type or key has one)")]
    Escape,
    #[error("a structured element type (a list of fields) is not supported: give one array per buffer")]
    Structured,
    #[error("more than {MAX_DIMS} dimensions")]
    TooManyDims,
    #[error("a dimension too large to count")]
    DimensionOverflow,
}

/// Why a `.npy` input was refused. The caller adds the file's name.
#[derive(Debug, Error)]
pub enum NpyError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a .npy file (no .npy magic string)")]
    NotNpy,
    #[error("unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are read)")]
    Version { major: u8, minor: u8 },
    #[error("the .npy header says it is {claimed} bytes long (at most {MAX_HEADER_BYTES})")]
    HeaderTooLong { claimed: u32 },
    #[error("the file ends inside its {length}-byte .npy header")]
    TruncatedHeader { length: u32 },
    #[error(".npy header, byte {offset}: {problem}")]
    Header { offset: usize, problem: HeaderProblem },
    #[error("object arrays (descr '{0}') are not supported: their elements are Python objects, not numbers")]
    ObjectElements(String),
    #[error("elements of type '{0}' are not supported (supported: {SUPPORTED})")]
    UnsupportedElements(String),
    #[error("the file holds {found} elements (descr '{descr}'), the buffer is {expected}")]
    WrongElements { descr: String, found: DataType, expected: DataType },
    #[error("the file's shape is {found:?}, the buffer's is {expected:?}")]
    WrongShape { found: Vec<u64>, expected: Vec<usize> },
    #[error("shape {shape:?} of {dtype} holds more than {max} bytes")]
    TooLarge { shape: Vec<u64>, dtype: DataType, max: u64 },
    #[error("the data ends after {found} bytes, but shape {shape:?} of {dtype} needs {expected}")]
    TooShort { found: u64, expected: u64, shape: Vec<u64>, dtype: DataType },
    #[error("the file holds more data than the buffer's {expected} bytes ({dtype}, shape {shape:?})")]
    TooLong { expected: u64, shape: Vec<u64>, dtype: DataType },
    #[error("element {index} is the byte {byte}, not a bool (0 or 1)")]
    NotBool { index: usize, byte: u8 },
    #[error(transparent)]
    Tensor(#[from] ExecError),
}

/// The element types a tensor can be read in, by numpy's type code after the byte order.
const ELEMENTS: [(&str, DataType); 11] = [
    ("f2", DataType::FLOAT16),
    ("f4", DataType::FLOAT32),
    ("f8", DataType::FLOAT64),
    ("i1", DataType::INT8),
    ("i2", DataType::INT16),
    ("i4", DataType::INT32),
    ("i8", DataType::INT64),
    ("u1", DataType::new(TypeCode::UInt, 8, 1)),
    ("u2", DataType::new(TypeCode::UInt, 16, 1)),
    ("u4", DataType::new(TypeCode::UInt, 32, 1)),
    ("b1", DataType::BOOL),
];

/// [`ELEMENTS`] for messages.
const SUPPORTED: &str = "<f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 |b1, or > for big-endian";

/// An element type as a file stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    pub dtype: DataType,
    pub big_endian: bool,
}

impl Element {
    /// The element type of a `descr` string: a byte order (`<`, `>`; `|` or `=` only where it
    /// does not matter, a single byte) and one of [`ELEMENTS`].
    fn parse(descr: &str) -> Result<Element, NpyError> {
        let unsupported = || NpyError::UnsupportedElements(descr.to_string());
        let mut chars = descr.chars();
        let order = chars.next().ok_or_else(unsupported)?;
        let code = chars.as_str();
        if code.starts_with('O') {
            return Err(NpyError::ObjectElements(descr.to_string()));
        }
        let dtype = ELEMENTS.iter().find(|(name, _)| *name == code).map(|(_, dtype)| *dtype).ok_or_else(unsupported)?;
        let big_endian = match order {
            '<' => false,
            '>' => true,
            '|' | '=' if dtype.bytes() == 1 => false,
            _ => return Err(unsupported()),
        };
        Ok(Element { dtype, big_endian })
    }
}

/// A parsed header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The `descr` string as written.
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<u64>,
}

/// What the caller expects of a file.
#[derive(Clone, Copy, Debug)]
pub enum Expected<'a> {
    /// A buffer of this element type and shape: the file must hold exactly that.
    Buffer { dtype: DataType, shape: &'a [usize] },
    /// Any supported element type and shape, of at most `max_bytes` of data.
    Stored { max_bytes: u64 },
}

/// Reads a whole `.npy` file from `input` as a tensor in C order, as `expected` allows.
pub fn read(mut input: impl Read, expected: Expected<'_>) -> Result<Tensor, NpyError> {
    let header = read_header(&mut input)?;
    let element = Element::parse(&header.descr)?;
    let dtype = element.dtype;
    let data_bytes = header.shape.iter().try_fold(u64::from(dtype.bytes()), |size, &d| size.checked_mul(d));
    match expected {
        Expected::Buffer { dtype: wanted, shape } => {
            if dtype != wanted {
                return Err(NpyError::WrongElements { descr: header.descr, found: dtype, expected: wanted });
            }
            if !header.shape.iter().copied().eq(shape.iter().map(|&d| d as u64)) {
                return Err(NpyError::WrongShape { found: header.shape, expected: shape.to_vec() });
            }
        }
        Expected::Stored { max_bytes } => {
            if data_bytes.is_none_or(|b| b > max_bytes) {
                return Err(NpyError::TooLarge { shape: header.shape, dtype, max: max_bytes });
            }
        }
    }
    let Some(data_bytes) = data_bytes else {
        return Err(NpyError::TooLarge { shape: header.shape, dtype, max: u64::MAX });
    };
    // Grown as the data arrives: a shape claiming more than the file holds costs no memory.
    let mut data = Vec::new();
    input.take(data_bytes.saturating_add(1)).read_to_end(&mut data)?;
    let found = data.len() as u64;
    if found < data_bytes {
        return Err(NpyError::TooShort { found, expected: data_bytes, shape: header.shape, dtype });
    }
    if found > data_bytes {
        return Err(NpyError::TooLong { expected: data_bytes, shape: header.shape, dtype });
    }
    let bits = decode(&data, element)?;
    let shape: Vec<usize> = header.shape.iter().map(|&d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
    let bits = if header.fortran_order { fortran_to_c(&bits, &shape) } else { bits };
    Ok(Tensor::from_bits(dtype, shape, bits)?)
}

/// Reads the preamble and the header: magic, version, the header's length (bounded before it
/// is read) and its dictionary.
pub fn read_header(input: &mut impl Read) -> Result<Header, NpyError> {
    let mut preamble = [0u8; 8];
    read_exact_or(input, &mut preamble, NpyError::NotNpy)?;
    let (magic, version) = preamble.split_at(MAGIC.len());
    if magic != MAGIC {
        return Err(NpyError::NotNpy);
    }
    let (major, minor) = (version[0], version[1]);
    // Version 1 stores the header's length in 2 bytes, versions 2 and 3 in 4.
    let length = match (major, minor) {
        (1, 0) => {
            let mut length = [0u8; 2];
            read_exact_or(input, &mut length, NpyError::NotNpy)?;
            u32::from(u16::from_le_bytes(length))
        }
        (2 | 3, 0) => {
            let mut length = [0u8; 4];
            read_exact_or(input, &mut length, NpyError::NotNpy)?;
            u32::from_le_bytes(length)
        }
        _ => return Err(NpyError::Version { major, minor }),
    };
    if length > MAX_HEADER_BYTES {
        return Err(NpyError::HeaderTooLong { claimed: length });
    }
    let mut text = vec![0u8; length as usize];
    read_exact_or(input, &mut text, NpyError::TruncatedHeader { length })?;
    parse_header(&text)
}

/// `read_exact`, with `short` for a stream that ends first.
fn read_exact_or(input: &mut impl Read, buf: &mut [u8], short: NpyError) -> Result<(), NpyError> {
    match input.read_exact(buf) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(short),
        Err(e) => Err(NpyError::Io(e)),
    }
}

/// Parses a header dictionary: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`
/// in any key order, with Python's whitespace, then padding (whitespace) to the end.
pub fn parse_header(text: &[u8]) -> Result<Header, NpyError> {
    let mut scan = Scan { text, at: 0 };
    scan.header().map_err(|(offset, problem)| NpyError::Header { offset, problem })
}

/// A left-to-right scan of a header; every method advances or fails, never backs up.
struct Scan<'t> {
    text: &'t [u8],
    at: usize,
}

type Located<T> = Result<T, (usize, HeaderProblem)>;

impl Scan<'_> {
    fn fail<T>(&self, problem: HeaderProblem) -> Located<T> {
        Err((self.at, problem))
    }

    fn skip_space(&mut self) {
        while self.text.get(self.at).is_some_and(|b| b" \t\r\n".contains(b)) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.at).copied()
    }

    /// Consumes `byte` (after whitespace) if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.peek() == Some(byte);
        if next {
            self.at += 1;
        }
        next
    }

    fn expect(&mut self, byte: u8, what: &'static str) -> Located<()> {
        if self.eat(byte) {
            Ok(())
        } else {
            self.fail(HeaderProblem::Expected(what))
        }
    }

    fn header(&mut self) -> Located<Header> {
        self.expect(b'{', "'{' opening the header dictionary")?;
        let (mut descr, mut fortran_order, mut shape) = (None, None, None);
        while !self.eat(b'}') {
            let key_at = {
                self.skip_space();
                self.at
            };
            let name = self.string("a key (a quoted string) or '}'")?;
            let key = Key::ALL.into_iter().find(|k| k.name() == name);
            let Some(key) = key else {
                return Err((key_at, HeaderProblem::UnknownKey(name.to_string())));
            };
            self.expect(b':', "':' after the key")?;
            let seen = match key {
                Key::Descr => {
                    if self.peek() == Some(b'[') {
                        return self.fail(HeaderProblem::Structured);
                    }
                    descr.replace(self.string("the element type (a quoted string)")?.to_string()).is_some()
                }
                Key::FortranOrder => fortran_order.replace(self.boolean()?).is_some(),
                Key::Shape => shape.replace(self.shape()?).is_some(),
            };
            if seen {
                return Err((key_at, HeaderProblem::DuplicateKey(key)));
            }
            if !self.eat(b',') {
                self.expect(b'}', "',' or '}' after a value")?;
                break;
            }
        }
        if self.peek().is_some() {
            return self.fail(HeaderProblem::Expected("only padding after the header dictionary"));
        }
        let missing = |key| (self.at, HeaderProblem::MissingKey(key));
        Ok(Header {
            descr: descr.ok_or_else(|| missing(Key::Descr))?,
            fortran_order: fortran_order.ok_or_else(|| missing(Key::FortranOrder))?,
            shape: shape.ok_or_else(|| missing(Key::Shape))?,
        })
    }

    /// A quoted string without escapes.
    fn string(&mut self, what: &'static str) -> Located<&str> {
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return self.fail(HeaderProblem::Expected(what)),
        };
        let start = self.at + 1;
        let rest = self.text.get(start..).unwrap_or_default();
        let Some(len) = rest.iter().position(|&b| b == quote || b == b'\\' || b == b'\n') else {
            return self.fail(HeaderProblem::Expected("the closing quote"));
        };
        self.at = start + len;
        match rest.get(len) {
            Some(b'\\') => return self.fail(HeaderProblem::Escape),
            Some(b'\n') => return self.fail(HeaderProblem::Expected("the closing quote")),
            _ => {}
        }
        self.at += 1;
        let bytes = rest.get(..len).unwrap_or_default();
        std::str::from_utf8(bytes).or_else(|_| self.fail(HeaderProblem::Expected("a UTF-8 string")))
    }

    fn boolean(&mut self) -> Located<bool> {
        self.skip_space();
        let rest = self.text.get(self.at..).unwrap_or_default();
        for (word, value) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if rest.starts_with(word) {
                self.at += word.len();
                return Ok(value);
            }
        }
        self.fail(HeaderProblem::Expected("True or False"))
    }

    /// A tuple of dimensions: `()`, `(n,)` or `(n, m, ...)` with an optional trailing comma.
    fn shape(&mut self) -> Located<Vec<u64>> {
        self.expect(b'(', "a shape tuple '(...)'")?;
        let mut dims = Vec::new();
        while !self.eat(b')') {
            if dims.len() == MAX_DIMS {
                return self.fail(HeaderProblem::TooManyDims);
            }
            dims.push(self.dimension()?);
            if !self.eat(b',') {
                if dims.len() == 1 {
                    // `(n)` is an integer in Python, not a tuple.
                    return self.fail(HeaderProblem::Expected("',' after the only dimension"));
                }
                self.expect(b')', "',' or ')' in the shape")?;
                break;
            }
        }
        Ok(dims)
    }

    /// A non-negative decimal integer (Python 2's `L` suffix allowed).
    fn dimension(&mut self) -> Located<u64> {
        self.skip_space();
        let start = self.at;
        let mut value: u64 = 0;
        while let Some(digit) = self.text.get(self.at).filter(|b| b.is_ascii_digit()) {
            value = match value.checked_mul(10).and_then(|v| v.checked_add(u64::from(digit - b'0'))) {
                Some(v) => v,
                None => return Err((start, HeaderProblem::DimensionOverflow)),
            };
            self.at += 1;
        }
        if self.at == start {
            return self.fail(HeaderProblem::Expected("a dimension (a non-negative integer)"));
        }
        if self.text.get(self.at) == Some(&b'L') {
            self.at += 1;
        }
        Ok(value)
    }
}

/// The elements of `data` as canonical tensor bits (before [`Tensor::from_bits`] normalizes
/// them): little- or big-endian as the file says; a bool byte must be 0 or 1.
fn decode(data: &[u8], element: Element) -> Result<Vec<u64>, NpyError> {
    let size = element.dtype.bytes() as usize;
    let mut bits = Vec::with_capacity(data.len() / size.max(1));
    for (index, chunk) in data.chunks_exact(size.max(1)).enumerate() {
        let mut word = [0u8; 8];
        let low = word.get_mut(..chunk.len()).unwrap_or_default();
        low.copy_from_slice(chunk);
        if element.big_endian {
            low.reverse();
        }
        let value = u64::from_le_bytes(word);
        if element.dtype.code == TypeCode::Bool && value > 1 {
            return Err(NpyError::NotBool { index, byte: chunk.first().copied().unwrap_or_default() });
        }
        bits.push(value);
    }
    Ok(bits)
}

/// Elements stored in Fortran order (first index fastest) reordered into C order (last index
/// fastest), for any rank.
fn fortran_to_c(bits: &[u64], shape: &[usize]) -> Vec<u64> {
    if bits.is_empty() || shape.len() < 2 {
        return bits.to_vec();
    }
    // Fortran strides: 1, d0, d0*d1, ... (the product fits: it is at most the element count).
    let mut strides = Vec::with_capacity(shape.len());
    let mut stride = 1usize;
    for &d in shape {
        strides.push(stride);
        stride = stride.saturating_mul(d);
    }
    let mut index = vec![0usize; shape.len()];
    let mut offset = 0usize;
    let mut out = Vec::with_capacity(bits.len());
    for _ in 0..bits.len() {
        out.push(bits.get(offset).copied().unwrap_or_default());
        // Advance the C-order index (an odometer, last dimension fastest) and its Fortran offset.
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            offset += strides[axis];
            if index[axis] < shape[axis] {
                break;
            }
            offset -= strides[axis] * index[axis];
            index[axis] = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.npy` file of `header` (padded as numpy pads it) and `data`, in format version 1.0.
    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut text = header.as_bytes().to_vec();
        while !(MAGIC.len() + 4 + text.len() + 1).is_multiple_of(64) {
            text.push(b' ');
        }
        text.push(b'\n');
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 0]);
        bytes.extend_from_slice(&u16::try_from(text.len()).expect("short").to_le_bytes());
        bytes.extend_from_slice(&text);
        bytes.extend_from_slice(data);
        bytes
    }

    fn stored(bytes: &[u8]) -> Result<Tensor, NpyError> {
        read(bytes, Expected::Stored { max_bytes: 1 << 20 })
    }

    fn i32_data(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn c_order_little_endian_reads_as_written() {
        let bytes =
            file("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", &i32_data(&[1, 2, 3, 4, 5, -6]));
        let tensor = stored(&bytes).expect("reads");
        assert_eq!((tensor.dtype, tensor.shape.clone()), (DataType::INT32, vec![2, 3]));
        assert_eq!(tensor.to_i64_vec(), vec![1, 2, 3, 4, 5, -6]);
    }

    /// numpy writes `np.arange(24).reshape(2, 3, 4).T` (shape (4, 3, 2)) with `fortran_order:
    /// True` and the data of the original array: element [i, j, k] of the transpose is
    /// original[k, j, i] = 12k + 4j + i.
    #[test]
    fn fortran_order_is_transposed_into_c_order_at_any_rank() {
        let original: Vec<i32> = (0..24).collect();
        let bytes = file("{'descr': '<i4', 'fortran_order': True, 'shape': (4, 3, 2), }", &i32_data(&original));
        let tensor = stored(&bytes).expect("reads");
        let mut expected = Vec::new();
        for i in 0..4 {
            for j in 0..3 {
                for k in 0..2 {
                    expected.push(12 * k + 4 * j + i);
                }
            }
        }
        assert_eq!(tensor.to_i64_vec(), expected);
        let matrix = file("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", &i32_data(&[1, 4, 2, 5, 3, 6]));
        assert_eq!(stored(&matrix).expect("reads").to_i64_vec(), vec![1, 2, 3, 4, 5, 6]);
        let empty = file("{'descr': '<i4', 'fortran_order': True, 'shape': (0, 3), }", &[]);
        assert_eq!(stored(&empty).expect("reads").len(), 0);
    }

    #[test]
    fn big_endian_elements_are_byte_swapped() {
        let data: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| v.to_be_bytes()).collect();
        let bytes = file("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", &data);
        assert_eq!(stored(&bytes).expect("reads").to_f64_vec(), vec![1.5, -2.0]);
        let data: Vec<u8> = (-3i16).to_be_bytes().to_vec();
        let bytes = file("{'shape': (1,), 'descr': '>i2', 'fortran_order': False}", &data);
        assert_eq!(stored(&bytes).expect("reads").to_i64_vec(), vec![-3]);
    }

    #[test]
    fn refusals_say_what_was_expected() {
        let message = |header: &str, data: &[u8]| stored(&file(header, data)).err().map(|e| e.to_string());
        let object = message("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", &[0; 8]);
        assert!(object.is_some_and(|m| m.contains("object arrays")));
        let structured = message("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", &[0; 4]);
        assert!(structured.is_some_and(|m| m.contains("structured element type")));
        let extra = message("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", &[0; 4]);
        assert!(extra.is_some_and(|m| m.contains("unknown key 'x'")));
        let missing = message("{'descr': '<i4', 'shape': (1,), }", &[0; 4]);
        assert!(missing.is_some_and(|m| m.contains("'fortran_order' is missing")));
        let twice = message("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", &[0; 4]);
        assert!(twice.is_some_and(|m| m.contains("'descr' appears twice")));
        let short = message("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", &[0; 4]);
        assert!(short.is_some_and(|m| m.contains("ends after 4 bytes") && m.contains("needs 8")));
        let long = message("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", &[0; 5]);
        assert!(long.is_some_and(|m| m.contains("more data")));
        let not_bool = message("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", &[1, 2]);
        assert!(not_bool.is_some_and(|m| m.contains("element 1 is the byte 2")));
        let int_shape = message("{'descr': '<i4', 'fortran_order': False, 'shape': (1), }", &[0; 4]);
        assert!(int_shape.is_some_and(|m| m.contains("',' after the only dimension")));
        let huge = message("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", &[]);
        assert!(huge.is_some_and(|m| m.contains("holds more than")));
        let bytes = file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", &[0; 8]);
        let wrong = read(&bytes[..], Expected::Buffer { dtype: DataType::INT32, shape: &[2] });
        assert!(wrong
            .err()
            .is_some_and(|e| e.to_string().contains("float32 elements (descr '<f4'), the buffer is int32")));
        let wrong = read(&bytes[..], Expected::Buffer { dtype: DataType::FLOAT32, shape: &[1, 2] });
        assert!(wrong.err().is_some_and(|e| e.to_string().contains("shape is [2], the buffer's is [1, 2]")));
    }

    /// An extra key's value is never read, so nesting in it costs nothing (npyz's parser took
    /// time doubling with each level: 35 s at 18).
    #[test]
    fn a_deeply_nested_extra_value_is_refused_at_once() {
        let depth = 30_000;
        let header = format!(
            "{{'descr': '<i4', 'x': {}{}, 'fortran_order': False, 'shape': (1,)}}",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[2, 0]);
        bytes.extend_from_slice(&u32::try_from(header.len()).expect("fits").to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        let start = std::time::Instant::now();
        let error = stored(&bytes).err().map(|e| e.to_string());
        assert!(error.is_some_and(|m| m.contains("byte 17: unknown key 'x'")));
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn header_lengths_are_bounded_before_anything_is_allocated() {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[2, 0]);
        bytes.extend_from_slice(&u32::MAX.to_le_bytes());
        let error = stored(&bytes).err().map(|e| e.to_string());
        assert!(error.is_some_and(|m| m.contains("4294967295 bytes long (at most 65536)")));
        let error = stored(&bytes[..9]).err().map(|e| e.to_string());
        assert!(error.is_some_and(|m| m.contains("not a .npy file")));
        bytes[6] = 4;
        assert!(matches!(stored(&bytes), Err(NpyError::Version { major: 4, minor: 0 })));
    }
}
