//! Unit tests of the placement, on programs written in TVMScript.

use tirproof_ir::text::{parse_module, print_module};
use tirproof_ir::IRModule;

use super::{eliminate_module, Mode};

fn run(text: &str, mode: Mode) -> String {
    let mut module: IRModule = parse_module(text).expect("the test program parses");
    eliminate_module(&mut module, mode);
    print_module(&module)
}

const CASCADE: &str = "\
from tvm.script import tirx as T

@T.prim_func
def main(i1: T.int32, i2: T.int32, i3: T.int32, x: T.int32, y: T.int32, z: T.int32, buffer: T.Buffer((64,), \"int32\")):
    buffer[i1] = x + y + z
    buffer[i2] = x + y + z
    buffer[i3] = x + y
";

#[test]
fn cascade_binds_the_longer_computation_inside() {
    let out = run(CASCADE, Mode::Syntactic);
    let v2 = out.find("cse_v2: T.let[T.int32] = x + y").expect("cse_v2 bound");
    let v1 = out.find("cse_v1: T.let[T.int32] = cse_v2 + z").expect("cse_v1 bound");
    assert!(v2 < v1, "{out}");
}
