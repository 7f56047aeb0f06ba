//! The checker never panics: programs made by mutating valid ones (renaming variables, changing
//! literals, moving subexpressions, dropping annotations and declarations) check or give
//! diagnostics, and whenever they check, the result satisfies the contract with lowering.

use proptest::prelude::*;

use crate::syntax::ast::{
    Dec, DimIndex, Expr, ExprKind, Literal, LoopForm, PatKind, Program, RecordField,
};
use crate::syntax::{self, printer};

const CORPUS: &[&str] = &[
    "def dotprod [n] (xs: [n]f32) (ys: [n]f32) = reduce (+) 0 (map2 (*) xs ys)
def matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> dotprod r c) (transpose b)) a
entry main [n] (xs: [n]f32) = dotprod xs xs",
    "type point = {x: f32, y: f32}
def mk (a: f32) (b: f32) : point = {x = a, y = b}
def norm (p: point) = f32.sqrt (p.x * p.x + p.y * p.y)
def move (p: point) = p with x = p.x + 1
def xs (ps: []point) = map (.y) ps",
    "def fact (n: i32) = loop acc = 1 for i < n do acc * (i + 1)
def sum (xs: []f32) = loop s = 0 for x in xs do s + x
def grow (n: i64) = loop acc = [0] for i < n do acc ++ [i]
def collatz (n: i64) = loop (n, k) = (n, 0i32) while n != 1 do (if n % 2 == 0 then n / 2 else 3 * n + 1, k + 1)",
    "type shape = #circle f32 | #rect f32 f32
def area (s: shape) = match s case #circle r -> 3.14 * r * r case #rect w h -> w * h
def lit (x: i32) = match x case 0 -> 10 case _ -> 20
def tup (p: (i32, bool)) = match p case (0, _) -> 1 case (x, true) -> x case (_, false) -> 3",
    "def a (xs: *[]i32) = xs with [0] = 1
def b (n: i64) = let xs = iota n in let xs[0] = 5 in xs
def c [n] (xs: *[n]i32) = scatter xs [0] [1]
def d (xs: []i32) = let ys = copy xs in ys with [0:2] = [7, 8]",
    "def f [n] (xs: [n]i32) = (filter (> 0) xs, xs[1:], xs[:2], 0..<n, xs ++ xs)
def g (k: i64) = (replicate k 1.5f32, tabulate_2d k 3 (\\i j -> i + j))
def h [n] (b: bool) (xs: [n]i32) = if b then xs else reverse xs
def q (xs: []i32) = let [m] (ys: [m]i32) = filter (> 0) xs in zip ys (iota m)",
    "def twice 'a (f: a -> a) (x: a) = f (f x)
def p (xs: []f64) = xs |> map (* 2) |> reduce (+) 0
def c = (f32.sqrt >-> f32.abs) 4
def s = (map (2 *) [1, 2], (+ 1) 5, (10 /) 2, 1 `i32.max` 2, flip (-) 1 10)
def l (x: i32) = let sq (y: i32) = y * y let add a b = a + b in add (sq x) (-1)",
    "type vec [n] = [n]f32
type pair 'a 'b = (a, b)
def add [n] (a: vec [n]) (b: vec [n]) : vec [n] = map2 (+) a b
def fst 'a 'b (p: pair a b) : a = p.0
def u (x: u8) (y: i64) (z: f16) = (x & 3, y >> 1, z ** 2, !true, x == 1, y <= 2)
entry e (xs: []i32) (k: i32) : ([]i32, i32) = (map (+ k) xs, k)",
];

const NAMES: &[&str] = &[
    "x",
    "xs",
    "n",
    "map",
    "reduce",
    "length",
    "zip",
    "f32.sqrt",
    "i64.i32",
    "iota",
    "replicate",
    "filter",
    "undefined",
    "copy",
    "id",
    "foldl",
    "head",
    "transpose",
];

const LITERALS: &[Literal] = &[
    Literal::Int(0, None),
    Literal::Int(3, None),
    Literal::Int(300, Some(crate::prim::IntType::U8)),
    Literal::Int(7, Some(crate::prim::IntType::I64)),
    Literal::Float(1.5, None),
    Literal::Float(2.0, Some(crate::prim::FloatType::F32)),
    Literal::Bool(true),
];

#[derive(Clone, Debug)]
enum Mutation {
    RenameVar(usize, usize),
    Literal(usize, usize),
    Transplant(usize, usize),
    DropAnnotations(usize),
    DeleteDec(usize),
    SwapOperands(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::RenameVar(a, b)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Literal(a, b)),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Transplant(a, b)),
        1 => any::<usize>().prop_map(Mutation::DropAnnotations),
        1 => any::<usize>().prop_map(Mutation::DeleteDec),
        1 => any::<usize>().prop_map(Mutation::SwapOperands),
    ]
}

/// Every expression, pre-order.
fn exprs_mut(p: &mut Program, f: &mut dyn FnMut(&mut Expr)) {
    fn go(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
        f(e);
        let dims = |ds: &mut Vec<DimIndex>, f: &mut dyn FnMut(&mut Expr)| {
            for d in ds {
                match d {
                    DimIndex::Fix(x) => go(x, f),
                    DimIndex::Slice { start, end, stride } => {
                        for x in [start, end, stride].into_iter().flatten() {
                            go(x, f);
                        }
                    }
                }
            }
        };
        match &mut e.kind {
            ExprKind::Literal(_)
            | ExprKind::Var(_)
            | ExprKind::OpSection(_)
            | ExprKind::ProjectSection(_) => {}
            ExprKind::Tuple(es) | ExprKind::ArrayLit(es) | ExprKind::Constr(_, es) => {
                es.iter_mut().for_each(|x| go(x, f))
            }
            ExprKind::Record(fs) => {
                for fld in fs {
                    let (RecordField::Explicit(_, x) | RecordField::Implicit(_, x)) = fld;
                    go(x, f);
                }
            }
            ExprKind::Range { start, second, end, .. } => {
                go(start, f);
                if let Some(s) = second {
                    go(s, f);
                }
                go(end, f);
            }
            ExprKind::Project(x, _)
            | ExprKind::Neg(x)
            | ExprKind::Not(x)
            | ExprKind::LeftSection(_, x)
            | ExprKind::RightSection(_, x)
            | ExprKind::Ascript(x, _)
            | ExprKind::Coerce(x, _) => go(x, f),
            ExprKind::Index(x, ds) => {
                go(x, f);
                dims(ds, f);
            }
            ExprKind::Apply(a, b)
            | ExprKind::BinOp { lhs: a, rhs: b, .. }
            | ExprKind::Assert(a, b) => {
                go(a, f);
                go(b, f);
            }
            ExprKind::Lambda { body, .. } => go(body, f),
            ExprKind::If(a, b, c) => {
                go(a, f);
                go(b, f);
                go(c, f);
            }
            ExprKind::Let { rhs, body, .. } | ExprKind::LetFun { rhs, body, .. } => {
                go(rhs, f);
                go(body, f);
            }
            ExprKind::LetWith { indices, value, body, .. } => {
                dims(indices, f);
                go(value, f);
                go(body, f);
            }
            ExprKind::Update(x, ds, v) => {
                go(x, f);
                dims(ds, f);
                go(v, f);
            }
            ExprKind::RecordUpdate(x, _, v) => {
                go(x, f);
                go(v, f);
            }
            ExprKind::Loop { init, form, body, .. } => {
                if let Some(i) = init {
                    go(i, f);
                }
                match form {
                    LoopForm::For { bound, .. } => go(bound, f),
                    LoopForm::ForIn(_, xs) => go(xs, f),
                    LoopForm::While(c) => go(c, f),
                }
                go(body, f);
            }
            ExprKind::Match(x, cases) => {
                go(x, f);
                for (_, b) in cases {
                    go(b, f);
                }
            }
        }
    }
    for d in &mut p.decs {
        if let Dec::Val(v) = d {
            go(&mut v.body, f);
        }
    }
}

fn count(p: &mut Program, pred: &dyn Fn(&Expr) -> bool) -> usize {
    let mut n = 0;
    exprs_mut(p, &mut |e| n += usize::from(pred(e)));
    n
}

/// Apply `f` to the `k`-th expression (modulo their number) satisfying `pred`.
fn nth(p: &mut Program, k: usize, pred: &dyn Fn(&Expr) -> bool, f: &mut dyn FnMut(&mut Expr)) {
    let n = count(p, pred);
    if n == 0 {
        return;
    }
    let k = k % n;
    let mut i = 0;
    exprs_mut(p, &mut |e| {
        if pred(e) {
            if i == k {
                f(e);
            }
            i += 1;
        }
    });
}

fn apply(p: &mut Program, m: &Mutation) {
    match *m {
        Mutation::RenameVar(k, j) => nth(p, k, &|e| matches!(e.kind, ExprKind::Var(_)), &mut |e| {
            e.kind = ExprKind::Var(NAMES[j % NAMES.len()].to_string())
        }),
        Mutation::Literal(k, j) => {
            nth(p, k, &|e| matches!(e.kind, ExprKind::Literal(_)), &mut |e| {
                e.kind = ExprKind::Literal(LITERALS[j % LITERALS.len()])
            })
        }
        Mutation::Transplant(k, j) => {
            let mut donor = None;
            nth(p, j, &|_| true, &mut |e| donor = Some(e.clone()));
            if let Some(d) = donor {
                nth(p, k, &|_| true, &mut |e| *e = d.clone());
            }
        }
        Mutation::SwapOperands(k) => {
            nth(p, k, &|e| matches!(e.kind, ExprKind::BinOp { .. }), &mut |e| {
                if let ExprKind::BinOp { lhs, rhs, .. } = &mut e.kind {
                    std::mem::swap(lhs, rhs);
                }
            })
        }
        Mutation::DropAnnotations(k) => {
            let n = p.decs.len().max(1);
            if let Some(Dec::Val(v)) = p.decs.get_mut(k % n) {
                v.ret = None;
                for q in &mut v.params {
                    if let PatKind::Ascribed(inner, _) = &q.kind {
                        *q = (**inner).clone();
                    }
                }
            }
        }
        Mutation::DeleteDec(k) => {
            if !p.decs.is_empty() {
                let i = k % p.decs.len();
                p.decs.remove(i);
            }
        }
    }
}

fn run(src: &str, ms: &[Mutation]) {
    let Ok(mut p) = syntax::parse(src) else { panic!("corpus program does not parse:\n{src}") };
    for m in ms {
        apply(&mut p, m);
    }
    // Print and parse again, so node ids are fresh and the tree is one the parser produces.
    let text = printer::print_program(&p);
    let Ok(p) = syntax::parse(&text) else { return };
    if let Ok(cp) = crate::types::check(&p) {
        super::contract::validate(&cp);
        let _ = crate::types::print::print_checked(&cp);
    }
}

#[test]
fn corpus_checks() {
    for src in CORPUS {
        super::types(src);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(400), ..ProptestConfig::default() })]

    #[test]
    fn mutated_programs_never_panic(
        which in 0..CORPUS.len(),
        ms in prop::collection::vec(mutation(), 1..5),
    ) {
        run(CORPUS[which], &ms);
    }
}
