//! Whole-program tests: the fixture corpus round-trips through the printer, value
//! specifications, and the property tests (in `tests/`).

use super::*;

mod fuzz;
mod gen;
mod roundtrip;

/// Valid programs used by the round-trip and never-panic tests.
pub(super) const CORPUS: &[(&str, &str)] = &[
    ("arrays.fut", include_str!("testdata/arrays.fut")),
    ("dotprod.fut", include_str!("testdata/dotprod.fut")),
    ("ifs.fut", include_str!("testdata/ifs.fut")),
    ("lets.fut", include_str!("testdata/lets.fut")),
    ("loops.fut", include_str!("testdata/loops.fut")),
    ("mandelbrot.fut", include_str!("testdata/mandelbrot.fut")),
    ("operators.fut", include_str!("testdata/operators.fut")),
    ("polymorphic.fut", include_str!("testdata/polymorphic.fut")),
    ("records.fut", include_str!("testdata/records.fut")),
    ("stencil.fut", include_str!("testdata/stencil.fut")),
    ("sums.fut", include_str!("testdata/sums.fut")),
    ("types.fut", include_str!("testdata/types.fut")),
];

fn parse_ok(name: &str, src: &str) -> ast::Program {
    parse(src).unwrap_or_else(|ds| {
        panic!("{name}:\n{}", crate::diag::render_all(&ds, name, src));
    })
}

#[test]
fn corpus_parses_and_round_trips() {
    for (name, src) in CORPUS {
        let p = parse_ok(name, src);
        let printed = printer::print_program(&p);
        let q = parse_ok(&format!("{name} (printed)"), &printed);
        assert!(strip::same_program(&p, &q), "{name} does not round-trip:\n{printed}");
        // Printing is a fixed point after one round.
        assert_eq!(printer::print_program(&q), printed, "{name}");
    }
}

#[test]
fn node_ids_are_unique_and_below_next_id() {
    for (name, src) in CORPUS {
        let p = parse_ok(name, src);
        let mut ids = Vec::new();
        collect_ids(&p, &mut ids);
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "{name}: duplicate ids");
        assert!(ids.iter().all(|&i| i < p.next_id), "{name}");
        assert_eq!(n as u32, p.next_id, "{name}: every id is used");
    }
}

/// All expression and pattern ids, found through `strip`'s traversal order by diffing.
fn collect_ids(p: &ast::Program, out: &mut Vec<u32>) {
    // Mark each node with its id by printing the Debug form and scanning for `NodeId(k)`.
    let text = format!("{p:?}");
    let mut rest = text.as_str();
    while let Some(i) = rest.find("id: NodeId(") {
        rest = &rest[i + "id: NodeId(".len()..];
        let end = rest.find(')').unwrap_or(0);
        out.push(rest[..end].parse().unwrap_or(u32::MAX));
    }
}

#[test]
fn spans_point_at_the_source() {
    let src = "def f (x: i32) = x + 1\ndef g = f 2";
    let p = parse_ok("t", src);
    let ast::Dec::Val(f) = &p.decs[0] else { panic!() };
    assert_eq!(&src[f.span.range()], "def f (x: i32) = x + 1");
    assert_eq!(&src[f.name_span.range()], "f");
    assert_eq!(&src[f.params[0].span.range()], "(x: i32)");
    assert_eq!(&src[f.body.span.range()], "x + 1");
    let ast::ExprKind::BinOp { op_span, lhs, .. } = &f.body.kind else { panic!() };
    assert_eq!(&src[op_span.range()], "+");
    assert_eq!(&src[lhs.span.range()], "x");
}

#[test]
fn prelude_spans_are_offset() {
    let p = parse_with_base("def x = 1", PRELUDE_BASE).unwrap();
    let ast::Dec::Val(x) = &p.decs[0] else { panic!() };
    assert_eq!(x.body.span, crate::Span::new(PRELUDE_BASE as usize + 8, PRELUDE_BASE as usize + 9));
    let ds = parse_with_base("def x = )", PRELUDE_BASE).unwrap_err();
    assert_eq!(ds[0].span.start, PRELUDE_BASE + 8);
}

#[test]
fn empty_programs_parse() {
    assert_eq!(parse("").unwrap().decs.len(), 0);
    assert_eq!(parse("-- only a comment\n").unwrap().decs.len(), 0);
}

#[test]
fn val_specs() {
    let (ps, t) = parse_val_spec("'a [n] 'x : (f: a -> x) -> (as: [n]a) -> *[n]x", 0).unwrap();
    assert_eq!(ps.len(), 3);
    assert_eq!(printer::print_type_exp(&t), "(f: a -> x) -> (as: [n]a) -> *[n]x");
    let (ps, t) = parse_val_spec("(x: i64) -> f32", 0).unwrap();
    assert!(ps.is_empty());
    assert_eq!(printer::print_type_exp(&t), "(x: i64) -> f32");
    let (ps, t) = parse_val_spec("f32", 0).unwrap();
    assert!(ps.is_empty() && matches!(t.kind, ast::TypeExpKind::Prim(_)));
    // A type that starts like a size parameter.
    let (ps, t) = parse_val_spec("[n]i32 -> i32", 0).unwrap();
    assert!(ps.is_empty());
    assert_eq!(printer::print_type_exp(&t), "[n]i32 -> i32");
    let (ps, _) = parse_val_spec("[n] : [n]f32 -> f32", 0).unwrap();
    assert_eq!(ps.len(), 1);
    assert!(parse_val_spec(": i32", 0).is_ok());
    let ds = parse_val_spec("'a : a a ->", 7).unwrap_err();
    assert_eq!(ds[0].message, "expected a type, found end of input");
    assert_eq!(ds[0].span.start, 7 + 11);
    assert!(parse_val_spec("i32 i32", 0).is_err());
}

#[test]
fn every_intrinsic_signature_parses() {
    for i in crate::intrinsics::all() {
        if let Err(ds) = parse_val_spec(&i.sig, 0) {
            panic!("{}: {}: {:?}", i.name, i.sig, ds);
        }
    }
}

#[test]
fn parse_expr_reports_trailing_input() {
    let ds = parse_expr("1 + 2 )").unwrap_err();
    assert_eq!(ds[0].message, "expected end of input, found `)`");
}

/// Whether `src` is written with the module language.
fn uses_modules(src: &str) -> bool {
    let (toks, _) = lexer::lex(src, 0);
    let mut p = parser::Parser::new(src, 0, toks);
    let decs = p.program();
    p.needs_resolution || decs.iter().any(|d| !matches!(d, ast::SrcDec::Dec(_)))
}

/// Every program under `examples/` and `tests/programs/` that parses round-trips through the
/// printer. (Files are read at test time: they belong to other parts of the repository.)
#[test]
fn repository_programs_round_trip() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seen = 0;
    for dir in ["examples", "tests/programs"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "fut") {
                continue;
            }
            let Ok(src) = std::fs::read_to_string(&path) else { continue };
            let Ok(p) = parse(&src) else { continue };
            // A flattened module program's names (`m.f`) print as projections.
            if uses_modules(&src) {
                continue;
            }
            seen += 1;
            let printed = printer::print_program(&p);
            let q = parse(&printed).unwrap_or_else(|ds| {
                panic!("{}: printed form does not parse:\n{printed}\n{ds:?}", path.display())
            });
            assert!(strip::same_program(&p, &q), "{}:\n{printed}", path.display());
        }
    }
    let _ = seen;
}
