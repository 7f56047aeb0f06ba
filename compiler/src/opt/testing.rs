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

/// `src` compiled and made what the backends compile (`opt::for_backends`), then rewritten by
/// `pass`, which must change it: the IR after, validated, as text; the results of `entry` on
/// `args` before; and after.
pub fn rewritten_by(
    src: &str,
    entry: &str,
    args: &str,
    pass: impl Fn(&mut crate::ir::Program) -> bool,
) -> (String, String, Result<String, String>) {
    let (mut c, before) = compile(src);
    let expected = run(&c, entry, args).unwrap_or_else(|e| panic!("{e}\n{before}"));
    c.ir = crate::opt::for_backends(&c.ir);
    assert!(pass(&mut c.ir), "nothing rewritten:\n{before}");
    crate::ir::validate::validate(&c.ir).expect("valid IR");
    let after = crate::ir::print::print_program(&c.ir);
    (after, expected, run(&c, entry, args))
}

/// A `while` loop over scalars (a projectile with drag, stepped until it lands) and `grad`, the
/// vjp of its landing position: what reverse mode makes of a `while`.
pub const FLIGHT: &str = "
    def flight (v0: f64) : f64 =
      let (x, _, _) =
        loop (x, y, v) = (0, 0, v0) while y >= 0 do
          (x + 0.1 * v, y + 0.1 * v - 0.05, v * 0.9 - 0.01 * v * v)
      in x
    entry grad (v0: f64) = vjp flight v0 1";

/// `grad` of [`FLIGHT`] at 3 agrees with a central difference (the number of iterations is the
/// same nearby).
pub fn flight_gradient_holds(c: &driver::Compiled) {
    let x = |v0: f64| {
        let (mut x, mut y, mut v) = (0.0, 0.0, v0);
        while y >= 0.0 {
            (x, y, v) = (x + 0.1 * v, y + 0.1 * v - 0.05, v * 0.9 - 0.01 * v * v);
        }
        x
    };
    let fd = (x(3.0 + 1e-6) - x(3.0 - 1e-6)) / 2e-6;
    let got: f64 = run(c, "grad", "3.0f64").unwrap().trim_end_matches("f64").parse().unwrap();
    assert!((got - fd).abs() < 1e-6, "{got} against {fd}");
}
