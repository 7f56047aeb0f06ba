//! The examples menu: every program in examples/, embedded at build time, with the entry point
//! and arguments its first test block uses.

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// The entry point and argument text to start an example with: the first test block's `entry:`
/// (or the program's first `entry`) and that block's first `input { ... }`.
pub fn defaults(src: &str) -> (String, String) {
    let mut entry = None;
    let mut args = None;
    for line in src.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("-- entry:") {
            if entry.is_none() {
                entry = rest.split_whitespace().next().map(str::to_string);
            }
        } else if let Some(rest) = l.strip_prefix("-- input {") {
            if args.is_none() {
                if let Some(body) = rest.trim_end().strip_suffix('}') {
                    args = Some(body.trim().to_string());
                }
            }
        } else if let Some(rest) = l.strip_prefix("entry ") {
            if entry.is_none() {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '\'')
                    .collect();
                entry = Some(name);
            }
        }
        if entry.is_some() && args.is_some() {
            break;
        }
    }
    (entry.unwrap_or_else(|| "main".into()), args.unwrap_or_default())
}

/// The source of the example called `name`.
pub fn find(name: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_come_from_the_first_test_block() {
        let src = "-- ==\n-- entry: dot\n-- input { [1f32] [2f32] }\n-- output { 2f32 }\nentry main (x: i32) = x\nentry dot (a: []f32) (b: []f32) : f32 = 0\n";
        assert_eq!(defaults(src), ("dot".into(), "[1f32] [2f32]".into()));
        assert_eq!(defaults("entry f (x: i32) : i32 = x"), ("f".into(), String::new()));
        assert_eq!(defaults(""), ("main".into(), String::new()));
    }

    #[test]
    fn every_example_is_embedded() {
        assert!(EXAMPLES.len() > 30);
        assert!(find("dotprod").is_some_and(|s| s.contains("entry main")));
        assert!(EXAMPLES.iter().any(|(n, _)| n.starts_with("automap/")));
    }
}
