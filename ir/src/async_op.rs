//! The async protocol in one typed form: the four attribute keys, what a chain of them does,
//! the one decoder every consumer calls and the builders every emitter calls.
//!
//! In text and in the IR the protocol is TVM's: `AttrStmt`s (or S-TIR block annotations) keyed
//! `async_wait_queue_scope` + `async_wait_inflight_count`, `async_scope` and
//! `async_commit_queue_scope`. Their meaning (docs/async-semantics.md) is decided here once:
//!
//! - A **chain** is a maximal run of directly nested async attributes in which no key repeats;
//!   a key met again starts a nested chain that runs inside the outer chain's body (two waits on
//!   different queues, say). Other attributes end a chain.
//! - A chain does, in this order: its wait (queue and in-flight count, which must both be
//!   present or both absent, the count inside the wait as TVM nests them), its body
//!   (asynchronous under `async_scope`), its commit.
//! - A block's annotations are one chain around the block body.
//!
//! Invariant: the checker, the interpreter, the verifier's model and the passes read chains
//! only through [`decode_chain`] and [`decode_annotations`] and build them only through
//! [`AsyncOps::wrap`] and the builders, so they cannot disagree on what a chain means.

use std::fmt;

use crate::annotation::{
    AnnValue, Annotations, ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE,
};
use crate::expr::Expr;
use crate::stmt::{AttrStmt, Stmt, StmtKind};

/// The attribute keys of the async protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AsyncKey {
    /// `async_wait_queue_scope`: the queue a wait drains.
    WaitQueue,
    /// `async_wait_inflight_count`: how many groups the wait leaves in flight.
    InflightCount,
    /// `async_scope`: the stores inside are asynchronous.
    Scope,
    /// `async_commit_queue_scope`: commit the pending stores as one group of a queue.
    CommitQueue,
}

impl AsyncKey {
    pub const ALL: [AsyncKey; 4] =
        [AsyncKey::WaitQueue, AsyncKey::InflightCount, AsyncKey::Scope, AsyncKey::CommitQueue];

    /// The key of an attribute, if it is one of the protocol's.
    pub fn parse(key: &str) -> Option<AsyncKey> {
        AsyncKey::ALL.into_iter().find(|k| k.as_str() == key)
    }

    /// The spelling in TVMScript.
    pub fn as_str(self) -> &'static str {
        match self {
            AsyncKey::WaitQueue => ASYNC_WAIT_QUEUE_SCOPE,
            AsyncKey::InflightCount => ASYNC_WAIT_INFLIGHT_COUNT,
            AsyncKey::Scope => ASYNC_SCOPE,
            AsyncKey::CommitQueue => ASYNC_COMMIT_QUEUE_SCOPE,
        }
    }
}

impl fmt::Display for AsyncKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// When a wait stops completing groups.
#[derive(Clone, Debug, PartialEq)]
pub enum WaitUntil {
    /// When at most this many groups of the queue are in flight.
    InFlight(Expr),
}

/// A wait on one queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Wait {
    pub queue: Expr,
    pub until: WaitUntil,
}

impl Wait {
    /// The in-flight count of a count-based wait.
    pub fn inflight(&self) -> &Expr {
        match &self.until {
            WaitUntil::InFlight(count) => count,
        }
    }
}

/// What one chain does around its body, in execution order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AsyncOps {
    pub wait: Option<Wait>,
    /// The body's stores are asynchronous.
    pub asynchronous: bool,
    /// The queue the body's pending stores are committed to, after the body.
    pub commit: Option<Expr>,
}

impl AsyncOps {
    /// The chain doing these operations around `body`, in the canonical nesting (wait and
    /// count outermost, then the commit scope, then the async scope).
    pub fn wrap(self, body: Stmt) -> Stmt {
        let mut stmt = body;
        if self.asynchronous {
            stmt = asynchronous(stmt);
        }
        if let Some(queue) = self.commit {
            stmt = commit(queue, stmt);
        }
        match self.wait {
            Some(Wait { queue, until: WaitUntil::InFlight(count) }) => wait(queue, count, stmt),
            None => stmt,
        }
    }

    fn is_empty(&self) -> bool {
        self.wait.is_none() && !self.asynchronous && self.commit.is_none()
    }
}

/// Why a chain has no meaning.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("`{ASYNC_WAIT_QUEUE_SCOPE}` without an `{ASYNC_WAIT_INFLIGHT_COUNT}` in its chain")]
    WaitWithoutCount,
    #[error("`{ASYNC_WAIT_INFLIGHT_COUNT}` without an `{ASYNC_WAIT_QUEUE_SCOPE}` in its chain")]
    CountWithoutWait,
    #[error("`{key}` must be an integer, not {found}")]
    NotAnInteger { key: AsyncKey, found: &'static str },
}

/// A decoded chain of attribute statements.
#[derive(Debug)]
pub struct AsyncChain<'a> {
    /// The chain's attributes, outermost first, with their keys.
    pub links: Vec<(AsyncKey, &'a AttrStmt)>,
    /// The statement the chain scopes over.
    pub body: &'a Stmt,
}

impl<'a> AsyncChain<'a> {
    fn value(&self, key: AsyncKey) -> Option<&'a Expr> {
        self.links.iter().find(|(k, _)| *k == key).map(|(_, a)| &a.value)
    }

    /// The problems of an ill-formed chain (a wait and a count that do not come together, or a
    /// count outside its wait), each with the index of the link it concerns, outermost first.
    pub fn problems(&self) -> Vec<(usize, ChainError)> {
        let at = |key| self.links.iter().position(|(k, _)| *k == key);
        match (at(AsyncKey::WaitQueue), at(AsyncKey::InflightCount)) {
            (Some(w), None) => vec![(w, ChainError::WaitWithoutCount)],
            (None, Some(c)) => vec![(c, ChainError::CountWithoutWait)],
            (Some(w), Some(c)) if c < w => vec![(c, ChainError::CountWithoutWait), (w, ChainError::WaitWithoutCount)],
            _ => Vec::new(),
        }
    }

    /// What the chain does.
    pub fn ops(&self) -> Result<AsyncOps, ChainError> {
        if let Some((_, problem)) = self.problems().into_iter().next() {
            return Err(problem);
        }
        let wait = match (self.value(AsyncKey::WaitQueue), self.value(AsyncKey::InflightCount)) {
            (Some(queue), Some(count)) => {
                Some(Wait { queue: queue.clone(), until: WaitUntil::InFlight(count.clone()) })
            }
            _ => None,
        };
        Ok(AsyncOps {
            wait,
            asynchronous: self.value(AsyncKey::Scope).is_some(),
            commit: self.value(AsyncKey::CommitQueue).cloned(),
        })
    }
}

/// The chain that starts at `attr`, or `None` when `attr` is not an async attribute.
pub fn decode_chain(attr: &AttrStmt) -> Option<AsyncChain<'_>> {
    let first = AsyncKey::parse(&attr.key)?;
    let mut links = vec![(first, attr)];
    let mut cur = attr;
    while let StmtKind::Attr(inner) = &cur.body.kind {
        match AsyncKey::parse(&inner.key) {
            Some(key) if links.iter().all(|(k, _)| *k != key) => {
                links.push((key, inner));
                cur = inner;
            }
            _ => break,
        }
    }
    Some(AsyncChain { links, body: &cur.body })
}

/// The chain an S-TIR block's annotations form around its body, or `None` when they hold
/// no async key.
pub fn decode_annotations(annotations: &Annotations) -> Result<Option<AsyncOps>, ChainError> {
    let value = |key: AsyncKey| -> Result<Option<Expr>, ChainError> {
        match annotations.get(key.as_str()) {
            None => Ok(None),
            Some(AnnValue::Int(i)) => Ok(Some(Expr::int(*i))),
            Some(AnnValue::Bool(b)) => Ok(Some(Expr::int(i64::from(*b)))),
            Some(AnnValue::Expr(e)) => Ok(Some(e.clone())),
            Some(other) => Err(ChainError::NotAnInteger { key, found: other.kind_name() }),
        }
    };
    let wait = match (value(AsyncKey::WaitQueue)?, value(AsyncKey::InflightCount)?) {
        (Some(queue), Some(count)) => Some(Wait { queue, until: WaitUntil::InFlight(count) }),
        (Some(_), None) => return Err(ChainError::WaitWithoutCount),
        (None, Some(_)) => return Err(ChainError::CountWithoutWait),
        (None, None) => None,
    };
    let ops = AsyncOps { wait, asynchronous: value(AsyncKey::Scope)?.is_some(), commit: value(AsyncKey::CommitQueue)? };
    Ok((!ops.is_empty()).then_some(ops))
}

fn attr(key: AsyncKey, value: Expr, body: Stmt) -> Stmt {
    let span = body.span;
    Stmt::new(StmtKind::Attr(AttrStmt { node: None, key: key.as_str().to_string(), value, body: Box::new(body) }), span)
}

/// `body` run after waiting until at most `inflight` groups of `queue` are in flight.
pub fn wait(queue: Expr, inflight: Expr, body: Stmt) -> Stmt {
    attr(AsyncKey::WaitQueue, queue, attr(AsyncKey::InflightCount, inflight, body))
}

/// `body`, then a commit of the thread's pending asynchronous stores to `queue`.
pub fn commit(queue: Expr, body: Stmt) -> Stmt {
    attr(AsyncKey::CommitQueue, queue, body)
}

/// `body` with its stores asynchronous.
pub fn asynchronous(body: Stmt) -> Stmt {
    attr(AsyncKey::Scope, Expr::int(1), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nop() -> Stmt {
        Stmt::synthetic(StmtKind::Evaluate(Expr::int(0)))
    }

    fn as_attr(s: &Stmt) -> &AttrStmt {
        match &s.kind {
            StmtKind::Attr(a) => a,
            _ => panic!("not an attribute"),
        }
    }

    #[test]
    fn a_built_chain_decodes_to_what_built_it() {
        let ops = AsyncOps {
            wait: Some(Wait { queue: Expr::int(0), until: WaitUntil::InFlight(Expr::int(2)) }),
            asynchronous: true,
            commit: Some(Expr::int(1)),
        };
        let stmt = ops.clone().wrap(nop());
        let chain = decode_chain(as_attr(&stmt)).expect("an async chain");
        assert_eq!(chain.links.len(), 4);
        assert_eq!(chain.ops(), Ok(ops));
        assert!(matches!(chain.body.kind, StmtKind::Evaluate(_)));
    }

    #[test]
    fn a_repeated_key_starts_a_nested_chain() {
        let stmt = wait(Expr::int(0), Expr::int(1), wait(Expr::int(1), Expr::int(0), nop()));
        let outer = decode_chain(as_attr(&stmt)).expect("an async chain");
        assert_eq!(outer.links.len(), 2);
        let inner = decode_chain(as_attr(outer.body)).expect("a nested chain");
        assert_eq!(inner.ops().map(|o| o.wait.map(|w| w.queue)), Ok(Some(Expr::int(1))));
    }

    #[test]
    fn a_wait_needs_its_count_in_the_same_chain() {
        let stmt = attr(AsyncKey::WaitQueue, Expr::int(0), nop());
        let chain = decode_chain(as_attr(&stmt)).expect("an async chain");
        assert_eq!(chain.problems(), [(0, ChainError::WaitWithoutCount)]);
        let stmt = commit(Expr::int(0), attr(AsyncKey::InflightCount, Expr::int(0), nop()));
        let chain = decode_chain(as_attr(&stmt)).expect("an async chain");
        assert_eq!(chain.ops(), Err(ChainError::CountWithoutWait));
        let stmt = attr(AsyncKey::InflightCount, Expr::int(0), attr(AsyncKey::WaitQueue, Expr::int(0), nop()));
        let chain = decode_chain(as_attr(&stmt)).expect("an async chain");
        assert_eq!(chain.problems(), [(0, ChainError::CountWithoutWait), (1, ChainError::WaitWithoutCount)]);
    }

    #[test]
    fn other_attributes_are_not_chains_and_end_them() {
        let pragma = Stmt::synthetic(StmtKind::Attr(AttrStmt {
            node: None,
            key: "pragma_unroll".into(),
            value: Expr::int(1),
            body: Box::new(nop()),
        }));
        assert!(decode_chain(as_attr(&pragma)).is_none());
        let stmt = commit(Expr::int(0), pragma);
        assert_eq!(decode_chain(as_attr(&stmt)).map(|c| c.links.len()), Some(1));
    }

    #[test]
    fn block_annotations_decode_like_a_chain() {
        let mut ann = Annotations::new();
        assert_eq!(decode_annotations(&ann), Ok(None));
        ann.insert(ASYNC_COMMIT_QUEUE_SCOPE, AnnValue::Int(0));
        ann.insert(ASYNC_SCOPE, AnnValue::Int(1));
        let ops = decode_annotations(&ann).expect("decodes").expect("async");
        assert!(ops.asynchronous && ops.wait.is_none());
        ann.insert(ASYNC_WAIT_QUEUE_SCOPE, AnnValue::Int(0));
        assert_eq!(decode_annotations(&ann), Err(ChainError::WaitWithoutCount));
        ann.insert(ASYNC_WAIT_INFLIGHT_COUNT, AnnValue::Str("x".into()));
        assert!(matches!(decode_annotations(&ann), Err(ChainError::NotAnInteger { .. })));
    }
}
