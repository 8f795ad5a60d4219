//! The streaming lowering (each `for`, `with` and block lowered as the grammar reads it)
//! against the whole-tree lowering (each top-level statement built whole first, the path
//! statements nested in an `if` take): the same IR and the same diagnostics on every file of
//! the corpus. `fuzz_tests.rs` checks the same on mutated and random text.

use std::path::Path;

use tirproof_ir::diag::Diagnostics;
use tirproof_ir::func::IRModule;

use super::ast::{BodyEvent, FuncEnd, PClass, PFuncHeader, TreeBuilder};
use super::grammar_file::ItemSink;
use super::{parse_module, read_module};
use tirproof_ir::diag::Diagnostic;

/// Hands each top-level statement on only once its whole tree is built.
struct WholeTrees<'a> {
    inner: &'a mut dyn ItemSink,
    tree: TreeBuilder,
}

impl ItemSink for WholeTrees<'_> {
    fn class(&mut self, class: PClass) {
        self.inner.class(class);
    }
    fn func_start(&mut self, header: PFuncHeader) {
        self.inner.func_start(header);
    }
    fn body_event(&mut self, event: BodyEvent) {
        if let Some(stmt) = self.tree.event(event) {
            self.inner.body_event(BodyEvent::Stmt(stmt));
        }
    }
    fn func_end(&mut self, end: FuncEnd, lexical: &[Diagnostic]) {
        self.inner.func_end(end, lexical);
    }
}

/// `parse_module` through the whole-tree lowering.
fn parse_whole_trees(source: &str) -> Result<IRModule, Diagnostics> {
    read_module(source, |cursor, lowering| {
        cursor.file(&mut WholeTrees { inner: lowering, tree: TreeBuilder::default() });
    })
}

/// Panics unless both lowerings give the same result for `source`.
pub(super) fn assert_streaming_matches_whole_trees(source: &str) {
    match (parse_module(source), parse_whole_trees(source)) {
        (Ok(streamed), Ok(whole)) => {
            let diff = tirproof_ir::structural::module_diff(&streamed, &whole);
            assert!(diff.is_none(), "streaming lowering differs: {diff:?}\n{source}");
        }
        (Err(streamed), Err(whole)) => {
            assert_eq!(streamed.to_string(), whole.to_string(), "diagnostics differ for\n{source}");
        }
        (streamed, whole) => panic!(
            "one lowering accepts, the other refuses: streaming {:?}, whole trees {:?}\n{source}",
            streamed.err().map(|d| d.to_string()),
            whole.err().map(|d| d.to_string())
        ),
    }
}

fn python_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            python_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

#[test]
fn streaming_lowering_equals_whole_tree_lowering_on_the_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files = Vec::new();
    python_files(&corpus, &mut files);
    assert!(files.len() > 200, "corpus not found under {}", corpus.display());
    for file in files {
        let source = std::fs::read_to_string(&file).expect("corpus files are UTF-8");
        assert_streaming_matches_whole_trees(&source);
    }
}

#[test]
fn streaming_lowering_equals_whole_tree_lowering_on_nested_forms() {
    let sources = [
        // A loop whose header fails: its body is still lowered for its own errors.
        "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    for i in T.bogus(4):\n        A[i] = j\n",
        // A block with its header, an init, and a body of loops and scopes.
        "@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((4,), \"int32\")):\n    with T.sblock(\"root\"):\n        T.reads()\n        T.writes()\n        for i in range(4):\n            with T.sblock(\"b\"):\n                vi = T.axis.spatial(4, i)\n                with T.init():\n                    A[vi] = 0\n                A[vi] = A[vi] + 1\n",
        // A header form after the body began, a `with` of two names, an unsupported `with`.
        "@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((4,), \"int32\")):\n    with T.sblock(\"b\"):\n        A[0] = 1\n        T.reads()\n    with T.attr(0, \"k\", 1) as a, b:\n        A[1] = 2\n    with open(\"x\"):\n        A[2] = x\n",
        // Binders inside loops inside `if`, and a misplaced init.
        "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\"), n: T.int32):\n    if n > 0:\n        for i in range(4):\n            x: T.int32 = i\n            A[i] = x\n    else:\n        with T.init():\n            A[0] = 0\n    for i, j in T.grid(2, 2):\n        with T.launch_thread(\"threadIdx.x\", 2) as tx:\n            A[i * 2 + j] = tx\n",
    ];
    for source in sources {
        assert_streaming_matches_whole_trees(source);
    }
}
