//! Property: every well-formed tree prints to text that parses back to the same tree, and
//! printing that tree again gives the same text.

use super::gen;
use crate::syntax::printer::{print_expr, print_program};
use crate::syntax::strip::{strip_expr, stripped};
use crate::syntax::{parse, parse_expr};
use proptest::prelude::*;

/// `cases` by default; `PROPTEST_CASES` overrides it for longer runs.
pub(super) fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn expressions_round_trip(e in gen::expr()) {
        let text = print_expr(&e);
        let mut back = match parse_expr(&text) {
            Ok(back) => back,
            Err(ds) => return Err(TestCaseError::fail(format!("{text}\n{ds:?}"))),
        };
        strip_expr(&mut back);
        prop_assert_eq!(&back, &e, "printed as:\n{}", text);
        prop_assert_eq!(print_expr(&back), text);
    }
}

proptest! {
    #![proptest_config(config(500))]

    #[test]
    fn programs_round_trip(p in gen::program()) {
        let text = print_program(&p);
        let back = match parse(&text) {
            Ok(back) => back,
            Err(ds) => return Err(TestCaseError::fail(format!("{text}\n{ds:?}"))),
        };
        prop_assert_eq!(&stripped(&back), &p, "printed as:\n{}", text);
        prop_assert_eq!(print_program(&back), text);
    }
}
