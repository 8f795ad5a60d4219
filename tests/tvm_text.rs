//! Text both ways, with TVM 0.27 in the loop: TVM parses every corpus program as `tirproof fmt`
//! prints it, and tirproof reads back what TVM prints of it, except the programs listed here
//! with the reason. A listed program that starts to pass fails the test too, so the lists say
//! exactly where the two disagree. Without TVM (`scripts/setup_tvm.sh`) the test says it was
//! skipped and why.

use std::path::Path;
use std::time::Duration;

use tirproof::source::{expand_paths, Source};
use tirproof_fuzz::peer::{with_worker, TvmOp, TvmReply};
use tirproof_ir::print::print_module;
use tirproof_reader::parse_module;

/// Programs whose printed text TVM 0.27 refuses.
const TVM_REFUSES: [(&str, &str); 4] = [
    (
        "corpus/text/print/allocate.py",
        "`T.allocate`: TVM 0.27 no longer has an Allocate node (it allocates with T.alloc_buffer); \
         tirproof keeps the form earlier TVMs print and read",
    ),
    ("corpus/faults/negative_extent.py", "`T.allocate`, as above"),
    (
        "corpus/text/print/let_stmt.py",
        "`with T.LetStmt(v) as j:`, a let whose scope ends before its block does: TVM 0.27's let \
         (`j: T.let[T.int32] = v`) scopes over the rest of its block, so this tree has no TVM 0.27 \
         spelling",
    ),
    (
        "corpus/faults/shift_out_of_range.py",
        "TVM's parser folds the constant shift `A[0] << 40` and refuses its amount; the case is \
         about that fault",
    ),
];

/// Programs whose text as TVM prints it tirproof refuses.
const WE_REFUSE: [(&str, &str); 1] = [(
    "corpus/text/print/expr_cmp_logic.py",
    "TVM prints `(x == 1) == (x <= 3)` as `x == 1 == (x <= 3)`, which Python reads as the chained \
     comparison `x == 1 and 1 == (x <= 3)`; tirproof refuses it rather than guess",
)];

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn tvm_parses_what_we_print_and_we_parse_what_tvm_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = expand_paths(&[root.join("corpus")]).expect("the corpus is readable");
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in files {
        let source = Source::read(&path).expect("a corpus file is readable");
        // Programs that do not parse or check (error cases) have no printed form.
        let Ok(module) = parse_module(&source.text) else { continue };
        if tirproof_ir::check::check_module(&module).has_errors() {
            continue;
        }
        let name = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let printed = print_module(&module);
        let reply = match with_worker(|worker| worker.request(TvmOp::Parse, &printed, LIMIT)) {
            Ok(reply) => reply,
            Err(error) if !error.is_tvm_failure() && checked == 0 => {
                eprintln!("skipped: {error}");
                return;
            }
            Err(error) => {
                problems.push(format!("{name}: TVM failed: {error}"));
                continue;
            }
        };
        checked += 1;
        let refused_by_tvm = TVM_REFUSES.iter().any(|(file, _)| *file == name);
        let refused_by_us = WE_REFUSE.iter().any(|(file, _)| *file == name);
        match reply {
            TvmReply::Refused(refusal) if !refused_by_tvm => {
                problems.push(format!("{name}: TVM refuses our text: {}: {}", refusal.kind, refusal.message));
            }
            TvmReply::Refused(_) => {}
            TvmReply::Printed(_) if refused_by_tvm => {
                problems.push(format!("{name}: TVM now parses it; take it off TVM_REFUSES"));
            }
            TvmReply::Printed(theirs) => match (parse_module(&theirs), refused_by_us) {
                (Err(diags), false) => {
                    problems.push(format!("{name}: we refuse TVM's print:\n{}", diags.render("tvm.py", &theirs)));
                }
                (Ok(_), true) => problems.push(format!("{name}: we now read TVM's print; take it off WE_REFUSE")),
                _ => {}
            },
        }
    }
    assert!(checked > 200, "only {checked} corpus programs were given to TVM");
    assert!(problems.is_empty(), "{} of {checked} programs:\n{}", problems.len(), problems.join("\n"));
}
