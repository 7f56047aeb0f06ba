//! Checking a whole program, one top-level declaration at a time: generate constraints, solve,
//! generalise, then the checks that need solved types (uniqueness, restrictions).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::diag::Diagnostic;
use crate::prim::PrimType;
use crate::syntax::ast::{self, Dec, Name, NodeId, TypeDec, TypeParam, ValDec};

use super::alias::AliasCheck;
use super::automap;
use super::env::{scheme_of_sig, Globals, ParseSig};
use super::gen::Gen;
use super::generalise::{convert_table, generalise};
use super::ity::{IScheme, Store, Ty};
use super::print::scheme_names;
use super::restrict::Restrict;
use super::solve::Solver;
use super::typeexp::Abbrev;
use super::{prelude, CheckedProgram, Scheme, Type};

struct Checker {
    globals: Globals,
    expr_types: HashMap<NodeId, Type>,
    pat_types: HashMap<NodeId, Type>,
    schemes: Vec<Option<Scheme>>,
    errors: Vec<Diagnostic>,
    /// Counter for invented names, shared by all definitions so they never clash.
    next_name: u32,
    /// When set, each user definition's constraints are printed here, before solving.
    constraints: Option<String>,
    /// AUTOMAP on: a user definition that does not check as written gets rank analysis.
    automap: bool,
    /// When set, every user definition's ILP is recorded here (for `ogham show ilp`/`elab`).
    reports: Option<Vec<automap::DefReport>>,
    next_id: u32,
    user_names: HashSet<Name>,
}

/// The result of inferring one definition, not yet committed to the checker's tables.
struct Inferred {
    types: HashMap<NodeId, Type>,
    pats: HashMap<NodeId, Type>,
    errors: Vec<Diagnostic>,
    scheme: IScheme,
    out_scheme: Scheme,
    next_name: u32,
}

/// Whether an inserted `rep` node replicates to a size lowering can name: a constant, a size a
/// user can name, or a size parameter of the definition.
fn rep_size_known(inf: &Inferred, id: NodeId) -> bool {
    let Some(Type::Arrow { to, .. }) = inf.types.get(&id) else { return false };
    let Type::Array { shape, .. } = &**to else { return false };
    let nameable = |n: &Name| !super::is_invented(n) || inf.out_scheme.size_params.contains(n);
    match shape.first() {
        Some(super::ty::Size::Const(_)) => true,
        Some(super::ty::Size::Var(n)) => nameable(n),
        Some(s @ (super::ty::Size::Poly(_) | super::ty::Size::Opaque(..))) => {
            let mut unknown = false;
            super::poly::for_each_atom(s, &mut |a| {
                unknown |= matches!(a, super::ty::Size::Unknown(_))
            });
            !unknown && s.names().into_iter().all(nameable)
        }
        _ => false,
    }
}

pub(crate) fn check_program(
    program: &ast::Program,
    parse_sig: ParseSig,
    automap: bool,
) -> Result<CheckedProgram, Vec<Diagnostic>> {
    check_full(program, parse_sig, false, automap, false).0
}

/// Check, and optionally print the constraints generated for each user definition.
pub(crate) fn check_recording(
    program: &ast::Program,
    parse_sig: ParseSig,
    record: bool,
) -> (Result<CheckedProgram, Vec<Diagnostic>>, String) {
    let (r, s, _) = check_full(program, parse_sig, record, true, false);
    (r, s)
}

/// Check, with every user definition's AUTOMAP ILP recorded.
pub(crate) fn check_reporting(
    program: &ast::Program,
    parse_sig: ParseSig,
) -> (Result<CheckedProgram, Vec<Diagnostic>>, Vec<automap::DefReport>) {
    let (r, _, reps) = check_full(program, parse_sig, false, true, true);
    (r, reps)
}

fn check_full(
    program: &ast::Program,
    parse_sig: ParseSig,
    record: bool,
    automap: bool,
    report: bool,
) -> (Result<CheckedProgram, Vec<Diagnostic>>, String, Vec<automap::DefReport>) {
    let prelude = match prelude::parse_prelude(program.next_id) {
        Ok(p) => p,
        Err(es) => return (Err(es), String::new(), vec![]),
    };
    let prelude_decs = prelude.decs.len();
    let mut decs = prelude.decs;
    decs.extend(program.decs.iter().cloned());
    let mut combined =
        ast::Program { decs, next_id: prelude.next_id, instances: program.instances.clone() };
    let mut c = Checker {
        automap,
        reports: report.then(Vec::new),
        next_id: combined.next_id,
        user_names: HashSet::new(),
        globals: Globals::new(parse_sig),
        expr_types: HashMap::new(),
        pat_types: HashMap::new(),
        schemes: Vec::new(),
        errors: Vec::new(),
        next_name: 0,
        constraints: None,
    };
    for i in 0..combined.decs.len() {
        if record && i == prelude_decs {
            c.constraints = Some(String::new());
        }
        let errors_before = c.errors.len();
        let name = match &combined.decs[i] {
            Dec::Type(t) => t.name.clone(),
            Dec::Val(v) => v.name.clone(),
        };
        match &combined.decs[i] {
            Dec::Type(t) => {
                c.type_dec(t);
                c.schemes.push(None);
            }
            Dec::Val(v) => {
                let v = v.clone();
                let (s, elaborated) =
                    if i >= prelude_decs { c.user_val_dec(&v) } else { (c.val_dec(&v), None) };
                if let Some(e) = elaborated {
                    combined.decs[i] = Dec::Val(e);
                }
                if i >= prelude_decs {
                    c.user_names.insert(v.name.clone());
                }
                c.schemes.push(Some(s));
            }
        }
        if let Some(inst) = program.instances.get(&name) {
            for d in &mut c.errors[errors_before..] {
                let note = format!("in the parametric module `{}`, applied here", inst.functor);
                d.secondary.push(crate::diag::Label { span: inst.at, message: note });
            }
        }
    }
    combined.next_id = c.next_id;
    let reports = c.reports.take().unwrap_or_default();
    let mut errors = c.errors;
    let mut sig_errors = c.globals.sig_errors.take();
    sig_errors.dedup();
    errors.extend(sig_errors);
    // A parametric module's body is checked once per application: an error in it that every
    // application shares is reported once.
    let mut kept: Vec<Diagnostic> = Vec::with_capacity(errors.len());
    for d in errors {
        match kept.iter_mut().find(|k| k.span == d.span && k.message == d.message) {
            Some(k) => {
                for l in d.secondary {
                    if !k.secondary.contains(&l) {
                        k.secondary.push(l);
                    }
                }
            }
            None => kept.push(d),
        }
    }
    let errors = kept;
    if !errors.is_empty() {
        return (Err(errors), c.constraints.unwrap_or_default(), reports);
    }
    let cp = CheckedProgram {
        program: combined,
        prelude_decs,
        expr_types: c.expr_types,
        pat_types: c.pat_types,
        schemes: c.schemes,
    };
    (Ok(cp), c.constraints.unwrap_or_default(), reports)
}

impl Checker {
    fn type_dec(&mut self, t: &TypeDec) {
        // Check the definition once, with its parameters abstract.
        let (_, errors) = scheme_of_sig(&t.params, &t.def, &self.globals.abbrevs);
        let broken = !errors.is_empty();
        self.errors.extend(errors);
        self.globals.abbrevs.insert(
            t.name.clone(),
            Abbrev { params: t.params.clone(), def: t.def.clone(), broken },
        );
    }

    fn val_dec(&mut self, v: &ValDec) -> Scheme {
        let inf = self.infer(v);
        self.commit(v, inf)
    }

    /// A user definition: as written, else (AUTOMAP) with the maps and reps rank analysis
    /// inserts. Returns the elaborated definition when it differs.
    fn user_val_dec(&mut self, v: &ValDec) -> (Scheme, Option<ValDec>) {
        let mut first = self.infer(v);
        let reporting = self.reports.is_some();
        if !self.automap || (first.errors.is_empty() && !reporting) {
            return (self.commit(v, first), None);
        }
        let names = &self.user_names;
        let is_user = |n: &str| names.contains(n);
        let mut next_id = self.next_id;
        let (outcome, report) = automap::analyse(v, &self.globals, &is_user, &mut next_id);
        self.next_id = next_id;
        if let Some(r) = &mut self.reports {
            r.push(report);
        }
        if first.errors.is_empty() {
            return (self.commit(v, first), None);
        }
        match outcome {
            automap::Outcome::Elaborated(e, reps) => {
                let second = self.infer(&e);
                // A rep beyond the frame replicates to the size its context requires; when the
                // elaboration does not check, or leaves that size undetermined, the program's own
                // errors are the better report.
                if !reps.is_empty()
                    && (!second.errors.is_empty()
                        || !reps.iter().all(|id| rep_size_known(&second, *id)))
                {
                    if let Some(err) = first.errors.first_mut() {
                        err.hints
                            .push(automap::rep_hint("to a size the program does not determine"));
                    }
                    return (self.commit(v, first), None);
                }
                (self.commit(&e, second), Some(e))
            }
            automap::Outcome::Error(d) => {
                first.errors = vec![d];
                (self.commit(v, first), None)
            }
            automap::Outcome::Hint(h) => {
                if let Some(e) = first.errors.first_mut() {
                    e.hints.push(h);
                }
                (self.commit(v, first), None)
            }
            automap::Outcome::Unchanged | automap::Outcome::GiveUp => (self.commit(v, first), None),
        }
    }

    fn infer(&mut self, v: &ValDec) -> Inferred {
        let store = Store { next_name: self.next_name, ..Store::default() };
        let mut gen = Gen::new(&self.globals, store);
        let typing = gen.def(v);
        let too_deep = gen.too_deep;
        if let Some(out) = &mut self.constraints {
            out.push_str(&format!("{}:\n", v.name));
            for c in &gen.cs {
                out.push_str(&format!("  {c}\n"));
            }
        }
        let Gen { mut store, cs, expr_ty, pat_ty, mut errors, int_literals, shadowed, .. } = gen;

        let mut solver = Solver::new(&mut store);
        solver.rebound = shadowed;
        solver.solve(cs);
        errors.append(&mut solver.errors);
        let app_unique = std::mem::take(&mut solver.app_unique);
        for (v, t, span) in int_literals {
            if let Ty::Prim(PrimType::Int(it)) = store.resolve(&t) {
                // A literal is a magnitude (`-128` is `-(128)`), so signed types allow 2^(bits-1).
                let max: i128 =
                    if it.signed() { 1 << (it.bits() - 1) } else { (1 << it.bits()) - 1 };
                if v > max {
                    errors.push(
                        Diagnostic::ty(
                            span,
                            format!("literal `{v}` is out of range for `{}`", it.name()),
                        )
                        .with_label(format!("this is a `{}`", it.name())),
                    );
                }
            }
        }

        let all: Vec<&Ty> = expr_ty.values().chain(pat_ty.values()).collect();
        let mut ambiguous = Vec::new();
        let mut g = generalise(&mut store, &typing, &all, &mut ambiguous);
        if errors.is_empty() {
            errors = ambiguous;
        }
        let mut types = HashMap::new();
        let mut pats = HashMap::new();
        // A type that is an error's (a use of a definition that did not check) would only give
        // the restrictions below more errors about the same mistake.
        let tainted = convert_table(&store, &expr_ty, &g.quantified, &mut types)
            | convert_table(&store, &pat_ty, &g.quantified, &mut pats);
        let next_name = store.next_name;

        if errors.is_empty() && !too_deep && !tainted {
            let mut a = AliasCheck::new(&types, &pats, &app_unique);
            let fresh = a.def(v);
            errors.append(&mut a.errors);
            if fresh && !typing.ret_declared && !v.params.is_empty() {
                // As in Futhark, a result that aliases no parameter is unique.
                g.scheme.ty = unique_result_i(&g.scheme.ty, v.params.len());
                g.out_scheme.ty = unique_result(&g.out_scheme.ty, v.params.len());
            }
            let names = scheme_names(
                &g.out_scheme,
                v.type_params.iter().filter_map(|p| match p {
                    TypeParam::Type { name, .. } => Some(name.clone()),
                    TypeParam::Size { .. } => None,
                }),
            );
            let mut r = Restrict { types: &types, pats: &pats, names: &names, errors: Vec::new() };
            r.def(v, &g.out_scheme);
            r.expr(&v.body);
            errors.append(&mut r.errors);
        }

        Inferred { types, pats, errors, scheme: g.scheme, out_scheme: g.out_scheme, next_name }
    }

    fn commit(&mut self, v: &ValDec, inf: Inferred) -> Scheme {
        let Inferred { types, pats, mut errors, scheme, out_scheme, next_name } = inf;
        self.next_name = next_name;
        self.expr_types.extend(types);
        self.pat_types.extend(pats);
        let scheme = if errors.is_empty() {
            scheme
        } else {
            // Uses of an erroneous definition are unconstrained, so its mistakes are reported once.
            IScheme {
                size_params: vec![],
                type_params: vec![],
                tparam_names: vec![],
                ty: Ty::Err,
                exists: vec![],
            }
        };
        // Within a definition, report in source order.
        errors.sort_by_key(|e| e.span.start);
        self.errors.append(&mut errors);
        self.globals.values.insert(v.name.clone(), Rc::new(scheme));
        out_scheme
    }
}

/// Mark the result of a function of `n` parameters unique (internal types).
fn unique_result_i(t: &Ty, n: usize) -> Ty {
    match t {
        Ty::Arrow { param, from, to } if n > 0 => Ty::Arrow {
            param: param.clone(),
            from: from.clone(),
            to: Box::new(unique_result_i(to, n - 1)),
        },
        t if n == 0 => t.make_unique(),
        t => t.clone(),
    }
}

/// Mark the result of a function of `n` parameters unique.
fn unique_result(t: &Type, n: usize) -> Type {
    match t {
        Type::Arrow { param, from, to } if n > 0 => Type::Arrow {
            param: param.clone(),
            from: from.clone(),
            to: Box::new(unique_result(to, n - 1)),
        },
        Type::Array { shape, elem, .. } if n == 0 => {
            Type::Array { shape: shape.clone(), elem: elem.clone(), unique: true }
        }
        Type::Tuple(ts) if n == 0 => Type::Tuple(ts.iter().map(|t| unique_result(t, 0)).collect()),
        Type::Record(fs) if n == 0 => {
            Type::Record(fs.iter().map(|(k, t)| (k.clone(), unique_result(t, 0))).collect())
        }
        t => t.clone(),
    }
}
