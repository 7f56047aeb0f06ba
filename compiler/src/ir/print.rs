//! A readable text form of the core IR, in the style of Futhark's IR printouts.
//!
//! ```text
//! fun dotprod (n_0: i64, xs_1: [n_0]f32, ys_2: [n_0]f32) : f32 =
//!   let t_5: [n_0]f32 =
//!     map(n_0,
//!       \(x_3: f32, y_4: f32) : f32 ->
//!         let t_6: f32 = x_3 * y_4
//!         in t_6,
//!       xs_1, ys_2)
//!   ...
//! ```
//!
//! Variables print as `name_N` (display name from `Program::names`, `N` the variable's number), so
//! shadowed source names stay distinct. Bodies and lambdas nest by two spaces.

use std::fmt::Write;

use super::*;
use crate::prim::PrimValue;

/// Print a whole program: every function, then the entry points with their external types.
pub fn print_program(prog: &Program) -> String {
    let p = Printer { prog };
    let mut out = String::new();
    for (i, f) in prog.funs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        p.fun(&mut out, f);
    }
    if !prog.entries.is_empty() {
        if !prog.funs.is_empty() {
            out.push('\n');
        }
        for e in &prog.entries {
            p.entry(&mut out, e);
        }
    }
    out
}

/// Print one body (statements and result) at indentation `indent`, for tests and debugging.
pub fn print_body(prog: &Program, body: &Body, indent: usize) -> String {
    let mut out = String::new();
    Printer { prog }.body(&mut out, body, indent);
    out
}

/// `name_N` for a variable.
pub fn var_name(prog: &Program, v: Var) -> String {
    let name = prog.name(v);
    let name = if name.is_empty() { "v" } else { name };
    format!("{name}_{}", v.0)
}

/// A constant as Futhark writes it: `1i32`, `2.5f32`, `true`, `f64.inf`.
pub fn prim_value(v: PrimValue) -> String {
    let float = |x: f64, t: &str| {
        if x.is_nan() {
            format!("{t}.nan")
        } else if x.is_infinite() {
            if x > 0.0 {
                format!("{t}.inf")
            } else {
                format!("-{t}.inf")
            }
        } else {
            format!("{x:?}{t}")
        }
    };
    match v {
        PrimValue::Bool(b) => b.to_string(),
        PrimValue::I8(x) => format!("{x}i8"),
        PrimValue::I16(x) => format!("{x}i16"),
        PrimValue::I32(x) => format!("{x}i32"),
        PrimValue::I64(x) => format!("{x}i64"),
        PrimValue::U8(x) => format!("{x}u8"),
        PrimValue::U16(x) => format!("{x}u16"),
        PrimValue::U32(x) => format!("{x}u32"),
        PrimValue::U64(x) => format!("{x}u64"),
        PrimValue::F16(x) => float(x.to_f64(), "f16"),
        PrimValue::F32(x) => {
            // Print the shortest f32 text, not the widened f64's digits.
            if x.is_finite() {
                format!("{x:?}f32")
            } else {
                float(x as f64, "f32")
            }
        }
        PrimValue::F64(x) => float(x, "f64"),
    }
}

pub fn binop_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Quot => "//",
        BinOp::Rem => "%%",
        BinOp::Pow => "**",
        BinOp::Min => "min",
        BinOp::Max => "max",
        BinOp::And => "&",
        BinOp::Or => "|",
        BinOp::Xor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::LogAnd => "&&",
        BinOp::LogOr => "||",
    }
}

pub fn cmp_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Neq => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

pub fn math_name(f: MathFn) -> &'static str {
    match f {
        MathFn::Sqrt => "sqrt",
        MathFn::Exp => "exp",
        MathFn::Log => "log",
        MathFn::Log2 => "log2",
        MathFn::Log10 => "log10",
        MathFn::Sin => "sin",
        MathFn::Cos => "cos",
        MathFn::Tan => "tan",
        MathFn::Asin => "asin",
        MathFn::Acos => "acos",
        MathFn::Atan => "atan",
        MathFn::Atan2 => "atan2",
        MathFn::Sinh => "sinh",
        MathFn::Cosh => "cosh",
        MathFn::Tanh => "tanh",
        MathFn::Cbrt => "cbrt",
        MathFn::Log1p => "log1p",
        MathFn::Asinh => "asinh",
        MathFn::Acosh => "acosh",
        MathFn::Atanh => "atanh",
        MathFn::Hypot => "hypot",
        MathFn::Floor => "floor",
        MathFn::Ceil => "ceil",
        MathFn::Round => "round",
        MathFn::Trunc => "trunc",
        MathFn::IsNan => "isnan",
        MathFn::IsInf => "isinf",
        MathFn::CopySign => "copysign",
        MathFn::Fma => "fma",
        MathFn::ToBits => "to_bits",
        MathFn::FromBits => "from_bits",
        MathFn::Clz => "clz",
        MathFn::Ctz => "ctz",
        MathFn::Popc => "popc",
    }
}

struct Printer<'a> {
    prog: &'a Program,
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

impl Printer<'_> {
    fn var(&self, v: Var) -> String {
        var_name(self.prog, v)
    }

    fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.var(*v),
            Atom::Const(c) => prim_value(*c),
        }
    }

    fn atoms(&self, atoms: &[Atom]) -> String {
        atoms.iter().map(|a| self.atom(a)).collect::<Vec<_>>().join(", ")
    }

    fn vars(&self, vars: &[Var]) -> String {
        vars.iter().map(|v| self.var(*v)).collect::<Vec<_>>().join(", ")
    }

    fn dim(&self, d: &Dim) -> String {
        match d {
            Dim::Const(c) => c.to_string(),
            Dim::Var(v) => self.var(*v),
        }
    }

    fn shape(&self, shape: &[Dim]) -> String {
        shape.iter().map(|d| format!("[{}]", self.dim(d))).collect()
    }

    fn ty(&self, t: &Type) -> String {
        match t {
            Type::Prim(p) => p.to_string(),
            Type::Array { elem, shape } => format!("{}{elem}", self.shape(shape)),
        }
    }

    fn types(&self, ts: &[Type]) -> String {
        match ts {
            [t] => self.ty(t),
            _ => format!("({})", ts.iter().map(|t| self.ty(t)).collect::<Vec<_>>().join(", ")),
        }
    }

    fn param(&self, p: &Param) -> String {
        format!("{}: {}", self.var(p.var), self.ty(&p.ty))
    }

    fn params(&self, ps: &[Param]) -> String {
        ps.iter().map(|p| self.param(p)).collect::<Vec<_>>().join(", ")
    }

    fn fun(&self, out: &mut String, f: &FunDef) {
        let _ = write!(out, "fun {} ({}) : ", f.name, self.params(&f.params));
        let ex = f.existentials.min(f.ret.len());
        if ex > 0 {
            let names: Vec<String> = (0..ex)
                .map(|j| match f.body.result.get(j) {
                    Some(a) => self.atom(a),
                    None => format!("?{j}"),
                })
                .collect();
            let _ = write!(out, "?[{}].", names.join("]["));
        }
        let _ = writeln!(out, "{} =", self.types(&f.ret[ex..]));
        self.body(out, &f.body, 2);
    }

    fn entry(&self, out: &mut String, e: &EntryPoint) {
        let ty = |t: &EntryType| {
            if t.display.is_empty() {
                let dims: String = (0..t.rank).map(|_| "[]").collect();
                format!("{}{dims}{}", if t.unique { "*" } else { "" }, t.elem)
            } else {
                t.display.clone()
            }
        };
        let params: Vec<String> = e.params.iter().map(ty).collect();
        let results: Vec<String> = e.results.iter().map(ty).collect();
        let results = match results.as_slice() {
            [r] => r.clone(),
            rs => format!("({})", rs.join(", ")),
        };
        let fun =
            self.prog.funs.get(e.fun).map_or_else(|| format!("fun#{}", e.fun), |f| f.name.clone());
        let _ = writeln!(out, "entry {} ({}) : {} = {}", e.name, params.join(", "), results, fun);
    }

    /// Statements, then `in result`, each line starting at `indent`.
    fn body(&self, out: &mut String, b: &Body, indent: usize) {
        for s in &b.stms {
            self.stm(out, s, indent);
        }
        pad(out, indent);
        let _ = writeln!(out, "in {}", self.result(&b.result));
    }

    fn result(&self, r: &[Atom]) -> String {
        match r {
            [a] => self.atom(a),
            _ => format!("({})", self.atoms(r)),
        }
    }

    fn stm(&self, out: &mut String, s: &Stm, indent: usize) {
        pad(out, indent);
        let pat = match s.pat.as_slice() {
            [p] => self.param(p),
            ps => format!("({})", self.params(ps)),
        };
        let _ = write!(out, "let {pat} =");
        match self.simple_exp(&s.exp) {
            Some(text) => {
                let _ = writeln!(out, " {text}");
            }
            None => {
                out.push('\n');
                self.compound_exp(out, &s.exp, indent + 2);
            }
        }
    }

    fn dim_index(&self, i: &DimIndex) -> String {
        match i {
            DimIndex::Fix(a) => self.atom(a),
            DimIndex::Slice { start, len, stride } => {
                format!("{}:+{}*{}", self.atom(start), self.atom(len), self.atom(stride))
            }
        }
    }

    fn indices(&self, idx: &[DimIndex]) -> String {
        idx.iter().map(|i| self.dim_index(i)).collect::<Vec<_>>().join(", ")
    }

    /// One-line expressions; `None` for those with bodies.
    fn simple_exp(&self, e: &Exp) -> Option<String> {
        Some(match e {
            Exp::Atom(a) => self.atom(a),
            Exp::UnOp(op, t, a) => match op {
                UnOp::Neg => format!("-{}", self.atom(a)),
                UnOp::Not => format!("!{}", self.atom(a)),
                UnOp::Abs => format!("{t}.abs({})", self.atom(a)),
                UnOp::Sgn => format!("{t}.sgn({})", self.atom(a)),
            },
            Exp::BinOp(op, t, a, b) => match op {
                BinOp::Min | BinOp::Max => {
                    format!("{t}.{}({}, {})", binop_name(*op), self.atom(a), self.atom(b))
                }
                _ => format!("{} {} {}", self.atom(a), binop_name(*op), self.atom(b)),
            },
            Exp::Cmp(op, _, a, b) => format!("{} {} {}", self.atom(a), cmp_name(*op), self.atom(b)),
            Exp::Convert { from, to, arg } => format!("{to}.{from}({})", self.atom(arg)),
            Exp::Math(f, t, args) => format!("{t}.{}({})", math_name(*f), self.atoms(args)),
            Exp::Select(c, a, b) => {
                format!("select({}, {}, {})", self.atom(c), self.atom(a), self.atom(b))
            }
            Exp::Index { arr, idx } => format!("{}[{}]", self.var(*arr), self.indices(idx)),
            Exp::Update { arr, idx, value } => {
                format!("{} with [{}] = {}", self.var(*arr), self.indices(idx), self.atom(value))
            }
            Exp::Iota { n, start, step, it } => format!(
                "iota_{it}({}, {}, {})",
                self.atom(n),
                self.atom(start),
                self.atom(step),
                it = it.name()
            ),
            Exp::Replicate { shape, value } => {
                format!("replicate({}, {})", self.shape(shape), self.atom(value))
            }
            Exp::Rearrange { arr, perm } => {
                let perm: Vec<String> = perm.iter().map(|p| p.to_string()).collect();
                format!("rearrange(({}), {})", perm.join(", "), self.var(*arr))
            }
            Exp::Reshape { arr, shape } => {
                format!("reshape({}, {})", self.shape(shape), self.var(*arr))
            }
            Exp::Concat { axis, arrs, len } => {
                format!("concat@{axis}({}, {})", self.dim(len), self.vars(arrs))
            }
            Exp::ArrayLit { elems, elem_ty } => {
                format!("[{}] : {}", self.atoms(elems), self.ty(elem_ty))
            }
            Exp::Copy(v) => format!("copy({})", self.var(*v)),
            Exp::Apply { fun, args } => {
                let name = self
                    .prog
                    .funs
                    .get(*fun)
                    .map_or_else(|| format!("fun#{fun}"), |f| f.name.clone());
                format!("{name}({})", self.atoms(args))
            }
            Exp::Scatter { dest, idx, vals, w } => format!(
                "scatter({}, {}, ({}), {})",
                self.atom(w),
                self.var(*dest),
                self.vars(idx),
                self.var(*vals)
            ),
            Exp::Assert { cond, msg, vals } => {
                let mut s = format!("assert({}, {msg:?}", self.atom(cond));
                if !vals.is_empty() {
                    let _ = write!(s, ", {}", self.atoms(vals));
                }
                s.push(')');
                s
            }
            Exp::If { cond, then_body, else_body, .. }
                if then_body.stms.is_empty() && else_body.stms.is_empty() =>
            {
                format!(
                    "if {} then {} else {}",
                    self.atom(cond),
                    self.result(&then_body.result),
                    self.result(&else_body.result)
                )
            }
            Exp::If { .. }
            | Exp::Loop { .. }
            | Exp::Map { .. }
            | Exp::Reduce { .. }
            | Exp::Scan { .. }
            | Exp::Hist { .. }
            | Exp::Ad { .. } => return None,
        })
    }

    /// A lambda, starting at the current position; its body lines are at `indent + 2`.
    fn lambda(&self, out: &mut String, lam: &Lambda, indent: usize) {
        let _ = write!(out, "\\({}) : {} ->", self.params(&lam.params), self.types(&lam.ret));
        if lam.body.stms.is_empty() {
            let _ = write!(out, " {}", self.result(&lam.body.result));
        } else {
            out.push('\n');
            self.body(out, &lam.body, indent + 2);
            // `body` ends with a newline; the caller continues the argument list on this line.
            out.pop();
        }
    }

    /// `name(w,\n  lambda,\n  rest)` with the lambda on its own lines.
    fn soac(
        &self,
        out: &mut String,
        name: &str,
        w: &Atom,
        lam: &Lambda,
        rest: &str,
        indent: usize,
    ) {
        pad(out, indent);
        let _ = writeln!(out, "{name}({},", self.atom(w));
        pad(out, indent + 2);
        self.lambda(out, lam, indent + 2);
        out.push_str(",\n");
        pad(out, indent + 2);
        let _ = writeln!(out, "{rest})");
    }

    /// Expressions with bodies, on their own lines starting at `indent`.
    fn compound_exp(&self, out: &mut String, e: &Exp, indent: usize) {
        match e {
            Exp::If { cond, then_body, else_body, ret } => {
                pad(out, indent);
                let _ = writeln!(out, "if {} : {} then", self.atom(cond), self.types(ret));
                self.body(out, then_body, indent + 2);
                pad(out, indent);
                out.push_str("else\n");
                self.body(out, else_body, indent + 2);
            }
            Exp::Loop { params, form, body } => {
                pad(out, indent);
                let ps: Vec<String> = params.iter().map(|(p, _)| self.param(p)).collect();
                let inits: Vec<Atom> = params.iter().map(|(_, a)| *a).collect();
                let form = match form {
                    LoopForm::For { i, it, bound } => {
                        format!("for {}: {} < {}", self.var(*i), it.name(), self.atom(bound))
                    }
                    LoopForm::While(c) => format!("while {}", self.var(*c)),
                };
                let _ =
                    writeln!(out, "loop ({}) = ({}) {form} do", ps.join(", "), self.atoms(&inits));
                self.body(out, body, indent + 2);
            }
            Exp::Map { w, lam, arrs } => self.soac(out, "map", w, lam, &self.vars(arrs), indent),
            Exp::Reduce { w, lam, neutral, arrs, commutative } => {
                let name = if *commutative { "reduce_comm" } else { "reduce" };
                let rest = format!("({}), {}", self.atoms(neutral), self.vars(arrs));
                self.soac(out, name, w, lam, &rest, indent);
            }
            Exp::Scan { w, lam, neutral, arrs } => {
                let rest = format!("({}), {}", self.atoms(neutral), self.vars(arrs));
                self.soac(out, "scan", w, lam, &rest, indent);
            }
            Exp::Hist { dest, lam, neutral, is, vs, w } => {
                let rest = format!(
                    "({}), ({}), {}, {}",
                    self.vars(dest),
                    self.atoms(neutral),
                    self.var(*is),
                    self.vars(vs)
                );
                self.soac(out, "hist", w, lam, &rest, indent);
            }
            Exp::Ad { mode, lam, args, seeds } => {
                let name = match mode {
                    AdMode::Jvp => "jvp",
                    AdMode::Vjp => "vjp",
                };
                pad(out, indent);
                let _ = writeln!(out, "{name}(");
                pad(out, indent + 2);
                self.lambda(out, lam, indent + 2);
                out.push_str(",\n");
                pad(out, indent + 2);
                let _ = writeln!(out, "({}), ({}))", self.atoms(args), self.atoms(seeds));
            }
            other => {
                pad(out, indent);
                let text = self.simple_exp(other).unwrap_or_default();
                let _ = writeln!(out, "{text}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::lower::builder::*;
    use expect_test::expect;

    /// `dotprod` and an entry point that checks its sizes, built by hand.
    fn dotprod() -> Program {
        let mut b = Builder::new();
        let f32t = Type::Prim(PrimType::F32);
        let n = b.param("n", i64t());
        let nd = Dim::Var(n.var);
        let arr = Type::Array { elem: PrimType::F32, shape: vec![nd] };
        let xs = b.param("xs", arr.clone());
        let ys = b.param("ys", arr.clone());
        let x = b.param("x", f32t.clone());
        let y = b.param("y", f32t.clone());
        let lam = b
            .lambda::<()>(vec![x, y], |b, ps| {
                let p =
                    b.binop(BinOp::Mul, PrimType::F32, Atom::Var(ps[0].var), Atom::Var(ps[1].var));
                Ok((vec![p], vec![f32t.clone()]))
            })
            .unwrap();
        let t = b.let1(
            "t",
            arr.clone(),
            Exp::Map { w: Atom::Var(n.var), lam, arrs: vec![xs.var, ys.var] },
        );
        let a = b.param("a", f32t.clone());
        let c = b.param("b", f32t.clone());
        let add = Lambda {
            params: vec![a.clone(), c.clone()],
            body: Body { stms: vec![], result: vec![Atom::Var(a.var)] },
            ret: vec![f32t.clone()],
        };
        let add = {
            let mut add = add;
            b.open();
            let s = b.binop(BinOp::Add, PrimType::F32, Atom::Var(a.var), Atom::Var(c.var));
            add.body = b.close(vec![s]);
            add
        };
        let r = b.let1(
            "r",
            f32t.clone(),
            Exp::Reduce {
                w: Atom::Var(n.var),
                lam: add,
                neutral: vec![Atom::Const(PrimValue::F32(0.0))],
                arrs: vec![t],
                commutative: false,
            },
        );
        let body = b.close(vec![Atom::Var(r)]);
        let f = FunDef {
            name: "dotprod".into(),
            params: vec![n.clone(), xs, ys],
            existentials: 0,
            ret: vec![f32t.clone()],
            body,
            span: Span::DUMMY,
        };
        // The entry: sizes first, a size check, then the call.
        let d0 = b.param("d", i64t());
        let d1 = b.param("d", i64t());
        let exs = b.param("xs", Type::Array { elem: PrimType::F32, shape: vec![Dim::Var(d0.var)] });
        let eys = b.param("ys", Type::Array { elem: PrimType::F32, shape: vec![Dim::Var(d1.var)] });
        let ok = b.cmp(CmpOp::Eq, PrimType::I64, Atom::Var(d0.var), Atom::Var(d1.var));
        b.assert(ok, "size mismatch: {} and {}".into(), vec![Atom::Var(d0.var), Atom::Var(d1.var)]);
        let ys2 = b.let1(
            "ys",
            Type::Array { elem: PrimType::F32, shape: vec![Dim::Var(d0.var)] },
            Exp::Reshape { arr: eys.var, shape: vec![Dim::Var(d0.var)] },
        );
        let r = b.let1(
            "r",
            f32t,
            Exp::Apply {
                fun: 0,
                args: vec![Atom::Var(d0.var), Atom::Var(exs.var), Atom::Var(ys2)],
            },
        );
        let body = b.close(vec![Atom::Var(r)]);
        let e = FunDef {
            name: "entry_dotprod".into(),
            params: vec![d0, d1, exs, eys],
            existentials: 0,
            ret: vec![Type::Prim(PrimType::F32)],
            body,
            span: Span::DUMMY,
        };
        let et = |rank, display: &str| EntryType {
            elem: PrimType::F32,
            rank,
            unique: false,
            display: display.into(),
        };
        Program {
            funs: vec![f, e],
            entries: vec![EntryPoint {
                name: "dotprod".into(),
                fun: 1,
                params: vec![et(1, "[n]f32"), et(1, "[n]f32")],
                results: vec![et(0, "f32")],
                param_shapes: vec![EntryShape::Leaf; 2],
                result_shape: EntryShape::Leaf,
                span: Span::DUMMY,
            }],
            names: b.names,
        }
    }

    #[test]
    fn prints_dotprod() {
        let p = dotprod();
        expect![[r#"
            fun dotprod (n_0: i64, xs_1: [n_0]f32, ys_2: [n_0]f32) : f32 =
              let t_6: [n_0]f32 =
                map(n_0,
                  \(x_3: f32, y_4: f32) : f32 ->
                    let prod_5: f32 = x_3 * y_4
                    in prod_5,
                  xs_1, ys_2)
              let r_10: f32 =
                reduce(n_0,
                  \(a_7: f32, b_8: f32) : f32 ->
                    let sum_9: f32 = a_7 + b_8
                    in sum_9,
                  (0.0f32), t_6)
              in r_10

            fun entry_dotprod (d_11: i64, d_12: i64, xs_13: [d_11]f32, ys_14: [d_12]f32) : f32 =
              let c_15: bool = d_11 == d_12
              let () = assert(c_15, "size mismatch: {} and {}", d_11, d_12)
              let ys_16: [d_11]f32 = reshape([d_11], ys_14)
              let r_17: f32 = dotprod(d_11, xs_13, ys_16)
              in r_17

            entry dotprod ([n]f32, [n]f32) : f32 = entry_dotprod
        "#]]
        .assert_eq(&print_program(&p));
        assert_eq!(crate::ir::validate::validate(&p), Ok(()));
    }
}
