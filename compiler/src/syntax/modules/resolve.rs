//! Names inside declarations: every variable, operator and type a declaration's body writes,
//! resolved against the scope the module language built (local bindings shadow it), and
//! `m.(e)` opened.

use super::*;

impl Flattener<'_> {
    /// What `M.N.x` (as projections of a variable) denotes, if `M` is a module.
    fn resolve(&mut self, e: &Expr, scope: &Scope, locals: &Locals) -> Option<Resolved> {
        match &e.kind {
            ExprKind::Var(n) if !locals.values.contains(n) => {
                scope.mods.get(n).map(|m| Resolved::Module(m.clone(), n.clone()))
            }
            ExprKind::Project(inner, f) => match self.resolve(inner, scope, locals)? {
                Resolved::Module(m, written) => {
                    let path = format!("{written}.{f}");
                    match &m {
                        Module::Struct(x) => {
                            if let Some(m) = x.mods.get(f) {
                                Some(Resolved::Module(m.clone(), path))
                            } else if let Some(v) = x.values.get(f) {
                                Some(Resolved::Value(v.clone()))
                            } else {
                                self.error(e.span, format!("module `{written}` has no `{f}`"));
                                Some(Resolved::Error)
                            }
                        }
                        Module::Numeric(t) => Some(Resolved::Value(format!("{t}.{f}"))),
                        Module::Functor(_) => {
                            self.error(
                                e.span,
                                format!("`{written}` is a parametric module: apply it to a module first"),
                            );
                            Some(Resolved::Error)
                        }
                    }
                }
                // A field of a module's value (`m.r.x`): the projection stays.
                Resolved::Value(_) | Resolved::Field => Some(Resolved::Field),
                Resolved::Error => Some(Resolved::Error),
            },
            _ => None,
        }
    }

    /// The operator of the node `id`: the built-in one if it was written qualified (`f32.+`),
    /// a local variable bound as `(op)` (named `(op)`, so no later stage takes it for the
    /// built-in operator).
    fn op_name(&self, op: &Name, id: NodeId, scope: &Scope, locals: &Locals) -> Name {
        if self.builtin_ops.contains(&id) {
            op.clone()
        } else if is_operator_name(op) && locals.values.contains(op) {
            format!("({op})")
        } else {
            self.value_name(op, scope, locals)
        }
    }

    /// The declaration a variable or operator (or a backticked `M.f`) names.
    fn value_name(&self, n: &Name, scope: &Scope, locals: &Locals) -> Name {
        if locals.values.contains(n) {
            return n.clone();
        }
        if let Some(flat) = scope.values.get(n) {
            return flat.clone();
        }
        // `` x `M.f` y ``: resolved here when `M` is a module in scope; otherwise the checker
        // reports the name.
        let parts: Vec<&str> = n.split('.').collect();
        let Some((last, path)) = parts.split_last().filter(|(_, path)| !path.is_empty()) else {
            return n.clone();
        };
        match scope.find_module(path) {
            Ok(Module::Struct(x)) => x.values.get(*last).cloned().unwrap_or_else(|| n.clone()),
            Ok(Module::Numeric(t)) => format!("{t}.{last}"),
            _ => n.clone(),
        }
    }

    pub(super) fn expr(&mut self, e: &Expr, scope: &Scope, locals: &mut Locals) -> Expr {
        let kind = match &e.kind {
            ExprKind::Project(..) => match self.resolve(e, scope, locals) {
                Some(Resolved::Value(v)) => ExprKind::Var(v),
                Some(Resolved::Error) => ExprKind::Var(String::from("%error")),
                Some(Resolved::Module(_, written)) => {
                    self.error(e.span, format!("`{written}` is a module, not a value"));
                    ExprKind::Var(String::from("%error"))
                }
                Some(Resolved::Field) | None => {
                    let ExprKind::Project(inner, f) = &e.kind else { unreachable!() };
                    ExprKind::Project(Box::new(self.expr(inner, scope, locals)), f.clone())
                }
            },
            ExprKind::Var(n) => {
                let local = locals.values.contains(n);
                if !local && !scope.values.contains_key(n) && scope.mods.contains_key(n) {
                    self.error(e.span, format!("`{n}` is a module, not a value"));
                }
                ExprKind::Var(self.value_name(n, scope, locals))
            }
            ExprKind::Literal(l) => ExprKind::Literal(*l),
            ExprKind::Tuple(es) => ExprKind::Tuple(self.exprs(es, scope, locals)),
            ExprKind::ArrayLit(es) => ExprKind::ArrayLit(self.exprs(es, scope, locals)),
            ExprKind::Constr(c, es) => ExprKind::Constr(c.clone(), self.exprs(es, scope, locals)),
            ExprKind::Record(fs) => ExprKind::Record(
                fs.iter()
                    .map(|f| match f {
                        RecordField::Explicit(n, x) => {
                            RecordField::Explicit(n.clone(), self.expr(x, scope, locals))
                        }
                        RecordField::Implicit(n, x) => {
                            let x = self.expr(x, scope, locals);
                            if matches!(&x.kind, ExprKind::Var(v) if v == n) {
                                RecordField::Implicit(n.clone(), x)
                            } else {
                                RecordField::Explicit(n.clone(), x)
                            }
                        }
                    })
                    .collect(),
            ),
            ExprKind::Range { start, second, end, kind } => ExprKind::Range {
                start: self.boxed(start, scope, locals),
                second: second.as_ref().map(|s| self.boxed(s, scope, locals)),
                end: self.boxed(end, scope, locals),
                kind: *kind,
            },
            ExprKind::Index(x, idx) => {
                ExprKind::Index(self.boxed(x, scope, locals), self.dims(idx, scope, locals))
            }
            ExprKind::Apply(a, b) => {
                if let ExprKind::Var(n) = &a.kind {
                    if let Some(path) = n.strip_prefix(LOCAL_OPEN) {
                        return self.local_open(path, a.span, b, scope, locals);
                    }
                }
                ExprKind::Apply(self.boxed(a, scope, locals), self.boxed(b, scope, locals))
            }
            ExprKind::BinOp { op, op_span, lhs, rhs } => {
                let op = self.op_name(op, e.id, scope, locals);
                let mut lhs = self.boxed(lhs, scope, locals);
                let mut rhs = self.boxed(rhs, scope, locals);
                if let Some(t) = self.numeric_op(&op, scope, locals) {
                    lhs = self.ascribed(lhs, t);
                    rhs = self.ascribed(rhs, t);
                }
                ExprKind::BinOp { op, op_span: *op_span, lhs, rhs }
            }
            ExprKind::Neg(x) => ExprKind::Neg(self.boxed(x, scope, locals)),
            ExprKind::Not(x) => ExprKind::Not(self.boxed(x, scope, locals)),
            ExprKind::OpSection(op) => {
                let op = self.op_name(op, e.id, scope, locals);
                match self.numeric_op(&op, scope, locals) {
                    // `t.((+))` is `((+) : t -> t -> t)`, as `(t.+)` is.
                    Some(t) => {
                        let result = if is_comparison(&op) { PrimType::Bool } else { t };
                        let ty = arrow(t, arrow(t, prim(result, e.span), e.span), e.span);
                        let section =
                            Expr { kind: ExprKind::OpSection(op), span: e.span, id: self.fresh() };
                        ExprKind::Ascript(Box::new(section), ty)
                    }
                    None => ExprKind::OpSection(op),
                }
            }
            ExprKind::LeftSection(op, x) | ExprKind::RightSection(op, x) => {
                let op = self.op_name(op, e.id, scope, locals);
                let mut x = self.boxed(x, scope, locals);
                if let Some(t) = self.numeric_op(&op, scope, locals) {
                    x = self.ascribed(x, t);
                }
                match &e.kind {
                    ExprKind::LeftSection(..) => ExprKind::LeftSection(op, x),
                    _ => ExprKind::RightSection(op, x),
                }
            }
            ExprKind::ProjectSection(fs) => ExprKind::ProjectSection(fs.clone()),
            ExprKind::Lambda { params, ret, body } => {
                let mark = locals.values.len();
                let params = params.iter().map(|p| self.pat(p, scope, locals)).collect();
                let ret = ret.as_ref().map(|t| self.type_exp(t, scope, locals));
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::Lambda { params, ret, body }
            }
            ExprKind::If(a, b, c) => ExprKind::If(
                self.boxed(a, scope, locals),
                self.boxed(b, scope, locals),
                self.boxed(c, scope, locals),
            ),
            ExprKind::Let { sizes, pat, rhs, body } => {
                let rhs = self.boxed(rhs, scope, locals);
                let mark = locals.values.len();
                locals.values.extend(sizes.iter().map(|(n, _)| n.clone()));
                let pat = self.pat(pat, scope, locals);
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::Let { sizes: sizes.clone(), pat, rhs, body }
            }
            ExprKind::LetFun { name, name_span, type_params, params, ret, rhs, body } => {
                let (vmark, tmark) = (locals.values.len(), locals.types.len());
                bind_type_params(type_params, locals);
                let params = params.iter().map(|p| self.pat(p, scope, locals)).collect();
                let ret = ret.as_ref().map(|t| self.type_exp(t, scope, locals));
                let rhs = self.boxed(rhs, scope, locals);
                locals.values.truncate(vmark);
                locals.types.truncate(tmark);
                locals.values.push(name.clone());
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(vmark);
                ExprKind::LetFun {
                    name: if is_operator_name(name) { format!("({name})") } else { name.clone() },
                    name_span: *name_span,
                    type_params: type_params.clone(),
                    params,
                    ret,
                    rhs,
                    body,
                }
            }
            ExprKind::LetWith { name, name_span, indices, value, body } => {
                let indices = self.dims(indices, scope, locals);
                let value = self.boxed(value, scope, locals);
                let mark = locals.values.len();
                locals.values.push(name.clone());
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::LetWith {
                    name: name.clone(),
                    name_span: *name_span,
                    indices,
                    value,
                    body,
                }
            }
            ExprKind::Update(a, idx, v) => ExprKind::Update(
                self.boxed(a, scope, locals),
                self.dims(idx, scope, locals),
                self.boxed(v, scope, locals),
            ),
            ExprKind::RecordUpdate(a, fs, v) => ExprKind::RecordUpdate(
                self.boxed(a, scope, locals),
                fs.clone(),
                self.boxed(v, scope, locals),
            ),
            ExprKind::Loop { pat, init, form, body } => {
                let init = init.as_ref().map(|i| self.boxed(i, scope, locals));
                let mark = locals.values.len();
                let (form, pat) = match form {
                    LoopForm::For { var, var_span, bound } => {
                        let bound = self.boxed(bound, scope, locals);
                        locals.values.push(var.clone());
                        let pat = self.pat(pat, scope, locals);
                        (LoopForm::For { var: var.clone(), var_span: *var_span, bound }, pat)
                    }
                    LoopForm::ForIn(p, xs) => {
                        let xs = self.boxed(xs, scope, locals);
                        let p = self.pat(p, scope, locals);
                        let pat = self.pat(pat, scope, locals);
                        (LoopForm::ForIn(p, xs), pat)
                    }
                    LoopForm::While(c) => {
                        let pat = self.pat(pat, scope, locals);
                        (LoopForm::While(self.boxed(c, scope, locals)), pat)
                    }
                };
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::Loop { pat, init, form, body }
            }
            ExprKind::Match(x, cases) => {
                let x = self.boxed(x, scope, locals);
                let cases = cases
                    .iter()
                    .map(|(p, b)| {
                        let mark = locals.values.len();
                        let p = self.pat(p, scope, locals);
                        let b = self.expr(b, scope, locals);
                        locals.values.truncate(mark);
                        (p, b)
                    })
                    .collect();
                ExprKind::Match(x, cases)
            }
            ExprKind::Ascript(x, t) => {
                ExprKind::Ascript(self.boxed(x, scope, locals), self.type_exp(t, scope, locals))
            }
            ExprKind::Coerce(x, t) => {
                ExprKind::Coerce(self.boxed(x, scope, locals), self.type_exp(t, scope, locals))
            }
            ExprKind::Assert(a, b) => {
                ExprKind::Assert(self.boxed(a, scope, locals), self.boxed(b, scope, locals))
            }
        };
        Expr { kind, span: e.span, id: self.id(e.id) }
    }

    /// `m.(e)`: `e` with the names `m` declares in scope, above the local bindings around it.
    fn local_open(
        &mut self,
        path: &str,
        span: Span,
        e: &Expr,
        scope: &Scope,
        locals: &mut Locals,
    ) -> Expr {
        let steps: Vec<(Name, Span)> = path.split('.').map(|n| (n.to_string(), span)).collect();
        let mut inner = scope.clone();
        match self.mod_path(&steps, scope) {
            Some(Module::Struct(x)) => inner.open(&x),
            Some(Module::Numeric(t)) => open_numeric(&mut inner, t),
            Some(Module::Functor(f)) => {
                self.error(
                    span,
                    format!("`{}` is a parametric module: apply it before opening it", f.name),
                );
            }
            None => {}
        }
        // The opened names shadow the local bindings around `m.(e)`.
        let mut opened = Locals {
            values: locals
                .values
                .iter()
                .filter(|n| {
                    !inner.values.contains_key(*n) || scope.values.get(*n) == inner.values.get(*n)
                })
                .cloned()
                .collect(),
            types: locals
                .types
                .iter()
                .filter(|n| {
                    !inner.types.contains_key(*n) || scope.types.get(*n) == inner.types.get(*n)
                })
                .cloned()
                .collect(),
        };
        let mut out = self.expr(e, &inner, &mut opened);
        out.span = span.to(e.span);
        out
    }

    /// The type whose operator `op` is, inside `t.(e)` for a numeric module `t`.
    fn numeric_op(&self, op: &str, scope: &Scope, locals: &Locals) -> Option<PrimType> {
        let t = scope.numeric_ops?;
        if locals.values.iter().any(|n| n == op) {
            return None;
        }
        let float = matches!(t, PrimType::Float(_));
        let arith = ["+", "-", "*", "/", "%", "**"].contains(&op);
        let int_only = ["//", "%%", "&", "|", "^", "<<", ">>", ">>>"].contains(&op);
        let numeric = t != PrimType::Bool;
        ((numeric && (arith || (int_only && !float))) || is_comparison(op)).then_some(t)
    }

    pub(super) fn fresh(&mut self) -> NodeId {
        let id = self.next_id;
        self.next_id += 1;
        self.used_ids.insert(id);
        NodeId(id)
    }

    /// `(e : t)`.
    fn ascribed(&mut self, e: Box<Expr>, t: PrimType) -> Box<Expr> {
        let span = e.span;
        let id = self.fresh();
        Box::new(Expr { kind: ExprKind::Ascript(e, prim(t, span)), span, id })
    }

    fn boxed(&mut self, e: &Expr, scope: &Scope, locals: &mut Locals) -> Box<Expr> {
        Box::new(self.expr(e, scope, locals))
    }

    fn exprs(&mut self, es: &[Expr], scope: &Scope, locals: &mut Locals) -> Vec<Expr> {
        es.iter().map(|x| self.expr(x, scope, locals)).collect()
    }

    fn dims(&mut self, idx: &[DimIndex], scope: &Scope, locals: &mut Locals) -> Vec<DimIndex> {
        idx.iter()
            .map(|d| match d {
                DimIndex::Fix(x) => DimIndex::Fix(self.expr(x, scope, locals)),
                DimIndex::Slice { start, end, stride } => DimIndex::Slice {
                    start: start.as_ref().map(|x| self.expr(x, scope, locals)),
                    end: end.as_ref().map(|x| self.expr(x, scope, locals)),
                    stride: stride.as_ref().map(|x| self.expr(x, scope, locals)),
                },
            })
            .collect()
    }

    /// A pattern, its types resolved; the variables it binds are added to `locals`.
    pub(super) fn pat(&mut self, p: &Pat, scope: &Scope, locals: &mut Locals) -> Pat {
        let kind = match &p.kind {
            PatKind::Var(n) => {
                locals.values.push(n.clone());
                if is_operator_name(n) {
                    PatKind::Var(format!("({n})"))
                } else {
                    PatKind::Var(n.clone())
                }
            }
            PatKind::Wildcard => PatKind::Wildcard,
            PatKind::Literal(l) => PatKind::Literal(*l),
            PatKind::Tuple(ps) => {
                PatKind::Tuple(ps.iter().map(|q| self.pat(q, scope, locals)).collect())
            }
            PatKind::Constr(c, ps) => {
                PatKind::Constr(c.clone(), ps.iter().map(|q| self.pat(q, scope, locals)).collect())
            }
            PatKind::Record(fs) => PatKind::Record(
                fs.iter().map(|(n, q)| (n.clone(), self.pat(q, scope, locals))).collect(),
            ),
            PatKind::Ascribed(q, t) => {
                let t = self.type_exp(t, scope, locals);
                PatKind::Ascribed(Box::new(self.pat(q, scope, locals)), t)
            }
        };
        Pat { kind, span: p.span, id: self.id(p.id) }
    }

    pub(super) fn type_exp(&mut self, t: &TypeExp, scope: &Scope, locals: &Locals) -> TypeExp {
        let kind = match &t.kind {
            TypeExpKind::Prim(p) => TypeExpKind::Prim(*p),
            TypeExpKind::Named(n, args) => {
                let args: Vec<TypeArg> = args
                    .iter()
                    .map(|a| match a {
                        TypeArg::Size(d) => TypeArg::Size(d.clone()),
                        TypeArg::Type(t) => TypeArg::Type(self.type_exp(t, scope, locals)),
                    })
                    .collect();
                match self.type_name(n, t.span, scope, locals) {
                    TypeName::Named(n) => TypeExpKind::Named(n, args),
                    TypeName::Prim(p) if args.is_empty() => TypeExpKind::Prim(p),
                    TypeName::Prim(p) => {
                        self.error(t.span, format!("the type `{p}` takes no arguments"));
                        TypeExpKind::Prim(p)
                    }
                }
            }
            TypeExpKind::Array(d, elem) => {
                TypeExpKind::Array(d.clone(), Box::new(self.type_exp(elem, scope, locals)))
            }
            TypeExpKind::Tuple(ts) => {
                TypeExpKind::Tuple(ts.iter().map(|x| self.type_exp(x, scope, locals)).collect())
            }
            TypeExpKind::Record(fs) => TypeExpKind::Record(
                fs.iter().map(|(n, x)| (n.clone(), self.type_exp(x, scope, locals))).collect(),
            ),
            TypeExpKind::Arrow(n, a, b) => TypeExpKind::Arrow(
                n.clone(),
                Box::new(self.type_exp(a, scope, locals)),
                Box::new(self.type_exp(b, scope, locals)),
            ),
            TypeExpKind::Unique(x) => {
                TypeExpKind::Unique(Box::new(self.type_exp(x, scope, locals)))
            }
            TypeExpKind::Exists(ns, x) => {
                TypeExpKind::Exists(ns.clone(), Box::new(self.type_exp(x, scope, locals)))
            }
            TypeExpKind::Sum(cs) => TypeExpKind::Sum(
                cs.iter()
                    .map(|(c, ts)| {
                        (c.clone(), ts.iter().map(|x| self.type_exp(x, scope, locals)).collect())
                    })
                    .collect(),
            ),
        };
        TypeExp { kind, span: t.span }
    }

    fn type_name(&mut self, n: &Name, span: Span, scope: &Scope, locals: &Locals) -> TypeName {
        if locals.types.contains(n) {
            return TypeName::Named(n.clone());
        }
        let parts: Vec<&str> = n.split('.').collect();
        if parts.len() == 1 {
            return match scope.types.get(n) {
                // `t` inside `f32.(e)`.
                Some(flat) => match PrimType::from_name(flat) {
                    Some(p) => TypeName::Prim(p),
                    None => TypeName::Named(flat.clone()),
                },
                None => TypeName::Named(n.clone()),
            };
        }
        let (last, mods) = parts.split_last().unwrap_or((&"", &[]));
        let path: Vec<(Name, Span)> = mods.iter().map(|m| (m.to_string(), span)).collect();
        let Some(m) = self.mod_path(&path, scope) else { return TypeName::Named(n.clone()) };
        match m {
            Module::Struct(e) => match e.types.get(*last) {
                Some(flat) => TypeName::Named(flat.clone()),
                None => {
                    self.error(span, format!("module `{}` has no type `{last}`", mods.join(".")));
                    TypeName::Named(n.clone())
                }
            },
            Module::Numeric(p) if *last == "t" => TypeName::Prim(p),
            Module::Numeric(p) => {
                self.error(
                    span,
                    format!("the numeric module `{p}` has no type `{last}` (its type is `{p}.t`)"),
                );
                TypeName::Named(n.clone())
            }
            Module::Functor(f) => {
                self.error(
                    span,
                    format!("`{}` is a parametric module: apply it to a module first", f.name),
                );
                TypeName::Named(n.clone())
            }
        }
    }
}

enum Resolved {
    Module(Module, Name),
    Value(Name),
    /// A field of a value that a module path names.
    Field,
    /// Reported.
    Error,
}

enum TypeName {
    Named(Name),
    Prim(PrimType),
}

fn is_comparison(op: &str) -> bool {
    ["==", "!=", "<", "<=", ">", ">="].contains(&op)
}

fn prim(t: PrimType, span: Span) -> TypeExp {
    TypeExp { kind: TypeExpKind::Prim(t), span }
}

fn arrow(a: PrimType, b: TypeExp, span: Span) -> TypeExp {
    TypeExp { kind: TypeExpKind::Arrow(None, Box::new(prim(a, span)), Box::new(b)), span }
}

/// Whether a variable's name is an operator (`<=`, `+^`): one a pattern binds as `(<=)`.
fn is_operator_name(n: &str) -> bool {
    n.bytes().next().is_some_and(crate::syntax::lexer::is_op_char)
}
