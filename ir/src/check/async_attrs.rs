//! The attributes of the async model (docs/async-semantics.md), on `AttrStmt`s and in
//! S-TIR block annotations.
//!
//! Rules: `async_scope` has the value 1 and scopes over at least one buffer store (it marks
//! asynchronous stores); the queues of `async_commit_queue_scope` and `async_wait_queue_scope`
//! are integer expressions, non-negative when constant; a wait and an in-flight count come
//! together in one chain (`tirproof_ir::async_op` defines chains), and the count is an integer
//! expression, never a negative constant. A wait may name tokens (`async_wait_tokens`, inside
//! its chain, with or without a count): each an int64 expression. In a block annotation, a
//! wait needs a count or tokens and they need the wait.
//!
//! Invariant: chains are paired once, when the walk reaches their first attribute
//! (`pair_chain`), so each attribute's diagnostics come out at its own position in the walk.

use std::collections::VecDeque;

use super::Checker;
use crate::annotation::{AnnValue, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE, ASYNC_WAIT_TOKENS};
use crate::async_op::{decode_chain, token_list, AsyncKey, ChainError};
use crate::dtype::DataType;
use crate::expr::Expr;
use crate::print::print_expr;
use crate::stmt::{AttrStmt, Block, Stmt, StmtKind};

/// How an attribute of a chain fares in the wait/count pairing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChainFlag {
    /// Not a wait or count, or one correctly paired.
    Paired,
    /// A wait with no count after it in the chain.
    UnpairedWait,
    /// A count with no wait before it in the chain.
    OrphanCount,
    /// Tokens with no wait before them in the chain.
    OrphanTokens,
}

/// The flags of the run of directly nested attributes starting at `first`, outermost first:
/// each async chain in it is decoded by `async_op::decode_chain` (the one definition of a
/// chain), and the attribute its problem concerns is flagged.
pub(super) fn pair_chain(first: &Stmt) -> VecDeque<ChainFlag> {
    let mut flags = VecDeque::new();
    let mut cur = first;
    while let StmtKind::Attr(a) = &cur.kind {
        let Some(chain) = decode_chain(a) else {
            flags.push_back(ChainFlag::Paired);
            cur = &a.body;
            continue;
        };
        let problems = chain.problems();
        for link in 0..chain.links.len() {
            flags.push_back(match problems.iter().find(|(at, _)| *at == link) {
                Some((_, ChainError::WaitWithoutCount)) => ChainFlag::UnpairedWait,
                Some((_, ChainError::CountWithoutWait)) => ChainFlag::OrphanCount,
                Some((_, ChainError::TokensWithoutWait)) => ChainFlag::OrphanTokens,
                _ => ChainFlag::Paired,
            });
        }
        cur = chain.body;
    }
    flags
}

/// An attribute value that should be an integer.
enum IntArg<'a> {
    Const(i64),
    Symbolic(&'a Expr),
    /// Not an integer; the text says what it is instead.
    NotInt(String),
}

impl<'a> IntArg<'a> {
    fn of_expr(e: &'a Expr) -> Self {
        let t = e.dtype();
        match e {
            _ if !(t.is_integer() && t.is_scalar()) => IntArg::NotInt(t.to_string()),
            Expr::Int { value, .. } => IntArg::Const(*value),
            _ => IntArg::Symbolic(e),
        }
    }

    fn of_ann(v: &'a AnnValue) -> Self {
        match v {
            AnnValue::Int(i) => IntArg::Const(*i),
            AnnValue::Expr(e) => IntArg::of_expr(e),
            other => IntArg::NotInt(other.kind_name().to_string()),
        }
    }
}

impl Checker {
    pub(super) fn check_async_attr(&mut self, a: &AttrStmt, flag: ChainFlag) {
        if AsyncKey::parse(&a.key) == Some(AsyncKey::Tokens) {
            self.check_tokens(&a.value);
        } else {
            self.check_async_value(&a.key, IntArg::of_expr(&a.value));
        }
        if a.key == ASYNC_SCOPE && !contains_store(&a.body) {
            self.error(format!("`{ASYNC_SCOPE}` must contain at least one buffer store"));
        }
        match flag {
            ChainFlag::Paired => {}
            ChainFlag::UnpairedWait => self.error(format!(
                "`{ASYNC_WAIT_QUEUE_SCOPE}` must be directly followed by an `{ASYNC_WAIT_INFLIGHT_COUNT}` or `{ASYNC_WAIT_TOKENS}` attribute"
            )),
            ChainFlag::OrphanCount => self.error(format!(
                "`{ASYNC_WAIT_INFLIGHT_COUNT}` must directly follow an `{ASYNC_WAIT_QUEUE_SCOPE}` attribute"
            )),
            ChainFlag::OrphanTokens => self.error(format!(
                "`{ASYNC_WAIT_TOKENS}` must follow an `{ASYNC_WAIT_QUEUE_SCOPE}` attribute in its chain"
            )),
        }
    }

    /// The value of `async_wait_tokens`: `T.tvm_tuple(...)` of tokens, or one token; a token
    /// is an int64 scalar.
    fn check_tokens(&mut self, value: &Expr) {
        let tokens = token_list(value);
        if tokens.is_empty() {
            self.error(format!("`{ASYNC_WAIT_TOKENS}` names no token"));
        }
        for token in tokens {
            if token.dtype() != DataType::INT64 {
                self.error(format!(
                    "a token of `{ASYNC_WAIT_TOKENS}` is an int64 value, found {} ({})",
                    token.dtype(),
                    print_expr(&token)
                ));
            }
        }
    }

    /// The async keys of an S-TIR block's annotations (`T.attr({...})` in the block header).
    pub(super) fn check_block_async(&mut self, b: &Block) {
        for (key, value) in b.annotations.iter() {
            match (AsyncKey::parse(key), value) {
                (Some(AsyncKey::Tokens), AnnValue::Expr(e)) => self.check_tokens(e),
                (Some(AsyncKey::Tokens), AnnValue::Int(_)) => {}
                (Some(AsyncKey::Tokens), other) => self.error(format!(
                    "block annotation `{ASYNC_WAIT_TOKENS}` must be a token or `T.tvm_tuple` of tokens, found {}",
                    other.kind_name()
                )),
                _ => self.check_async_value(key, IntArg::of_ann(value)),
            }
        }
        if b.annotations.get(ASYNC_SCOPE).is_some() && !contains_store(&b.body) {
            self.error(format!("`{ASYNC_SCOPE}` must contain at least one buffer store"));
        }
        let has_wait = b.annotations.get(ASYNC_WAIT_QUEUE_SCOPE).is_some();
        let has_count = b.annotations.get(ASYNC_WAIT_INFLIGHT_COUNT).is_some();
        let has_tokens = b.annotations.get(ASYNC_WAIT_TOKENS).is_some();
        if has_wait && !has_count && !has_tokens {
            self.error(format!(
                "block annotation `{ASYNC_WAIT_QUEUE_SCOPE}` needs an `{ASYNC_WAIT_INFLIGHT_COUNT}` or `{ASYNC_WAIT_TOKENS}` in the same block"
            ));
        }
        for (present, key) in [(has_count, ASYNC_WAIT_INFLIGHT_COUNT), (has_tokens, ASYNC_WAIT_TOKENS)] {
            if present && !has_wait {
                self.error(format!("block annotation `{key}` needs an `{ASYNC_WAIT_QUEUE_SCOPE}` in the same block"));
            }
        }
    }

    /// The value rule of one async key; other keys are kept verbatim and not checked.
    fn check_async_value(&mut self, key: &str, arg: IntArg<'_>) {
        match AsyncKey::parse(key) {
            Some(AsyncKey::Scope) => self.check_async_scope_value(arg),
            Some(AsyncKey::CommitQueue | AsyncKey::WaitQueue) => self.check_queue(key, arg),
            Some(AsyncKey::InflightCount) => self.check_inflight(arg),
            Some(AsyncKey::Tokens) | None => {}
        }
    }

    fn check_async_scope_value(&mut self, arg: IntArg<'_>) {
        let found = match arg {
            IntArg::Const(1) => return,
            IntArg::Const(c) => c.to_string(),
            IntArg::Symbolic(e) => print_expr(e),
            IntArg::NotInt(what) => what,
        };
        self.error(format!("`{ASYNC_SCOPE}` must have the value 1, found {found}"));
    }

    fn check_queue(&mut self, key: &str, arg: IntArg<'_>) {
        match arg {
            IntArg::NotInt(what) => self.error(format!("queue of `{key}` must be an integer, found {what}")),
            IntArg::Const(q) if q < 0 => self.error(format!("negative queue id {q} in `{key}`")),
            IntArg::Const(_) | IntArg::Symbolic(_) => {}
        }
    }

    fn check_inflight(&mut self, arg: IntArg<'_>) {
        match arg {
            IntArg::NotInt(what) => {
                self.error(format!("`{ASYNC_WAIT_INFLIGHT_COUNT}` must be an integer, found {what}"))
            }
            IntArg::Const(n) if n < 0 => self.error(format!("negative in-flight count {n}")),
            IntArg::Const(_) | IntArg::Symbolic(_) => {}
        }
    }
}

/// Whether `stmt` contains a buffer store anywhere (an explicit stack: the IR may be deep).
fn contains_store(stmt: &Stmt) -> bool {
    let mut stack = vec![stmt];
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Store(_) => return true,
            StmtKind::Seq(items) => stack.extend(items),
            StmtKind::If { then_case, else_case, .. } => {
                stack.push(then_case);
                stack.extend(else_case.as_deref());
            }
            StmtKind::Block(b) => {
                stack.push(&b.body);
                stack.extend(&b.init);
            }
            _ => stack.extend(s.body()),
        }
    }
    false
}
