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
//! - A chain does, in this order: its wait (queue and in-flight count, the count inside the
//!   wait as TVM nests them), its body (asynchronous under `async_scope`), its commit.
//! - A wait says when it stops with an in-flight count, with tokens
//!   (`async_wait_tokens`: the groups the tokens name have completed), or with both (the
//!   count is what runs; the tokens are a claim about it that the verifier checks). A count
//!   or tokens without a wait before them in the chain, or a wait with neither, has no
//!   meaning.
//! - A block's annotations are one chain around the block body.
//!
//! Tokens are values (`int64`): [`Token`] is the one encoding of a (queue, group) pair.
//! `T.call_extern("int64", "async_group_token", q)` is the token of the group the thread
//! last committed to queue `q`, and `T.call_extern("int64", "async_copy_token", q)` the
//! token of the group its next commit to `q` makes (the group the copies issued since join);
//! [`decode_token_op`] is the one reader of both.
//!
//! Invariant: the checker, the interpreter, the verifier's model and the passes read chains
//! only through [`decode_chain`] and [`decode_annotations`] and build them only through
//! [`AsyncOps::wrap`] and the builders, so they cannot disagree on what a chain means.

use std::fmt;

use crate::annotation::{
    AnnValue, Annotations, ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE,
    ASYNC_WAIT_TOKENS,
};
use crate::dtype::DataType;
use crate::expr::{Call, CallEffect, Expr};
use crate::stmt::{AttrStmt, Stmt, StmtKind};

/// The attribute keys of the async protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AsyncKey {
    /// `async_wait_queue_scope`: the queue a wait drains.
    WaitQueue,
    /// `async_wait_inflight_count`: how many groups the wait leaves in flight.
    InflightCount,
    /// `async_wait_tokens`: the groups the wait is for.
    Tokens,
    /// `async_scope`: the stores inside are asynchronous.
    Scope,
    /// `async_commit_queue_scope`: commit the pending stores as one group of a queue.
    CommitQueue,
}

impl AsyncKey {
    pub const ALL: [AsyncKey; 5] =
        [AsyncKey::WaitQueue, AsyncKey::InflightCount, AsyncKey::Tokens, AsyncKey::Scope, AsyncKey::CommitQueue];

    /// The key of an attribute, if it is one of the protocol's.
    pub fn parse(key: &str) -> Option<AsyncKey> {
        AsyncKey::ALL.into_iter().find(|k| k.as_str() == key)
    }

    /// The spelling in TVMScript.
    pub fn as_str(self) -> &'static str {
        match self {
            AsyncKey::WaitQueue => ASYNC_WAIT_QUEUE_SCOPE,
            AsyncKey::InflightCount => ASYNC_WAIT_INFLIGHT_COUNT,
            AsyncKey::Tokens => ASYNC_WAIT_TOKENS,
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
    /// When the groups these tokens name have completed.
    Tokens(Vec<Expr>),
    /// When at most `count` groups are in flight, which is what runs; `tokens` claims that
    /// this completes the groups they name (MLIR's `numGroups`, Triton's `num`).
    InFlightClaiming { count: Expr, tokens: Vec<Expr> },
}

/// A wait on one queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Wait {
    pub queue: Expr,
    pub until: WaitUntil,
}

impl Wait {
    /// The in-flight count the wait runs with; `None` for a wait on tokens alone, whose count
    /// follows from the tokens when it runs.
    pub fn inflight(&self) -> Option<&Expr> {
        match &self.until {
            WaitUntil::InFlight(count) | WaitUntil::InFlightClaiming { count, .. } => Some(count),
            WaitUntil::Tokens(_) => None,
        }
    }

    /// The tokens the wait names (none for a count alone).
    pub fn tokens(&self) -> &[Expr] {
        match &self.until {
            WaitUntil::InFlight(_) => &[],
            WaitUntil::Tokens(tokens) | WaitUntil::InFlightClaiming { tokens, .. } => tokens,
        }
    }

    /// The same wait with `f` applied to each of its expressions (queue, count, tokens).
    pub fn map_exprs(&self, mut f: impl FnMut(&Expr) -> Expr) -> Wait {
        let until = match &self.until {
            WaitUntil::InFlight(count) => WaitUntil::InFlight(f(count)),
            WaitUntil::Tokens(tokens) => WaitUntil::Tokens(tokens.iter().map(&mut f).collect()),
            WaitUntil::InFlightClaiming { count, tokens } => {
                WaitUntil::InFlightClaiming { count: f(count), tokens: tokens.iter().map(&mut f).collect() }
            }
        };
        Wait { queue: f(&self.queue), until }
    }

    /// The wait's parts as a `WaitUntil`, from a count and tokens that may each be absent.
    fn until(count: Option<Expr>, tokens: Option<Vec<Expr>>) -> Option<WaitUntil> {
        match (count, tokens) {
            (Some(count), None) => Some(WaitUntil::InFlight(count)),
            (None, Some(tokens)) => Some(WaitUntil::Tokens(tokens)),
            (Some(count), Some(tokens)) => Some(WaitUntil::InFlightClaiming { count, tokens }),
            (None, None) => None,
        }
    }
}

/// Bits of a token's group number: a token is `queue << TOKEN_GROUP_BITS | group`.
pub const TOKEN_GROUP_BITS: u32 = 32;

/// The bits of a token that hold its group number.
pub const TOKEN_GROUP_MASK: i64 = (1 << TOKEN_GROUP_BITS) - 1;

/// A group of one thread's queue, named by a token value: the thread's commit number `group`
/// (from 0, as every message numbers groups) to `queue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Token {
    pub queue: i64,
    pub group: i64,
}

impl Token {
    /// The token's value; `None` when the queue or group does not fit the encoding.
    pub fn encode(self) -> Option<i64> {
        let fits =
            (0..1 << (63 - TOKEN_GROUP_BITS)).contains(&self.queue) && (0..=TOKEN_GROUP_MASK).contains(&self.group);
        fits.then_some(self.queue << TOKEN_GROUP_BITS | self.group)
    }

    /// The token a value encodes; `None` for a value no token has (negative).
    pub fn decode(value: i64) -> Option<Token> {
        (value >= 0).then_some(Token { queue: value >> TOKEN_GROUP_BITS, group: value & TOKEN_GROUP_MASK })
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "token (queue {}, group {})", self.queue, self.group)
    }
}

/// Which group a token-making call names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenOp {
    /// `async_group_token(q)`: the group the thread last committed to `q`.
    LastCommitted,
    /// `async_copy_token(q)`: the group the thread's next commit to `q` makes.
    NextCommit,
}

impl TokenOp {
    pub const ALL: [TokenOp; 2] = [TokenOp::LastCommitted, TokenOp::NextCommit];

    /// The external symbol of the call.
    pub fn symbol(self) -> &'static str {
        match self {
            TokenOp::LastCommitted => "async_group_token",
            TokenOp::NextCommit => "async_copy_token",
        }
    }
}

/// A token-making call: its kind and queue, or why it is malformed.
pub fn decode_token_op(call: &Call) -> Option<Result<(TokenOp, &Expr), String>> {
    let op = TokenOp::ALL.into_iter().find(|op| call.external && call.name == op.symbol())?;
    Some(match call.args.as_slice() {
        _ if call.dtype != DataType::INT64 => {
            Err(format!("`{}` returns an int64 token, not {}", op.symbol(), call.dtype))
        }
        [queue] => Ok((op, queue)),
        args => Err(format!("`{}` takes one argument (the queue), not {}", op.symbol(), args.len())),
    })
}

/// The token-making call of `op` on `queue` (`T.call_extern("int64", symbol, queue)`).
pub fn token_op(op: TokenOp, queue: Expr) -> Expr {
    Expr::Call(Call {
        name: op.symbol().to_string(),
        dtype: DataType::INT64,
        args: vec![queue],
        effect: CallEffect::Opaque,
        external: true,
    })
}

/// The name of the intrinsic that lists tokens in `async_wait_tokens` (TVM's tuple).
pub const TOKEN_TUPLE: &str = "tvm_tuple";

/// The tokens an `async_wait_tokens` value lists: the arguments of `T.tvm_tuple(...)`, or
/// the value itself.
pub fn token_list(value: &Expr) -> Vec<Expr> {
    match value {
        Expr::Call(call) if !call.external && call.name == TOKEN_TUPLE => call.args.clone(),
        other => vec![other.clone()],
    }
}

/// `T.tvm_tuple(tokens...)`.
pub fn token_tuple(tokens: Vec<Expr>) -> Expr {
    Expr::Call(Call {
        name: TOKEN_TUPLE.to_string(),
        dtype: DataType::HANDLE,
        args: tokens,
        effect: CallEffect::Pure,
        external: false,
    })
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
            Some(Wait { queue, until }) => wait_until(queue, until, stmt),
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
    #[error(
        "`{ASYNC_WAIT_QUEUE_SCOPE}` without an `{ASYNC_WAIT_INFLIGHT_COUNT}` or `{ASYNC_WAIT_TOKENS}` in its chain"
    )]
    WaitWithoutCount,
    #[error("`{ASYNC_WAIT_INFLIGHT_COUNT}` without an `{ASYNC_WAIT_QUEUE_SCOPE}` in its chain")]
    CountWithoutWait,
    #[error("`{ASYNC_WAIT_TOKENS}` without an `{ASYNC_WAIT_QUEUE_SCOPE}` in its chain")]
    TokensWithoutWait,
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

    /// The problems of an ill-formed chain (a wait with neither a count nor tokens, or a count
    /// or tokens outside a wait), each with the index of the link it concerns, outermost first.
    pub fn problems(&self) -> Vec<(usize, ChainError)> {
        let at = |key| self.links.iter().position(|(k, _)| *k == key);
        let wait = at(AsyncKey::WaitQueue);
        let inside = |link: Option<usize>| link.filter(|l| wait.is_some_and(|w| w < *l));
        let (count, tokens) = (at(AsyncKey::InflightCount), at(AsyncKey::Tokens));
        let mut out = Vec::new();
        if let Some(c) = count.filter(|_| inside(count).is_none()) {
            out.push((c, ChainError::CountWithoutWait));
        }
        if let Some(t) = tokens.filter(|_| inside(tokens).is_none()) {
            out.push((t, ChainError::TokensWithoutWait));
        }
        if let Some(w) = wait.filter(|_| inside(count).is_none() && inside(tokens).is_none()) {
            out.push((w, ChainError::WaitWithoutCount));
        }
        out.sort_by_key(|(link, _)| *link);
        out
    }

    /// What the chain does.
    pub fn ops(&self) -> Result<AsyncOps, ChainError> {
        if let Some((_, problem)) = self.problems().into_iter().next() {
            return Err(problem);
        }
        let wait = self.value(AsyncKey::WaitQueue).and_then(|queue| {
            let count = self.value(AsyncKey::InflightCount).cloned();
            let tokens = self.value(AsyncKey::Tokens).map(token_list);
            Some(Wait { queue: queue.clone(), until: Wait::until(count, tokens)? })
        });
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
    let tokens = match annotations.get(AsyncKey::Tokens.as_str()) {
        None => None,
        Some(AnnValue::Expr(e)) => Some(token_list(e)),
        Some(AnnValue::Int(i)) => Some(vec![Expr::int_of(*i, DataType::INT64)]),
        Some(other) => return Err(ChainError::NotAnInteger { key: AsyncKey::Tokens, found: other.kind_name() }),
    };
    let (queue, count) = (value(AsyncKey::WaitQueue)?, value(AsyncKey::InflightCount)?);
    let wait = match (queue, Wait::until(count.clone(), tokens.clone())) {
        (Some(queue), Some(until)) => Some(Wait { queue, until }),
        (Some(_), None) => return Err(ChainError::WaitWithoutCount),
        (None, _) if count.is_some() => return Err(ChainError::CountWithoutWait),
        (None, _) if tokens.is_some() => return Err(ChainError::TokensWithoutWait),
        (None, _) => None,
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
    wait_until(queue, WaitUntil::InFlight(inflight), body)
}

/// `body` run after a wait on `queue` that stops as `until` says: the queue outermost, then
/// the count, then the tokens.
pub fn wait_until(queue: Expr, until: WaitUntil, body: Stmt) -> Stmt {
    let inner = match until {
        WaitUntil::InFlight(count) => attr(AsyncKey::InflightCount, count, body),
        WaitUntil::Tokens(tokens) => attr(AsyncKey::Tokens, token_tuple(tokens), body),
        WaitUntil::InFlightClaiming { count, tokens } => {
            attr(AsyncKey::InflightCount, count, attr(AsyncKey::Tokens, token_tuple(tokens), body))
        }
    };
    attr(AsyncKey::WaitQueue, queue, inner)
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
    fn waits_on_tokens_decode_with_and_without_a_count() {
        let token = |g: i64| Expr::int_of(Token { queue: 0, group: g }.encode().expect("fits"), DataType::INT64);
        let alone = wait_until(Expr::int(0), WaitUntil::Tokens(vec![token(1), token(2)]), nop());
        let ops = decode_chain(as_attr(&alone)).expect("an async chain").ops().expect("well formed");
        let wait = ops.wait.expect("a wait");
        assert_eq!((wait.inflight(), wait.tokens()), (None, &[token(1), token(2)][..]));
        let until = WaitUntil::InFlightClaiming { count: Expr::int(1), tokens: vec![token(3)] };
        let claiming = wait_until(Expr::int(0), until.clone(), nop());
        let chain = decode_chain(as_attr(&claiming)).expect("an async chain");
        assert_eq!(chain.links.len(), 3);
        assert_eq!(chain.ops().map(|o| o.wait.map(|w| w.until)), Ok(Some(until)));
        // Tokens before their wait, or without one, have no meaning.
        let orphan = attr(AsyncKey::Tokens, token(0), attr(AsyncKey::WaitQueue, Expr::int(0), nop()));
        let chain = decode_chain(as_attr(&orphan)).expect("an async chain");
        assert_eq!(chain.problems(), [(0, ChainError::TokensWithoutWait), (1, ChainError::WaitWithoutCount)]);
    }

    #[test]
    fn tokens_encode_queue_and_group_and_token_calls_decode() {
        let t = Token { queue: 3, group: 41 };
        assert_eq!(t.encode().and_then(Token::decode), Some(t));
        assert_eq!(Token { queue: 0, group: 1 << TOKEN_GROUP_BITS }.encode(), None);
        assert_eq!(Token::decode(-1), None);
        let Expr::Call(call) = token_op(TokenOp::NextCommit, Expr::int(2)) else { panic!("a call") };
        assert_eq!(decode_token_op(&call), Some(Ok((TokenOp::NextCommit, &Expr::int(2)))));
        let narrow = Call { dtype: DataType::INT32, ..call.clone() };
        assert!(matches!(decode_token_op(&narrow), Some(Err(_))));
        let other = Call { name: "foo".into(), ..call };
        assert_eq!(decode_token_op(&other), None);
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
