//! The host schedule: control flow and scalar code stay on the host; each array-producing
//! statement becomes a kernel (see `kernel` for the code inside one).

use std::collections::{HashMap, HashSet};

use super::kernel::{buffer_decls, load, store, Gen, KVal, R};
use super::{
    internal, unsupported, Access, BufRef, Dispatch, GpuProgram, HostBody, HostFun, HostStm,
    Kernel, Site, Tiles, WORKGROUP,
};
use super::{staged, tile};
use crate::diag::Span;
use crate::ir::{self, Atom, DimIndex, Exp, Type, Var};
use crate::prim::PrimType;

/// A generated kernel: its WGSL, buffers and scalar arguments.
type Built = (String, Vec<(BufRef, PrimType, Access)>, Vec<Atom>);

struct HostGen<'a> {
    prog: &'a ir::Program,
    types: HashMap<Var, Type>,
    /// Host arrays that kernels compute where they read them instead of binding their buffers
    /// (replicates of scalars and iotas: a storage buffer fewer per kernel that uses one;
    /// transpositions, read through their source: no pass over memory to make them).
    virt: HashMap<Var, Exp>,
    kernels: Vec<Kernel>,
    sites: Vec<Site>,
    /// Map results whose one use is as an array of a host-level `reduce`, `scan` or `hist`,
    /// with how many other arrays that reduction reads: see `find_fused`.
    fused: HashMap<Var, usize>,
    /// How often each variable of the function being generated is used (binders aside).
    uses: HashMap<Var, usize>,
    /// Updates that may write into their destination (`ir::inplace`).
    in_place: HashSet<Var>,
    /// Arrays of the function being generated that an in-place update writes into: the
    /// destinations, and the initial values and results of the loop parameters among them.
    owned: HashSet<Var>,
    /// Host functions: `Some` once generated (or being generated).
    funs: Vec<Option<HostFun>>,
    todo: Vec<usize>,
    /// i64/u64 values are 64-bit (`vec2<u32>`, see `compile_wide`).
    wide: bool,
    /// The conditions of the `if`s that stand for row maps (`distribute`).
    rows: HashSet<Var>,
}

pub fn generate(prog: &ir::Program, wide: bool) -> R<GpuProgram> {
    let (distributed, rows) = super::distribute::run(prog, wide);
    let prog = &distributed;
    let mut g = HostGen {
        rows,
        prog,
        types: HashMap::new(),
        virt: HashMap::new(),
        fused: HashMap::new(),
        uses: HashMap::new(),
        in_place: crate::ir::inplace::in_place(prog),
        owned: HashSet::new(),
        kernels: Vec::new(),
        sites: Vec::new(),
        funs: vec![None; prog.funs.len()],
        todo: prog.entries.iter().map(|e| e.fun).collect(),
        wide,
    };
    let mut started = vec![false; prog.funs.len()];
    while let Some(f) = g.todo.pop() {
        if started.get(f).copied().unwrap_or(true) {
            continue;
        }
        started[f] = true;
        let hf = g.fun(f)?;
        g.funs[f] = Some(hf);
    }
    let funs = g
        .funs
        .into_iter()
        .enumerate()
        .map(|(k, f)| {
            f.unwrap_or_else(|| HostFun {
                name: prog.funs.get(k).map_or(String::new(), |f| f.name.clone()),
                params: Vec::new(),
                existentials: 0,
                ret: Vec::new(),
                body: HostBody::default(),
            })
        })
        .collect();
    Ok(GpuProgram {
        kernels: g.kernels,
        funs,
        entries: prog.entries.clone(),
        sites: g.sites,
        names: prog.names.clone(),
        rejected: Vec::new(),
        wide,
        source: None,
    })
}

/// The arrays of `body` (and the `if` and loop bodies in it: the host's) that in-place updates
/// write into: their destinations, and, for a destination that is a loop parameter, the loop's
/// initial value for it and the body's result for it (the memory it holds in some iteration).
fn owned(body: &ir::Body, in_place: &HashSet<Var>) -> HashSet<Var> {
    /// (parameter, initial value, the body's result for it)
    type Link = (Var, Option<Var>, Option<Var>);
    fn walk(b: &ir::Body, in_place: &HashSet<Var>, out: &mut HashSet<Var>, links: &mut Vec<Link>) {
        let var = |a: Option<&Atom>| match a {
            Some(Atom::Var(v)) => Some(*v),
            _ => None,
        };
        for s in &b.stms {
            match &s.exp {
                Exp::Update { arr: d, .. } | Exp::Scatter { dest: d, .. }
                    if s.pat.first().is_some_and(|p| in_place.contains(&p.var)) =>
                {
                    out.insert(*d);
                }
                Exp::If { then_body, else_body, .. } => {
                    walk(then_body, in_place, out, links);
                    walk(else_body, in_place, out, links);
                }
                Exp::Loop { params, body, .. } => {
                    for (k, (p, init)) in params.iter().enumerate() {
                        links.push((p.var, var(Some(init)), var(body.result.get(k))));
                    }
                    walk(body, in_place, out, links);
                }
                _ => {}
            }
        }
    }
    let (mut out, mut links) = (HashSet::new(), Vec::new());
    walk(body, in_place, &mut out, &mut links);
    loop {
        let before = out.len();
        for (p, init, result) in &links {
            if out.contains(p) {
                out.extend(init.iter().chain(result));
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The indices, when every one is fixed (no slices).
fn fixed(idx: &[DimIndex]) -> Option<Vec<Atom>> {
    idx.iter()
        .map(|i| match i {
            DimIndex::Fix(a) => Some(*a),
            _ => None,
        })
        .collect()
}

/// The arrays (and scalars) a host statement binds.
pub(super) fn bound(s: &HostStm) -> Vec<Var> {
    let one = |p: &ir::Param| vec![p.var];
    let all = |ps: &[ir::Param]| ps.iter().map(|p| p.var).collect();
    match s {
        HostStm::Scalar(st) => all(&st.pat),
        HostStm::Launch { outs, .. }
        | HostStm::SegReduce { outs, .. }
        | HostStm::RowMap { outs, .. } => all(outs),
        HostStm::Reduce { pat, .. }
        | HostStm::Scan { pat, .. }
        | HostStm::If { pat, .. }
        | HostStm::Loop { pat, .. }
        | HostStm::Call { pat, .. } => all(pat),
        HostStm::SplitReduce { pat, .. } => all(pat),
        HostStm::Hist { pat, .. }
        | HostStm::ReadElem { pat, .. }
        | HostStm::Reshape { pat, .. }
        | HostStm::Alias { pat, .. }
        | HostStm::Scatter { pat, .. }
        | HostStm::Copy { pat, .. }
        | HostStm::UpdateElem { pat, .. }
        | HostStm::UpdateRow { pat, .. } => one(pat),
    }
}

/// One of the sums of a `HostStm::SplitReduce`: its result, operator on elements, neutral
/// array and arrays.
struct SumPart {
    p: ir::Param,
    op: ir::Lambda,
    ne: Var,
    arr: Var,
}

impl SumPart {
    /// `s` as such a sum: a `reduce` of one array of arrays, with an elementwise operator and a
    /// neutral array.
    fn of(s: &ir::Stm) -> Option<SumPart> {
        let (Exp::Reduce { lam, neutral, arrs, .. }, [p]) = (&s.exp, s.pat.as_slice()) else {
            return None;
        };
        let ([Atom::Var(ne)], [arr], Type::Array { .. }) =
            (neutral.as_slice(), arrs.as_slice(), &p.ty)
        else {
            return None;
        };
        let op = crate::ir::operators::elementwise(lam)?.clone();
        Some(SumPart { p: p.clone(), op, ne: *ne, arr: *arr })
    }
}

/// The storage buffers a WebGPU device need allow a kernel (`maxStorageBuffersPerShaderStage`'s
/// default): sums are folded together only while their kernels fit in it.
const JOINED_MAX_BUFFERS: usize = 8;

/// Groups of elementwise sums of arrays in `b` (statement positions, in order) that one kernel
/// may fold together at the position of the last: of the same width and result type (reverse
/// mode's adjoints of parameters used by every sample, summed over the samples, whose arrays
/// are results of one map and share most of their computation). What lies between two of a
/// group neither names the earlier sums' results nor updates anything in place, so the
/// earlier sums may move down to the last.
fn joined_sums(b: &ir::Body) -> Vec<Vec<usize>> {
    let key = |s: &ir::Stm| match (&s.exp, SumPart::of(s)) {
        (Exp::Reduce { w, .. }, Some(sum)) => Some((*w, sum.p.ty)),
        _ => None,
    };
    let consumes = |s: &ir::Stm| {
        matches!(
            s.exp,
            Exp::Update { .. }
                | Exp::Scatter { .. }
                | Exp::Hist { .. }
                | Exp::Loop { .. }
                | Exp::If { .. }
                | Exp::Apply { .. }
        )
    };
    let mut groups = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    for (k, s) in b.stms.iter().enumerate() {
        let Some(here) = key(s) else { continue };
        let joins = cur.last().is_some_and(|&last| {
            key(&b.stms[last]).as_ref() == Some(&here)
                && b.stms[last + 1..=k].iter().all(|x| {
                    let named = crate::ir::lower::rewrite::mentioned(x);
                    (std::ptr::eq(x, s) || !consumes(x))
                        && cur.iter().all(|&m| !named.contains(&b.stms[m].pat[0].var))
                })
        });
        if !joins {
            if cur.len() > 1 {
                groups.push(std::mem::take(&mut cur));
            }
            cur.clear();
        }
        cur.push(k);
    }
    if cur.len() > 1 {
        groups.push(cur);
    }
    groups
}

/// For each statement of `b`, the variables bound in `b` that nothing after it (nor `b`'s
/// result) names: the executor drops them there, so a buffer lives only while it is needed.
pub(super) fn dead_after(b: &HostBody) -> Vec<Vec<Var>> {
    let mut out = vec![Vec::new(); b.stms.len()];
    for (k, s) in b.stms.iter().enumerate() {
        for v in bound(s) {
            if b.result.contains(&Atom::Var(v)) {
                continue;
            }
            let last = (k + 1..b.stms.len()).rev().find(|&j| mentions(&b.stms[j], v)).unwrap_or(k);
            out[last].push(v);
        }
    }
    out
}

/// Whether a host statement (or a body nested in it) names `v`.
fn mentions(s: &HostStm, v: Var) -> bool {
    let atom = |a: &Atom| *a == Atom::Var(v);
    let disp = |d: &Dispatch| d.args.iter().any(atom) || d.bufs.contains(&BufRef::Var(v));
    let body = |b: &HostBody| b.result.iter().any(atom) || b.stms.iter().any(|s| mentions(s, v));
    match s {
        HostStm::Scalar(st) => {
            let mut e = st.exp.clone();
            let mut found = false;
            crate::ad::walk::exp_vars(&mut e, &mut |x, _| found |= *x == v);
            found
        }
        HostStm::Launch { dispatch, tiled, empty_rows, .. } => {
            disp(dispatch)
                || tiled.as_ref().is_some_and(|t| disp(&t.software))
                || empty_rows.as_ref().is_some_and(disp)
        }
        HostStm::SegReduce { seg_w, group, thread, .. } => {
            seg_w.as_ref().is_some_and(atom) || disp(group) || disp(thread)
        }
        HostStm::RowMap { width, group, local, thread, pieces, .. } => {
            width.as_ref().is_some_and(atom)
                || local.iter().any(atom)
                || disp(group)
                || disp(thread)
                || body(pieces)
        }
        HostStm::Hist { dest, w, local, global, .. } => {
            *dest == v || atom(w) || disp(local) || disp(global)
        }
        HostStm::Scatter { dest, w, winners, write, .. } => {
            *dest == v || atom(w) || disp(winners) || disp(write)
        }
        HostStm::Reduce { w, passes, flat, .. } => atom(w) || passes.iter().any(disp) || disp(flat),
        HostStm::SplitReduce { w, whole, parts, finish, .. } => {
            atom(w) || whole.iter().any(disp) || disp(parts) || disp(finish)
        }
        HostStm::Scan { w, passes, staged, single, .. } => {
            atom(w)
                || passes
                    .iter()
                    .chain(staged.iter().flatten())
                    .chain(single.iter().map(|s| &s.0))
                    .any(disp)
        }
        HostStm::ReadElem { arr, idx, .. } => *arr == v || idx.iter().any(atom),
        // The new shape is the pattern's type (a size computed just before it may have no other
        // use).
        HostStm::Reshape { pat, arr, .. } | HostStm::Copy { pat, arr, .. } => {
            *arr == v
                || matches!(&pat.ty, ir::Type::Array { shape, .. } if shape.contains(&ir::Dim::Var(v)))
        }
        HostStm::Alias { arr, .. } => *arr == v,
        HostStm::UpdateElem { arr, idx, value, .. } => {
            *arr == v || idx.iter().any(atom) || atom(value)
        }
        HostStm::UpdateRow { arr, idx, value, .. } => {
            *arr == v || *value == v || idx.iter().any(atom)
        }
        HostStm::If { cond, then_body, else_body, .. } => {
            atom(cond) || body(then_body) || body(else_body)
        }
        HostStm::Loop { params, form, body: b, .. } => {
            params.iter().any(|(_, a)| atom(a))
                || matches!(form, ir::LoopForm::For { bound, .. } if atom(bound))
                || matches!(form, ir::LoopForm::While(c) if *c == v)
                || body(b)
        }
        HostStm::Call { args, .. } => args.iter().any(atom),
    }
}

/// The kernel without the storage buffers its code never reads or writes, the others
/// renumbered. A parameter of a map is bound when the kernel starts, but the delayed arrays
/// built from it may never be indexed, and every binding counts against the device's limit.
fn unused_buffers_dropped(
    wgsl: String,
    bufs: Vec<(BufRef, PrimType, Access)>,
) -> (String, Vec<(BufRef, PrimType, Access)>) {
    let name = regex::Regex::new(r"\bb([0-9]+)\b").expect("a valid pattern");
    let mut uses = vec![0usize; bufs.len()];
    for c in name.captures_iter(&wgsl) {
        if let Some(u) = c[1].parse::<usize>().ok().and_then(|k| uses.get_mut(k)) {
            *u += 1;
        }
    }
    // Each buffer's declaration is one use.
    if uses.iter().all(|&u| u > 1) {
        return (wgsl, bufs);
    }
    let mut new_index = vec![None; bufs.len()];
    let mut kept = Vec::new();
    for (k, b) in bufs.into_iter().enumerate() {
        if uses[k] > 1 {
            new_index[k] = Some(kept.len());
            kept.push(b);
        }
    }
    let mut out = String::with_capacity(wgsl.len());
    for line in wgsl.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("@group(0) @binding(") {
            let k = name.captures(rest).and_then(|c| c[1].parse::<usize>().ok());
            match k.and_then(|k| new_index.get(k).copied().flatten()) {
                Some(j) => {
                    let after = rest.split_once(')').map_or("", |x| x.1);
                    out.push_str(&format!("@group(0) @binding({}){after}", j + 2));
                }
                None if k.is_some_and(|k| k < new_index.len()) => {}
                None => out.push_str(line),
            }
            continue;
        }
        out.push_str(line);
    }
    let out = name
        .replace_all(&out, |c: &regex::Captures| {
            match c[1].parse::<usize>().ok().and_then(|k| new_index.get(k).copied().flatten()) {
                Some(j) => format!("b{j}"),
                None => c[0].to_string(),
            }
        })
        .into_owned();
    (out, kept)
}

/// `fn main(...)` of a kernel, with its bindings and workgroup arrays.
fn assemble(gen: &Gen, shared: &str, body: &str) -> String {
    assemble_sized(gen, shared, body, WORKGROUP)
}

/// `assemble` with workgroups of `size` invocations.
fn assemble_sized(gen: &Gen, shared: &str, body: &str, size: u32) -> String {
    let code = format!(
        "{}{shared}\n@compute @workgroup_size({size})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{}{}{body}}}\n",
        buffer_decls(&gen.bufs, gen.wide),
        gen.pre,
        gen.code
    );
    let vec4s = gen.arg_words().div_ceil(4).max(1);
    let prelude = super::prelude::for_kernel(&code).replacen(
        super::prelude::ARGS_DECL,
        &super::prelude::ARGS_DECL.replace("1>", &format!("{vec4s}>")),
        1,
    );
    format!("{prelude}\n{code}")
}

fn scalar_types(ps: &[ir::Param]) -> Option<Vec<PrimType>> {
    ps.iter()
        .map(|p| match p.ty {
            Type::Prim(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// Results `ks` of the map `e` alone: its function computes only those results and takes only
/// the arrays it reads.
fn projected(e: &Exp, ks: &[usize]) -> Option<Exp> {
    let Exp::Map { w, lam, arrs } = e else { return None };
    let (body, used) = super::kernel::only_results(&lam.body, ks);
    let (params, arrs): (Vec<_>, Vec<_>) = lam
        .params
        .iter()
        .zip(arrs)
        .filter(|(p, _)| used.contains(&p.var))
        .map(|(p, a)| (p.clone(), *a))
        .unzip();
    let ret = ks.iter().map(|&k| lam.ret.get(k).cloned()).collect::<Option<_>>()?;
    Some(Exp::Map { w: *w, lam: ir::Lambda { params, body, ret }, arrs })
}

/// The most buffers that a map computed where a reduction reads it, and the reduction's other
/// arrays, may bind: WebGPU promises 8 storage buffers per kernel, and the reduction's kernels
/// also bind the error record and an output.
const FUSED_BUFFERS: usize = 6;

/// The most pairs of one element of a map that a histogram's invocation adds, unrolled.
const MAX_ROW_PAIRS: usize = 64;

/// A histogram's pairs, made by a fused map ([`HostGen::pair_rows`]).
struct PairRows {
    /// The map's results of indices and of values, of one shape: `outer` then `inner`.
    is: Var,
    vs: Var,
    outer: Vec<ir::Dim>,
    /// Constant trailing dims: the pairs of one element.
    inner: Vec<usize>,
}

impl PairRows {
    fn per_row(&self) -> usize {
        self.inner.iter().product()
    }
}

impl HostGen<'_> {
    fn fun(&mut self, f: usize) -> R<HostFun> {
        let fd = &self.prog.funs[f];
        for p in &fd.params {
            self.types.insert(p.var, p.ty.clone());
        }
        self.uses.clear();
        let mut copy = fd.body.clone();
        crate::ad::walk::body_vars(&mut copy, &mut |v, binder| {
            if !binder {
                *self.uses.entry(*v).or_default() += 1;
            }
        });
        self.owned = owned(&fd.body, &self.in_place);
        let body = self.body(&fd.body)?;
        Ok(HostFun {
            name: fd.name.clone(),
            params: fd.params.clone(),
            existentials: fd.existentials,
            ret: fd.ret.clone(),
            body,
        })
    }

    fn body(&mut self, b: &ir::Body) -> R<HostBody> {
        self.find_fused(b);
        let mut stms = Vec::new();
        // Sums over the same samples are folded together where the last of them is.
        let mut joined: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut later = HashSet::new();
        for g in joined_sums(b) {
            later.extend(g[..g.len() - 1].iter().copied());
            joined.insert(g[g.len() - 1], g);
        }
        for (k, s) in b.stms.iter().enumerate() {
            if later.contains(&k) {
                continue;
            }
            match joined.get(&k) {
                Some(g) => {
                    let sums: Vec<&ir::Stm> = g.iter().map(|&i| &b.stms[i]).collect();
                    if !self.split_reduce(&sums, &mut stms)? {
                        for x in sums {
                            self.stm(x, &mut stms)?;
                        }
                    }
                }
                None => self.stm(s, &mut stms)?,
            }
        }
        // A replicate or iota that kernels compute where they read it needs no buffer unless
        // the host itself uses it.
        let mut k = stms.len();
        while k > 0 {
            k -= 1;
            let HostStm::Launch { outs, .. } = &stms[k] else { continue };
            // (A launch without outputs runs only checks, which must stay.)
            let unused = !outs.is_empty()
                && outs.iter().all(|p| {
                    self.virt.contains_key(&p.var)
                        && !b.result.contains(&Atom::Var(p.var))
                        && !stms[k + 1..].iter().any(|s| mentions(s, p.var))
                });
            if unused {
                stms.remove(k);
            }
        }
        Ok(HostBody { stms, result: b.result.clone() })
    }

    /// A cheap map (scalar statements without loops, views, or maps of them) whose result is
    /// used once, as an array of a `reduce`, `scan` or
    /// `hist` of the same body, is computed where that reduction reads it (a virtual
    /// `DArr::Map`): `f32.sum (map2 (*) xs ys)` reads `xs` and `ys` once, instead of writing the
    /// products and reading them back; the per-sample outer products of a gradient, summed over
    /// the samples, are never stored (an [n][h][i] array for an [h][i] result). For a map with
    /// several results this is decided per result, on the map projected to it ([`projected`]).
    fn find_fused(&mut self, b: &ir::Body) {
        // Scalar statements without loops, views of arrays, single-element updates, and maps
        // and branches of those: what a launch would compute for each element anyway.
        fn cheap(prog: &ir::Program, lam: &ir::Lambda) -> bool {
            body(prog, &lam.body)
        }
        fn body(prog: &ir::Program, b: &ir::Body) -> bool {
            b.stms.iter().all(|x| match &x.exp {
                Exp::Map { lam, .. } => cheap(prog, lam),
                Exp::If { then_body, else_body, .. } => {
                    body(prog, then_body) && body(prog, else_body)
                }
                Exp::Update { idx, .. } => idx.iter().all(|i| matches!(i, DimIndex::Fix(_))),
                Exp::Apply { .. } => false,
                Exp::Index { .. }
                | Exp::Atom(_)
                | Exp::Iota { .. }
                | Exp::Replicate { .. }
                | Exp::Rearrange { .. }
                | Exp::Reshape { .. }
                | Exp::ArrayLit { .. } => true,
                _ => {
                    x.pat.iter().all(|q| matches!(q.ty, Type::Prim(_)))
                        && !super::distribute::heavy(prog, x)
                }
            })
        }
        for st in &b.stms {
            if !matches!(st.exp, Exp::Map { .. }) {
                continue;
            }
            for (k, p) in st.pat.iter().enumerate() {
                // A histogram may read it flattened: the pairs of a map's elements, each
                // element's an array literal (reverse mode's contributions).
                let flat = b.stms.iter().find_map(|c| match (&c.exp, c.pat.as_slice()) {
                    (Exp::Reshape { arr, .. }, [q]) if *arr == p.var => Some(q.var),
                    _ => None,
                });
                let flat = flat.filter(|q| self.uses.get(q) == Some(&1));
                // The reduction reading it, and how many other arrays that one reads.
                let consumer = b.stms.iter().find_map(|c| match &c.exp {
                    Exp::Reduce { arrs, .. } | Exp::Scan { arrs, .. } if arrs.contains(&p.var) => {
                        Some(arrs.len() - 1)
                    }
                    Exp::Hist { is, vs, .. }
                        if [Some(p.var), flat]
                            .iter()
                            .flatten()
                            .any(|a| is == a || vs.contains(a)) =>
                    {
                        Some(vs.len())
                    }
                    _ => None,
                });
                let Some(others) = consumer else { continue };
                if self.uses.get(&p.var) != Some(&1) {
                    continue;
                }
                // Whether its buffers fit is decided where it is generated (`fused_map`).
                let Some(Exp::Map { lam, .. }) = projected(&st.exp, &[k]) else { continue };
                if cheap(self.prog, &lam) {
                    self.fused.insert(p.var, others);
                }
            }
        }
    }

    fn kernel(&mut self, name: String, wgsl: String, bufs: &[(BufRef, PrimType, Access)]) -> usize {
        self.kernels.push(Kernel { name, wgsl, buffers: bufs.iter().map(|b| b.2).collect() });
        self.kernels.len() - 1
    }

    fn stm(&mut self, s: &ir::Stm, out: &mut Vec<HostStm>) -> R<()> {
        self.stm_types(s);
        let all_scalar = s.pat.iter().all(|p| matches!(p.ty, Type::Prim(_)));
        let p0 = || s.pat.first().cloned().ok_or_else(|| internal(s.span, "no result"));
        match &s.exp {
            Exp::Atom(Atom::Var(v)) if !all_scalar => {
                out.push(HostStm::Alias { pat: p0()?, arr: *v });
            }
            // Arrays are immutable on the host, so a copy shares its source's buffer, unless an
            // update will write into it.
            Exp::Copy(v) if self.owned.contains(&p0()?.var) => {
                out.push(HostStm::Copy { pat: p0()?, arr: *v, span: s.span })
            }
            Exp::Copy(v) => out.push(HostStm::Alias { pat: p0()?, arr: *v }),
            Exp::Atom(_)
            | Exp::UnOp(..)
            | Exp::BinOp(..)
            | Exp::Cmp(..)
            | Exp::Convert { .. }
            | Exp::Math(..)
            | Exp::Assert { .. }
                if all_scalar =>
            {
                out.push(HostStm::Scalar(s.clone()))
            }
            Exp::Select(..) if all_scalar => out.push(HostStm::Scalar(s.clone())),
            Exp::Select(..) => {
                return Err(unsupported(s.span, "selecting between arrays on the host"))
            }
            Exp::Index { arr, idx } if all_scalar && fixed(idx).is_some() => {
                let idx = fixed(idx).unwrap_or_default();
                out.push(HostStm::ReadElem { pat: p0()?, arr: *arr, idx, span: s.span });
            }
            // A fused map's result is read flattened where the histogram reads it.
            Exp::Reshape { arr, .. } if matches!(self.virt.get(arr), Some(Exp::Map { .. })) => {
                self.virt.insert(p0()?.var, s.exp.clone());
            }
            Exp::Reshape { arr, .. } => {
                out.push(HostStm::Reshape { pat: p0()?, arr: *arr, span: s.span })
            }
            // An element, or a row (or block) that the device copies into place, at fixed
            // indices.
            Exp::Update { arr, idx, value } if fixed(idx).is_some() => {
                let element = matches!(self.types.get(arr), Some(t) if t.rank() == idx.len());
                let (pat, arr, span) = (p0()?, *arr, s.span);
                let in_place = self.writes_in_place(pat.var, arr);
                let idx = fixed(idx).unwrap_or_default();
                out.push(match value {
                    _ if element => {
                        HostStm::UpdateElem { pat, arr, idx, value: *value, in_place, span }
                    }
                    Atom::Var(value) => {
                        HostStm::UpdateRow { pat, arr, idx, value: *value, in_place, span }
                    }
                    Atom::Const(_) => return Err(internal(span, "a row update of a scalar")),
                });
            }
            // A slice update: a copy with the region replaced.
            Exp::Update { .. } => self.tabulate(s, out)?,
            Exp::If { cond: Atom::Var(c), then_body, else_body, .. } if self.rows.contains(c) => {
                self.row_map(s, then_body, else_body, out)?
            }
            Exp::If { cond, then_body, else_body, .. } => {
                let then_body = self.body(then_body)?;
                let else_body = self.body(else_body)?;
                out.push(HostStm::If {
                    pat: s.pat.clone(),
                    cond: *cond,
                    then_body,
                    else_body,
                    span: s.span,
                });
            }
            Exp::Loop { params, form, body } => {
                for (p, _) in params {
                    self.types.insert(p.var, p.ty.clone());
                }
                if let ir::LoopForm::For { i, it, .. } = form {
                    self.types.insert(*i, Type::Prim(PrimType::Int(*it)));
                }
                let body = self.body(body)?;
                out.push(HostStm::Loop {
                    pat: s.pat.clone(),
                    params: params.clone(),
                    form: form.clone(),
                    body,
                    span: s.span,
                });
            }
            Exp::Apply { fun, args } => {
                self.todo.push(*fun);
                out.push(HostStm::Call {
                    pat: s.pat.clone(),
                    fun: *fun,
                    args: args.clone(),
                    span: s.span,
                });
            }
            // Elementwise reductions of arrays: one invocation per element folds its column (or
            // a chunk of it, `split_reduce`).
            Exp::Reduce { .. } if s.pat.iter().all(|p| matches!(p.ty, Type::Array { .. })) => {
                if SumPart::of(s).is_some() {
                    self.split_reduce(&[s], out)?;
                } else {
                    self.tabulate(s, out)?;
                }
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } => {
                let tys = scalar_types(&s.pat)
                    .ok_or_else(|| unsupported(s.span, "reductions of arrays"))?;
                let p1 = self.reduce_pass1(s, lam, neutral, arrs, &tys, true)?;
                let flat = self.reduce_pass1(s, lam, neutral, arrs, &tys, false)?;
                let p2 = self.reduce_pass2(s, lam, neutral, &tys)?;
                out.push(HostStm::Reduce {
                    pat: s.pat.clone(),
                    w: *w,
                    passes: [p1, p2],
                    flat,
                    span: s.span,
                });
            }
            Exp::Scan { w, lam, neutral, arrs } => {
                let tys: Option<Vec<PrimType>> = s
                    .pat
                    .iter()
                    .map(|p| match &p.ty {
                        Type::Array { elem, shape } if shape.len() == 1 => Some(*elem),
                        _ => None,
                    })
                    .collect();
                let tys = tys.ok_or_else(|| unsupported(s.span, "scans of arrays"))?;
                let p1 = self.reduce_pass1(s, lam, neutral, arrs, &tys, true)?;
                let p2 = self.scan_pass2(s, lam, neutral, &tys)?;
                let p3 = self.scan_pass3(s, lam, neutral, arrs, &tys)?;
                let staged = match staged::per_invocation(&tys, self.wide) {
                    Some(k) => Some([
                        self.staged_scan(s, lam, neutral, arrs, &tys, k, false)?,
                        self.staged_scan(s, lam, neutral, arrs, &tys, k, true)?,
                    ]),
                    None => None,
                };
                let single = match staged::per_invocation(&tys, self.wide) {
                    Some(k) if staged::single_pass_fits(&tys, self.wide) => Some((
                        self.single_pass_scan(s, lam, neutral, arrs, &tys, k)?,
                        WORKGROUP * k,
                    )),
                    _ => None,
                };
                out.push(HostStm::Scan {
                    pat: s.pat.clone(),
                    w: *w,
                    passes: [p1, p2, p3],
                    staged,
                    single,
                    span: s.span,
                });
            }
            Exp::Scatter { dest, idx, vals, w } => self.scatter(s, *dest, idx, *vals, w, out)?,
            Exp::Hist { dest, lam, is, vs, w, .. } => self.hist(s, dest, lam, *is, vs, w, out)?,
            Exp::Ad { .. } => return Err(internal(s.span, "an AD construct survived")),
            Exp::Replicate { value, .. } | Exp::Iota { start: value, .. }
                if !all_scalar
                    && match value {
                        Atom::Const(_) => true,
                        Atom::Var(v) => matches!(self.types.get(v), Some(Type::Prim(_))),
                    } =>
            {
                self.virtual_array(s, out)?
            }
            // A transposition is read through its source where kernels use it (a matrix
            // product reads `b` for `transpose b`), and made only if the host itself uses it.
            Exp::Rearrange { arr, .. } if !self.virt.contains_key(arr) => {
                self.virtual_array(s, out)?
            }
            Exp::Map { .. } if s.pat.iter().any(|p| self.fused.contains_key(&p.var)) => {
                self.fused_map(s, out)?
            }
            Exp::Map { .. } if self.tileable(s) => self.tiled(s, out)?,
            Exp::Map { lam, arrs, .. } if seg_scan(lam) => self.seg_scan(s, lam, arrs, out)?,
            Exp::Map { lam, arrs, .. } if seg_reduce_at(self.prog, lam).is_some() => {
                self.seg_reduce(s, lam, arrs, out)?
            }
            Exp::Map { .. }
            | Exp::Iota { .. }
            | Exp::Replicate { .. }
            | Exp::Rearrange { .. }
            | Exp::Concat { .. }
            | Exp::ArrayLit { .. }
            | Exp::Index { .. } => self.tabulate(s, out)?,
            _ => return Err(internal(s.span, "a scalar expression with an array result")),
        }
        Ok(())
    }

    /// One invocation per element of the first result; each result of the statement with the
    /// same shape is written by the same kernel (a map's function runs once per element).
    fn tabulate(&mut self, s: &ir::Stm, out: &mut Vec<HostStm>) -> R<()> {
        let mut groups: Vec<(Vec<ir::Dim>, Vec<usize>)> = Vec::new();
        for (k, p) in s.pat.iter().enumerate() {
            let Type::Array { shape, .. } = &p.ty else {
                return Err(internal(s.span, "an array statement with a scalar result"));
            };
            match groups.iter_mut().find(|g| &g.0 == shape) {
                Some(g) => g.1.push(k),
                None => groups.push((shape.clone(), vec![k])),
            }
        }
        // A map whose results are all rows gets a kernel for when every row is empty (its
        // element kernels then have no invocations): one invocation per row runs what may fail
        // in the function, which `only_results` keeps. A map kept only for what may fail in its
        // function (its results were dead) is that kernel alone.
        let mut rows_check = false;
        if let Exp::Map { w, lam, .. } = &s.exp {
            let rows = !groups.is_empty() && groups.iter().all(|g| g.0.len() > 1);
            rows_check = rows && !super::kernel::only_results(&lam.body, &[]).0.stms.is_empty();
            if groups.is_empty() || rows_check {
                let d = match w {
                    Atom::Var(v) => ir::Dim::Var(*v),
                    Atom::Const(crate::prim::PrimValue::I64(c)) => ir::Dim::Const(*c),
                    Atom::Const(_) => return Err(internal(s.span, "a map's width")),
                };
                groups.insert(0, (vec![d], Vec::new()));
            }
        }
        let mut empty_rows = None;
        let fill = match &s.exp {
            Exp::Replicate { value: Atom::Const(c), .. } => Some(Atom::Const(*c)),
            Exp::Replicate { value: Atom::Var(v), .. }
                if matches!(self.types.get(v), Some(Type::Prim(_))) =>
            {
                Some(Atom::Var(*v))
            }
            _ => None,
        };
        for (g, (shape, ks)) in groups.into_iter().enumerate() {
            let ks2 = ks.clone();
            let mut checks = Vec::new();
            let dest = if g == 0 && rows_check { &mut checks } else { &mut *out };
            self.launch(s, shape, ks, dest, |gen, idx| {
                match &s.exp {
                    // A map's function runs once for all its results.
                    Exp::Map { lam, arrs, .. } => {
                        let i = idx.first().cloned().unwrap_or_default();
                        // Only what this kernel's results need.
                        let (body, used) = super::kernel::only_results(&lam.body, &ks2);
                        for (p, a) in lam.params.iter().zip(arrs) {
                            if !used.contains(&p.var) {
                                continue;
                            }
                            let v = match gen.var(*a)? {
                                KVal::Arr(a) => gen.index(&a, std::slice::from_ref(&i))?,
                                sc => sc,
                            };
                            gen.bind(p.var, v);
                        }
                        let res = gen.body(&body)?;
                        let mut vals = Vec::new();
                        for k in 0..ks2.len() {
                            let r = res.get(k).cloned().ok_or_else(|| internal(s.span, "map"))?;
                            vals.push(match r {
                                KVal::Arr(a) => gen.index(&a, &idx[1..])?,
                                sc => sc,
                            });
                        }
                        Ok(vals)
                    }
                    _ => {
                        gen.stm(s)?;
                        let mut vals = Vec::new();
                        for &k in &ks2 {
                            let v = s.pat.get(k).ok_or_else(|| internal(s.span, "pattern"))?.var;
                            vals.push(match gen.var(v)? {
                                KVal::Arr(a) => gen.index(&a, idx)?,
                                sc => sc,
                            });
                        }
                        Ok(vals)
                    }
                }
            })?;
            if let [HostStm::Launch { dispatch, .. }] = checks.as_slice() {
                empty_rows = Some(dispatch.clone());
                continue;
            }
            if let Some(HostStm::Launch { fill: f, empty_rows: e, .. }) = out.last_mut() {
                *f = fill;
                *e = empty_rows.clone();
            }
        }
        Ok(())
    }

    /// A kernel with one invocation per element of `shape`, writing results `ks` of `s`; `f`
    /// emits the code for the element at a multi-index and returns its values.
    fn launch(
        &mut self,
        s: &ir::Stm,
        shape: Vec<ir::Dim>,
        ks: Vec<usize>,
        out: &mut Vec<HostStm>,
        f: impl FnOnce(&mut Gen, &[String]) -> R<Vec<KVal>>,
    ) -> R<()> {
        let types = std::mem::take(&mut self.types);
        let mut sites = std::mem::take(&mut self.sites);
        let res = (|| {
            let mut gen = Gen::new(self.prog, &types, &self.virt, &mut sites, 0, s.span);
            gen.wide = self.wide;
            let dims = shape.iter().map(|d| gen.dim(d)).collect::<R<Vec<_>>>()?;
            let total = if dims.is_empty() { "1".to_string() } else { dims.join(" * ") };
            gen.line("let gid = i32((wg.x + wg.y * nwg.x) * 256u + lid);");
            gen.line(&format!("if (gid >= {total}) {{ return; }}"));
            let idx = gen.unravel("gid", &dims);
            let vals = f(&mut gen, &idx)?;
            for (&k, v) in ks.iter().zip(vals) {
                let p = s.pat.get(k).ok_or_else(|| internal(s.span, "pattern"))?;
                let KVal::Scalar(e, _) = v else {
                    return Err(internal(s.span, "an element that is an array"));
                };
                let elem = p.ty.elem();
                let b = gen.buffer(BufRef::Var(p.var), elem, Access::ReadWrite);
                gen.line(&format!("b{b}[gid] = {};", store(&e, elem)));
            }
            let wgsl = assemble(&gen, "", "");
            let args = gen.args.clone();
            Ok((wgsl, gen.bufs.clone(), args))
        })();
        self.types = types;
        self.sites = sites;
        let (wgsl, bufs, args) = res?;
        let (wgsl, bufs) = unused_buffers_dropped(wgsl, bufs);
        let name = format!("{}_{}", exp_name(&s.exp), self.kernels.len());
        let kernel = self.kernel(name, wgsl, &bufs);
        let outs = ks.iter().filter_map(|&k| s.pat.get(k).cloned()).collect();
        out.push(HostStm::Launch {
            outs,
            shape,
            dispatch: Dispatch { kernel, args, bufs: bufs.iter().map(|b| b.0).collect() },
            tiled: None,
            fill: None,
            empty_rows: None,
            span: s.span,
        });
        Ok(())
    }

    /// A map whose function ends in a scalar `reduce`: a workgroup per segment, and an ordinary
    /// launch (an invocation per segment) for short segments.
    fn seg_reduce(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        arrs: &[Var],
        out: &mut Vec<HostStm>,
    ) -> R<()> {
        let h =
            seg_reduce_at(self.prog, lam).ok_or_else(|| internal(s.span, "segmented reduce"))?;
        let mut single = Vec::new();
        self.tabulate(s, &mut single)?;
        let [HostStm::Launch { outs, shape, dispatch: thread, .. }] = single.as_slice() else {
            out.extend(single);
            return Ok(());
        };
        let (outs, shape, thread) = (outs.clone(), shape.clone(), thread.clone());
        let Some(Exp::Reduce { w: seg_w, .. }) = lam.body.stms.get(h).map(|r| &r.exp) else {
            return Err(internal(s.span, "segmented reduce"));
        };
        // The width as a host value: through copies in the function (an inlined callee binds
        // its size parameters that way); `None` when the function computes it.
        let mut seg_w = *seg_w;
        for st in lam.body.stms[..h].iter().rev() {
            if let (Atom::Var(v), [p], Exp::Atom(a)) = (seg_w, st.pat.as_slice(), &st.exp) {
                if p.var == v {
                    seg_w = *a;
                }
            }
        }
        let seg_w = match seg_w {
            Atom::Var(v) if !self.types.contains_key(&v) => None,
            a => Some(a),
        };
        let group = self.seg_group(s, &shape, lam, arrs, h)?;
        out.push(HostStm::SegReduce { outs, shape, seg_w, group, thread, span: s.span });
        Ok(())
    }

    /// A row map (`distribute` made it `if c then map else pieces`): its row kernels, one
    /// workgroup or one invocation per row (see `rows`), and the distributed pieces, which the
    /// executor runs where the row kernel's workgroup memory is too small for the row. A row
    /// kernel that cannot be generated or does not validate leaves only the pieces.
    fn row_map(
        &mut self,
        s: &ir::Stm,
        whole: &ir::Body,
        pieces: &ir::Body,
        out: &mut Vec<HostStm>,
    ) -> R<()> {
        let pieces = self.body(pieces)?;
        let (kernels, sites) = (self.kernels.len(), self.sites.len());
        let kernels_for = |g: &mut Self| -> R<Option<HostStm>> {
            let [ir::Stm { exp: Exp::Map { lam, arrs, .. }, .. }] = whole.stms.as_slice() else {
                return Ok(None);
            };
            let map = ir::Stm { pat: s.pat.clone(), exp: whole.stms[0].exp.clone(), span: s.span };
            let (group, local, bound) = g.row_kernel(&map, lam, arrs, true)?;
            let (thread, _, _) = g.row_kernel(&map, lam, arrs, false)?;
            for d in [&group, &thread] {
                let k = g.kernels.get(d.kernel).ok_or_else(|| internal(s.span, "row kernel"))?;
                super::validate(&k.wgsl).map_err(|e| internal(s.span, e))?;
            }
            // The row width that decides between a workgroup and an invocation per row: the
            // first row result's, else the first reduction's, as a host value.
            let width = s.pat.iter().find_map(|p| match &p.ty {
                Type::Array { shape, .. } => shape.get(1).map(|d| match d {
                    ir::Dim::Const(c) => Atom::Const(crate::prim::PrimValue::I64(*c)),
                    ir::Dim::Var(v) => Atom::Var(*v),
                }),
                _ => None,
            });
            let width = width.or_else(|| {
                lam.body.stms.iter().enumerate().find_map(|(k, st)| match &st.exp {
                    Exp::Reduce { w, .. } => {
                        super::distribute::host_width(lam, k, *w).map(|d| match d {
                            ir::Dim::Const(c) => Atom::Const(crate::prim::PrimValue::I64(c)),
                            ir::Dim::Var(v) => Atom::Var(v),
                        })
                    }
                    _ => None,
                })
            });
            Ok(Some(HostStm::RowMap {
                outs: s.pat.clone(),
                width,
                group,
                local,
                bound,
                thread,
                pieces: pieces.clone(),
                span: s.span,
            }))
        };
        match kernels_for(self) {
            Ok(Some(stm)) => out.push(stm),
            // An `unsupported` construct or a kernel that does not validate: the pieces alone.
            Ok(None) | Err(_) => {
                self.kernels.truncate(kernels);
                self.sites.truncate(sites);
                out.extend(pieces.stms);
                for (p, a) in s.pat.iter().zip(&pieces.result) {
                    let Atom::Var(v) = a else { return Err(internal(s.span, "row map")) };
                    out.push(HostStm::Alias { pat: p.clone(), arr: *v });
                }
            }
        }
        Ok(())
    }

    /// A row kernel of the map `s` (see `rows::emit`), with the host widths of the arrays it
    /// keeps in workgroup memory and their bound.
    fn row_kernel(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        arrs: &[Var],
        group: bool,
    ) -> R<(Dispatch, Vec<Atom>, i64)> {
        let mut local = (Vec::new(), 0);
        let name = if group { "rowgroup" } else { "rowthread" };
        let d = self.build(0, s.span, name.into(), |gen| {
            let rk = super::rows::emit(gen, s, lam, arrs, group)?;
            local = (rk.local, rk.bound);
            let size = if group { super::ROW_LANES } else { WORKGROUP };
            Ok(assemble_sized(gen, &rk.shared, "", size))
        })?;
        Ok((d, local.0, local.1))
    }

    /// A map whose function ends in a `scan` that it returns: one invocation per segment runs
    /// the statements before the scan and then scans its segment sequentially, writing every
    /// element (O(n·m) work; inside a kernel a scan is otherwise delayed, each element folding
    /// its prefix).
    fn seg_scan(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        arrs: &[Var],
        out: &mut Vec<HostStm>,
    ) -> R<()> {
        let k = seg_scan_at(lam).ok_or_else(|| internal(s.span, "segmented scan"))?;
        let (st, pre) = (&lam.body.stms[k], &lam.body.stms[..k]);
        let Exp::Scan { w, lam: op, neutral, arrs: sarrs } = &st.exp else {
            return Err(internal(s.span, "segmented scan"));
        };
        let Some(Type::Array { shape, .. }) = s.pat.first().map(|p| &p.ty) else {
            return Err(internal(s.span, "segmented scan"));
        };
        let outer = shape.first().copied().ok_or_else(|| internal(s.span, "segmented scan"))?;
        let dispatch = self.build(0, s.span, "segscan".into(), |gen| {
            let tys: Vec<PrimType> = st.pat.iter().map(|p| p.ty.elem()).collect();
            let n = gen.dim(&outer)?;
            gen.line("let gid = i32((wg.x + wg.y * nwg.x) * 256u + lid);");
            gen.line(&format!("if (gid >= {n}) {{ return; }}"));
            for (p, a) in lam.params.iter().zip(arrs) {
                let v = match gen.var(*a)? {
                    KVal::Arr(a) => gen.index(&a, &["gid".to_string()])?,
                    sc => sc,
                };
                gen.bind(p.var, v);
            }
            for x in pre {
                gen.stm(x)?;
            }
            let i32t = PrimType::Int(ir_i32());
            let m = gen.atom_i32(w)?;
            let m = gen.let_(&m, i32t);
            let accs = declare_accs(gen, neutral, &tys)?;
            let xs_arrs = sarrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
            let i = gen.fresh("i");
            let l = gen.open_count(&i, "0", &m, 1);
            let xs = xs_arrs
                .iter()
                .map(|a| match a {
                    KVal::Arr(a) => gen.index(a, std::slice::from_ref(&i)),
                    sc => Ok(sc.clone()),
                })
                .collect::<R<Vec<_>>>()?;
            let args =
                accs.iter().zip(&tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)).chain(xs).collect();
            let res = gen.apply_lambda(op, args)?;
            gen.assign(&res, &accs)?;
            for ((p, a), t) in s.pat.iter().zip(&accs).zip(&tys) {
                let b = gen.buffer(BufRef::Var(p.var), *t, Access::ReadWrite);
                gen.line(&format!("b{b}[gid * {m} + {i}] = {};", store(a, *t)));
            }
            gen.close_count(l);
            Ok(assemble(gen, "", ""))
        })?;
        out.push(HostStm::Launch {
            outs: s.pat.clone(),
            shape: vec![outer],
            dispatch,
            tiled: None,
            fill: None,
            empty_rows: None,
            span: s.span,
        });
        Ok(())
    }

    /// An array that kernels compute where they read it (`virt`). Its launch is still emitted;
    /// `body` drops it when the host itself never uses the array.
    fn virtual_array(&mut self, s: &ir::Stm, out: &mut Vec<HostStm>) -> R<()> {
        if let [p] = s.pat.as_slice() {
            self.virt.insert(p.var, s.exp.clone());
        }
        self.tabulate(s, out)
    }

    /// A map some of whose results may be computed where reductions read them (`find_fused`):
    /// each of those whose kernel would bind few enough buffers for the reduction's kernels to
    /// stay within WebGPU's 8 storage buffers (the error record, the reduction's output and
    /// other arrays, and what computing the element reads) is virtual, as its projection of the
    /// map; the others are launched as usual.
    fn fused_map(&mut self, s: &ir::Stm, out: &mut Vec<HostStm>) -> R<()> {
        let mut rest = Vec::new();
        for (k, p) in s.pat.iter().enumerate() {
            let (Some(e), Some(&others)) = (projected(&s.exp, &[k]), self.fused.get(&p.var)) else {
                rest.push(k);
                continue;
            };
            // The buffers the element's computation binds: those of the launch that would
            // compute the result alone, its output aside (generated, counted and dropped).
            let kernels = self.kernels.len();
            let mut launch = Vec::new();
            let one = ir::Stm { pat: vec![p.clone()], exp: e.clone(), span: s.span };
            let reads = match (self.tabulate(&one, &mut launch), launch.as_slice()) {
                (Ok(()), [HostStm::Launch { dispatch, .. }]) => dispatch.bufs.len() - 1,
                _ => usize::MAX,
            };
            self.kernels.truncate(kernels);
            if reads.saturating_add(others) <= FUSED_BUFFERS {
                self.virt.insert(p.var, e);
            } else {
                rest.push(k);
            }
        }
        if rest.is_empty() {
            return Ok(());
        }
        let exp = projected(&s.exp, &rest).ok_or_else(|| internal(s.span, "a fused map"))?;
        let pat = rest.iter().filter_map(|&k| s.pat.get(k).cloned()).collect();
        self.tabulate(&ir::Stm { pat, exp, span: s.span }, out)
    }

    /// Whether `s` is a matrix-product nest (`tile::product`) whose rows' length the host knows.
    fn tileable(&self, s: &ir::Stm) -> bool {
        tile::product(s).is_some_and(|p| match p.k {
            Atom::Const(_) => true,
            Atom::Var(v) => matches!(self.types.get(&v), Some(Type::Prim(_))),
        })
    }

    /// A matrix-product nest as one invocation per square block of the result, with a kernel for
    /// GPUs (workgroups staging tiles of the operands where their elements are one word each)
    /// and one for software devices (see [`tile`]).
    fn tiled(&mut self, s: &ir::Stm, out: &mut Vec<HostStm>) -> R<()> {
        let prod = tile::product(s).ok_or_else(|| internal(s.span, "matrix product"))?;
        let Some(res) = s.pat.first() else { return Err(internal(s.span, "matrix product")) };
        let Type::Array { shape, elem } = &res.ty else {
            return Err(internal(s.span, "matrix product"));
        };
        let (gpu, side, group) = if tile::groupable(&prod, *elem, self.wide) {
            let gpu = self.tile_kernel(s, &prod, tile::GROUP_SIDE, true, WORKGROUP)?;
            (gpu, tile::GROUP_SIDE, Some(tile::GROUP_TILE))
        } else {
            let gpu = self.tile_kernel(s, &prod, tile::GPU_SIDE, false, WORKGROUP)?;
            (gpu, tile::GPU_SIDE, None)
        };
        let software =
            self.tile_kernel(s, &prod, tile::SOFTWARE_SIDE, false, tile::SOFTWARE_GROUP)?;
        out.push(HostStm::Launch {
            outs: s.pat.clone(),
            shape: shape.clone(),
            dispatch: gpu,
            tiled: Some(Tiles { side, group, software, software_side: tile::SOFTWARE_SIDE }),
            fill: None,
            empty_rows: None,
            span: s.span,
        });
        Ok(())
    }

    /// The kernel of a matrix-product nest with blocks of side `side`, computed by workgroups
    /// that share tiles of the operands when `group` (`tile::emit_group`), else by workgroups
    /// of `size` invocations.
    fn tile_kernel(
        &mut self,
        s: &ir::Stm,
        prod: &tile::Product,
        side: u32,
        group: bool,
        size: u32,
    ) -> R<Dispatch> {
        let [res] = s.pat.as_slice() else { return Err(internal(s.span, "matrix product")) };
        let Type::Array { elem: acc_t, shape } = &res.ty else {
            return Err(internal(s.span, "matrix product"));
        };
        let (acc_t, shape) = (*acc_t, shape.clone());
        let types = std::mem::take(&mut self.types);
        let mut sites = std::mem::take(&mut self.sites);
        let res = (|| {
            let mut gen = Gen::new(self.prog, &types, &self.virt, &mut sites, 0, s.span);
            gen.wide = self.wide;
            let n = gen.dim(&shape[0])?;
            let n = gen.let_(&n, PrimType::Int(ir_i32()));
            let p = gen.dim(&shape[1])?;
            let p = gen.let_(&p, PrimType::Int(ir_i32()));
            let out_buf = gen.buffer(BufRef::Var(res.var), acc_t, Access::ReadWrite);
            let wgsl = if group {
                let shared = tile::emit_group(&mut gen, prod, [&n, &p], acc_t, out_buf, side)?;
                assemble(&gen, &shared, "")
            } else {
                tile::emit(&mut gen, prod, [&n, &p], acc_t, out_buf, side, size)?;
                assemble_sized(&gen, "", "", size)
            };
            Ok((wgsl, gen.bufs.clone(), gen.args.clone()))
        })();
        let name = match group {
            true => format!("matmul{0}x{0}tile{1}x{1}", side, 16 * side),
            false => format!("matmul{side}x{side}"),
        };
        self.finish(types, sites, res, name)
    }

    /// One workgroup per segment: every thread runs the function's statements before the
    /// reduction (scalars, cheap by construction), folds its share of the segment (strided when
    /// the operator commutes, so loads are coalesced; a contiguous chunk otherwise, so the
    /// order is kept), the partial values meet in a tree in workgroup memory, and the
    /// statements after the reduction run on its result.
    fn seg_group(
        &mut self,
        s: &ir::Stm,
        shape: &[ir::Dim],
        lam: &ir::Lambda,
        arrs: &[Var],
        h: usize,
    ) -> R<Dispatch> {
        self.build(0, s.span, "segreduce".into(), |gen| {
            let red = lam.body.stms.get(h).ok_or_else(|| internal(s.span, "segmented reduce"))?;
            let Exp::Reduce { w, lam: op, neutral, arrs: rarrs, commutative } = &red.exp else {
                return Err(internal(s.span, "segmented reduce"));
            };
            let tys = scalar_types(&red.pat).ok_or_else(|| internal(s.span, "segmented reduce"))?;
            let d0 = shape.first().ok_or_else(|| internal(s.span, "segmented reduce"))?;
            let n = gen.dim(d0)?;
            gen.line("let seg = i32(wg.x + wg.y * nwg.x);");
            gen.line(&format!("if (seg >= {n}) {{ return; }}"));
            for (p, a) in lam.params.iter().zip(arrs) {
                let v = match gen.var(*a)? {
                    KVal::Arr(a) => gen.index(&a, &["seg".to_string()])?,
                    sc => sc,
                };
                gen.bind(p.var, v);
            }
            for st in &lam.body.stms[..h] {
                gen.stm(st)?;
            }
            let i32t = PrimType::Int(ir_i32());
            let m = gen.atom_i32(w)?;
            let m = gen.let_(&m, i32t);
            let accs = declare_accs(gen, neutral, &tys)?;
            let xs_arrs = rarrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
            let i = gen.fresh("i");
            if *commutative {
                gen.open(&format!("for (var {i} = i32(lid); {i} < {m}; {i} = {i} + 256) {{"));
            } else {
                let chunk = gen.let_(&format!("({m} + 255) / 256"), i32t);
                let start = gen.let_(&format!("min(i32(lid) * {chunk}, {m})"), i32t);
                let end = gen.let_(&format!("min({start} + {chunk}, {m})"), i32t);
                gen.open(&format!("for (var {i} = {start}; {i} < {end}; {i}++) {{"));
            }
            let xs = xs_arrs
                .iter()
                .map(|a| match a {
                    KVal::Arr(a) => gen.index(a, std::slice::from_ref(&i)),
                    sc => Ok(sc.clone()),
                })
                .collect::<R<Vec<_>>>()?;
            fold_in(gen, op, &accs, &tys, xs)?;
            gen.close();
            tree_reduce(gen, op, &accs, &tys, s.span)?;
            for (j, (p, t)) in red.pat.iter().zip(&tys).enumerate() {
                let v = gen.let_(&load(&format!("sh{j}[0]"), *t), *t);
                gen.bind(p.var, KVal::Scalar(v, *t));
            }
            for st in &lam.body.stms[h + 1..] {
                gen.stm(st)?;
            }
            let results = lam.body.result.iter().map(|a| gen.atom(a)).collect::<R<Vec<_>>>()?;
            gen.open("if (lid == 0u) {");
            for (p, r) in s.pat.iter().zip(results) {
                let KVal::Scalar(e, _) = r else {
                    return Err(internal(s.span, "an element that is an array"));
                };
                let elem = p.ty.elem();
                let b = gen.buffer(BufRef::Var(p.var), elem, Access::ReadWrite);
                gen.line(&format!("b{b}[seg] = {};", store(&e, elem)));
            }
            gen.close();
            Ok(assemble(gen, &shared_decls(&tys, gen.wide), ""))
        })
    }

    /// `scatter` in two launches over the writes, with a temporary word per destination cell
    /// (an element, or a row when `vals[j]` is a row): `winners` marks each cell with the last
    /// `j` that writes it (`atomicMax` of `j + 1`: the interpreter's rule for duplicates), and
    /// `write` copies `vals[j]` to the cells `j` won. O(n + w) work; out-of-bounds writes are
    /// ignored.
    fn scatter(
        &mut self,
        s: &ir::Stm,
        dest: Var,
        idx: &[Var],
        vals: Var,
        w: &Atom,
        out: &mut Vec<HostStm>,
    ) -> R<()> {
        let p = s.pat.first().ok_or_else(|| internal(s.span, "scatter"))?;
        let winners = self.scatter_kernel(s, p, dest, idx, vals, false)?;
        let write = self.scatter_kernel(s, p, dest, idx, vals, true)?;
        let in_place = self.writes_in_place(p.var, dest);
        out.push(HostStm::Scatter {
            pat: p.clone(),
            dest,
            w: *w,
            ranks: idx.len(),
            winners,
            write,
            in_place,
            span: s.span,
        });
        Ok(())
    }

    /// One of `scatter`'s launches, one invocation per write (`winners`) or per element written
    /// (`write`). Reserved words: the number of writes and the elements per cell; binding
    /// `Temp(0)` holds the winners (atomic in `winners`).
    fn scatter_kernel(
        &mut self,
        s: &ir::Stm,
        p: &ir::Param,
        dest: Var,
        idx: &[Var],
        vals: Var,
        write: bool,
    ) -> R<Dispatch> {
        let elem = p.ty.elem();
        let i32t = PrimType::Int(ir_i32());
        let name = if write { "scatter_write" } else { "scatter_winners" };
        self.build(2, s.span, name.into(), |gen| {
            let acc = if write { Access::Read } else { Access::ReadWrite };
            let win = gen.buffer(BufRef::Temp(0), PrimType::Int(ir_u32()), acc);
            gen.line("let w = bitcast<i32>(ogm_args[0][0]);");
            gen.line("let row = bitcast<i32>(ogm_args[0][1]);");
            gen.line("let gid = i32((wg.x + wg.y * nwg.x) * 256u + lid);");
            let KVal::Arr(d) = gen.var(dest)? else { return Err(internal(s.span, "scatter dest")) };
            let dims = d.dims();
            let (j, e) = if write {
                gen.line("if (gid >= w * row) { return; }");
                ("(gid / row)", "(gid % row)")
            } else {
                gen.line("if (gid >= w) { return; }");
                ("gid", "0")
            };
            let j = gen.let_(j, i32t);
            // The cell that write `j` targets, flattened, when it is in bounds.
            let mut conds = Vec::new();
            let mut cell = "0".to_string();
            for (k, iv) in idx.iter().enumerate() {
                let KVal::Arr(ia) = gen.var(*iv)? else {
                    return Err(internal(s.span, "scatter index"));
                };
                let KVal::Scalar(ie, it) = gen.index(&ia, std::slice::from_ref(&j))? else {
                    return Err(internal(s.span, "scatter index"));
                };
                let d = dims.get(k).cloned().ok_or_else(|| internal(s.span, "scatter rank"))?;
                let i = gen.let_(&gen.to_i32(&ie, it), i32t);
                conds.push(format!("({i} >= 0 && {i} < {d})"));
                cell = format!("({cell} * {d} + {i})");
            }
            let conds = if conds.is_empty() { "true".to_string() } else { conds.join(" && ") };
            gen.open(&format!("if ({conds}) {{"));
            let cell = gen.let_(&cell, i32t);
            if write {
                gen.open(&format!("if (b{win}[{cell}] == u32({j} + 1)) {{"));
                let e = gen.let_(e, i32t);
                let rest = gen.unravel(&e, &dims[idx.len().min(dims.len())..]);
                let KVal::Arr(va) = gen.var(vals)? else {
                    return Err(internal(s.span, "scatter values"));
                };
                let mut vi = vec![j.clone()];
                vi.extend(rest);
                let KVal::Scalar(v, _) = gen.index(&va, &vi)? else {
                    return Err(internal(s.span, "scatter value"));
                };
                let b = gen.buffer(BufRef::Var(p.var), elem, Access::ReadWrite);
                gen.line(&format!("b{b}[{cell} * row + {e}] = {};", store(&v, elem)));
                gen.close();
            } else {
                gen.line(&format!("atomicMax(&b{win}[{cell}], u32({j} + 1));"));
            }
            gen.close();
            let wgsl = assemble(gen, "", "");
            if write {
                return Ok(wgsl);
            }
            atomic_binding(wgsl, win, "u32", "u32", s.span)
        })
    }

    /// May the statement binding `pat` write into its destination `dest`? `ir::inplace` must
    /// allow it, and no array that kernels compute where they read it may read `dest`: such a
    /// kernel may run after the statement, and `dest` must keep its values until then.
    fn writes_in_place(&self, pat: Var, dest: Var) -> bool {
        let deferred_read = self.virt.values().any(|e| {
            let mut found = false;
            crate::ir::lower::rewrite::walk_vars_exp(e, &mut |x| found |= x == dest);
            found
        });
        self.in_place.contains(&pat) && !deferred_read
    }

    /// `hist`: each bin folds, in index order, the values whose index is that bin (any operator,
    /// floats included, without atomics); O(bins·w) work.
    #[allow(clippy::too_many_arguments)]
    fn hist(
        &mut self,
        s: &ir::Stm,
        dest: &[Var],
        lam: &ir::Lambda,
        is: Var,
        vs: &[Var],
        w: &Atom,
        out: &mut Vec<HostStm>,
    ) -> R<()> {
        let mut tys = Vec::new();
        let mut shape = None;
        for p in &s.pat {
            match &p.ty {
                Type::Array { elem, shape: sh } if sh.len() == 1 => {
                    tys.push(*elem);
                    shape = Some(sh.clone());
                }
                _ => return Err(unsupported(s.span, "`hist` with array-valued bins")),
            }
        }
        let shape = shape.ok_or_else(|| internal(s.span, "hist"))?;
        // 64-bit atomics do not exist: a wide program's 64-bit bins take the general path.
        let atomic = atomic_op(lam).filter(|(_, t)| !(self.wide && super::scalar::narrowed(*t)));
        if let (Some(op), [d], [p], [v], Exp::Hist { neutral, .. }) =
            (atomic, dest, s.pat.as_slice(), vs, &s.exp)
        {
            let neutral = neutral.first().ok_or_else(|| internal(s.span, "hist neutral"))?;
            let local = self.hist_kernel(s, p, op, neutral, is, *v, true)?;
            let global = self.hist_kernel(s, p, op, neutral, is, *v, false)?;
            out.push(HostStm::Hist {
                pat: p.clone(),
                dest: *d,
                w: *w,
                local,
                global,
                span: s.span,
            });
            return Ok(());
        }
        let ks = (0..s.pat.len()).collect();
        self.launch(s, shape, ks, out, |gen, ix| {
            let bin = ix.first().cloned().unwrap_or_default();
            let mut accs = Vec::new();
            for (d, t) in dest.iter().zip(&tys) {
                let KVal::Arr(da) = gen.var(*d)? else { return Err(internal(s.span, "hist dest")) };
                let KVal::Scalar(e, _) = gen.index(&da, std::slice::from_ref(&bin))? else {
                    return Err(internal(s.span, "hist element"));
                };
                let n = gen.fresh("acc");
                gen.line(&format!("var {n}: {} = {e};", gen.ty(*t)));
                accs.push(n);
            }
            let ws = gen.atom_i32(w)?;
            let KVal::Arr(ia) = gen.var(is)? else { return Err(internal(s.span, "hist indices")) };
            let vas = vs.iter().map(|v| gen.var(*v)).collect::<R<Vec<_>>>()?;
            let l = gen.open_count("j", "0", &ws, 1);
            let KVal::Scalar(e, t) = gen.index(&ia, &["j".to_string()])? else {
                return Err(internal(s.span, "hist index"));
            };
            gen.open(&format!("if ({} == {bin}) {{", gen.to_i32(&e, t)));
            let mut args: Vec<KVal> =
                accs.iter().zip(&tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)).collect();
            for va in &vas {
                args.push(match va {
                    KVal::Arr(a) => gen.index(a, &["j".to_string()])?,
                    sc => sc.clone(),
                });
            }
            let res = gen.apply_lambda(lam, args)?;
            gen.assign(&res, &accs)?;
            gen.close();
            gen.close_count(l);
            Ok(accs.iter().zip(&tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)).collect())
        })
    }

    /// A `hist` with an atomic operator over every value, into the result buffer (a copy of
    /// `dest`, made by the executor): with `local`, each workgroup first builds its own
    /// histogram in workgroup memory (bins initialised to the neutral element) and then adds
    /// its non-neutral bins to the result, so contended bins cost workgroup atomics; otherwise
    /// each value updates the result directly. Floats use compare-and-swap on their bits.
    #[allow(clippy::too_many_arguments)]
    fn hist_kernel(
        &mut self,
        s: &ir::Stm,
        p: &ir::Param,
        op: (ir::BinOp, PrimType),
        neutral: &Atom,
        is: Var,
        vs: Var,
        local: bool,
    ) -> R<Dispatch> {
        let pairs = self.pair_rows(is, vs);
        let (bop, t) = op;
        let name = if local { "hist_local" } else { "hist_global" };
        self.build(2, s.span, name.into(), |gen| {
            let rb = gen.buffer(BufRef::Var(p.var), t, Access::ReadWrite);
            let (ne, _) = gen.scalar(neutral)?;
            let float = matches!(t, PrimType::Float(_));
            let atom_ty = match t {
                PrimType::Int(i) if i.signed() => "i32",
                _ => "u32",
            };
            // The neutral element as the word the atomics hold.
            let nw = if float { format!("bitcast<u32>({ne})") } else { ne.clone() };
            let nw =
                gen.let_(&nw, if float { PrimType::Int(crate::prim::IntType::U32) } else { t });
            gen.line("let w = bitcast<i32>(ogm_args[0][0]);");
            gen.line("let nb = bitcast<i32>(ogm_args[0][1]);");
            if local {
                gen.open("for (var b = i32(lid); b < nb; b = b + 256) {");
                gen.line(&format!("atomicStore(&lh[b], {nw});"));
                gen.close();
                gen.line("workgroupBarrier();");
            }
            let target =
                |bin: &str| if local { format!("lh[{bin}]") } else { format!("b{rb}[{bin}]") };
            let add = |gen: &mut Gen, bi: KVal, x: KVal| -> R<()> {
                let (KVal::Scalar(bi, bt), KVal::Scalar(x, _)) = (bi, x) else {
                    return Err(internal(s.span, "hist pair"));
                };
                let bin = gen.let_(&gen.to_i32(&bi, bt), PrimType::Int(crate::prim::IntType::I32));
                gen.open(&format!("if ({bin} >= 0 && {bin} < nb) {{"));
                atomic_update(gen, &target(&bin), bop, t, &x)?;
                gen.close();
                Ok(())
            };
            if let Some(rows) = &pairs {
                // Each invocation computes one element of the map making the pairs, and adds its
                // pairs one by one, at constant indices into its literals.
                let (is_rows, vs_rows) = (gen.var(rows.is)?, gen.var(rows.vs)?);
                let (KVal::Arr(ia), KVal::Arr(va)) = (is_rows, vs_rows) else {
                    return Err(internal(s.span, "hist pairs"));
                };
                let outer = rows.outer.iter().map(|d| gen.dim(d)).collect::<R<Vec<_>>>()?;
                gen.line(&format!("let rows = w / {};", rows.per_row()));
                gen.open(
                    "for (var r = i32(wg.x * 256u + lid); r < rows; r = r + i32(nwg.x * 256u)) {",
                );
                let at = gen.unravel("r", &outer);
                let (ir, vr) = (gen.index(&ia, &at)?, gen.index(&va, &at)?);
                for e in 0..rows.per_row() {
                    let mut rest = e;
                    let mut within = Vec::new();
                    for n in rows.inner.iter().rev() {
                        within.push((rest % n).to_string());
                        rest /= n;
                    }
                    within.reverse();
                    let pick = |gen: &mut Gen, row: &KVal| match row {
                        KVal::Arr(a) => gen.index(a, &within),
                        sc => Ok(sc.clone()),
                    };
                    let (bi, x) = (pick(gen, &ir)?, pick(gen, &vr)?);
                    add(gen, bi, x)?;
                }
                gen.close();
            } else {
                let KVal::Arr(ia) = gen.var(is)? else {
                    return Err(internal(s.span, "hist indices"));
                };
                let va = gen.var(vs)?;
                gen.open(
                    "for (var j = i32(wg.x * 256u + lid); j < w; j = j + i32(nwg.x * 256u)) {",
                );
                let bi = gen.index(&ia, &["j".to_string()])?;
                let x = match va {
                    KVal::Arr(a) => gen.index(&a, &["j".to_string()])?,
                    sc => sc,
                };
                add(gen, bi, x)?;
                gen.close();
            }
            let mut shared = String::new();
            if local {
                gen.line("workgroupBarrier();");
                gen.open("for (var b = i32(lid); b < nb; b = b + 256) {");
                gen.line("let x = atomicLoad(&lh[b]);");
                gen.open(&format!("if (x != {nw}) {{"));
                let xv = if float { "bitcast<f32>(x)".to_string() } else { "x".to_string() };
                atomic_update(gen, &format!("b{rb}[b]"), bop, t, &xv)?;
                gen.close();
                gen.close();
                shared = format!(
                    "var<workgroup> lh: array<atomic<{atom_ty}>, {}>;\n",
                    super::HIST_LOCAL_BINS
                );
            }
            let wgsl = assemble(gen, &shared, "");
            atomic_binding(wgsl, rb, gen.storage(t), atom_ty, s.span)
        })
    }

    /// When a histogram's indices and values are both flattened results of a fused map
    /// (virtual), with elements that end in a few constant dimensions (reverse mode's
    /// literals of contributions): the map's results, and their leading and trailing dims.
    fn pair_rows(&self, is: Var, vs: Var) -> Option<PairRows> {
        let source = |v: Var| match self.virt.get(&v) {
            Some(Exp::Reshape { arr, .. })
                if matches!(self.virt.get(arr), Some(Exp::Map { .. })) =>
            {
                Some(*arr)
            }
            _ => None,
        };
        let (ia, va) = (source(is)?, source(vs)?);
        let shape = match (self.types.get(&ia)?, self.types.get(&va)?) {
            (Type::Array { shape: a, .. }, Type::Array { shape: b, .. }) if a == b => a.clone(),
            _ => return None,
        };
        let consts = shape.iter().rev().map_while(|d| match d {
            ir::Dim::Const(c) => usize::try_from(*c).ok(),
            ir::Dim::Var(_) => None,
        });
        let mut inner: Vec<usize> = consts.collect();
        inner.reverse();
        // Leading dims remain to iterate over, and each row's pairs are unrolled.
        inner.drain(..inner.len().saturating_sub(shape.len().saturating_sub(1)));
        let rows =
            PairRows { is: ia, vs: va, outer: shape[..shape.len() - inner.len()].to_vec(), inner };
        (!rows.inner.is_empty() && (1..=MAX_ROW_PAIRS).contains(&rows.per_row())).then_some(rows)
    }

    /// Elementwise reductions of arrays (`sums`, of one width and result type), whole or in
    /// chunks (`HostStm::SplitReduce`); whether they were scheduled. Several are not when their
    /// joint kernel would bind more buffers than a WebGPU device need allow; the caller then
    /// schedules each alone.
    fn split_reduce(&mut self, sums: &[&ir::Stm], out: &mut Vec<HostStm>) -> R<bool> {
        let (kernels, sites) = (self.kernels.len(), self.sites.len());
        let parts_of = sums
            .iter()
            .map(|s| SumPart::of(s).ok_or_else(|| internal(s.span, "an elementwise reduction")))
            .collect::<R<Vec<_>>>()?;
        let (first, span) = (sums[0], sums[0].span);
        let Exp::Reduce { w, .. } = &first.exp else {
            return Err(internal(span, "an elementwise reduction"));
        };
        let mut whole = Vec::new();
        for s in sums {
            let mut launch = Vec::new();
            self.stm_types(s);
            self.tabulate(s, &mut launch)?;
            match launch.as_slice() {
                [HostStm::Launch { dispatch, .. }] => whole.push(dispatch.clone()),
                _ => return Err(internal(s.span, "an elementwise reduction")),
            }
        }
        let Type::Array { shape, elem: _ } = parts_of[0].p.ty.clone() else {
            return Err(internal(span, "an elementwise reduction"));
        };
        let parts = self.split_kernel(first, &parts_of, &shape, true)?;
        let finish = self.split_kernel(first, &parts_of, &shape, false)?;
        // The error record takes a storage buffer too.
        if sums.len() > 1 && parts.bufs.len().max(finish.bufs.len()) + 1 > JOINED_MAX_BUFFERS {
            self.kernels.truncate(kernels);
            self.sites.truncate(sites);
            return Ok(false);
        }
        let pat = parts_of.into_iter().map(|x| x.p).collect();
        out.push(HostStm::SplitReduce { pat, w: *w, whole, parts, finish, span });
        Ok(true)
    }

    fn stm_types(&mut self, s: &ir::Stm) {
        for p in &s.pat {
            self.types.insert(p.var, p.ty.clone());
        }
    }

    /// The chunks' kernel of a split reduction (`parts`), folding rows `[c·chunk, (c+1)·chunk)`
    /// of the arrays for element `e` of invocation `c·elements + e`, or the kernel folding
    /// each element's chunks in order; for each of `sums`.
    fn split_kernel(
        &mut self,
        s: &ir::Stm,
        sums: &[SumPart],
        shape: &[ir::Dim],
        parts: bool,
    ) -> R<Dispatch> {
        let name = if parts { "split_parts" } else { "split_finish" };
        self.build(2, s.span, name.into(), |gen| {
            let dims = shape.iter().map(|d| gen.dim(d)).collect::<R<Vec<_>>>()?;
            let elems = if dims.is_empty() { "1".to_string() } else { dims.join(" * ") };
            gen.line("let w = bitcast<i32>(ogm_args[0][0]);");
            gen.line("let parts = bitcast<i32>(ogm_args[0][1]);");
            gen.line(&format!("let elems = {elems};"));
            gen.line("let gid = i32((wg.x + wg.y * nwg.x) * 256u + lid);");
            let threads = if parts { "parts * elems" } else { "elems" };
            gen.line(&format!("if (gid >= {threads}) {{ return; }}"));
            gen.line("let e = gid % max(elems, 1);");
            let idx = gen.unravel("e", &dims);
            let mut accs = Vec::new();
            for x in sums {
                let t = x.p.ty.elem();
                let KVal::Arr(z) = gen.var(x.ne)? else {
                    return Err(internal(s.span, "neutral"));
                };
                let KVal::Scalar(z, _) = gen.index(&z, &idx)? else {
                    return Err(internal(s.span, "neutral element"));
                };
                let acc = gen.fresh("acc");
                gen.line(&format!("var {acc}: {} = {z};", gen.ty(t)));
                accs.push(acc);
            }
            if parts {
                gen.line("let chunk = (w + parts - 1) / parts;");
                gen.line("let start = (gid / max(elems, 1)) * chunk;");
                gen.open("for (var r = start; r < min(start + chunk, w); r++) {");
            } else {
                gen.open("for (var c = 0; c < parts; c++) {");
            }
            for (k, (x, acc)) in sums.iter().zip(&accs).enumerate() {
                let t = x.p.ty.elem();
                let v = if parts {
                    let KVal::Arr(a) = gen.var(x.arr)? else {
                        return Err(internal(s.span, "arrays"));
                    };
                    let at: Vec<String> =
                        std::iter::once("r".to_string()).chain(idx.iter().cloned()).collect();
                    gen.index(&a, &at)?
                } else {
                    let b = gen.buffer(BufRef::Temp(k), t, Access::ReadWrite);
                    KVal::Scalar(load(&format!("b{b}[c * elems + e]"), t), t)
                };
                let r = gen.apply_lambda(&x.op, vec![KVal::Scalar(acc.clone(), t), v])?;
                gen.assign(&r, std::slice::from_ref(acc))?;
            }
            gen.close();
            for (k, (x, acc)) in sums.iter().zip(&accs).enumerate() {
                let t = x.p.ty.elem();
                let b = if parts {
                    gen.buffer(BufRef::Temp(k), t, Access::ReadWrite)
                } else {
                    gen.buffer(BufRef::Var(x.p.var), t, Access::ReadWrite)
                };
                gen.line(&format!("b{b}[gid] = {};", store(acc, t)));
            }
            Ok(assemble(gen, "", ""))
        })
    }

    fn reduce_pass1(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        tys: &[PrimType],
        tree: bool,
    ) -> R<Dispatch> {
        let name = if tree { "pass1" } else { "flat" };
        self.build(2, s.span, format!("{}_{name}", exp_name(&s.exp)), |gen| {
            let comm = matches!(s.exp, Exp::Reduce { commutative: true, .. });
            let accs = thread_fold(gen, lam, neutral, arrs, tys, comm)?;
            if !tree {
                // Each thread's value is a partial; the threads of a contiguous chunk each are
                // in the order of their chunks.
                for (j, (a, t)) in accs.iter().zip(tys).enumerate() {
                    let b = gen.buffer(BufRef::Temp(j), *t, Access::ReadWrite);
                    gen.line(&format!("b{b}[gid] = {};", store(a, *t)));
                }
                return Ok(assemble(gen, "", ""));
            }
            let shared = shared_decls(tys, gen.wide);
            tree_reduce(gen, lam, &accs, tys, s.span)?;
            gen.open("if (lid == 0u) {");
            for (j, t) in tys.iter().enumerate() {
                let b = gen.buffer(BufRef::Temp(j), *t, Access::ReadWrite);
                gen.line(&format!("b{b}[wg.x] = sh{j}[0];"));
            }
            gen.close();
            Ok(assemble(gen, &shared, ""))
        })
    }

    /// Build one kernel: `emit` writes it with a fresh generator (`reserved` argument words
    /// before the kernel's own) and returns its WGSL.
    fn build(
        &mut self,
        reserved: usize,
        span: Span,
        name: String,
        emit: impl FnOnce(&mut Gen) -> R<String>,
    ) -> R<Dispatch> {
        let types = std::mem::take(&mut self.types);
        let mut sites = std::mem::take(&mut self.sites);
        let res = (|| {
            let mut gen = Gen::new(self.prog, &types, &self.virt, &mut sites, reserved, span);
            gen.wide = self.wide;
            let wgsl = emit(&mut gen)?;
            Ok((wgsl, gen.bufs.clone(), gen.args.clone()))
        })();
        self.finish(types, sites, res, name)
    }

    fn finish(
        &mut self,
        types: HashMap<Var, Type>,
        sites: Vec<Site>,
        res: R<Built>,
        name: String,
    ) -> R<Dispatch> {
        self.types = types;
        self.sites = sites;
        let (wgsl, bufs, args) = res?;
        let (wgsl, bufs) = unused_buffers_dropped(wgsl, bufs);
        let name = format!("{name}_{}", self.kernels.len());
        let kernel = self.kernel(name, wgsl, &bufs);
        Ok(Dispatch { kernel, args, bufs: bufs.iter().map(|b| b.0).collect() })
    }

    /// The partial values folded by one workgroup: each thread folds its share in order, then
    /// the threads' values meet in an order-keeping tree.
    fn reduce_pass2(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        neutral: &[Atom],
        tys: &[PrimType],
    ) -> R<Dispatch> {
        let k = tys.len();
        self.build(2, s.span, format!("{}_pass2", exp_name(&s.exp)), |gen| {
            partial_chunk(gen);
            let accs = declare_accs(gen, neutral, tys)?;
            let parts: Vec<usize> = tys
                .iter()
                .enumerate()
                .map(|(j, t)| gen.buffer(BufRef::Temp(j), *t, Access::Read))
                .collect();
            gen.open("for (var g = s2; g < e2; g++) {");
            fold_step(gen, lam, &accs, tys, |j| format!("b{}[g]", parts[j]))?;
            gen.close();
            let shared = shared_decls(tys, gen.wide);
            tree_reduce(gen, lam, &accs, tys, s.span)?;
            gen.open("if (lid == 0u) {");
            for (j, t) in tys.iter().enumerate() {
                let b = gen.buffer(BufRef::Temp(k + j), *t, Access::ReadWrite);
                gen.line(&format!("b{b}[0] = sh{j}[0];"));
            }
            gen.close();
            Ok(assemble(gen, &shared, ""))
        })
    }

    /// The exclusive scan of the partial values by one workgroup: each thread folds its share,
    /// one thread scans the threads' sums in workgroup memory, and each thread rescans its
    /// share from its sum's prefix, each partial becoming the fold of those before it.
    fn scan_pass2(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        neutral: &[Atom],
        tys: &[PrimType],
    ) -> R<Dispatch> {
        self.build(2, s.span, format!("{}_pass2", exp_name(&s.exp)), |gen| {
            partial_chunk(gen);
            let accs = declare_accs(gen, neutral, tys)?;
            let parts: Vec<usize> = tys
                .iter()
                .enumerate()
                .map(|(j, t)| gen.buffer(BufRef::Temp(j), *t, Access::ReadWrite))
                .collect();
            gen.open("for (var g = s2; g < e2; g++) {");
            fold_step(gen, lam, &accs, tys, |j| format!("b{}[g]", parts[j]))?;
            gen.close();
            let shared = shared_decls(tys, gen.wide);
            let neutrals = neutral.iter().map(|a| Ok(gen.scalar(a)?.0)).collect::<R<Vec<_>>>()?;
            let runs = exclusive_in_workgroup(gen, lam, &accs, tys, &neutrals)?;
            gen.open("for (var g = s2; g < e2; g++) {");
            let xs: Vec<KVal> = tys
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    KVal::Scalar(gen.let_(&load(&format!("b{}[g]", parts[j]), *t), *t), *t)
                })
                .collect();
            for (j, (a, t)) in runs.iter().zip(tys).enumerate() {
                gen.line(&format!("b{}[g] = {};", parts[j], store(a, *t)));
            }
            fold_in(gen, lam, &runs, tys, xs)?;
            gen.close();
            Ok(assemble(gen, &shared, ""))
        })
    }

    /// A scan's first (`!third`) or third pass with tiles staged in workgroup memory
    /// ([`staged`]).
    #[allow(clippy::too_many_arguments)]
    fn staged_scan(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        tys: &[PrimType],
        k: u32,
        third: bool,
    ) -> R<Dispatch> {
        let name = if third { "staged_pass3" } else { "staged_pass1" };
        self.build(2, s.span, format!("{}_{name}", exp_name(&s.exp)), |gen| {
            let access = if third { Access::Read } else { Access::ReadWrite };
            let parts: Vec<usize> = tys
                .iter()
                .enumerate()
                .map(|(j, t)| gen.buffer(BufRef::Temp(j), *t, access))
                .collect();
            if third {
                let outs = scan_outputs(gen, s, tys)?;
                staged::pass3(gen, lam, neutral, arrs, tys, k, &parts, &outs)?;
            } else if staged::commutes(lam) {
                staged::pass1_commutative(gen, lam, neutral, arrs, tys, k, &parts)?;
                return Ok(assemble(gen, &shared_decls(tys, gen.wide), ""));
            } else {
                staged::pass1(gen, lam, neutral, arrs, tys, k, &parts)?;
            }
            Ok(assemble(gen, &staged::shared_decls(tys, k, gen.wide), ""))
        })
    }

    /// A scan in one pass with a decoupled look-back ([`staged::single_pass`]); its temporary
    /// buffer is the look-back's records, zeroed.
    fn single_pass_scan(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        tys: &[PrimType],
        k: u32,
    ) -> R<Dispatch> {
        self.build(3, s.span, format!("{}_single_pass", exp_name(&s.exp)), |gen| {
            // Reserved words: the width, the tiles and the look-back's polls.
            let flags = gen.buffer(BufRef::Temp(0), PrimType::Int(ir_u32()), Access::ReadWrite);
            let outs = scan_outputs(gen, s, tys)?;
            staged::single_pass(gen, lam, neutral, arrs, tys, k, flags, &outs)?;
            let wgsl = assemble(gen, &staged::single_pass_decls(tys, k, gen.wide), "");
            atomic_binding(wgsl, flags, "u32", "u32", s.span)
        })
    }

    fn scan_pass3(
        &mut self,
        s: &ir::Stm,
        lam: &ir::Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        tys: &[PrimType],
    ) -> R<Dispatch> {
        self.build(2, s.span, format!("{}_pass3", exp_name(&s.exp)), |gen| {
            let sums = thread_fold(gen, lam, neutral, arrs, tys, false)?;
            let shared = shared_decls(tys, gen.wide);
            // The group's prefix (pass 2) starts the scan of its threads' sums.
            let firsts: Vec<String> = tys
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let b = gen.buffer(BufRef::Temp(j), *t, Access::Read);
                    load(&format!("b{b}[wg.x]"), *t)
                })
                .collect();
            let accs = exclusive_in_workgroup(gen, lam, &sums, tys, &firsts)?;
            let arrs_k = arrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
            let outs: Vec<usize> = tys
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let p = s.pat.get(j).ok_or_else(|| internal(s.span, "scan pattern"))?;
                    Ok(gen.buffer(BufRef::Var(p.var), *t, Access::ReadWrite))
                })
                .collect::<R<Vec<_>>>()?;
            let step = |gen: &mut Gen, at: &str| -> R<()> {
                for (j, (a, t)) in accs.iter().zip(tys).enumerate() {
                    gen.line(&format!("b{}[{at}] = {};", outs[j], store(a, *t)));
                }
                Ok(())
            };
            let u = CHUNK_UNROLL;
            gen.line("i = start;");
            gen.open(&format!("for (; i < end - {}; i += {u}) {{", u - 1));
            let offsets: Vec<String> = (0..u).map(|j| format!("(i + {j})")).collect();
            let loaded =
                offsets.iter().map(|o| elements(gen, &arrs_k, o)).collect::<R<Vec<_>>>()?;
            for (o, xs) in offsets.iter().zip(loaded) {
                fold_in(gen, lam, &accs, tys, xs)?;
                step(gen, o)?;
            }
            gen.close();
            gen.open("for (; i < end; i++) {");
            let xs = elements(gen, &arrs_k, "i")?;
            fold_in(gen, lam, &accs, tys, xs)?;
            step(gen, "i")?;
            gen.close();
            Ok(assemble(gen, &shared, ""))
        })
    }
}

/// Each thread's exclusive prefix of the threads' `accs` in order, starting from `first`, as
/// fresh variables: the values meet in workgroup memory, where one thread scans them.
fn exclusive_in_workgroup(
    gen: &mut Gen,
    lam: &ir::Lambda,
    accs: &[String],
    tys: &[PrimType],
    first: &[String],
) -> R<Vec<String>> {
    for (j, (a, t)) in accs.iter().zip(tys).enumerate() {
        gen.line(&format!("sh{j}[lid] = {};", store(a, *t)));
    }
    gen.line("workgroupBarrier();");
    gen.open("if (lid == 0u) {");
    let runs: Vec<String> = tys
        .iter()
        .zip(first)
        .map(|(t, init)| {
            let n = gen.fresh("run");
            gen.line(&format!("var {n}: {} = {init};", gen.ty(*t)));
            n
        })
        .collect();
    gen.open("for (var l = 0u; l < 256u; l++) {");
    let xs = shared_values(gen, tys, "sh", "l");
    for (j, (r, t)) in runs.iter().zip(tys).enumerate() {
        gen.line(&format!("sh{j}[l] = {};", store(r, *t)));
    }
    fold_in(gen, lam, &runs, tys, xs)?;
    gen.close();
    gen.close();
    gen.line("workgroupBarrier();");
    let out: Vec<String> = tys
        .iter()
        .enumerate()
        .map(|(j, t)| {
            let n = gen.fresh("acc");
            gen.line(&format!("var {n}: {} = {};", gen.ty(*t), load(&format!("sh{j}[lid]"), *t)));
            n
        })
        .collect();
    Ok(out)
}

/// The values `{arr}{j}[at]` of workgroup arrays (one per type of `tys`), each bound to a
/// variable, as arguments to an operator.
pub(super) fn shared_values(gen: &mut Gen, tys: &[PrimType], arr: &str, at: &str) -> Vec<KVal> {
    tys.iter()
        .enumerate()
        .map(|(j, t)| KVal::Scalar(gen.let_(&load(&format!("{arr}{j}[{at}]"), *t), *t), *t))
        .collect()
}

/// Store each thread's `accs` in workgroup memory and combine them with a tree that keeps their
/// order (neighbours first); afterwards `sh_j[0]` holds the workgroup's values, visible to all.
pub(super) fn tree_reduce(
    gen: &mut Gen,
    lam: &ir::Lambda,
    accs: &[String],
    tys: &[PrimType],
    span: crate::diag::Span,
) -> R<()> {
    for (j, (a, t)) in accs.iter().zip(tys).enumerate() {
        gen.line(&format!("sh{j}[lid] = {};", store(a, *t)));
    }
    gen.line("workgroupBarrier();");
    gen.open("for (var s = 1u; s < 256u; s = s * 2u) {");
    gen.open("if (lid % (2u * s) == 0u) {");
    let mut args = shared_values(gen, tys, "sh", "lid");
    args.extend(shared_values(gen, tys, "sh", "lid + s"));
    let res = gen.apply_lambda(lam, args)?;
    for (j, (r, t)) in res.iter().zip(tys).enumerate() {
        let KVal::Scalar(e, _) = r else { return Err(internal(span, "reduce")) };
        gen.line(&format!("sh{j}[lid] = {};", store(e, *t)));
    }
    gen.close();
    gen.line("workgroupBarrier();");
    gen.close();
    Ok(())
}

/// Whether a map's function ends in a `scan` of vectors whose results it returns (a segmented
/// scan).
fn seg_scan(lam: &ir::Lambda) -> bool {
    seg_scan_at(lam).is_some()
}

fn seg_scan_at(lam: &ir::Lambda) -> Option<usize> {
    let k = lam.body.stms.iter().rposition(|st| matches!(st.exp, Exp::Scan { .. }))?;
    let st = &lam.body.stms[k];
    (st.pat.iter().all(|p| p.ty.rank() == 1) && super::distribute::returns(lam, k)).then_some(k)
}

/// The statement of a map's function that makes the map a segmented reduction: the function
/// returns scalars, this statement is a `reduce` of scalars, and no other statement loops.
fn seg_reduce_at(prog: &ir::Program, lam: &ir::Lambda) -> Option<usize> {
    if !lam.ret.iter().all(|t| matches!(t, Type::Prim(_))) {
        return None;
    }
    let mut found = None;
    for (k, st) in lam.body.stms.iter().enumerate() {
        if super::distribute::heavy(prog, st) {
            let is_reduce = matches!(st.exp, Exp::Reduce { .. })
                && st.pat.iter().all(|p| matches!(p.ty, Type::Prim(_)));
            if !is_reduce || found.is_some() {
                return None;
            }
            found = Some(k);
        }
    }
    found
}

fn ir_i32() -> crate::prim::IntType {
    crate::prim::IntType::I32
}

/// The bindings of a scan's results, one per array of `s`'s pattern.
fn scan_outputs(gen: &mut Gen, s: &ir::Stm, tys: &[PrimType]) -> R<Vec<usize>> {
    tys.iter()
        .enumerate()
        .map(|(j, t)| {
            let p = s.pat.get(j).ok_or_else(|| internal(s.span, "scan pattern"))?;
            Ok(gen.buffer(BufRef::Var(p.var), *t, Access::ReadWrite))
        })
        .collect()
}

fn ir_u32() -> crate::prim::IntType {
    crate::prim::IntType::U32
}

/// `wgsl` with its storage buffer `b{buf}` of `plain` elements declared as an array of
/// `atomic<atom>` (a kernel's code is generated against the plain declaration).
fn atomic_binding(
    wgsl: String,
    buf: usize,
    plain: &str,
    atom: &str,
    span: crate::diag::Span,
) -> R<String> {
    let decl = format!("var<storage, read_write> b{buf}: array<{plain}>;");
    if !wgsl.contains(&decl) {
        return Err(internal(span, "an atomic buffer's binding"));
    }
    let atomic = format!("var<storage, read_write> b{buf}: array<atomic<{atom}>>;");
    Ok(wgsl.replacen(&decl, &atomic, 1))
}

/// The operator of a `hist` when it has an atomic form: `\a b -> a op b` on one 32-bit value
/// (i32/u32, and i64/u64, which the GPU narrows, with `+`, `min`, `max` and the bitwise
/// operators; f32 with `+`, `min` and `max` by compare-and-swap).
fn atomic_op(lam: &ir::Lambda) -> Option<(ir::BinOp, PrimType)> {
    use crate::prim::{FloatType, IntType};
    use ir::BinOp as B;
    // Every operator with an atomic form is commutative: the operands' order does not matter.
    let (op, t, _) = crate::ir::operators::single_operator(lam)?;
    let ok = match t {
        PrimType::Int(IntType::I32 | IntType::U32 | IntType::I64 | IntType::U64) => {
            matches!(op, B::Add | B::Min | B::Max | B::And | B::Or | B::Xor)
        }
        PrimType::Float(FloatType::F32) => matches!(op, B::Add | B::Min | B::Max),
        _ => false,
    };
    ok.then_some((op, t))
}

/// `target = target op x` atomically (`target` names an atomic word).
fn atomic_update(gen: &mut Gen, target: &str, op: ir::BinOp, t: PrimType, x: &str) -> R<()> {
    use ir::BinOp as B;
    if let PrimType::Float(_) = t {
        gen.open("loop {");
        gen.line(&format!("let old = atomicLoad(&{target});"));
        let e = super::scalar::binop(op, t, "bitcast<f32>(old)", x, false)
            .ok_or_else(|| internal(crate::diag::Span::DUMMY, "hist operator"))?;
        gen.line(&format!(
            "if (atomicCompareExchangeWeak(&{target}, old, bitcast<u32>({e})).exchanged) {{ break; }}"
        ));
        gen.close();
        return Ok(());
    }
    if op == B::Add && super::scalar::narrowed(t) {
        // A 64-bit sum: the bin's sum so far plus `x` must still fit in 32 bits.
        let old = gen.let_(&format!("atomicAdd(&{target}, {x})"), t);
        let r = gen.let_(&format!("({old} + {x})"), t);
        if let Some(c) = super::scalar::binop_overflow(op, t, &old, x, &r) {
            gen.fail_narrowed(&c, "{} + {}".into(), t, &[(old, t), (x.to_string(), t)]);
        }
        return Ok(());
    }
    let f = match op {
        B::Add => "atomicAdd",
        B::Min => "atomicMin",
        B::Max => "atomicMax",
        B::And => "atomicAnd",
        B::Or => "atomicOr",
        _ => "atomicXor",
    };
    gen.line(&format!("{f}(&{target}, {x});"));
    Ok(())
}

/// `var acc_j = neutral_j;` for each value.
pub(super) fn declare_accs(gen: &mut Gen, neutral: &[Atom], tys: &[PrimType]) -> R<Vec<String>> {
    let mut accs = Vec::new();
    for (a, t) in neutral.iter().zip(tys) {
        let (e, _) = gen.scalar(a)?;
        let n = gen.fresh("acc");
        gen.line(&format!("var {n}: {} = {e};", gen.ty(*t)));
        accs.push(n);
    }
    Ok(accs)
}

/// `accs = lam(accs, x)` where `x_j` is read by `elem(j)` from a buffer.
fn fold_step(
    gen: &mut Gen,
    lam: &ir::Lambda,
    accs: &[String],
    tys: &[PrimType],
    elem: impl Fn(usize) -> String,
) -> R<()> {
    let xs = tys
        .iter()
        .enumerate()
        .map(|(j, t)| KVal::Scalar(gen.let_(&load(&elem(j), *t), *t), *t))
        .collect();
    fold_in(gen, lam, accs, tys, xs)
}

/// Elements an invocation loads before it folds them, in the strided and in the contiguous
/// order: a GPU keeps its memory busy only with many loads in flight, and a fold that loads one
/// element per step (each step waiting for the last) reached 7% of an H100's bandwidth. Eight
/// 32-bit elements are one 32-byte memory sector, so the contiguous chunks are whole sectors.
const STRIDED_UNROLL: usize = 4;
const CHUNK_UNROLL: usize = 8;

/// Each thread folds its share of the `w` elements (argument word 0): with a `strided`
/// (commutative) operator the elements `gid, gid + nthreads, ...`, so neighbouring threads load
/// neighbouring elements (coalesced on a GPU, one vector load for a software device's lanes);
/// otherwise a contiguous chunk `[start, end)`, in order, whose length is a multiple of
/// [`CHUNK_UNROLL`]. The chunking is the same in every pass, so a scan's third pass revisits the
/// elements of its first. Either way the elements are folded in the order of the loop without
/// unrolling, so the result does not depend on it.
fn thread_fold(
    gen: &mut Gen,
    lam: &ir::Lambda,
    neutral: &[Atom],
    arrs: &[Var],
    tys: &[PrimType],
    strided: bool,
) -> R<Vec<String>> {
    gen.line("let w = bitcast<i32>(ogm_args[0][0]);");
    gen.line("let nthreads = i32(nwg.x * 256u);");
    gen.line("let gid = i32(wg.x * 256u + lid);");
    if !strided {
        let u = CHUNK_UNROLL;
        gen.line(&format!("let chunk = ((w + nthreads - 1) / nthreads + {}) / {u} * {u};", u - 1));
        gen.line("let start = min(gid * chunk, w);");
        gen.line("let end = min(start + chunk, w);");
    }
    let accs = declare_accs(gen, neutral, tys)?;
    let arrs = arrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
    if strided {
        fold_strided(gen, lam, &accs, tys, &arrs, ["gid", "w", "nthreads"])?;
    } else {
        gen.line("var i = start;");
        let u = CHUNK_UNROLL;
        gen.open(&format!("for (; i < end - {}; i += {u}) {{", u - 1));
        let offsets: Vec<String> = (0..u).map(|j| format!("(i + {j})")).collect();
        fold_loaded(gen, lam, &accs, tys, &arrs, &offsets)?;
        gen.close();
        gen.open("for (; i < end; i++) {");
        fold_loaded(gen, lam, &accs, tys, &arrs, &["i".to_string()])?;
        gen.close();
    }
    Ok(accs)
}

/// Fold the elements `first, first + step, ...` below `end` into `accs`, [`STRIDED_UNROLL`] at a
/// time and then one by one (`i` is the loop's variable).
pub(super) fn fold_strided(
    gen: &mut Gen,
    lam: &ir::Lambda,
    accs: &[String],
    tys: &[PrimType],
    arrs: &[KVal],
    [first, end, step]: [&str; 3],
) -> R<()> {
    let u = STRIDED_UNROLL;
    gen.line(&format!("var i = {first};"));
    gen.open(&format!("for (; i < {end} - {} * {step}; i += {u} * {step}) {{", u - 1));
    let offsets: Vec<String> = (0..u).map(|j| format!("(i + {j} * {step})")).collect();
    fold_loaded(gen, lam, accs, tys, arrs, &offsets)?;
    gen.close();
    gen.open(&format!("for (; i < {end}; i += {step}) {{"));
    fold_loaded(gen, lam, accs, tys, arrs, &["i".to_string()])?;
    gen.close();
    Ok(())
}

/// Load the elements at every index of `at`, then fold them into `accs` in that order.
fn fold_loaded(
    gen: &mut Gen,
    lam: &ir::Lambda,
    accs: &[String],
    tys: &[PrimType],
    arrs: &[KVal],
    at: &[String],
) -> R<()> {
    let loaded = at.iter().map(|i| elements(gen, arrs, i)).collect::<R<Vec<_>>>()?;
    for xs in loaded {
        fold_in(gen, lam, accs, tys, xs)?;
    }
    Ok(())
}

/// The elements at index `i` of the folded arrays, each bound to a variable (so an unrolled
/// step issues all its loads before the first fold).
pub(super) fn elements(gen: &mut Gen, arrs: &[KVal], i: &str) -> R<Vec<KVal>> {
    arrs.iter()
        .map(|a| match a {
            KVal::Arr(a) => match gen.index(a, &[i.to_string()])? {
                KVal::Scalar(e, t) => Ok(KVal::Scalar(gen.let_(&e, t), t)),
                v => Ok(v),
            },
            sc => Ok(sc.clone()),
        })
        .collect()
}

/// `accs = lam(accs, xs)`.
pub(super) fn fold_in(
    gen: &mut Gen,
    lam: &ir::Lambda,
    accs: &[String],
    tys: &[PrimType],
    xs: Vec<KVal>,
) -> R<()> {
    let args = accs.iter().zip(tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)).chain(xs).collect();
    let res = gen.apply_lambda(lam, args)?;
    gen.assign(&res, accs)
}

/// In a pass over the partial values (argument word 1 counts them), each thread's contiguous
/// share `[s2, e2)` of them, in order.
fn partial_chunk(gen: &mut Gen) {
    gen.line("let parts = i32(ogm_args[0][1]);");
    gen.line("let c2 = (parts + 255) / 256;");
    gen.line("let s2 = min(i32(lid) * c2, parts);");
    gen.line("let e2 = min(s2 + c2, parts);");
}

fn shared_decls(tys: &[PrimType], wide: bool) -> String {
    tys.iter()
        .enumerate()
        .map(|(j, t)| {
            let t = super::storage_type(*t, wide);
            format!("var<workgroup> sh{j}: array<{t}, {WORKGROUP}>;\n")
        })
        .collect()
}

fn exp_name(e: &Exp) -> &'static str {
    match e {
        Exp::Map { .. } => "map",
        Exp::Iota { .. } => "iota",
        Exp::Replicate { .. } => "replicate",
        Exp::Rearrange { .. } => "rearrange",
        Exp::Concat { .. } => "concat",
        Exp::ArrayLit { .. } => "array",
        Exp::Index { .. } => "slice",
        Exp::Reduce { .. } => "reduce",
        Exp::Scan { .. } => "scan",
        Exp::Scatter { .. } => "scatter",
        Exp::Hist { .. } => "hist",
        Exp::Update { .. } => "update",
        _ => "kernel",
    }
}
