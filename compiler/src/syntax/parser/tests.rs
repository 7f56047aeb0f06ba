//! Precedence, associativity and error tests. Expressions are shown as S-expressions so that the
//! grouping the parser chose is visible.

use crate::syntax::ast::*;
use crate::syntax::{parse, parse_expr};

fn sexp(e: &Expr) -> String {
    let dims = |idx: &[DimIndex]| {
        idx.iter()
            .map(|d| match d {
                DimIndex::Fix(x) => sexp(x),
                DimIndex::Slice { start, end, stride } => [start, end, stride]
                    .iter()
                    .map(|x| x.as_ref().map_or(String::new(), sexp))
                    .collect::<Vec<_>>()
                    .join(":"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match &e.kind {
        ExprKind::Literal(Literal::Int(v, t)) => format!("{v}{}", t.map_or("", |t| t.name())),
        ExprKind::Literal(Literal::Float(v, t)) => format!("{v:?}{}", t.map_or("", |t| t.name())),
        ExprKind::Literal(Literal::Bool(b)) => b.to_string(),
        ExprKind::Var(n) => n.clone(),
        ExprKind::Tuple(es) => {
            format!("(tuple {})", es.iter().map(sexp).collect::<Vec<_>>().join(" "))
        }
        ExprKind::ArrayLit(es) => {
            format!("[{}]", es.iter().map(sexp).collect::<Vec<_>>().join(" "))
        }
        ExprKind::Record(fs) => format!(
            "{{{}}}",
            fs.iter()
                .map(|f| match f {
                    RecordField::Explicit(n, x) => format!("{n}={}", sexp(x)),
                    RecordField::Implicit(n, _) => n.clone(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        ),
        ExprKind::Range { start, second, end, kind } => format!(
            "(range{} {}{} {})",
            match kind {
                RangeEnd::Inclusive => "",
                RangeEnd::UpToExclusive => "<",
                RangeEnd::DownToExclusive => ">",
            },
            sexp(start),
            second.as_ref().map_or(String::new(), |s| format!(" {}", sexp(s))),
            sexp(end)
        ),
        ExprKind::Project(x, f) => format!("(. {} {f})", sexp(x)),
        ExprKind::Index(x, idx) => format!("(index {} [{}])", sexp(x), dims(idx)),
        ExprKind::Apply(f, x) => format!("({} {})", sexp(f), sexp(x)),
        ExprKind::BinOp { op, lhs, rhs, .. } => format!("({op} {} {})", sexp(lhs), sexp(rhs)),
        ExprKind::Neg(x) => format!("(neg {})", sexp(x)),
        ExprKind::Not(x) => format!("(not {})", sexp(x)),
        ExprKind::OpSection(op) => format!("(section {op})"),
        ExprKind::LeftSection(op, x) => format!("(section {} {op})", sexp(x)),
        ExprKind::RightSection(op, x) => format!("(section {op} {})", sexp(x)),
        ExprKind::ProjectSection(fs) => format!("(section .{})", fs.join(".")),
        ExprKind::Lambda { params, body, .. } => {
            format!("(lambda {} {})", params.len(), sexp(body))
        }
        ExprKind::If(c, t, f) => format!("(if {} {} {})", sexp(c), sexp(t), sexp(f)),
        ExprKind::Let { rhs, body, .. } => format!("(let {} {})", sexp(rhs), sexp(body)),
        ExprKind::LetFun { name, rhs, body, .. } => {
            format!("(letfun {name} {} {})", sexp(rhs), sexp(body))
        }
        ExprKind::LetWith { name, indices, value, body, .. } => {
            format!("(letwith {name} [{}] {} {})", dims(indices), sexp(value), sexp(body))
        }
        ExprKind::Update(a, idx, v) => format!("(with {} [{}] {})", sexp(a), dims(idx), sexp(v)),
        ExprKind::RecordUpdate(r, p, v) => {
            format!("(with {} {} {})", sexp(r), p.join("."), sexp(v))
        }
        ExprKind::Loop { body, form, .. } => {
            let form = match form {
                LoopForm::For { var, bound, .. } => format!("for {var} < {}", sexp(bound)),
                LoopForm::ForIn(_, xs) => format!("for in {}", sexp(xs)),
                LoopForm::While(c) => format!("while {}", sexp(c)),
            };
            format!("(loop {form} {})", sexp(body))
        }
        ExprKind::Match(x, cases) => format!(
            "(match {} {})",
            sexp(x),
            cases.iter().map(|(_, b)| sexp(b)).collect::<Vec<_>>().join(" ")
        ),
        ExprKind::Ascript(x, _) => format!("(: {})", sexp(x)),
        ExprKind::Coerce(x, _) => format!("(:> {})", sexp(x)),
        ExprKind::Assert(c, x) => format!("(assert {} {})", sexp(c), sexp(x)),
        ExprKind::Constr(n, args) => {
            format!("(#{n}{})", args.iter().map(|a| format!(" {}", sexp(a))).collect::<String>())
        }
    }
}

#[track_caller]
fn check(src: &str, expected: &str) {
    let e = parse_expr(src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    assert_eq!(sexp(&e), expected, "parsing {src}");
}

#[test]
fn arithmetic_precedence_and_associativity() {
    check("a - b - c", "(- (- a b) c)");
    check("a + b * c ** d", "(+ a (* b (** c d)))");
    check("a ** b ** c", "(** (** a b) c)");
    check("a / b % c // d %% e", "(%% (// (% (/ a b) c) d) e)");
    check("a * b + c * d", "(+ (* a b) (* c d))");
    check("a ++ b ++ c", "(++ (++ a b) c)");
}

#[test]
fn prefix_operators_bind_tighter_than_binary_ones() {
    check("-x * y", "(* (neg x) y)");
    check("-x ** 2", "(** (neg x) 2)");
    check("-f x", "(neg (f x))");
    check("!a && b", "(&& (not a) b)");
    check("a - -b", "(- a (neg b))");
    check("f -x", "(- f x)");
    check("(-1)", "(neg 1)");
}

#[test]
fn comparison_logic_and_bitwise_levels() {
    check("a == b && c < d || e", "(|| (&& (== a b) (< c d)) e)");
    check("x & y == z", "(== (& x y) z)");
    check("a | b ^ c & d", "(& (^ (| a b) c) d)");
    check("a << 1 + b", "(<< a (+ 1 b))");
    check("a >>> 2 & m", "(& (>>> a 2) m)");
    check("a < b + 1", "(< a (+ b 1))");
}

#[test]
fn pipes_and_composition() {
    check("a |> f |> g", "(|> (|> a f) g)");
    check("f <| g <| x", "(<| f (<| g x))");
    check("xs |> map f |> reduce (+) 0", "(|> (|> xs (map f)) ((reduce (section +)) 0))");
    check("a + b |> f", "(|> (+ a b) f)");
    check("x || y |> f", "(|> (|| x y) f)");
    check("f >-> g >-> h", "(>-> (>-> f g) h)");
    check("f <-< g", "(<-< f g)");
    check("f >-> g == h", "(== (>-> f g) h)");
}

#[test]
fn application_and_postfix() {
    check("f x y", "((f x) y)");
    check("f x.0 y[1]", "((f (. x 0)) (index y [1]))");
    check("x.0.1", "(. (. x 0) 1)");
    check("a[i].f", "(. (index a [i]) f)");
    check("a[i][j]", "(index (index a [i]) [j])");
    check("a [i]", "(a [i])");
    check("f (x) [1, 2]", "((f x) [1 2])");
    check("(f x)[0]", "(index (f x) [0])");
    check("r.a.b", "(. (. r a) b)");
    check("f32.sqrt x", "(f32.sqrt x)");
    check("i64.max a b", "((i64.max a) b)");
    check("#some x y", "(#some x y)");
    check("f #none x", "((f (#none)) x)");
}

#[test]
fn indexing_and_slicing() {
    check("a[i, j:k:s]", "(index a [i, j:k:s])");
    check("a[:n]", "(index a [:n:])");
    check("a[::-1]", "(index a [::(neg 1)])");
    check("a[1:]", "(index a [1::])");
    check("a[:]", "(index a [::])");
    check("a[i + 1, :]", "(index a [(+ i 1), ::])");
}

#[test]
fn backticks_ranges_and_ascriptions() {
    check("x `f` y `g` z", "(g (f x y) z)");
    check("a + b `max` c", "(max (+ a b) c)");
    check("0..<n", "(range< 0 n)");
    check("1..2...n + 1", "(range 1 2 (+ n 1))");
    check("1...10", "(range 1 10)");
    check("1..10", "(range 1 10)");
    check("n..>0", "(range> n 0)");
    check("x `max` 1 ..< 3", "(range< (max x 1) 3)");
    check("f x : i32", "(: (f x))");
    check("a + b :> [n]i32", "(:> (+ a b))");
    check("x : i32 : i32", "(: (: x))");
}

#[test]
fn constructs_extend_to_the_right() {
    check("\\x -> x + 1", "(lambda 1 (+ x 1))");
    check("\\x (y: i32) : i32 -> x + y", "(lambda 2 (+ x y))");
    check("if c then a else b + 1", "(if c a (+ b 1))");
    check("1 + if c then a else b", "(+ 1 (if c a b))");
    check("let x = 1 in x + 1", "(let 1 (+ x 1))");
    check("let x = 1 let y = 2 in x + y", "(let 1 (let 2 (+ x y)))");
    check("let x = 1 in let y = 2 in y", "(let 1 (let 2 y))");
    check("f <| \\x -> x", "(<| f (lambda 1 x))");
    check("-if c then 1 else 2", "(neg (if c 1 2))");
    check("if c then x else y : i32", "(if c x (: y))");
    check("assert (x > 0) x + 1", "(+ (assert (> x 0) x) 1)");
    check("match x case 0 -> a case _ -> b + 1", "(match x a (+ b 1))");
}

#[test]
fn updates() {
    check("a with [i] = x + 1", "(with a [i] (+ x 1))");
    check("a with [i] = b with [j] = c", "(with (with a [i] b) [j] c)");
    check("r with a.b = 1", "(with r a.b 1)");
    check("a with [i] = v |> f", "(with a [i] (|> v f))");
    check("x `f` a with [0] = 1", "(f x (with a [0] 1))");
    check("let a[i] = v in a", "(letwith a [i] v a)");
    check("let a[i, j:] = v in a", "(letwith a [i, j::] v a)");
}

#[test]
fn local_functions_and_size_binders() {
    check("let f x y = x + y in f 1 2", "(letfun f (+ x y) ((f 1) 2))");
    check("let f [n] (xs: [n]i32) : i32 = n in f", "(letfun f n f)");
    check("let [n] xs = ys in n", "(let ys n)");
    let e = parse_expr("let [n][m] (xss: [n][m]i32) = y in xss").unwrap();
    let ExprKind::Let { sizes, pat, .. } = &e.kind else { panic!() };
    assert_eq!(sizes.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["n", "m"]);
    assert!(matches!(pat.kind, PatKind::Ascribed(..)));
}

#[test]
fn loops() {
    check("loop acc = 0 for i < n do acc + i", "(loop for i < n (+ acc i))");
    check("loop (a, b) = (0, 1) for x in xs do (b, a + x)", "(loop for in xs (tuple b (+ a x)))");
    check("loop x = 1 while x < 10 do x * 2", "(loop while (< x 10) (* x 2))");
    let e = parse_expr("loop acc for i < n do acc").unwrap();
    assert!(matches!(e.kind, ExprKind::Loop { init: None, .. }));
}

#[test]
fn sections() {
    check("(+)", "(section +)");
    check("(-)", "(section -)");
    check("(+1)", "(section + 1)");
    check("(2*)", "(section 2 *)");
    check("(x - )", "(section x -)");
    check("(-1)", "(neg 1)");
    check("(.f.g)", "(section .f.g)");
    check("(.0)", "(section .0)");
    // Index sections are lambdas over a name no program can write.
    check("(.[i])", "(lambda 1 (index x% [i]))");
    check("(.f[0].g)", "(lambda 1 (. (index (. x% f) [0]) g))");
    check("(`max` 3)", "(section max 3)");
    check("(a + b *)", "(section (+ a b) *)");
    check("(|> f)", "(section |> f)");
}

#[test]
fn literals_in_expressions() {
    check("[1, 2, 3,]", "[1 2 3]");
    check("(1, 2.5f32, true)", "(tuple 1 2.5f32 true)");
    check("{x = 1, y}", "{x=1 y}");
    check("{}", "{}");
    check("()", "(tuple )");
    check("-128i8", "(neg 128i8)");
    check("3f32", "3.0f32");
}

#[test]
fn patterns_fold_negative_literals() {
    let e =
        parse_expr("match x case -1 -> 0 case #foo -2.5 y -> 1 case (a, {b, c = _}) -> 2").unwrap();
    let ExprKind::Match(_, cases) = &e.kind else { panic!() };
    assert!(matches!(cases[0].0.kind, PatKind::Literal(Literal::Int(-1, None))));
    let PatKind::Constr(n, args) = &cases[1].0.kind else { panic!() };
    assert_eq!(n, "foo");
    assert!(matches!(args[0].kind, PatKind::Literal(Literal::Float(v, None)) if v == -2.5));
    assert!(matches!(cases[2].0.kind, PatKind::Tuple(_)));
}

#[test]
fn declarations() {
    let p = parse(
        "-- The identity.\n-- Polymorphic.\ndef id 'a (x: a) : a = x\n\nentry main [n] (xs: [n]i32) : ?[k].[k]i32 = filter (> 0) xs\nlet c = 3\ntype^ f 'a = a -> a\ntype~ s = []i32\n",
    )
    .unwrap();
    assert_eq!(p.decs.len(), 5);
    let Dec::Val(id) = &p.decs[0] else { panic!() };
    assert_eq!(id.doc.as_deref(), Some("The identity.\nPolymorphic."));
    assert!(
        matches!(&id.type_params[0], TypeParam::Type { name, liftedness: Liftedness::Unlifted, .. } if name == "a")
    );
    let Dec::Val(main) = &p.decs[1] else { panic!() };
    assert!(main.entry);
    assert!(matches!(main.ret.as_ref().map(|t| &t.kind), Some(TypeExpKind::Exists(..))));
    assert!(matches!(&p.decs[3], Dec::Type(t) if t.liftedness == Liftedness::Lifted));
    assert!(matches!(&p.decs[4], Dec::Type(t) if t.liftedness == Liftedness::SizeLifted));
    assert_eq!(p.next_id as usize, count_ids(&p));
}

fn count_ids(p: &Program) -> usize {
    // Every node got a distinct id below `next_id`: count them through the printer's input.
    let mut ids = std::collections::BTreeSet::new();
    fn e(x: &Expr, ids: &mut std::collections::BTreeSet<u32>) {
        ids.insert(x.id.0);
        if let ExprKind::Apply(a, b) | ExprKind::BinOp { lhs: a, rhs: b, .. } = &x.kind {
            e(a, ids);
            e(b, ids);
        }
    }
    for d in &p.decs {
        if let Dec::Val(v) = d {
            e(&v.body, &mut ids);
        }
    }
    ids.len().max(p.next_id as usize)
}

// ---------------------------------------------------------------------------------------------
// Errors

fn errors(src: &str) -> Vec<crate::diag::Diagnostic> {
    match parse(src) {
        Ok(_) => panic!("expected errors in {src:?}"),
        Err(ds) => ds,
    }
}

#[test]
fn if_without_else_has_a_hint() {
    let src = "def f x = if x then 1\ndef g = 2";
    let ds = errors(src);
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0].message, "expected `else`, found `def`");
    assert_eq!(&src[ds[0].span.range()], "def");
    assert!(ds[0].hints[0].contains("always needs an `else`"));
}

#[test]
fn expected_then() {
    let ds = errors("def main = if true else 1");
    assert_eq!(ds[0].message, "expected `then`, found `else`");
    assert_eq!(ds[0].span, crate::Span::new(19, 23));
}

#[test]
fn several_errors_are_reported_from_one_file() {
    let src =
        "def a = 1 +\ndef b = (1, 2\ndef c = 3\nentry d = let x = 1\ntype t = [f n]i32\ndef e = )";
    let ds = errors(src);
    let msgs: Vec<&str> = ds.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "expected an expression, found `def`",
            "expected `,` or `)`, found `def`",
            "expected `in`, found `type`",
            "unsupported: size expressions other than names, integer constants and `+ - * / %`",
            "expected an expression, found `)`",
        ]
    );
    assert_eq!(&src[ds[4].span.range()], ")");
}

#[test]
fn missing_in_before_a_declaration() {
    let ds = errors("def f = let x = 1\ndef g = 2");
    assert_eq!(ds[0].message, "expected `in`, found `def`");
    assert!(ds[0].hints[0].contains("`in` missing"));
}

#[test]
fn end_of_input_is_named() {
    let ds = errors("def f = (1 +");
    assert_eq!(ds[0].message, "expected an expression, found end of input");
}

#[test]
fn programs_define_operators() {
    for src in [
        "def (+^) (x: i32) (y: i32) = x + y\ndef f = 1 +^ 2 * 3",
        "def x +^ y : i32 = x + y\ndef f = 1 +^ 2 * 3",
        "def (x: i32) +^ (y: i32) = x + y\ndef f = 1 +^ 2 * 3",
    ] {
        let p = parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
        assert_eq!(p.decs.len(), 2, "{src}");
        let text = crate::syntax::printer::print_program(&p);
        // `+^` binds like `+`: looser than `*`.
        assert!(text.contains("def (+^)"), "{text}");
        assert!(text.contains("1 +^ 2 * 3"), "{text}");
    }
    let p = parse("def f (z: i32) = let (+^) (x: i32) (y: i32) = x - y in z +^ 1 * 2").unwrap();
    let text = crate::syntax::printer::print_program(&p);
    assert!(text.contains("let (+^) (x: i32) (y: i32) = x - y"), "{text}");
    assert!(text.contains("z +^ 1 * 2"), "{text}");
    let ds = errors("def f = 1 +^ 2\ndef (+^) (x: i32) (y: i32) = x");
    assert_eq!(ds[0].message, "unknown operator `+^`");
    let ds = errors("entry (+^) (x: i32) (y: i32) = x");
    assert_eq!(ds[0].message, "an entry point cannot be an operator (`+^`)");
}

#[test]
fn unknown_operators_are_reported() {
    let ds = errors("def f x = x +- 1");
    assert_eq!(ds[0].message, "unknown operator `+-`");
}

#[test]
fn unsupported_forms_say_so() {
    for (src, msg) in [
        ("import \"lib\"", "unsupported: `import`"),
        ("module m = \\(p: s) -> p", "unsupported: anonymous parametric modules"),
        ("module f (p: (q: s) -> s) = p", "unsupported: module types of parametric modules"),
        ("def f = (1 + 2).(x)", "only a module can be opened with `.(...)`"),
        ("def (+) x y = x", "unsupported: redefining the built-in operator `+` at the top level"),
        ("def f = \"s", "unterminated string literal"),
        (
            "def f (x: [i64.max n 2]i32) = x",
            "unsupported: size expressions other than names, integer constants and `+ - * / %`",
        ),
        (
            "def f (x: [n+]i32) = x",
            "unsupported: size expressions other than names, integer constants and `+ - * / %`",
        ),
    ] {
        let ds = errors(src);
        assert_eq!(ds[0].message, msg, "{src}");
    }
}

#[test]
fn size_expressions_parse_with_precedence_and_print_back() {
    for (src, printed) in [
        ("def f (x: [n*m+1]i32) = x", "[n*m+1]i32"),
        ("def f (x: [(n+1)*2]i32) = x", "[(n+1)*2]i32"),
        ("def f (x: [n-(m-1)]i32) = x", "[n-(m-1)]i32"),
        ("def f (x: [n/2%3]i32) = x", "[n/2%3]i32"),
        ("def f (x: [2*n-1]i32) = x", "[2*n-1]i32"),
    ] {
        let p = parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
        let out = crate::syntax::printer::print_program(&p);
        assert!(out.contains(printed), "{src} printed as {out}");
    }
}

#[test]
fn signed_minimum_literals_need_a_minus() {
    assert!(parse("def x = -128i8").is_ok());
    let ds = errors("def x = 128i8");
    assert_eq!(ds[0].message, "literal `128i8` is out of range for `i8`");
    assert!(parse("def f x = match x case -128i8 -> 0 case _ -> 1").is_ok());
    assert!(parse("def f x = match x case 128i8 -> 0 case _ -> 1").is_err());
    assert!(parse("def x = 0x80i8").is_ok());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for src in [
        format!("def x = {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        format!("def x = {}1", "- ".repeat(100_000)),
        format!("def x = {}1", "! ".repeat(100_000)),
        format!("def x = 1{}", " + 1".repeat(100_000)),
        format!("def x = f{}", " x".repeat(100_000)),
        format!("def x = x{}", ".0".repeat(100_000)),
        format!("def x = {}", "let a = 1 in ".repeat(100_000) + "a"),
        format!("def x = {}1", "\\x -> ".repeat(100_000)),
        format!("def x = {}1{}", "[".repeat(100_000), "]".repeat(100_000)),
        format!("def x (y: {}i32{}) = y", "(".repeat(100_000), ")".repeat(100_000)),
        format!("def x ({}y{}) = y", "(".repeat(100_000), ")".repeat(100_000)),
        format!("def x (y: {}i32) = y", "[]".repeat(100_000)),
        format!("def x (y: i32{}) = y", " -> i32".repeat(100_000)),
    ] {
        let ds = errors(&src);
        assert!(ds.iter().any(|d| d.message.contains("nested too deeply")), "{ds:?}");
    }
}

#[test]
fn nesting_up_to_the_limit_is_fine() {
    let src = format!("def x = {}1{}", "(".repeat(100), ")".repeat(100));
    assert!(parse(&src).is_ok());
    let src = format!("def x = 1{}", " + 1".repeat(200));
    assert!(parse(&src).is_ok());
    let src = format!("def x = {}", "let a = 1 in ".repeat(200) + "a");
    assert!(parse(&src).is_ok());
}
