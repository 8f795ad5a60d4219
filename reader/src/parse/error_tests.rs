//! Error reporting of `parse_module`: exact messages and positions, recovery, and limits.

use super::parse_module;

/// The headlines of the diagnostics for `source` (which must fail to parse).
fn errors(source: &str) -> Vec<String> {
    match parse_module(source) {
        Ok(_) => panic!("expected errors for:\n{source}"),
        Err(diags) => diags.iter().map(|d| d.headline()).collect(),
    }
}

const HEAD: &str = "@T.prim_func\ndef main(A: T.Buffer((16,), \"float32\"), n: T.int32):\n";

/// `HEAD` plus `body`: body lines start at line 3.
fn func(body: &str) -> String {
    format!("{HEAD}{body}")
}

/// One error kind: the program and its single expected headline.
fn single(body: &str, expected: &str) {
    assert_eq!(errors(&func(body)), vec![expected.to_string()], "for:\n{body}");
}

#[test]
fn unexpected_token() {
    single("    A[0] = (1 + )\n", "3:17: error: unexpected token: expected an expression, found `)`");
    single("    A[0] = \n", "3:12: error: unexpected token: expected an expression, found end of line");
    single("    A[0] = 1 2\n", "3:14: error: unexpected token: expected end of line, found `2`");
    single("    A[0] = T.max(1 2)\n", "3:20: error: unexpected token: expected `,` or `)`, found `2`");
}

#[test]
fn every_line_end_convention_counts_lines() {
    for line_end in ["\n", "\r\n", "\r"] {
        let source = func("    A[0] = 1\n    A[1] = T.exp(n\n    A[2] = 2\n").replace('\n', line_end);
        assert_eq!(errors(&source), ["4:17: error: unclosed `(`: expected `)`, found end of file"], "{line_end:?}");
    }
}

#[test]
fn brackets() {
    single("    A[0] = T.exp(n\n    A[1] = 2\n", "3:17: error: unclosed `(`: expected `)`, found end of file");
    single("    A[0] = [1)\n    A[1] = 2\n", "3:14: error: mismatched `)`: expected `]`, found `)`");
    single("    A[0] = )\n", "3:12: error: unmatched `)`: expected an opening bracket before it, found `)`");
}

#[test]
fn bad_indentation() {
    single(
        "    if n < 2:\n        A[0] = 1\n      A[1] = 2\n",
        "5:7: error: unindent does not match any outer indentation level: expected an indentation used by an enclosing block, found 6 columns",
    );
    single(
        "    A[0] = 1\n        A[1] = 2\n",
        "4:9: error: unexpected indentation: expected a statement at the indentation of the enclosing block, found more indentation",
    );
    single(
        "    if n < 2:\n    A[0] = 1\n",
        "4:5: error: expected an indented block: expected an indented block, found `A`",
    );
}

#[test]
fn undefined_name() {
    single("    A[0] = m + 1\n", "3:12: error: undefined name `m`: expected a name defined earlier, found `m`");
    // A loop variable is not visible after its loop.
    single(
        "    for i in range(2):\n        A[i] = 0\n    A[i] = 1\n",
        "5:7: error: undefined name `i`: expected a name defined earlier, found `i`",
    );
}

#[test]
fn unknown_intrinsic() {
    single(
        "    A[0] = T.foo(1)\n",
        "3:12: error: unknown intrinsic `T.foo`: expected a known intrinsic such as `T.exp`, found `T.foo`",
    );
    single("    A[0] = foo(1)\n", "3:12: error: unknown function `foo`: expected a `T.` function, found `foo`");
}

#[test]
fn bad_dtype_string() {
    let source = "@T.prim_func\ndef main(A: T.Buffer((16,), \"floot32\")):\n    pass\n";
    assert_eq!(
        errors(source),
        ["2:29: error: unknown data type `floot32`: expected a data type such as \"int32\", \"float16\" or \"float32x4\", found string \"floot32\""]
    );
    single(
        "    A[0] = T.Cast(\"int33\", n)\n",
        "3:19: error: unknown data type `int33`: expected a data type such as \"int32\", \"float16\" or \"float32x4\", found string \"int33\"",
    );
}

#[test]
fn chained_comparison() {
    single(
        "    if 0 < n < 4:\n        pass\n",
        "3:14: error: chained comparison: expected `and` between two comparisons, found `<`",
    );
}

#[test]
fn wrong_argument_count() {
    single(
        "    A[0] = T.exp(n, 2)\n",
        "3:12: error: wrong number of arguments to `T.exp`: expected 1 argument, found 2",
    );
    single(
        "    A[0] = T.FloorMod(1)\n",
        "3:12: error: wrong number of arguments to `T.FloorMod`: expected 2 arguments, found 1",
    );
    single(
        "    for i in T.serial(1, 2, 3):\n        pass\n",
        "3:14: error: wrong number of arguments to `T.serial`: expected at most 2 positional arguments, found 3",
    );
    single(
        "    for i in T.serial(4, step=2):\n        pass\n",
        "3:26: error: unexpected keyword argument `step` to `T.serial`: expected a known argument name, found `step`",
    );
}

#[test]
fn missing_colon() {
    single("    for i in range(4)\n        A[i] = 1\n", "3:22: error: missing `:`: expected `:`, found end of line");
    single("    with T.sblock() \n        pass\n", "3:21: error: missing `:`: expected `:`, found end of line");
}

#[test]
fn unterminated_string() {
    single("    T.evaluate(\"abc)\n", "3:16: error: unterminated string: expected a closing quote, found end of line");
}

#[test]
fn store_to_non_buffer() {
    single(
        "    n[0] = 1\n",
        "3:5: error: cannot store to `n`: it is not a buffer: expected a buffer, found variable `n`",
    );
    single(
        "    A.data = 1\n",
        "3:5: error: cannot assign to `A.data`: expected a name or `buffer[indices]`, found `A.data`",
    );
}

#[test]
fn block_forms_outside_blocks() {
    single(
        "    T.where(n < 2)\n",
        "3:5: error: `T.where` outside a block: expected a statement (this form belongs in a `with T.sblock(...)` header), found `T.where`",
    );
    single(
        "    with T.sblock():\n        A[0] = 1\n        T.reads(A[0])\n",
        "5:9: error: `T.reads` must come before the body of its block: expected a body statement, found `T.reads`",
    );
    single(
        "    A[0] = 1\n    T.func_attr({})\n",
        "4:5: error: `T.func_attr` must be at the start of the function body: expected a statement, found `T.func_attr` here",
    );
}

#[test]
fn other_kinds() {
    single("    A[0] = $\n", "3:12: error: unexpected character `$`: expected a token, found `$`");
    single("    A[0, 1] = 1\n", "3:5: error: wrong number of indices for `A`: expected 1 index, found 2");
    single(
        "    x = T.float32x4(1)\n",
        "3:9: error: vector type `float32x4` cannot make an immediate: expected a scalar type, e.g. `T.broadcast(T.float32(1), 4)`, found `T.float32x4`",
    );
    single(
        "    for i in T.thread_binding(4, thread=\"threadIdx.w\"):\n        pass\n",
        "3:41: error: unknown thread tag `threadIdx.w`: expected a tag such as \"threadIdx.x\", \"blockIdx.y\" or \"vthread\", found string \"threadIdx.w\"",
    );
    single(
        "    x: T.int32 = T.int64(1)\n",
        "3:5: error: type mismatch in the definition of `x`: expected a value of type int32, found type int64",
    );
    single(
        "    x = T.decl_buffer((4,), data=n)\n    x[0] = 1\n",
        "3:34: error: `data=` must be a handle variable: expected e.g. `A.data`, found `n`",
    );
    single(
        "    A[0] = 99999999999999999999999\n",
        "3:12: error: integer literal is too large: expected a value below 2**64, found `99999999999999999999999`",
    );
    single(
        "    A[0] = T.int8(300)\n",
        "3:19: error: integer literal does not fit in int8: expected a value of type int8, found 300",
    );
    single(
        "    while n:\n        pass\n",
        "3:5: error: `while` loops are not supported: expected a statement, found `while`",
    );
    assert_eq!(
        errors(""),
        ["1:1: error: no function found: expected a `@T.prim_func` function or an `@I.ir_module` class, found end of file"]
    );
    assert_eq!(
        errors("@T.prim_func\ndef main(a):\n    pass\n"),
        ["2:11: error: parameter `a` needs a type annotation: expected `:`, found `)`"]
    );
    assert_eq!(
        errors("def main():\n    pass\n"),
        ["1:1: error: missing `@T.prim_func`: expected `@T.prim_func` before `def`, found no such decorator"]
    );
    assert_eq!(
        errors("@T.prim_func\ndef f():\n    pass\n@T.prim_func\ndef f():\n    pass\n"),
        ["5:5: error: duplicate function `f`: expected a new name, found `f`"]
    );
}

#[test]
fn independent_errors_are_all_reported() {
    // Two syntax errors in one function: recovery at statement boundaries finds both.
    assert_eq!(
        errors(&func("    for i in range(4)\n        A[i] = 1\n    A[0] = (1 + )\n    A[1] = 2\n")),
        [
            "3:22: error: missing `:`: expected `:`, found end of line",
            "5:17: error: unexpected token: expected an expression, found `)`",
        ]
    );
    // Two name errors in one function.
    assert_eq!(
        errors(&func("    A[0] = m\n    A[1] = k\n")),
        [
            "3:12: error: undefined name `m`: expected a name defined earlier, found `m`",
            "4:12: error: undefined name `k`: expected a name defined earlier, found `k`",
        ]
    );
    // A syntax error in one function and a name error in another, sorted by position.
    assert_eq!(
        errors("@T.prim_func\ndef g():\n    B[0] = 1\n@T.prim_func\ndef main():\n    A[0] = \n"),
        [
            "3:5: error: undefined name `B`: expected a name defined earlier, found `B`",
            "6:12: error: unexpected token: expected an expression, found end of line",
        ]
    );
}

#[test]
fn a_bad_definition_does_not_cascade() {
    // `x` failed to be defined; its later uses are not reported again.
    single(
        "    x = T.decl_buffer((4,), \"flaot32\")\n    x[0] = 1\n    A[0] = x[1]\n",
        "3:29: error: unknown data type `flaot32`: expected a data type such as \"int32\", \"float16\" or \"float32x4\", found string \"flaot32\"",
    );
}

#[test]
fn nesting_too_deep() {
    let expr = format!("{}1{}", "(".repeat(300), ")".repeat(300));
    let errs = errors(&func(&format!("    A[0] = {expr}\n")));
    assert_eq!(errs, ["3:211: error: nesting too deep: expected at most 200 levels of nesting, found more"]);
    // A flat chain is not nesting; its right operands nested in brackets are.
    let chain = vec!["n"; 1000].join(" + ");
    assert!(parse_module(&func(&format!("    A[0] = {chain}\n"))).is_ok());
    let right_nested = format!("{}n{}", "n + (".repeat(300), ")".repeat(300));
    let errs = errors(&func(&format!("    A[0] = {right_nested}\n")));
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains("nesting too deep"), "{errs:?}");
    let mut body = String::new();
    for depth in 0..250 {
        body.push_str(&format!("{}for i{depth} in range(2):\n", " ".repeat(depth + 4)));
    }
    body.push_str(&format!("{}A[0] = 1\n", " ".repeat(254)));
    let errs = errors(&func(&body));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("nesting too deep"), "{errs:?}");
    // Many lets in one list nest the IR deeply; the IR depth limit applies.
    let lets: String = (0..600).map(|k| format!("    v{k}: T.int32 = {k}\n")).collect();
    let errs = errors(&func(&lets));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("503:5: error: nesting too deep"), "{errs:?}");
}
