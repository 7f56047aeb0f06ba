//! The types of expressions, statement by statement.

use std::collections::HashMap;

use super::*;

impl Validator<'_> {
    /// The result types of an expression, and for each result the arrays it aliases (if any).
    pub(super) fn exp(&mut self, s: &Stm) -> R<Results> {
        let pat = &s.pat;
        let alias = |v: &Var, this: &Self| this.env.get(v).map(|i| i.roots.clone());
        let one = |t: Type| Ok((vec![t], vec![None]));
        match &s.exp {
            Exp::Atom(a) => {
                let t = self.atom_ty(a)?;
                let r = match a {
                    Atom::Var(v) => alias(v, self),
                    Atom::Const(_) => None,
                };
                Ok((vec![t], vec![r]))
            }
            Exp::UnOp(op, t, a) => {
                self.expect_atom(a, *t, "the operand")?;
                let ok = match op {
                    UnOp::Neg | UnOp::Abs | UnOp::Sgn => t.is_numeric(),
                    UnOp::Not => !matches!(t, PrimType::Float(_)),
                };
                if !ok {
                    return Err(format!("{op:?} is not defined on `{t}`"));
                }
                one(Type::Prim(*t))
            }
            Exp::BinOp(op, t, a, b) => {
                self.expect_atom(a, *t, "the left operand")?;
                self.expect_atom(b, *t, "the right operand")?;
                let ok = match op {
                    BinOp::LogAnd | BinOp::LogOr => *t == PrimType::Bool,
                    BinOp::And | BinOp::Or | BinOp::Xor => !matches!(t, PrimType::Float(_)),
                    BinOp::Shl | BinOp::Shr => matches!(t, PrimType::Int(_)),
                    _ => t.is_numeric(),
                };
                if !ok {
                    return Err(format!("{op:?} is not defined on `{t}`"));
                }
                one(Type::Prim(*t))
            }
            Exp::Cmp(_, t, a, b) => {
                self.expect_atom(a, *t, "the left operand")?;
                self.expect_atom(b, *t, "the right operand")?;
                one(Type::Prim(PrimType::Bool))
            }
            Exp::Convert { from, to, arg } => {
                self.expect_atom(arg, *from, "the converted value")?;
                one(Type::Prim(*to))
            }
            Exp::Math(f, t, args) => {
                if args.len() != math_arity(*f) {
                    return Err(format!(
                        "{f:?} takes {} arguments, found {}",
                        math_arity(*f),
                        args.len()
                    ));
                }
                let float = matches!(t, PrimType::Float(_));
                let int = matches!(t, PrimType::Int(_));
                let bits = |t: &PrimType| match t {
                    PrimType::Float(ft) => unsigned_of_width(ft.bits()),
                    _ => None,
                };
                let (arg, res) = match f {
                    MathFn::Clz | MathFn::Ctz | MathFn::Popc if int => (*t, PrimType::I32),
                    MathFn::IsNan | MathFn::IsInf if float => (*t, PrimType::Bool),
                    MathFn::ToBits if float => {
                        (*t, PrimType::Int(bits(t).ok_or("bad float width")?))
                    }
                    MathFn::FromBits if float => {
                        (PrimType::Int(bits(t).ok_or("bad float width")?), *t)
                    }
                    MathFn::Clz | MathFn::Ctz | MathFn::Popc | MathFn::IsNan | MathFn::IsInf => {
                        return Err(format!("{f:?} is not defined on `{t}`"));
                    }
                    MathFn::ToBits | MathFn::FromBits => {
                        return Err(format!("{f:?} is not defined on `{t}`"));
                    }
                    _ if float => (*t, *t),
                    _ => return Err(format!("{f:?} is not defined on `{t}`")),
                };
                for a in args {
                    self.expect_atom(a, arg, "the argument")?;
                }
                one(Type::Prim(res))
            }
            Exp::Select(c, a, b) => {
                self.expect_atom(c, PrimType::Bool, "the condition")?;
                let t = self.prim_atom(a, "the first alternative")?;
                self.expect_atom(b, t, "the second alternative")?;
                one(Type::Prim(t))
            }
            Exp::Index { arr, idx } => {
                let t = self.index_type(*arr, idx)?;
                let r = if t.rank() > 0 { alias(arr, self) } else { None };
                Ok((vec![t], vec![r]))
            }
            Exp::Update { arr, idx, value } => {
                let t = self.var_ty(*arr)?;
                let slot = self.index_type(*arr, idx)?;
                let vt = self.atom_ty(value)?;
                self.agree(&slot, &vt, "the written value")?;
                if let Atom::Var(v) = value {
                    let arr_roots = alias(arr, self).unwrap_or_default();
                    if alias(v, self).unwrap_or_default().iter().any(|r| arr_roots.contains(r)) {
                        return Err("the written value aliases the updated array".into());
                    }
                }
                self.consume(*arr)?;
                one(t)
            }
            Exp::Iota { n, start, step, it } => {
                self.expect_atom(n, PrimType::I64, "the length")?;
                self.expect_atom(start, PrimType::Int(*it), "the start")?;
                self.expect_atom(step, PrimType::Int(*it), "the step")?;
                let d = atom_dim(n).ok_or("bad length")?;
                one(Type::Array { elem: PrimType::Int(*it), shape: vec![d] })
            }
            Exp::Replicate { shape, value } => {
                if shape.is_empty() {
                    return Err("replicate with an empty shape".into());
                }
                for d in shape {
                    self.check_dim(d, &HashMap::new())?;
                }
                let vt = self.atom_ty(value)?;
                let mut sh = shape.clone();
                sh.extend_from_slice(shape_of(&vt));
                one(make_ty(vt.elem(), sh))
            }
            Exp::Rearrange { arr, perm } => {
                let (elem, shape) = self.array_var(*arr, "the rearranged value")?;
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if sorted != (0..shape.len()).collect::<Vec<_>>() {
                    return Err(format!("{perm:?} is not a permutation of {} dims", shape.len()));
                }
                let sh = perm.iter().map(|&p| shape[p]).collect();
                Ok((vec![Type::Array { elem, shape: sh }], vec![alias(arr, self)]))
            }
            Exp::Reshape { arr, shape } => {
                let (elem, old) = self.array_var(*arr, "the reshaped value")?;
                if shape.is_empty() {
                    return Err("reshape to an empty shape".into());
                }
                for d in shape {
                    self.check_dim(d, &HashMap::new())?;
                }
                // The element counts are checked at run time (a preceding assertion may make a
                // statically wrong reshape unreachable).
                let _ = old;
                Ok((vec![Type::Array { elem, shape: shape.clone() }], vec![alias(arr, self)]))
            }
            Exp::Concat { axis, arrs, len } => {
                let first = arrs.first().ok_or("concat of no arrays")?;
                let (elem, shape) = self.array_var(*first, "a concatenated value")?;
                if *axis >= shape.len() {
                    return Err(format!(
                        "concat along axis {axis} of a rank-{} array",
                        shape.len()
                    ));
                }
                self.check_dim(len, &HashMap::new())?;
                let mut total = Some(0i64);
                for a in arrs {
                    let (e, sh) = self.array_var(*a, "a concatenated value")?;
                    let mut expect = shape.clone();
                    expect[*axis] = sh.get(*axis).copied().unwrap_or(Dim::Const(0));
                    self.agree(
                        &make_ty(elem, expect),
                        &make_ty(e, sh.clone()),
                        "concatenated array",
                    )?;
                    total = match (total, sh.get(*axis)) {
                        (Some(t), Some(Dim::Const(c))) => Some(t + c),
                        _ => None,
                    };
                }
                if let (Some(t), Dim::Const(l)) = (total, len) {
                    if t != *l {
                        return Err(format!("concat of {t} elements declared as {l}"));
                    }
                }
                let mut sh = shape;
                sh[*axis] = *len;
                one(Type::Array { elem, shape: sh })
            }
            Exp::ArrayLit { elems, elem_ty } => {
                self.check_type(elem_ty, &HashMap::new())?;
                for (i, e) in elems.iter().enumerate() {
                    let t = self.atom_ty(e)?;
                    self.agree(elem_ty, &t, &format!("element {i}"))?;
                }
                let mut sh = vec![Dim::Const(elems.len() as i64)];
                sh.extend_from_slice(shape_of(elem_ty));
                one(make_ty(elem_ty.elem(), sh))
            }
            Exp::Copy(v) => one(self.var_ty(*v)?),
            Exp::Apply { fun, args } => {
                let consumed = self.fun(*fun)?;
                let f = &self.prog.funs[*fun];
                if args.len() != f.params.len() {
                    return Err(format!(
                        "`{}` takes {} arguments, found {}",
                        f.name,
                        f.params.len(),
                        args.len()
                    ));
                }
                let vars: Vec<Var> = f.params.iter().map(|p| p.var).collect();
                let tys: Vec<Type> = f.params.iter().map(|p| p.ty.clone()).collect();
                self.agree_dependent(&vars, &tys, args, &Subst::new(), "argument")?;
                let mut s = Subst::new();
                for (p, a) in f.params.iter().zip(args) {
                    if let Some(d) = atom_dim(a) {
                        s.insert(p.var, d);
                    }
                }
                for (j, r) in f.body.result.iter().enumerate().take(f.existentials) {
                    if let (Atom::Var(v), Some(p)) = (r, pat.get(j)) {
                        s.entry(*v).or_insert(Dim::Var(p.var));
                    }
                }
                for i in consumed {
                    if let Some(Atom::Var(v)) = args.get(i) {
                        self.consume(*v)?;
                    }
                }
                let tys = f.ret.iter().map(|t| subst_ty(&s, t)).collect::<Vec<_>>();
                let n = tys.len();
                Ok((tys, vec![None; n]))
            }
            Exp::If { cond, then_body, else_body, ret } => {
                self.expect_atom(cond, PrimType::Bool, "the condition")?;
                let vars: Vec<Var> = pat.iter().map(|p| p.var).collect();
                let extra: HashMap<Var, Type> = pat.iter().map(|p| (p.var, p.ty.clone())).collect();
                for t in ret {
                    self.check_type(t, &extra)?;
                }
                // `ret` is the statement's pattern types, which may name earlier elements.
                let before = self.consumed.clone();
                self.body_against(then_body, &vars, ret, "`then` result")?;
                let after_then = std::mem::replace(&mut self.consumed, before);
                self.body_against(else_body, &vars, ret, "`else` result")?;
                self.consumed.extend(after_then);
                let n = ret.len();
                Ok((ret.clone(), vec![None; n]))
            }
            Exp::Loop { params, form, body } => self.exp_loop(pat, params, form, body),
            Exp::Map { w, lam, arrs } => {
                let rows = self.soac_inputs(w, arrs)?;
                let consumed = self.lambda(lam, &rows)?;
                for (p, a) in lam.params.iter().zip(arrs) {
                    if consumed.contains(&p.var) {
                        self.consume(*a)?;
                    }
                }
                let tys: Vec<Type> = lam.ret.iter().map(|t| Self::outer(w, t)).collect();
                let n = tys.len();
                Ok((tys, vec![None; n]))
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } | Exp::Scan { w, lam, neutral, arrs } => {
                let rows = self.soac_inputs(w, arrs)?;
                if neutral.len() != arrs.len() {
                    return Err(format!(
                        "{} neutral elements for {} arrays",
                        neutral.len(),
                        arrs.len()
                    ));
                }
                for (i, (n, t)) in neutral.iter().zip(&rows).enumerate() {
                    let nt = self.atom_ty(n)?;
                    self.agree(t, &nt, &format!("neutral element {i}"))?;
                }
                let mut ps = rows.clone();
                ps.extend(rows.iter().cloned());
                if !self.lambda(lam, &ps)?.is_empty() {
                    return Err("an operator lambda consumes its parameter".into());
                }
                if lam.ret.len() != rows.len() {
                    return Err(format!(
                        "operator returns {} values, expected {}",
                        lam.ret.len(),
                        rows.len()
                    ));
                }
                for (i, (r, t)) in lam.ret.iter().zip(&rows).enumerate() {
                    self.agree(t, r, &format!("operator result {i}"))?;
                }
                let tys: Vec<Type> = if matches!(s.exp, Exp::Scan { .. }) {
                    rows.iter().map(|t| Self::outer(w, t)).collect()
                } else {
                    rows
                };
                let n = tys.len();
                Ok((tys, vec![None; n]))
            }
            Exp::Scatter { dest, idx, vals, w } => {
                self.expect_atom(w, PrimType::I64, "the width")?;
                let dt = self.var_ty(*dest)?;
                if idx.is_empty() || idx.len() > dt.rank() {
                    return Err(format!(
                        "{} index arrays for a rank-{} destination",
                        idx.len(),
                        dt.rank()
                    ));
                }
                let wt = Self::outer(w, &Type::Prim(PrimType::I64));
                for i in idx {
                    let t = self.var_ty(*i)?;
                    self.agree(&wt, &t, "index array")?;
                }
                let slot = make_ty(dt.elem(), shape_of(&dt)[idx.len()..].to_vec());
                let vt = self.var_ty(*vals)?;
                self.agree(&Self::outer(w, &slot), &vt, "the values")?;
                self.consume(*dest)?;
                one(dt)
            }
            Exp::Hist { dest, lam, neutral, is, vs, w } => {
                self.expect_atom(w, PrimType::I64, "the width")?;
                let k = dest.len();
                if k == 0 || neutral.len() != k || vs.len() != k {
                    return Err(format!(
                        "{k} destinations, {} neutral elements, {} value arrays",
                        neutral.len(),
                        vs.len()
                    ));
                }
                let it = self.var_ty(*is)?;
                self.agree(&Self::outer(w, &Type::Prim(PrimType::I64)), &it, "the bin indices")?;
                let mut rows = Vec::new();
                let mut tys = Vec::new();
                for (i, d) in dest.iter().enumerate() {
                    let dt = self.var_ty(*d)?;
                    let row = row_ty(&dt).ok_or("a histogram destination is not an array")?;
                    let vt = self.var_ty(vs[i])?;
                    self.agree(&Self::outer(w, &row), &vt, &format!("value array {i}"))?;
                    let nt = self.atom_ty(&neutral[i])?;
                    self.agree(&row, &nt, &format!("neutral element {i}"))?;
                    rows.push(row);
                    tys.push(dt);
                }
                let mut ps = rows.clone();
                ps.extend(rows.iter().cloned());
                if !self.lambda(lam, &ps)?.is_empty() {
                    return Err("an operator lambda consumes its parameter".into());
                }
                for (i, (r, t)) in lam.ret.iter().zip(&rows).enumerate() {
                    self.agree(t, r, &format!("operator result {i}"))?;
                }
                for d in dest {
                    self.consume(*d)?;
                }
                Ok((tys, vec![None; k]))
            }
            Exp::Ad { mode, lam, args, seeds } => {
                let mut ps = Vec::new();
                for a in args {
                    ps.push(self.atom_ty(a)?);
                }
                if !self.lambda(lam, &ps)?.is_empty() {
                    return Err("a differentiated lambda consumes its parameter".into());
                }
                let tangent_tys = match mode {
                    AdMode::Jvp => &ps,
                    AdMode::Vjp => &lam.ret,
                };
                if seeds.len() != tangent_tys.len() {
                    return Err(format!("{} seeds, expected {}", seeds.len(), tangent_tys.len()));
                }
                for (i, (a, t)) in seeds.iter().zip(tangent_tys).enumerate() {
                    let st = self.atom_ty(a)?;
                    self.agree(t, &st, &format!("seed {i}"))?;
                }
                let mut tys = lam.ret.clone();
                match mode {
                    AdMode::Jvp => tys.extend(lam.ret.iter().cloned()),
                    AdMode::Vjp => tys.extend(ps.iter().cloned()),
                }
                let n = tys.len();
                Ok((tys, vec![None; n]))
            }
            Exp::Assert { cond, msg, vals } => {
                self.expect_atom(cond, PrimType::Bool, "the condition")?;
                for v in vals {
                    self.prim_atom(v, "an assertion value")?;
                }
                let holes = msg.matches("{}").count();
                if holes != vals.len() {
                    return Err(format!("message has {holes} `{{}}` but {} values", vals.len()));
                }
                Ok((Vec::new(), Vec::new()))
            }
        }
    }

    fn exp_loop(
        &mut self,
        pat: &[Param],
        params: &[(Param, Atom)],
        form: &LoopForm,
        body: &Body,
    ) -> R<Results> {
        let ps: Vec<Param> = params.iter().map(|(p, _)| p.clone()).collect();
        let vars: Vec<Var> = ps.iter().map(|p| p.var).collect();
        let tys: Vec<Type> = ps.iter().map(|p| p.ty.clone()).collect();
        let inits: Vec<Atom> = params.iter().map(|(_, a)| *a).collect();
        self.agree_dependent(&vars, &tys, &inits, &Subst::new(), "initial value")?;
        let mark = self.log.len();
        self.level += 1;
        let before = self.consumed.clone();
        let r = (|| {
            self.bind_params(&ps)?;
            match form {
                LoopForm::For { i, it, bound } => {
                    self.expect_atom(bound, PrimType::Int(*it), "the loop bound")?;
                    self.bind(*i, Type::Prim(PrimType::Int(*it)), None)?;
                }
                LoopForm::While(c) => {
                    let p = ps.iter().find(|p| p.var == *c).ok_or_else(|| {
                        format!("the `while` condition `{}` is not a loop parameter", self.name(*c))
                    })?;
                    if p.ty != Type::Prim(PrimType::Bool) {
                        return Err("the `while` condition must be a `bool`".into());
                    }
                }
            }
            self.body_against(body, &vars, &tys, "loop result")
        })();
        self.level -= 1;
        self.unbind_to(mark);
        r?;
        let consumed_params: Vec<bool> = vars.iter().map(|v| self.consumed.contains(v)).collect();
        self.consumed.retain(|v| before.contains(v) || !vars.contains(v));
        for (c, a) in consumed_params.iter().zip(&inits) {
            if let (true, Atom::Var(v)) = (c, a) {
                self.consume(*v)?;
            }
        }
        // The pattern stands for the parameters.
        let mut s = Subst::new();
        for (v, p) in vars.iter().zip(pat) {
            s.insert(*v, Dim::Var(p.var));
        }
        if pat.len() != tys.len() {
            return Err(format!(
                "pattern has {} elements, the loop gives {}",
                pat.len(),
                tys.len()
            ));
        }
        let out: Vec<Type> = tys.iter().map(|t| subst_ty(&s, t)).collect();
        let n = out.len();
        Ok((out, vec![None; n]))
    }

    /// The type of `arr[idx]`.
    fn index_type(&self, arr: Var, idx: &[DimIndex]) -> R<Type> {
        let (elem, shape) = self.array_var(arr, "the indexed value")?;
        if idx.len() > shape.len() {
            return Err(format!("{} indices for a rank-{} array", idx.len(), shape.len()));
        }
        let mut out = Vec::new();
        for i in idx {
            match i {
                DimIndex::Fix(a) => self.expect_atom(a, PrimType::I64, "an index")?,
                DimIndex::Slice { start, len, stride } => {
                    self.expect_atom(start, PrimType::I64, "a slice start")?;
                    self.expect_atom(len, PrimType::I64, "a slice length")?;
                    self.expect_atom(stride, PrimType::I64, "a slice stride")?;
                    out.push(atom_dim(len).ok_or("bad slice length")?);
                }
            }
        }
        out.extend_from_slice(&shape[idx.len()..]);
        Ok(make_ty(elem, out))
    }
}
