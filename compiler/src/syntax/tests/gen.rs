//! Random well-formed ASTs for the printer's round-trip property.
//!
//! Trees are generated in the canonical form the parser produces (spans and ids zero, literals in
//! expressions non-negative, `-` right sections absent, names that are not keywords), covering
//! every construct of the AST.

use crate::diag::Span;
use crate::prim::{FloatType, IntType, PrimType};
use crate::syntax::ast::*;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

const NAMES: &[&str] = &["x", "y", "acc", "xs", "f", "g'", "n_1", "k2"];
const FIELDS: &[&str] = &["a", "b", "c", "0", "1"];
const TYPE_NAMES: &[&str] = &["t", "vec", "pair"];
const OPS: &[&str] = &[
    "+", "-", "*", "/", "%", "//", "%%", "**", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&",
    "|", "^", "<<", ">>", ">>>", "++", "|>", "<|", ">->", "<-<", "max", "i32.min",
];
const QUALIFIED: &[&str] = &["f32.sqrt", "i64.max", "f64.pi", "bool.i32"];

fn e(kind: ExprKind) -> Expr {
    Expr { kind, span: Span::DUMMY, id: NodeId(0) }
}

fn p(kind: PatKind) -> Pat {
    Pat { kind, span: Span::DUMMY, id: NodeId(0) }
}

fn t(kind: TypeExpKind) -> TypeExp {
    TypeExp { kind, span: Span::DUMMY }
}

fn name() -> impl Strategy<Value = Name> {
    prop::sample::select(NAMES).prop_map(str::to_string)
}

fn ident_field() -> impl Strategy<Value = Name> {
    prop::sample::select(&FIELDS[..3]).prop_map(str::to_string)
}

fn field() -> impl Strategy<Value = Name> {
    prop::sample::select(FIELDS).prop_map(str::to_string)
}

fn op() -> impl Strategy<Value = Name> {
    prop::sample::select(OPS).prop_map(str::to_string)
}

fn int_literal(allow_negative: bool) -> impl Strategy<Value = Literal> {
    let suffix = prop::option::of(prop::sample::select(&IntType::ALL[..]));
    (suffix, any::<u64>(), any::<bool>(), 0u8..3).prop_map(move |(t, v, neg, small)| {
        let v = if small > 0 { (v % 100) as i128 } else { v as i128 };
        let Some(t) = t else {
            return Literal::Int(if allow_negative && neg { -v } else { v }, None);
        };
        let (lo, hi) = if t.signed() {
            (-(1i128 << (t.bits() - 1)), (1i128 << (t.bits() - 1)) - 1)
        } else {
            (0, (1i128 << t.bits()) - 1)
        };
        let v = if allow_negative && neg { -v } else { v };
        let lo = if allow_negative { lo } else { 0 };
        Literal::Int(v.clamp(lo, hi), Some(t))
    })
}

fn float_literal(allow_negative: bool) -> impl Strategy<Value = Literal> {
    let values = prop_oneof![
        Just(0.0),
        Just(0.5),
        Just(1e-7),
        Just(123456.789),
        Just(1e30),
        0.0f64..1e6,
        (0.0f64..1.0).prop_map(|x| x * 1e-20),
    ];
    let suffix = prop::option::of(prop::sample::select(&FloatType::ALL[..]));
    (values, suffix, any::<bool>()).prop_map(move |(v, t, neg)| {
        let v = match t {
            Some(FloatType::F16) => v.min(65504.0),
            Some(FloatType::F32) => v.min(f32::MAX as f64),
            _ => v,
        };
        Literal::Float(if allow_negative && neg { -v } else { v }, t)
    })
}

fn literal(allow_negative: bool) -> impl Strategy<Value = Literal> {
    prop_oneof![
        int_literal(allow_negative),
        float_literal(allow_negative),
        any::<bool>().prop_map(Literal::Bool),
    ]
}

fn size_exp() -> impl Strategy<Value = SizeExp> {
    let size = |kind| SizeExp { kind, span: Span::DUMMY };
    let leaf =
        prop_oneof![name().prop_map(SizeExpKind::Var), (0i64..1000).prop_map(SizeExpKind::Const),]
            .prop_map(size);
    let ops = [SizeOp::Add, SizeOp::Sub, SizeOp::Mul, SizeOp::Div, SizeOp::Mod];
    let compound = leaf.prop_recursive(3, 8, 2, move |inner| {
        (prop::sample::select(ops.to_vec()), inner.clone(), inner)
            .prop_map(move |(op, a, b)| size(SizeExpKind::Bin(op, Box::new(a), Box::new(b))))
    });
    prop_oneof![Just(size(SizeExpKind::Any)), compound]
}

pub fn type_exp() -> BoxedStrategy<TypeExp> {
    let leaf = prop_oneof![
        prop::sample::select(PrimType::all().collect::<Vec<_>>()).prop_map(TypeExpKind::Prim),
        prop::sample::select(TYPE_NAMES)
            .prop_map(|n| TypeExpKind::Named(n.to_string(), Vec::new())),
    ]
    .prop_map(t);
    leaf.prop_recursive(4, 24, 3, |inner| {
        let arg =
            prop_oneof![size_exp().prop_map(TypeArg::Size), inner.clone().prop_map(TypeArg::Type),];
        prop_oneof![
            (prop::sample::select(TYPE_NAMES), prop::collection::vec(arg, 1..3))
                .prop_map(|(n, args)| TypeExpKind::Named(n.to_string(), args)),
            (size_exp(), inner.clone()).prop_map(|(d, el)| TypeExpKind::Array(d, Box::new(el))),
            prop::collection::vec(inner.clone(), 0..4).prop_map(TypeExpKind::Tuple),
            prop::collection::vec((ident_field(), inner.clone()), 0..3)
                .prop_map(TypeExpKind::Record),
            (prop::option::of(name()), inner.clone(), inner.clone())
                .prop_map(|(n, a, b)| TypeExpKind::Arrow(n, Box::new(a), Box::new(b))),
            inner.clone().prop_map(|x| TypeExpKind::Unique(Box::new(x))),
            (prop::collection::vec(name(), 1..3), inner.clone())
                .prop_map(|(ns, x)| TypeExpKind::Exists(ns, Box::new(x))),
            prop::collection::vec(
                (ident_field(), prop::collection::vec(inner.clone(), 0..3)),
                1..4
            )
            .prop_map(TypeExpKind::Sum),
        ]
        .prop_map(t)
    })
    .boxed()
}

pub fn pat() -> BoxedStrategy<Pat> {
    let leaf = prop_oneof![
        name().prop_map(PatKind::Var),
        Just(PatKind::Wildcard),
        literal(true).prop_map(PatKind::Literal),
        ident_field().prop_map(|c| PatKind::Constr(c, Vec::new())),
    ]
    .prop_map(p);
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(PatKind::Tuple),
            prop::collection::vec((ident_field(), inner.clone()), 0..3).prop_map(PatKind::Record),
            // The shorthand `{x: t}` and `{x}` forms.
            (ident_field(), type_exp()).prop_map(|(f, ty)| {
                let var = p(PatKind::Var(f.clone()));
                PatKind::Record(vec![(f, p(PatKind::Ascribed(Box::new(var), ty)))])
            }),
            (inner.clone(), type_exp()).prop_map(|(x, ty)| PatKind::Ascribed(Box::new(x), ty)),
            (ident_field(), prop::collection::vec(inner.clone(), 1..3))
                .prop_map(|(c, args)| PatKind::Constr(c, args)),
        ]
        .prop_map(p)
    })
    .boxed()
}

fn type_param() -> impl Strategy<Value = TypeParam> {
    // `'g'` would be a character literal.
    let name = || name().prop_filter("no quote", |n| !n.ends_with('\''));
    prop_oneof![
        name().prop_map(|name| TypeParam::Size { name, span: Span::DUMMY }),
        (
            name(),
            prop::sample::select(vec![
                Liftedness::Unlifted,
                Liftedness::SizeLifted,
                Liftedness::Lifted
            ])
        )
            .prop_map(|(name, liftedness)| TypeParam::Type {
                name,
                liftedness,
                span: Span::DUMMY
            }),
    ]
}

fn dim_index(x: BoxedStrategy<Expr>) -> impl Strategy<Value = DimIndex> {
    let opt = || prop::option::of(x.clone());
    prop_oneof![
        x.clone().prop_map(DimIndex::Fix),
        (opt(), opt(), opt()).prop_map(|(start, end, stride)| DimIndex::Slice {
            start,
            end,
            stride
        }),
    ]
}

/// A record-update path; a number cannot come first when another part follows (`0.1` is a
/// float).
fn update_path() -> impl Strategy<Value = Vec<Name>> {
    prop_oneof![
        field().prop_map(|f| vec![f]),
        (ident_field(), prop::collection::vec(field(), 1..3)).prop_map(|(f, mut rest)| {
            rest.insert(0, f);
            rest
        }),
    ]
}

pub fn expr() -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        literal(false).prop_map(ExprKind::Literal),
        name().prop_map(ExprKind::Var),
        prop::sample::select(QUALIFIED).prop_map(|n| ExprKind::Var(n.to_string())),
        op().prop_map(ExprKind::OpSection),
        prop::collection::vec(field(), 1..3).prop_map(ExprKind::ProjectSection),
        ident_field().prop_map(|c| ExprKind::Constr(c, Vec::new())),
    ]
    .prop_map(e);
    leaf.prop_recursive(5, 48, 4, |x| {
        let bx = || x.clone().prop_map(Box::new);
        let dims = || prop::collection::vec(dim_index(x.clone()), 1..3);
        let simple = prop_oneof![
            prop::collection::vec(x.clone(), 0..4).prop_map(ExprKind::Tuple),
            prop::collection::vec(x.clone(), 0..3).prop_map(ExprKind::ArrayLit),
            prop::collection::vec(
                prop_oneof![
                    (field(), x.clone()).prop_map(|(f, v)| RecordField::Explicit(f, v)),
                    ident_field()
                        .prop_map(|f| RecordField::Implicit(f.clone(), e(ExprKind::Var(f)))),
                ],
                0..3
            )
            // Fields labelled 0 to n-1 are a tuple, which is generated as one.
            .prop_filter("a numbered record is a tuple", |fs| {
                let names = fs.iter().map(|f| match f {
                    RecordField::Explicit(n, _) | RecordField::Implicit(n, _) => (n.clone(), ()),
                });
                crate::syntax::parser::tuple_fields(names.collect()).is_err()
            })
            .prop_map(ExprKind::Record),
            (
                bx(),
                prop::option::of(bx()),
                bx(),
                prop::sample::select(vec![
                    RangeEnd::Inclusive,
                    RangeEnd::UpToExclusive,
                    RangeEnd::DownToExclusive
                ])
            )
                .prop_map(|(start, second, end, kind)| ExprKind::Range {
                    start,
                    second,
                    end,
                    kind
                }),
            (bx(), field()).prop_map(|(a, f)| ExprKind::Project(a, f)),
            (bx(), dims()).prop_map(|(a, i)| ExprKind::Index(a, i)),
            (bx(), bx()).prop_map(|(f, a)| ExprKind::Apply(f, a)),
            (op(), bx(), bx()).prop_map(|(op, lhs, rhs)| ExprKind::BinOp {
                op,
                op_span: Span::DUMMY,
                lhs,
                rhs
            }),
            bx().prop_map(ExprKind::Neg),
            bx().prop_map(ExprKind::Not),
            (op(), bx()).prop_map(|(op, a)| ExprKind::LeftSection(op, a)),
            (op().prop_filter("(- e) is a negation", |o| o != "-"), bx())
                .prop_map(|(op, a)| ExprKind::RightSection(op, a)),
            (bx(), type_exp()).prop_map(|(a, ty)| ExprKind::Ascript(a, ty)),
            (bx(), type_exp()).prop_map(|(a, ty)| ExprKind::Coerce(a, ty)),
            (bx(), bx()).prop_map(|(c, a)| ExprKind::Assert(c, a)),
            (ident_field(), prop::collection::vec(x.clone(), 1..3))
                .prop_map(|(c, args)| ExprKind::Constr(c, args)),
            (bx(), dims(), bx()).prop_map(|(a, i, v)| ExprKind::Update(a, i, v)),
            (bx(), update_path(), bx()).prop_map(|(r, path, v)| ExprKind::RecordUpdate(r, path, v)),
        ];
        let binding = prop_oneof![
            (prop::collection::vec(pat(), 1..3), prop::option::of(type_exp()), bx())
                .prop_map(|(params, ret, body)| ExprKind::Lambda { params, ret, body }),
            (bx(), bx(), bx()).prop_map(|(c, a, b)| ExprKind::If(c, a, b)),
            (prop::collection::vec(name(), 0..2), pat(), bx(), bx()).prop_map(
                |(sizes, pat, rhs, body)| ExprKind::Let {
                    sizes: sizes.into_iter().map(|n| (n, Span::DUMMY)).collect(),
                    pat,
                    rhs,
                    body
                }
            ),
            (
                name(),
                prop::collection::vec(type_param(), 0..2),
                prop::collection::vec(pat(), 1..3),
                prop::option::of(type_exp()),
                bx(),
                bx()
            )
                .prop_map(|(name, type_params, params, ret, rhs, body)| {
                    ExprKind::LetFun {
                        name,
                        name_span: Span::DUMMY,
                        type_params,
                        params,
                        ret,
                        rhs,
                        body,
                    }
                }),
            (name(), dims(), bx(), bx()).prop_map(|(name, indices, value, body)| {
                ExprKind::LetWith { name, name_span: Span::DUMMY, indices, value, body }
            }),
            (pat(), prop::option::of(bx()), loop_form(x.clone()), bx())
                .prop_map(|(pat, init, form, body)| ExprKind::Loop { pat, init, form, body }),
            (bx(), prop::collection::vec((pat(), x.clone()), 1..4))
                .prop_map(|(s, cases)| ExprKind::Match(s, cases)),
        ];
        prop_oneof![3 => simple, 1 => binding].prop_map(e)
    })
    .boxed()
}

fn loop_form(x: BoxedStrategy<Expr>) -> impl Strategy<Value = LoopForm> {
    prop_oneof![
        (name(), x.clone()).prop_map(|(var, b)| LoopForm::For {
            var,
            var_span: Span::DUMMY,
            bound: Box::new(b)
        }),
        (pat(), x.clone()).prop_map(|(p, xs)| LoopForm::ForIn(p, Box::new(xs))),
        x.prop_map(|c| LoopForm::While(Box::new(c))),
    ]
}

fn doc() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::collection::vec("[a-z =|-]{0,12}", 1..3).prop_map(|lines| {
        lines.iter().map(|l| l.trim_end().to_string()).collect::<Vec<_>>().join("\n")
    }))
}

fn dec() -> impl Strategy<Value = Dec> {
    let val = (
        any::<bool>(),
        name(),
        prop::collection::vec(type_param(), 0..3),
        prop::collection::vec(pat(), 0..3),
        prop::option::of(type_exp()),
        expr(),
        doc(),
    )
        .prop_map(|(entry, name, type_params, params, ret, body, doc)| {
            Dec::Val(ValDec {
                entry,
                name,
                name_span: Span::DUMMY,
                type_params,
                params,
                ret,
                body,
                doc,
                span: Span::DUMMY,
            })
        });
    let ty = (
        prop::sample::select(vec![
            Liftedness::Unlifted,
            Liftedness::SizeLifted,
            Liftedness::Lifted,
        ]),
        prop::sample::select(TYPE_NAMES),
        prop::collection::vec(type_param(), 0..3),
        type_exp(),
    )
        .prop_map(|(liftedness, name, params, def)| {
            Dec::Type(TypeDec {
                liftedness,
                name: name.to_string(),
                params,
                def,
                span: Span::DUMMY,
            })
        });
    prop_oneof![4 => val, 1 => ty]
}

pub fn program() -> impl Strategy<Value = Program> {
    // A name is defined once per namespace (a second definition is an error).
    prop::collection::vec(dec(), 1..4).prop_map(|decs| {
        let mut seen = std::collections::HashSet::new();
        let decs = decs
            .into_iter()
            .filter(|d| match d {
                Dec::Val(v) => seen.insert((false, v.name.clone())),
                Dec::Type(t) => seen.insert((true, t.name.clone())),
            })
            .collect();
        Program { decs, next_id: 0, instances: Default::default() }
    })
}
