//! Lowering a function body as the grammar reads it: one frame per open `for` or `with`.
//!
//! The grammar hands out `BodyEvent`s; a `for` or a `with` arrives as `Open` (its header),
//! the events of its body, then `Close`. At `Open` the header is lowered and its names bound,
//! exactly as the whole-tree lowering (`for_loop`, `with_stmt`) does before it lowers a body;
//! the body's statements are then lowered one by one into the frame's list and dropped, and
//! `Close` folds the list and wraps it (a loop nest, a binder, a block). An S-TIR block first
//! gathers its header statements (read in two passes, so they are kept until the first body
//! statement). Whatever else opens is collected back into a syntax tree and lowered whole when
//! it closes.
//!
//! Invariants: every frame undoes, when it closes, exactly the scope frames and nesting
//! levels it took when it opened; the result equals lowering the whole tree (same IR, same
//! diagnostics), which the reader's tests check on every file they parse.

use tirproof_ir::span::Span;
use tirproof_ir::stmt::Stmt;

use super::ast::{BodyEvent, PStmt, PStmtKind, TreeBuilder};
use super::binder::Binder;
use super::block::{is_header, OpenBlock};
use super::loops::LoopNest;
use super::lower::Lowerer;
use super::stmt::{is_block, ListState, Lowered};

/// How the events inside an open statement are taken.
pub(super) enum Inner {
    /// Lowered into `list`; closing undoes `scopes` scope frames and `levels` nesting levels.
    Lower { list: ListState, scopes: u32, levels: u32 },
    /// Ignored (the whole-tree lowering does not lower such a body); `nested` counts the
    /// statements opened inside it and not yet closed.
    Skip { scopes: u32, nested: u32 },
    /// Built back into a syntax tree, lowered whole when its root closes.
    Collect(TreeBuilder),
    /// The leading header statements of an S-TIR block (`tree` builds a `with T.init()`
    /// being read); the first other event begins the body (`begin_block_body`).
    Header { header: Vec<PStmt>, tree: TreeBuilder, name: String, span: Span },
}

/// What the body becomes once the statement closes.
pub(super) enum Finish {
    Loop(LoopNest),
    Wrap(Binder, Span),
    Block(OpenBlock),
    Nothing,
}

/// One open `for` or `with`.
pub(super) struct Frame {
    pub inner: Inner,
    pub finish: Finish,
}

impl Frame {
    /// A body lowered into a fresh list.
    pub fn lower(scopes: u32, levels: u32, finish: Finish) -> Self {
        Frame { inner: Inner::Lower { list: ListState::default(), scopes, levels }, finish }
    }

    /// A body that is not lowered.
    pub fn skip(scopes: u32) -> Self {
        Frame { inner: Inner::Skip { scopes, nested: 0 }, finish: Finish::Nothing }
    }

    /// A statement lowered whole once read.
    pub fn collect(stmt: PStmt) -> Self {
        Frame { inner: Inner::Collect(TreeBuilder::rooted(stmt)), finish: Finish::Nothing }
    }
}

/// The open statements of a function body, innermost last.
#[derive(Default)]
pub(super) struct Frames {
    open: Vec<Frame>,
}

/// Where a statement of the body goes.
pub(super) enum Target<'a> {
    /// Into the innermost open statement's list.
    List(&'a mut ListState),
    /// Into the function's own statement list.
    Function,
}

impl Lowerer {
    /// Takes one event of a function body. `Stmt` events outside every open statement are
    /// returned for the function's own list (where the prelude is read).
    pub fn body_event(&mut self, frames: &mut Frames, event: BodyEvent) -> Option<Lowered> {
        if let Some(top) = frames.open.last_mut() {
            match &mut top.inner {
                Inner::Collect(tree) => {
                    let stmt = tree.event(event)?;
                    frames.open.pop();
                    let lowered = self.stmt(&stmt);
                    return self.deliver(frames, lowered);
                }
                Inner::Skip { nested, .. } => {
                    match event {
                        BodyEvent::Open(_) => *nested += 1,
                        BodyEvent::Close if *nested > 0 => *nested -= 1,
                        BodyEvent::Close => return self.close(frames),
                        BodyEvent::Stmt(_) => {}
                    }
                    return None;
                }
                Inner::Header { header, tree, .. } => {
                    let in_header = match &event {
                        BodyEvent::Stmt(stmt) | BodyEvent::Open(stmt) => is_header(stmt),
                        BodyEvent::Close => false,
                    };
                    if tree.is_open() || in_header {
                        header.extend(tree.event(event));
                        return None;
                    }
                    self.end_header(top);
                }
                Inner::Lower { .. } => {}
            }
        }
        match event {
            BodyEvent::Stmt(stmt) => match frames.target() {
                Target::List(list) => {
                    self.list_stmt(&stmt, list);
                    None
                }
                Target::Function => Some(self.stmt(&stmt)),
            },
            BodyEvent::Open(stmt) => {
                let frame = self.open(stmt);
                frames.open.push(frame);
                None
            }
            BodyEvent::Close => self.close(frames),
        }
    }

    /// Lowers the header of an opened `for` or `with` into a frame for its body.
    fn open(&mut self, stmt: PStmt) -> Frame {
        match &stmt.kind {
            PStmtKind::For { targets, iter, .. } => self.open_for(targets, iter, stmt.span),
            PStmtKind::With { item, targets, .. } if is_block(item) => {
                self.with_targets(targets, stmt.span);
                self.open_block(item, stmt.span)
            }
            PStmtKind::With { item, targets, .. } => self.open_with(item, targets, stmt.span),
            _ => Frame::collect(stmt),
        }
    }

    /// The whole-tree path: lowers an already-read body in a frame, then closes it.
    pub fn lower_opened(&mut self, mut frame: Frame, body: &[PStmt]) -> Lowered {
        let mut rest = body;
        if let Inner::Header { name, span, .. } = &mut frame.inner {
            let header_len = body.iter().take_while(|s| is_header(s)).count();
            let (header, tail) = body.split_at(header_len.min(body.len()));
            frame = self.begin_block_body(std::mem::take(name), *span, header);
            rest = tail;
        }
        if let Inner::Lower { list, .. } = &mut frame.inner {
            for stmt in rest {
                self.list_stmt(stmt, list);
            }
        }
        self.finish(frame)
    }

    /// Closes the innermost open statement and hands its result to the one around it.
    fn close(&mut self, frames: &mut Frames) -> Option<Lowered> {
        let frame = frames.open.pop()?;
        let lowered = self.finish(frame);
        self.deliver(frames, lowered)
    }

    /// Folds a frame's body, undoes what opening it took, and builds the statement.
    fn finish(&mut self, mut frame: Frame) -> Lowered {
        // A block that closes within its header has an empty body.
        self.end_header(&mut frame);
        let body = match frame.inner {
            Inner::Lower { list, scopes, levels } => {
                let body = self.fold(list);
                self.undo(scopes, levels);
                body
            }
            Inner::Skip { scopes, .. } => {
                self.undo(scopes, 0);
                Stmt::nop()
            }
            // A collected statement completes in `body_event`, and a header became a body
            // above: never here.
            Inner::Collect(_) | Inner::Header { .. } => Stmt::nop(),
        };
        match frame.finish {
            Finish::Loop(nest) => Lowered::Stmt(nest.wrap(body)),
            Finish::Wrap(binder, span) => Lowered::Stmt(binder.wrap(span, body)),
            Finish::Block(block) => {
                self.blocks -= 1;
                Lowered::Stmt(block.wrap(body))
            }
            Finish::Nothing => Lowered::Nothing,
        }
    }

    /// Reads a block's gathered header and turns its frame into the frame of its body (no
    /// change to any other frame).
    fn end_header(&mut self, frame: &mut Frame) {
        if let Inner::Header { header, name, span, .. } = &mut frame.inner {
            let (header, name, span) = (std::mem::take(header), std::mem::take(name), *span);
            *frame = self.begin_block_body(name, span, &header);
        }
    }

    /// Closes whatever is still open at the end of a body (the grammar closes every `Open`,
    /// so this only guards the invariant).
    pub fn close_all(&mut self, frames: &mut Frames) -> Option<Lowered> {
        let mut last = None;
        while !frames.is_empty() {
            last = self.close(frames);
        }
        last
    }

    /// Adds a closed statement's result to the list around it, or returns it when that list
    /// is the function's.
    fn deliver(&mut self, frames: &mut Frames, lowered: Lowered) -> Option<Lowered> {
        match frames.target() {
            Target::List(list) => {
                self.absorb(lowered, list);
                None
            }
            Target::Function => Some(lowered),
        }
    }

    fn undo(&mut self, scopes: u32, levels: u32) {
        for _ in 0..scopes {
            self.scopes.pop();
        }
        self.leave(levels);
    }
}

impl Frames {
    /// Where a statement lowered now belongs. Only called when the innermost frame lowers.
    fn target(&mut self) -> Target<'_> {
        match self.open.last_mut().map(|f| &mut f.inner) {
            Some(Inner::Lower { list, .. }) => Target::List(list),
            _ => Target::Function,
        }
    }

    /// True when no statement is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}
