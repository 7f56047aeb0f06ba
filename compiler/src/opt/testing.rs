//! What the tests of the rewrites share: `simplify` runs on programs with derivatives, so each
//! test compiles a program with one, checks the IR, prints it, and runs it on the interpreter.

use crate::driver;
use crate::value::text::{format_value, parse_values};

/// The compiled program, validated, and its IR as text.
pub fn compile(src: &str) -> (driver::Compiled, String) {
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    if let Err(e) = crate::ir::validate::validate(&c.ir) {
        panic!("invalid IR: {e}");
    }
    let ir = crate::ir::print::print_program(&c.ir);
    (c, ir)
}

/// The results of `entry` on `args` (value text), or the error's message.
pub fn run(c: &driver::Compiled, entry: &str, args: &str) -> Result<String, String> {
    let args = parse_values(args).expect("args");
    driver::run_interp(c, entry, &args)
        .map(|vs| vs.iter().map(format_value).collect::<Vec<_>>().join(" "))
        .map_err(|d| d.message)
}
