//! The WGSL helpers of shaders/prelude.wgsl, cut to what one kernel calls. A kernel includes the
//! prelude's bindings and only the helper functions its code reaches (transitively), so each
//! kernel is small to parse and validate, here with naga and again by the browser's compiler.

/// The whole prelude.
pub const PRELUDE: &str = include_str!("../../../../shaders/prelude.wgsl");

/// The declaration of the arguments in the prelude; each kernel's copy sizes the array to the
/// words it reads.
pub const ARGS_DECL: &str = "var<uniform> ogm_args: array<vec4<u32>, 1>;";

/// Ends the prelude part of every kernel's source (`ogham show wgsl` prints what follows).
pub const END: &str = "// end of prelude\n";

/// One top-level function of the prelude, with the comment lines just above it.
struct Helper {
    name: &'static str,
    text: &'static str,
}

/// The prelude split into what every kernel has (the leading comment and the bindings) and its
/// helper functions, in order.
fn split() -> (&'static str, Vec<Helper>) {
    // Byte offsets of the lines that start a function, moved up over the comments above each.
    let mut starts = Vec::new();
    let mut offset = 0;
    let mut comment_start = None;
    for line in PRELUDE.split_inclusive('\n') {
        if line.starts_with("//") {
            comment_start.get_or_insert(offset);
        } else if line.starts_with("fn ") {
            starts.push(comment_start.unwrap_or(offset));
            comment_start = None;
        } else {
            comment_start = None;
        }
        offset += line.len();
    }
    let header = &PRELUDE[..starts.first().copied().unwrap_or(PRELUDE.len())];
    let helpers = starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let text = &PRELUDE[s..starts.get(k + 1).copied().unwrap_or(PRELUDE.len())];
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("fn "))
                .and_then(|rest| rest.split('(').next())
                .unwrap_or("");
            Helper { name, text }
        })
        .collect();
    (header, helpers)
}

/// Does `code` call `name`: `name(` not preceded by a part of an identifier?
fn calls(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(k, _)| {
        let before = code[..k].chars().next_back();
        let after = code[k + name.len()..].trim_start().starts_with('(');
        after && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The prelude for a kernel whose own code (bindings and `main`) is `code`: the bindings, the
/// helpers it reaches, and [`END`].
pub fn for_kernel(code: &str) -> String {
    let (header, helpers) = split();
    let mut used = vec![false; helpers.len()];
    let mut todo = vec![code];
    while let Some(text) = todo.pop() {
        for (k, h) in helpers.iter().enumerate() {
            if !used[k] && calls(text, h.name) {
                used[k] = true;
                todo.push(h.text);
            }
        }
    }
    let mut out = header.to_string();
    for (h, _) in helpers.iter().zip(&used).filter(|(_, u)| **u) {
        out.push_str(h.text);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(END);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prelude_splits_into_named_helpers() {
        let (header, helpers) = split();
        assert!(header.contains(ARGS_DECL));
        assert!(!header.contains("fn "));
        assert!(helpers.len() >= 20);
        assert!(helpers.iter().all(|h| h.name.starts_with("ogm_") && h.text.contains("fn ")));
        // Nothing is lost: the pieces are the prelude.
        let whole: String = std::iter::once(header).chain(helpers.iter().map(|h| h.text)).collect();
        assert_eq!(whole, PRELUDE);
    }

    #[test]
    fn a_kernel_gets_the_helpers_it_reaches() {
        let p = for_kernel("fn main() { let y = ogm_f2i(x); }");
        // ogm_f2i calls ogm_isnan and ogm_isinf.
        for name in ["fn ogm_f2i(", "fn ogm_isnan(", "fn ogm_isinf("] {
            assert!(p.contains(name), "{name} missing:\n{p}");
        }
        assert!(!p.contains("fn ogm_fail("));
        assert!(!p.contains("fn ogm_f2u("));
        assert!(p.ends_with(END));
        let none = for_kernel("fn main() { let y = my_ogm_f2i(x); }");
        assert!(!none.contains("fn ogm_f2i("));
    }
}
