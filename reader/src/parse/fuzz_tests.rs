//! Robustness of `parse_module`: random input, mutated valid files, and deep nesting on a
//! small stack. The property is that it returns (`Ok` or `Err`) without panicking, that
//! every error has a known position, and that the streaming lowering gives what the
//! whole-tree lowering gives.

use proptest::prelude::*;
use proptest::test_runner::Config;

use super::parse_module;

const SEEDS: [&str; 6] = [
    include_str!("../../../corpus/tvm/seed_a_input.py"),
    include_str!("../../../corpus/tvm/seed_a_after_pipeline.py"),
    include_str!("../../../corpus/tvm/seed_a_tx_after_flatten_cse.py"),
    include_str!("../../../corpus/tvm/seed_b_after_flatten_cse.py"),
    include_str!("../../../corpus/tvm/seed_c_after_pipeline.py"),
    include_str!("../../../corpus/tvm/seed_c_input.py"),
];

/// Tokens worth inserting: every operator and delimiter, keywords, layout and dialect words.
const TOKENS: [&str; 48] = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    ".",
    "=",
    "==",
    "->",
    "@",
    "+",
    "-",
    "*",
    "**",
    "//",
    "%",
    "<",
    "<=",
    "<<",
    "~",
    "\n",
    "    ",
    "\t",
    "\\\n",
    "#",
    "\"",
    "'",
    "\"\"\"",
    "for",
    "in",
    "if",
    "else",
    "elif",
    "with",
    "as",
    "not",
    "and",
    "pass",
    "def",
    "T.sblock()",
    "T.attr({})",
    "range(4)",
    "1e-5",
    "0x1F",
    "T.float32(",
];

/// Parses; errors must be located. An accepted module must also go through the checker
/// without a panic and, when the checker accepts it, run in the interpreter without a panic
/// and print to text that parses back to an equal module.
fn check(source: &str) {
    super::stream_tests::assert_streaming_matches_whole_trees(source);
    match parse_module(source) {
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in diags.iter() {
                assert!(d.span.is_known(), "unlocated: {d}");
            }
        }
        Ok(module) => {
            if tirproof_ir::check::check_module(&module).has_errors() {
                // The printer's round-trip promise is for well-formed modules; literal typing
                // may read an ill-typed expression back differently.
                return;
            }
            // The interpreter must not panic on any program the checker accepts (faults and
            // its own errors are values).
            for func in &module.functions {
                if let Ok(inputs) = tirproof_interp::random_inputs(func, 1, &Default::default()) {
                    let config = tirproof_interp::RunConfig { fuel: 2_000, ..Default::default() };
                    let _ = tirproof_interp::run(func, &inputs, &config);
                }
            }
            let printed = tirproof_ir::print::print_module(&module);
            let reparsed = match parse_module(&printed) {
                Ok(m) => m,
                // Parentheses the printer adds can push a program at the nesting cap over it.
                Err(d) if d.iter().all(|e| e.message.starts_with("nesting too deep")) => return,
                Err(d) => panic!("printed module does not parse: {d}\n{printed}\n--- from ---\n{source}"),
            };
            let diff = tirproof_ir::structural::module_diff(&module, &reparsed);
            assert!(diff.is_none(), "round trip changes the module: {diff:?}\n{printed}");
        }
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteChar(usize),
    DuplicateChar(usize),
    SwapChars(usize, usize),
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    Insert(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        at.prop_map(Mutation::DeleteChar),
        at.prop_map(Mutation::DuplicateChar),
        (at, at).prop_map(|(a, b)| Mutation::SwapChars(a, b)),
        at.prop_map(Mutation::DeleteLine),
        at.prop_map(Mutation::DuplicateLine),
        (at, at).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (at, at).prop_map(|(a, b)| Mutation::Insert(a, b)),
    ]
}

/// Applies `m` to `text`; positions are taken modulo the current length.
fn apply(text: &str, m: &Mutation) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = chars.len().max(1);
    let l = lines.len().max(1);
    match *m {
        Mutation::DeleteChar(a) if !chars.is_empty() => {
            chars.remove(a % n);
        }
        Mutation::DuplicateChar(a) if !chars.is_empty() => {
            let c = chars[a % n];
            chars.insert(a % n, c);
        }
        Mutation::SwapChars(a, b) if !chars.is_empty() => chars.swap(a % n, b % n),
        Mutation::DeleteLine(a) if !lines.is_empty() => {
            lines.remove(a % l);
            return lines.join("\n");
        }
        Mutation::DuplicateLine(a) if !lines.is_empty() => {
            let line = lines[a % l].clone();
            lines.insert(a % l, line);
            return lines.join("\n");
        }
        Mutation::SwapLines(a, b) if !lines.is_empty() => {
            lines.swap(a % l, b % l);
            return lines.join("\n");
        }
        Mutation::Insert(a, t) => {
            let at = a % (chars.len() + 1);
            let token = TOKENS[t % TOKENS.len()];
            for (i, c) in token.chars().enumerate() {
                chars.insert(at + i, c);
            }
        }
        _ => {}
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(Config { cases: 10_000, failure_persistence: None, ..Config::default() })]

    #[test]
    fn random_input_never_panics(
        source in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..300).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
            "[ \t\n()\\[\\]{}:,.=+*/%<>!~^&|@#\"'\\\\a-zT_0-9-]{0,200}",
            proptest::collection::vec(0..TOKENS.len(), 0..60)
                .prop_map(|ix| ix.into_iter().map(|i| TOKENS[i]).collect::<Vec<_>>().join(" ")),
        ]
    ) {
        check(&source);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        seed in 0..SEEDS.len(),
        mutations in proptest::collection::vec(mutation(), 1..8),
    ) {
        let mut text = SEEDS[seed].to_string();
        for m in &mutations {
            text = apply(&text, m);
        }
        check(&text);
    }
}

/// Runs `f` on a thread with a stack of `bytes`.
fn on_stack(bytes: usize, f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(bytes).spawn(f).expect("spawn");
    handle.join().expect("no panic or overflow");
}

fn body(statements: &str) -> String {
    format!("@T.prim_func\ndef main(A: T.Buffer((16,), \"float32\"), n: T.int32):\n{statements}")
}

/// Programs at and beyond the nesting caps: brackets, calls, subscripts, unary operators,
/// right operands, flat chains, loops, blocks, `elif` chains and long runs of lets.
fn deep_sources() -> Vec<String> {
    let mut sources = Vec::new();
    for depth in [150, 199, 200, 201, 1000] {
        let nest =
            |open: &str, close: &str, inner: &str| format!("{}{inner}{}", open.repeat(depth), close.repeat(depth));
        let cases = [
            nest("(", ")", "n"),
            nest("T.exp(", ")", "n"),
            nest("A[", "]", "0"),
            nest("[", "]", "0"),
            nest("{\"k\": ", "}", "0"),
            nest("-", "", "n"),
            nest("not ", "", "n"),
            nest("~", "", "n"),
            nest("T.Let(", ", where={v: 1})", "n"),
            vec!["n"; depth].join(" ** "),
            vec!["n"; depth].join(" + "),
        ];
        for expr in cases {
            sources.push(body(&format!("    A[0] = {expr}\n")));
            sources.push(body(&format!("    T.attr({{\"k\": {expr}}})\n    pass\n")));
        }
        let mut loops = String::new();
        let mut blocks = String::new();
        let mut ifs = String::new();
        for d in 0..depth {
            let pad = " ".repeat(d + 4);
            loops.push_str(&format!("{pad}for i{d} in range(2):\n"));
            blocks.push_str(&format!("{pad}with T.sblock():\n"));
            ifs.push_str(&format!("{pad}if n < {d}:\n{pad}    pass\n{pad}elif n:\n"));
        }
        let pad = " ".repeat(depth + 4);
        for nested in [loops, blocks, ifs] {
            sources.push(body(&format!("{nested}{pad}A[0] = 1\n")));
        }
        let lets: String = (0..depth * 3).map(|k| format!("    v{k}: T.int32 = {k}\n")).collect();
        sources.push(body(&lets));
    }
    sources
}

/// Reading and checking the worst inputs at the caps fit a 1 MiB stack (half of a test
/// thread's, an eighth of a main thread's) even in debug builds, so the caps hold with a
/// margin. Printing, running and reading back what was printed recurse more per level (debug
/// frames of formatting code are large): they get 8 MiB here, and the CLI runs every command
/// on a thread with 1 GiB reserved (docs/limits.md).
#[test]
fn deep_nesting_stays_within_the_stack() {
    let sources = deep_sources();
    let read = sources.clone();
    on_stack(1 << 20, move || {
        for source in &read {
            match parse_module(source) {
                Ok(module) => drop(tirproof_ir::check::check_module(&module)),
                Err(diags) => assert!(diags.iter().all(|d| d.span.is_known())),
            }
        }
    });
    on_stack(8 << 20, move || sources.iter().for_each(|source| check(source)));
}
