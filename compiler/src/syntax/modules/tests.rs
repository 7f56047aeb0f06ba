use std::collections::HashSet;

use crate::syntax::ast::*;
use crate::syntax::{parse, printer};

fn flat(src: &str) -> String {
    match parse(src) {
        Ok(p) => printer::print_program(&p),
        Err(ds) => panic!("{}", crate::diag::render_all(&ds, "test.fut", src)),
    }
}

fn errors(src: &str) -> Vec<String> {
    match parse(src) {
        Ok(p) => panic!("expected an error, got:\n{}", printer::print_program(&p)),
        Err(ds) => ds.into_iter().map(|d| d.message).collect(),
    }
}

#[test]
fn structures_declare_qualified_names_and_resolve_their_own() {
    let out = flat(
        "module m = { type t = i32 def one : t = 1 def two = one + one }\n\
         def main = m.two + m.one",
    );
    assert!(out.contains("type m.t = i32"), "{out}");
    assert!(out.contains("def m.one : m.t = 1"), "{out}");
    assert!(out.contains("def m.two = m.one + m.one"), "{out}");
    assert!(out.contains("def main = m.two + m.one"), "{out}");
}

#[test]
fn local_bindings_shadow_module_level_names() {
    let out =
        flat("module m = { def x = 1i32 def f (x: i32) = x def g = let x = 2 in x def h = x }");
    assert!(out.contains("def m.f (x: i32) = x"), "{out}");
    assert!(out.contains("def m.g =\n  let x = 2\n  in x"), "{out}");
    assert!(out.contains("def m.h = m.x"), "{out}");
    // A local variable named like a module is a record, not the module.
    let out = flat("module r = { def a = 1i32 }\ndef f (r: {a: i32}) = r.a\ndef g = r.a");
    assert!(out.contains("def f (r: {a: i32}) = r.a"), "{out}");
    assert!(out.contains("def g = r.a"), "{out}");
    assert!(out.contains("def r.a = 1i32"), "{out}");
}

#[test]
fn parametric_modules_are_instantiated_once_per_application() {
    let src = "module type mono = { type t val zero: t }\n\
               module pair (M: mono) = { def z : (M.t, M.t) = (M.zero, M.zero) }\n\
               module a = pair { type t = i32 def zero: t = 0 }\n\
               module b = pair { type t = f32 def zero = 0f32 }\n";
    let out =
        flat(&format!("{src}module a2 = {{ type t = bool def zero = false }}\nmodule d = pair a2"));
    assert!(out.contains("def a.z : (a.1.t, a.1.t) = (a.1.zero, a.1.zero)"), "{out}");
    // A numeric module's members and its type `t`.
    let out = flat(
        "module sq (M: { type t val sqrt: t -> t }) = { def f (x: M.t) : M.t = M.sqrt x }\n\
         module s = sq f64",
    );
    assert!(out.contains("def s.f (x: f64) : f64 = f64.sqrt x"), "{out}");
}

#[test]
fn instances_have_distinct_node_ids() {
    let p = parse(
        "module id (M: { val x: i32 }) = { def y = M.x + 1 }\n\
         module a = id { def x = 1i32 }\n\
         module b = id { def x = 2i32 }",
    )
    .unwrap();
    let mut ids = HashSet::new();
    let mut dup = false;
    for d in &p.decs {
        if let Dec::Val(v) = d {
            let mut check = |e: &Expr| dup |= !ids.insert(e.id) || e.id.0 >= p.next_id;
            walk(&v.body, &mut check);
        }
    }
    assert!(!dup, "{:?}", p.decs);
}

fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    crate::syntax::visit::for_each_child(&e.kind, &mut |c| {
        if let crate::syntax::visit::Child::Expr(x) = c {
            walk(x, f);
        }
    });
}

#[test]
fn a_parametric_module_sees_the_scope_it_was_written_in() {
    let out = flat(
        "def k = 1i32\n\
         module f (M: { val x: i32 }) = { def y = M.x + k }\n\
         module b = { def k = 2i32 }\n\
         open b\n\
         module a = f { def x = k }",
    );
    // The body's `k` is the top-level one; the argument's is `b`'s, opened after `f`.
    assert!(out.contains("def a.2.x = b.k"), "{out}");
    assert!(out.contains("def a.y = a.2.x + k"), "{out}");
}

#[test]
fn ascription_hides_what_the_module_type_leaves_out() {
    let src = "module m : { val f: i32 -> i32 } = { def g (x: i32) = x def f (x: i32) = g x }\n";
    assert!(flat(&format!("{src}def main = m.f 1")).contains("def main = m.f 1"));
    assert_eq!(errors(&format!("{src}def main = m.g 1")), ["module `m` has no `g`"]);
    assert_eq!(
        errors("module m : { val f: i32 } = { def g = 1i32 }"),
        ["the module lacks `f`, which its module type specifies (`val f`)"]
    );
    assert_eq!(
        errors("module type s = { type t }\nmodule f (M: s) = {}\nmodule a = f {}"),
        ["the module lacks the type `t`, which its module type specifies"]
    );
}

#[test]
fn open_and_local() {
    let out = flat(
        "module m = { def a = 1i32 local def b = 2i32 def c = a + b }\n\
         module n = { open m def d = c }\n\
         open n\n\
         def main = d + a + n.a",
    );
    assert!(out.contains("def m.c = m.a + m.b"), "{out}");
    assert!(out.contains("def n.d = m.c"), "{out}");
    assert!(out.contains("def main = n.d + m.a + m.a"), "{out}");
    assert_eq!(
        errors("module m = { local def b = 2i32 }\ndef main = m.b"),
        ["module `m` has no `b`"]
    );
}

#[test]
fn misuses_of_modules_are_errors() {
    for (src, msg) in [
        ("module m = q", "unknown module `q`"),
        ("module m = { entry main = 1i32 }", "an entry point cannot be declared in a module"),
        ("module m = {}\ndef main = m", "`m` is a module, not a value"),
        ("module m = { module n = {} }\ndef main = m.n", "`m.n` is a module, not a value"),
        ("module m = {}\nmodule n = m {}", "only a parametric module can be applied to a module"),
        ("module f (M: {}) = {}\nopen f", "`f` is a parametric module: apply it before opening it"),
        (
            "module f (M: {}) = {}\ndef main = f.x",
            "`f` is a parametric module: apply it to a module first",
        ),
        ("module m : s = {}", "unknown module type `s`"),
        ("module m = {}\nmodule n = m.k", "module `m` has no module `k`"),
        ("module m = {}\ndef x : m.t = 0", "module `m` has no type `t`"),
        (
            "module f (M: {}) = {}\nmodule g (M: {}) = {}\nmodule h = f g",
            "`g` is a parametric module, where a module was expected",
        ),
        (
            "module type s = { type t }\nmodule type r = s with u = i32",
            "the module type has no type `u` to refine",
        ),
    ] {
        let es = errors(src);
        assert_eq!(es[0], msg, "{src}");
    }
}

#[test]
fn programs_without_modules_are_left_as_they_are() {
    let src = "def f (x: i32) = x\ndef g = f 1";
    let (toks, _) = crate::syntax::lexer::lex(src, 0);
    let mut p = crate::syntax::parser::Parser::new(src, 0, toks);
    let decs = p.program();
    let plain: Vec<Dec> = decs
        .iter()
        .filter_map(|d| match d {
            SrcDec::Dec(d) => Some(d.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(parse(src).unwrap().decs, plain);
}

#[test]
fn exponential_expansion_is_an_error() {
    let mut src = String::from("module f0 (P: {}) = { def x = 1i32 }\n");
    for k in 1..30 {
        src += &format!(
            "module f{k} (P: {{}}) = {{ module a = f{} P module b = f{} P }}\n",
            k - 1,
            k - 1
        );
    }
    src += "module top = f29 {}";
    let es = errors(&src);
    assert_eq!(es, ["the program's modules expand to more than 20000 declarations"]);
}

#[test]
fn deeply_nested_structures_are_bounded() {
    let depth = 2000;
    let src = format!(
        "module m = {}{}",
        "{ module n = ".repeat(depth),
        "{}".to_string() + &" }".repeat(depth)
    );
    assert!(!errors(&src).is_empty());
}

#[test]
fn names_are_defined_once_per_module() {
    // Values and modules share a namespace, as in Futhark; types have their own.
    assert_eq!(
        errors("module m = { def k = 2i32 }\ndef m = 1i32"),
        ["duplicate definition of value `m`"]
    );
    assert_eq!(
        errors("module m = { type t = i32\ndef f = 1i32\ntype t = f32 }"),
        ["duplicate definition of type `t`"]
    );
    assert_eq!(
        errors("module type s = {}\nmodule type s = { val x: i32 }"),
        ["duplicate definition of module type `s`"]
    );
    // A name may be defined anew in a nested module, next to a type of the same name, or after
    // a `local` or `open` that declared it.
    let out = flat(
        "type k = i32\ndef k : k = 1\nmodule m = { def k = 2i32 }\n\
         module n = { open m\ndef k = 3i32 }\ndef g = k + m.k + n.k",
    );
    assert!(out.contains("def n.k = 3i32"), "{out}");
}

#[test]
fn backticked_qualified_names_are_resolved() {
    // `n` is another name for `m`: the operator is `m.f`'s declaration.
    let p =
        parse("module m = { def f (x: i32) (y: i32) = x + y }\nmodule n = m\ndef g = 1 `n.f` 2")
            .unwrap();
    let Some(Dec::Val(g)) = p.decs.last() else { panic!() };
    assert!(matches!(&g.body.kind, ExprKind::BinOp { op, .. } if op == "m.f"), "{:?}", g.body);
}

#[test]
fn a_module_may_declare_the_built_in_operators() {
    let p = parse(
        "module v = {\n\
           def (+) (a: (i32, i32)) (b: (i32, i32)) = (a.0 i32.+ b.0, a.1 + b.1)\n\
           def twice (a: (i32, i32)) = a + a\n\
           def inc = (f32.+) 1\n\
         }\n\
         def f (x: i32) = x + 1\n\
         def g = v.((1, 2) + (3, 4))",
    )
    .unwrap();
    let body = |name: &str| {
        p.decs
            .iter()
            .find_map(|d| match d {
                Dec::Val(v) if v.name == name => Some(v.body.clone()),
                _ => None,
            })
            .unwrap()
    };
    let op_of = |e: &Expr| match &e.kind {
        ExprKind::BinOp { op, .. } => op.clone(),
        other => panic!("{other:?}"),
    };
    // Its own body uses the built-in `+`, written qualified or not.
    let ExprKind::Tuple(parts) = &body("v.+").kind else { panic!() };
    assert_eq!(op_of(&parts[0]), "+");
    assert_eq!(op_of(&parts[1]), "+");
    // After it, the module's; outside, the built-in one unless opened.
    assert_eq!(op_of(&body("v.twice")), "v.+");
    assert_eq!(op_of(&body("f")), "+");
    assert_eq!(op_of(&body("g")), "v.+");
    // `(f32.+)` stays the built-in operator.
    assert!(format!("{:?}", body("v.inc")).contains("OpSection(\"+\")"));
}

#[test]
fn an_error_in_a_parametric_module_is_reported_once() {
    let p = parse(
        "module f (P: { type t val x: t }) = { def y = P.x + 1i32 }\n\
         module a = f { type t = f32 def x = 1f32 }\n\
         module b = f { type t = f32 def x = 2f32 }",
    )
    .unwrap();
    let es = crate::types::check(&p).unwrap_err();
    assert_eq!(es.len(), 1, "{es:?}");
    // It names both applications.
    let at: Vec<_> = es[0]
        .secondary
        .iter()
        .filter(|l| l.message == "in the parametric module `f`, applied here")
        .map(|l| l.span)
        .collect();
    assert_eq!(at, [p.instances["a.y"].at, p.instances["b.y"].at]);
    assert_eq!(p.instances["a.y"].at, crate::diag::Span::new(70, 101));
}

#[test]
fn opening_a_numeric_module_binds_its_members_and_operators() {
    let out = flat("open f64\ndef f (x: t) = sqrt x + 1");
    assert!(out.contains("def f (x: f64) = (f64.sqrt x : f64) + (1 : f64)"), "{out}");
}

#[test]
fn fields_of_a_module_value_stay_projections() {
    let out = flat(
        "module m = { def r = { x = 2i32 } def t = (1i32, (2i32, 3i32)) module n = { def r = { y = 1i32 } } }\n\
         def main = m.r.x + m.t.1.0 + m.n.r.y",
    );
    assert!(out.contains("def main = m.r.x + m.t.1.0 + m.n.r.y"), "{out}");
    assert_eq!(errors("module m = { def r = 1i32 }\ndef main = m.s.x"), ["module `m` has no `s`"]);
}

#[test]
fn operator_names_bound_locally_are_their_binders() {
    let out = flat("def f ((<=): i32 -> i32 -> bool) (x: i32) = (x <= 1, (<= x), 2 <= 3)");
    assert!(
        out.contains("def f ((<=): i32 -> i32 -> bool) (x: i32) = (x <= 1, (<= x), 2 <= 3)"),
        "{out}"
    );
    let p = parse("def f ((<=): i32 -> i32 -> bool) (x: i32) = (x <= 1, (<= x))\ndef g = 2 <= 3")
        .unwrap_or_else(|_| panic!());
    let printed = format!("{:?}", p.decs);
    // Inside `f`, the operator is the parameter, named apart from the built-in `<=` of `g`.
    assert!(printed.contains("op: \"(<=)\""), "{printed}");
    assert!(printed.contains("RightSection(\"(<=)\""), "{printed}");
    assert!(printed.contains("op: \"<=\""), "{printed}");
}
