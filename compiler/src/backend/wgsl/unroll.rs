//! Unrolling the counted loops a kernel runs over the elements of an array (a reduction's fold,
//! a row's store), once their body is generated.
//!
//! A loop `for (var i = START; i < BOUND; i = i + STEP) { BODY }` becomes `F` copies of the body
//! per iteration, each in its own block with `i` bound to its element, and the loop itself for
//! the last `< F` elements:
//!
//! ```text
//! var u: i32 = START;
//! for (; u < BOUND - (F - 1) * STEP; u = u + F * STEP) {
//!     { let i = u; BODY }
//!     { let i = u + STEP; BODY }
//!     ...
//! }
//! for (var i = u; i < BOUND; i = i + STEP) { BODY }
//! ```
//!
//! The elements are visited in the same order, so every result (a float sum included) is the
//! same. Software WebGPU (SwiftShader, lavapipe) runs each invocation's loop with the overhead of
//! a loop that may diverge across invocations on every iteration; fewer iterations are much of a
//! row kernel's time there (softmax's row-per-invocation kernel: 20 → 11 ms with `F` = 8 in
//! Chromium). GPU compilers unroll small loops themselves, so this costs them nothing.

/// The most lines the unrolled copies of a body may take: the factor is the largest of 8, 4
/// and 2 that keeps them within it.
const BUDGET_LINES: usize = 64;

/// A counted loop opened by [`super::kernel::Gen::open_count`].
#[derive(Debug)]
pub struct CountLoop {
    pub iv: String,
    pub start: String,
    pub bound: String,
    pub step: i32,
    /// Where the loop's header starts in the kernel's code, and its body.
    pub header_at: usize,
    pub body_at: usize,
    /// The loop's own indentation level.
    pub indent: usize,
}

/// How many copies of `body` an unrolled iteration takes (1: leave the loop as it is). Bodies
/// with loops of their own, early exits (which would leave the unrolled iteration rather than the
/// element's) or barriers are not unrolled.
pub fn factor(body: &str) -> usize {
    let lines = body.lines().count().max(1);
    let blocked = body.contains("for (")
        || body.contains("loop {")
        || body.contains("while")
        || body.contains("break")
        || body.contains("continue")
        || body.contains("Barrier");
    if blocked {
        return 1;
    }
    [8, 4, 2].into_iter().find(|f| f * lines <= BUDGET_LINES).unwrap_or(1)
}

/// The code of loop `l` with body `body` (indented one level deeper than the loop), unrolled by
/// `f`; `u` is a fresh name for the unrolled counter.
pub fn unrolled(l: &CountLoop, body: &str, f: usize, u: &str) -> String {
    let ind = "    ".repeat(l.indent);
    let CountLoop { iv, start, bound, .. } = l;
    let (f, step) = (f as i64, l.step as i64);
    let bound = if bound.chars().all(|c| c.is_alphanumeric() || c == '_') {
        bound.clone()
    } else {
        format!("({bound})")
    };
    let mut out = format!("{ind}var {u}: i32 = {start};\n");
    out.push_str(&format!(
        "{ind}for (; {u} < {bound} - {}; {u} = {u} + {}) {{\n",
        (f - 1) * step,
        f * step
    ));
    for k in 0..f {
        out.push_str(&format!("{ind}    {{\n"));
        let at = match k * step {
            0 => u.to_string(),
            d => format!("{u} + {d}"),
        };
        out.push_str(&format!("{ind}        let {iv}: i32 = {at};\n"));
        for line in body.lines() {
            if !line.is_empty() {
                out.push_str("    ");
            }
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("{ind}    }}\n"));
    }
    out.push_str(&format!("{ind}}}\n"));
    out.push_str(&format!("{ind}{}\n", header(iv, u, &bound, l.step)));
    out.push_str(body);
    out.push_str(&format!("{ind}}}\n"));
    out
}

/// `for (var IV = START; IV < BOUND; IV = IV + STEP) {`.
pub fn header(iv: &str, start: &str, bound: &str, step: i32) -> String {
    format!("for (var {iv} = {start}; {iv} < {bound}; {iv} = {iv} + {step}) {{")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp(step: i32) -> CountLoop {
        CountLoop {
            iv: "j".into(),
            start: "lane".into(),
            bound: "h1 * 2".into(),
            step,
            header_at: 0,
            body_at: 0,
            indent: 1,
        }
    }

    #[test]
    fn small_bodies_unroll_more() {
        assert_eq!(factor("    a = a + b[j];\n"), 8);
        assert_eq!(factor(&"    x;\n".repeat(12)), 4);
        assert_eq!(factor(&"    x;\n".repeat(40)), 1);
        assert_eq!(factor("    for (var k = 0; k < 3; k++) {\n    }\n"), 1);
        assert_eq!(factor("    if (c) { break; }\n"), 1);
        assert_eq!(factor("    workgroupBarrier();\n"), 1);
    }

    #[test]
    fn copies_bind_the_index_and_a_loop_takes_the_rest() {
        let body = "        s = s + b[j];\n";
        let code = unrolled(&lp(64), body, 2, "u9");
        let want = "    var u9: i32 = lane;
    for (; u9 < (h1 * 2) - 64; u9 = u9 + 128) {
        {
            let j: i32 = u9;
            s = s + b[j];
        }
        {
            let j: i32 = u9 + 64;
            s = s + b[j];
        }
    }
    for (var j = u9; j < (h1 * 2); j = j + 64) {
        s = s + b[j];
    }
";
        assert_eq!(code, want);
    }
}
