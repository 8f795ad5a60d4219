//! Annotation dictionaries on loops, blocks, allocations and functions.
//!
//! Keys keep the order in which they were written, so printing is deterministic and faithful.
//! Values are the Python literals TVMScript uses (ints, floats, bools, strings, lists, dicts)
//! or, for anything else, an expression. The three software-pipeline keys are named here so
//! that every crate spells them the same way.

use crate::expr::Expr;
use crate::span::Span;

pub const PIPELINE_STAGE: &str = "software_pipeline_stage";
pub const PIPELINE_ORDER: &str = "software_pipeline_order";
pub const PIPELINE_ASYNC_STAGES: &str = "software_pipeline_async_stages";

/// Attribute keys of the async model (see docs/async-semantics.md).
pub const ASYNC_SCOPE: &str = "async_scope";
pub const ASYNC_COMMIT_QUEUE_SCOPE: &str = "async_commit_queue_scope";
pub const ASYNC_WAIT_QUEUE_SCOPE: &str = "async_wait_queue_scope";
pub const ASYNC_WAIT_INFLIGHT_COUNT: &str = "async_wait_inflight_count";
/// The tokens a wait is for (`T.tvm_tuple(t0, t1)` or one token), in a wait's chain.
pub const ASYNC_WAIT_TOKENS: &str = "async_wait_tokens";

#[derive(Clone, Debug, PartialEq)]
pub enum AnnValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    List(Vec<AnnValue>),
    Dict(Annotations),
    Expr(Expr),
}

impl AnnValue {
    /// The value as a list of integers, if it is one.
    pub fn as_int_list(&self) -> Option<Vec<i64>> {
        match self {
            AnnValue::List(items) => items
                .iter()
                .map(|v| match v {
                    AnnValue::Int(i) => Some(*i),
                    AnnValue::Expr(e) => e.as_int(),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            AnnValue::Int(i) => Some(*i),
            AnnValue::Expr(e) => e.as_int(),
            _ => None,
        }
    }

    /// A short name of the value's kind, for diagnostics.
    pub fn kind_name(&self) -> &'static str {
        match self {
            AnnValue::Int(_) => "an integer",
            AnnValue::Float(_) => "a float",
            AnnValue::Bool(_) => "a bool",
            AnnValue::Str(_) => "a string",
            AnnValue::List(_) => "a list",
            AnnValue::Dict(_) => "a dict",
            AnnValue::Expr(_) => "an expression",
        }
    }
}

/// An ordered `{key: value}` dictionary.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    pub entries: Vec<(String, AnnValue)>,
    /// Where the dictionary was written (a block's first `T.attr({...})`), `Span::UNKNOWN`
    /// when built; like every span, no part of equality.
    pub span: Span,
}

impl PartialEq for Annotations {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Annotations {
    pub fn new() -> Self {
        Annotations::default()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&self, key: &str) -> Option<&AnnValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key`, replacing an existing entry in place or appending a new one.
    pub fn insert(&mut self, key: impl Into<String>, value: AnnValue) {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<AnnValue> {
        let pos = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(pos).1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &AnnValue)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
}
