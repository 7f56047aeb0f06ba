//! `ogham show wgsl`: each kernel's WGSL (without the prelude helpers it includes), then the host schedule of
//! each host function, in the core IR's notation.

use std::fmt::Write;

use super::{prelude, BufRef, Dispatch, GpuProgram, HostBody, HostStm, Tiles};
use crate::ir::{self, Atom, Dim, Param, Type};

pub fn print_program(gp: &GpuProgram) -> String {
    let mut out = String::new();
    for (k, kernel) in gp.kernels.iter().enumerate() {
        let body = kernel.wgsl.split_once(prelude::END).map_or(kernel.wgsl.as_str(), |(_, b)| b);
        let _ = writeln!(out, "// kernel {k}: {}", kernel.name);
        out.push_str(body.trim_start());
        out.push('\n');
    }
    let names = ir::Program { names: gp.names.clone(), ..Default::default() };
    let p = Printer { names: &names };
    for (k, f) in gp.funs.iter().enumerate() {
        if f.params.is_empty() && f.body.stms.is_empty() && f.body.result.is_empty() {
            continue;
        }
        let params: Vec<String> = f.params.iter().map(|x| p.param(x)).collect();
        let _ = writeln!(out, "host {} #{k} ({}) =", f.name, params.join(", "));
        p.body(&mut out, &f.body, 1);
        out.push('\n');
    }
    for e in &gp.entries {
        let _ = writeln!(out, "entry {} = #{}", e.name, e.fun);
    }
    for (name, d) in &gp.rejected {
        let _ = writeln!(out, "-- entry {name}: not compiled for the GPU: {}", d.message);
    }
    out
}

struct Printer<'a> {
    names: &'a ir::Program,
}

impl Printer<'_> {
    fn var(&self, v: ir::Var) -> String {
        ir::print::var_name(self.names, v)
    }

    fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.var(*v),
            Atom::Const(c) => ir::print::prim_value(*c),
        }
    }

    fn dim(&self, d: &Dim) -> String {
        match d {
            Dim::Const(c) => c.to_string(),
            Dim::Var(v) => self.var(*v),
        }
    }

    fn ty(&self, t: &Type) -> String {
        match t {
            Type::Prim(p) => p.name().to_string(),
            Type::Array { elem, shape } => {
                let dims: String = shape.iter().map(|d| format!("[{}]", self.dim(d))).collect();
                format!("{dims}{}", elem.name())
            }
        }
    }

    fn param(&self, p: &Param) -> String {
        format!("{}: {}", self.var(p.var), self.ty(&p.ty))
    }

    fn pat(&self, ps: &[Param]) -> String {
        let v: Vec<String> = ps.iter().map(|p| self.param(p)).collect();
        if v.len() == 1 {
            v.join("")
        } else {
            format!("({})", v.join(", "))
        }
    }

    fn atoms(&self, a: &[Atom]) -> String {
        a.iter().map(|x| self.atom(x)).collect::<Vec<_>>().join(", ")
    }

    fn dispatch(&self, d: &Dispatch) -> String {
        let bufs: Vec<String> = d
            .bufs
            .iter()
            .map(|b| match b {
                BufRef::Var(v) => self.var(*v),
                BufRef::Temp(k) => format!("tmp{k}"),
            })
            .collect();
        format!(
            "kernel {}(args [{}], buffers [{}])",
            d.kernel,
            self.atoms(&d.args),
            bufs.join(", ")
        )
    }

    fn body(&self, out: &mut String, b: &HostBody, ind: usize) {
        let pad = "  ".repeat(ind);
        for s in &b.stms {
            match s {
                HostStm::Scalar(st) => {
                    let one = ir::Body { stms: vec![st.clone()], result: vec![] };
                    let text = ir::print::print_body(self.names, &one, 0);
                    for l in text.lines().filter(|l| !l.trim_start().starts_with("in ")) {
                        let _ = writeln!(out, "{pad}{l}");
                    }
                }
                HostStm::Launch { outs, shape, dispatch, tiled, fill, empty_rows, .. } => {
                    let dims: String = shape.iter().map(|d| format!("[{}]", self.dim(d))).collect();
                    let per = match tiled {
                        Some(Tiles { group: Some(g), side, .. }) => {
                            format!(" per {g}x{g} tile (a {side}x{side} block per invocation)")
                        }
                        Some(t) => format!(" per {0}x{0} block", t.side),
                        None => String::new(),
                    };
                    let _ = writeln!(
                        out,
                        "{pad}let {} = launch{dims}{per} {}",
                        self.pat(outs),
                        self.dispatch(dispatch)
                    );
                    if let Some(v) = fill {
                        let _ = writeln!(out, "{pad}  when small: {} on the host", self.atom(v));
                    }
                    if let Some(d) = empty_rows {
                        let _ = writeln!(
                            out,
                            "{pad}  when every row is empty: per row {}",
                            self.dispatch(d)
                        );
                    }
                    if let Some(t) = tiled {
                        let _ = writeln!(
                            out,
                            "{pad}  on software devices: per {0}x{0} block {1}",
                            t.software_side,
                            self.dispatch(&t.software)
                        );
                    }
                }
                HostStm::SegReduce { outs, shape, seg_w, group, thread, .. } => {
                    let dims: String = shape.iter().map(|d| format!("[{}]", self.dim(d))).collect();
                    let w = seg_w.as_ref().map_or("?".to_string(), |a| self.atom(a));
                    let _ = writeln!(
                        out,
                        "{pad}let {} = segmented reduce{dims} of width {w}: a workgroup per segment {} ; short segments: {}",
                        self.pat(outs),
                        self.dispatch(group),
                        self.dispatch(thread)
                    );
                }
                HostStm::RowMap { outs, width, group, local, bound, thread, pieces, .. } => {
                    let w = width.as_ref().map_or("?".to_string(), |a| self.atom(a));
                    let kept: Vec<String> = local.iter().map(|a| self.atom(a)).collect();
                    let _ = writeln!(
                        out,
                        "{pad}let {} = row map of width {w}: a workgroup per row {} (in workgroup memory: [{}] of at most {bound} each) ; short rows: {} ; otherwise",
                        self.pat(outs),
                        self.dispatch(group),
                        kept.join(", "),
                        self.dispatch(thread)
                    );
                    self.body(out, pieces, ind + 1);
                }
                HostStm::Hist { pat, dest, w, local, global, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = hist({}) into a copy of {}: workgroup-private bins {} ; many bins: {}",
                        self.param(pat),
                        self.atom(w),
                        self.var(*dest),
                        self.dispatch(local),
                        self.dispatch(global)
                    );
                }
                HostStm::Scatter { pat, dest, w, winners, write, in_place, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = scatter({}) into {}{}: last writes {} ; write {}",
                        self.param(pat),
                        self.atom(w),
                        if *in_place { "" } else { "a copy of " },
                        self.var(*dest),
                        self.dispatch(winners),
                        self.dispatch(write)
                    );
                }
                HostStm::UpdateRow { pat, arr, idx, value, in_place, .. } => {
                    let idx: Vec<String> = idx.iter().map(|a| self.atom(a)).collect();
                    let _ = writeln!(
                        out,
                        "{pad}let {} = {}{} with [{}] = {} (copied in)",
                        self.param(pat),
                        if *in_place { "" } else { "a copy of " },
                        self.var(*arr),
                        idx.join(", "),
                        self.var(*value)
                    );
                }
                HostStm::SplitReduce { pat, w, whole, parts, finish, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = elementwise reduce({}): an invocation per element {} ; few elements: chunks {} then {}",
                        self.pat(pat),
                        self.atom(w),
                        whole.iter().map(|d| self.dispatch(d)).collect::<Vec<_>>().join(", "),
                        self.dispatch(parts),
                        self.dispatch(finish)
                    );
                }
                HostStm::Reduce { pat, w, passes, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = reduce({}) {} ; {} ; read back",
                        self.pat(pat),
                        self.atom(w),
                        self.dispatch(&passes[0]),
                        self.dispatch(&passes[1])
                    );
                }
                HostStm::Scan { pat, w, passes, staged, single, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = scan({}) {} ; {} ; {}",
                        self.pat(pat),
                        self.atom(w),
                        self.dispatch(&passes[0]),
                        self.dispatch(&passes[1]),
                        self.dispatch(&passes[2])
                    );
                    if let Some([p1, p3]) = staged {
                        let _ = writeln!(
                            out,
                            "{pad}  -- on a GPU: {} ; {} ; {}",
                            self.dispatch(p1),
                            self.dispatch(&passes[1]),
                            self.dispatch(p3)
                        );
                    }
                    if let Some((d, _)) = single {
                        let _ =
                            writeln!(out, "{pad}  -- on a GPU, in one pass: {}", self.dispatch(d));
                    }
                }
                HostStm::ReadElem { pat, arr, idx, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = read back {}[{}]",
                        self.param(pat),
                        self.var(*arr),
                        self.atoms(idx)
                    );
                }
                HostStm::Reshape { pat, arr, .. } => {
                    let _ =
                        writeln!(out, "{pad}let {} = reshape {}", self.param(pat), self.var(*arr));
                }
                HostStm::Alias { pat, arr } => {
                    let _ = writeln!(out, "{pad}let {} = {}", self.param(pat), self.var(*arr));
                }
                HostStm::Copy { pat, arr, .. } => {
                    let _ = writeln!(out, "{pad}let {} = copy {}", self.param(pat), self.var(*arr));
                }
                HostStm::UpdateElem { pat, arr, idx, value, in_place, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = {}{} with [{}] = {}",
                        self.param(pat),
                        if *in_place { "" } else { "copy " },
                        self.var(*arr),
                        self.atoms(idx),
                        self.atom(value)
                    );
                }
                HostStm::If { pat, cond, then_body, else_body, .. } => {
                    let _ =
                        writeln!(out, "{pad}let {} = if {} then", self.pat(pat), self.atom(cond));
                    self.body(out, then_body, ind + 1);
                    let _ = writeln!(out, "{pad}else");
                    self.body(out, else_body, ind + 1);
                }
                HostStm::Loop { pat, params, form, body, .. } => {
                    let ps: Vec<String> = params
                        .iter()
                        .map(|(p, a)| format!("{} = {}", self.param(p), self.atom(a)))
                        .collect();
                    let f = match form {
                        ir::LoopForm::For { i, bound, .. } => {
                            format!("for {} < {}", self.var(*i), self.atom(bound))
                        }
                        ir::LoopForm::While(c) => format!("while {}", self.var(*c)),
                    };
                    let _ = writeln!(
                        out,
                        "{pad}let {} = loop ({}) {f} do",
                        self.pat(pat),
                        ps.join(", ")
                    );
                    self.body(out, body, ind + 1);
                }
                HostStm::Call { pat, fun, args, .. } => {
                    let _ = writeln!(
                        out,
                        "{pad}let {} = call #{fun}({})",
                        self.pat(pat),
                        self.atoms(args)
                    );
                }
            }
        }
        let _ = writeln!(out, "{pad}in ({})", self.atoms(&b.result));
    }
}
