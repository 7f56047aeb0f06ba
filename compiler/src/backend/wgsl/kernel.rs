//! WGSL code for the body of a kernel. Scalars become `let`s; arrays are delayed ([`DArr`]): an
//! index function over a storage buffer, an iota, a replicate, a map whose function runs where an
//! element is needed, and views (slices, transpositions, reshapes, concatenations) of those. So
//! fusion falls out of code generation: `reduce (+) 0 (map2 (*) xs ys)` becomes one loop.
//!
//! Host variables that a kernel mentions become its inputs on demand: scalars are words of the
//! argument buffer (binding 0), arrays storage buffers (bindings 2...).

use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

use super::unroll::CountLoop;
use super::{internal, scalar, storage_type, unsupported, wgsl_type, Access, BufRef, Site};
use crate::diag::{Diagnostic, Span};
use crate::ir::{self, Atom, Dim, DimIndex, Exp, Lambda, LoopForm, Type, Var};
use crate::prim::{IntType, PrimType, PrimValue};

/// A value inside a kernel.
#[derive(Clone, Debug)]
pub enum KVal {
    /// A WGSL expression (a name or a literal) of the given type.
    Scalar(String, PrimType),
    Arr(Rc<DArr>),
}

/// One position of a generic slice view.
#[derive(Clone, Debug)]
pub enum SIx {
    Fix(String),
    Range { start: String, stride: String },
}

/// A delayed array: how to compute the element at an index. All indices and sizes are `i32`.
#[derive(Clone, Debug)]
pub enum DArr {
    Buf {
        buf: usize,
        elem: PrimType,
        offset: String,
        dims: Vec<String>,
        strides: Vec<String>,
    },
    Iota {
        n: String,
        start: String,
        step: String,
        ty: PrimType,
    },
    Repl {
        dims: Vec<String>,
        val: KVal,
    },
    Map {
        lam: Rc<Lambda>,
        env: Env,
        arrs: Vec<KVal>,
        k: usize,
        dims: Vec<String>,
        elem: PrimType,
    },
    Perm {
        perm: Vec<usize>,
        inner: Rc<DArr>,
        dims: Vec<String>,
    },
    Reshape {
        dims: Vec<String>,
        inner: Rc<DArr>,
    },
    Slice {
        inner: Rc<DArr>,
        idx: Vec<SIx>,
        dims: Vec<String>,
    },
    Concat {
        axis: usize,
        parts: Vec<Rc<DArr>>,
        dims: Vec<String>,
    },
    Lit {
        elems: Vec<KVal>,
        dims: Vec<String>,
        elem: PrimType,
    },
    /// `inner` with its leading indices fixed.
    Partial {
        inner: Rc<DArr>,
        prefix: Vec<String>,
    },
    /// Result `k` of an `if` with array results: where an element is needed, the branch that
    /// `cond` picks runs and its result is indexed (as a map's function runs per element).
    If {
        env: Env,
        cond: String,
        bodies: Rc<(ir::Body, ir::Body)>,
        k: usize,
        dims: Vec<String>,
        elem: PrimType,
    },
    /// Result `k` of a `hist` (one-dimensional bins): bin `b` folds, in index order, the values
    /// whose index is `b` into `dest[b]`.
    Hist {
        dest: Vec<Rc<DArr>>,
        lam: Rc<Lambda>,
        env: Env,
        is: Rc<DArr>,
        vs: Vec<KVal>,
        w: String,
        k: usize,
        dims: Vec<String>,
        elem: PrimType,
    },
    /// Result `k` of an inclusive `scan`: element `i` folds elements `0..=i` from the neutral
    /// element, in order.
    Scan {
        lam: Rc<Lambda>,
        env: Env,
        neutral: Vec<(String, PrimType)>,
        arrs: Vec<KVal>,
        k: usize,
        dims: Vec<String>,
        elem: PrimType,
    },
    /// A `scatter`: the element at an index is the value of the last write to it, or `dest`'s.
    Scatter {
        dest: Rc<DArr>,
        idx: Vec<Rc<DArr>>,
        vals: Rc<DArr>,
        w: String,
    },
    /// Result `k` of a `reduce` of arrays with an elementwise operator: the element at an index
    /// folds the elements at that index of `arrs`' rows, from `neutral`'s.
    RedArr {
        lam: Rc<Lambda>,
        env: Env,
        neutral: Vec<Rc<DArr>>,
        arrs: Vec<Rc<DArr>>,
        w: String,
        k: usize,
        dims: Vec<String>,
        elem: PrimType,
    },
    /// An accumulator of a `RedArr` inside its operator: only its element at `at` (the index
    /// being computed) is known, in the variable `name`.
    Acc {
        name: String,
        at: Vec<String>,
        dims: Vec<String>,
        elem: PrimType,
    },
    /// A one-dimensional array in workgroup memory (`var<workgroup> name`), which a row kernel
    /// has filled (see `rows`): the element at `i` is `name[i]`.
    Local {
        name: String,
        dims: Vec<String>,
        elem: PrimType,
    },
    /// `inner` with the region `idx` (fixed indices and ranges of lengths `lens`) replaced by
    /// `value`.
    Update {
        inner: Rc<DArr>,
        idx: Vec<SIx>,
        lens: Vec<String>,
        value: KVal,
    },
}

impl DArr {
    pub fn dims(&self) -> Vec<String> {
        match self {
            DArr::Buf { dims, .. }
            | DArr::Repl { dims, .. }
            | DArr::Map { dims, .. }
            | DArr::Perm { dims, .. }
            | DArr::Reshape { dims, .. }
            | DArr::Slice { dims, .. }
            | DArr::Concat { dims, .. }
            | DArr::Lit { dims, .. }
            | DArr::If { dims, .. }
            | DArr::Hist { dims, .. }
            | DArr::Scan { dims, .. }
            | DArr::RedArr { dims, .. }
            | DArr::Local { dims, .. }
            | DArr::Acc { dims, .. } => match self {
                DArr::Repl { dims, val: KVal::Arr(a), .. } => {
                    dims.iter().cloned().chain(a.dims()).collect()
                }
                _ => dims.clone(),
            },
            DArr::Iota { n, .. } => vec![n.clone()],
            DArr::Partial { inner, prefix } => inner.dims().split_off(prefix.len()),
            DArr::Scatter { dest: inner, .. } | DArr::Update { inner, .. } => inner.dims(),
        }
    }

    pub fn elem(&self) -> PrimType {
        match self {
            DArr::Buf { elem, .. }
            | DArr::Map { elem, .. }
            | DArr::Lit { elem, .. }
            | DArr::If { elem, .. }
            | DArr::Hist { elem, .. }
            | DArr::Scan { elem, .. }
            | DArr::RedArr { elem, .. }
            | DArr::Local { elem, .. }
            | DArr::Acc { elem, .. } => *elem,
            DArr::Iota { ty, .. } => *ty,
            DArr::Repl { val: KVal::Scalar(_, t), .. } => *t,
            DArr::Repl { val: KVal::Arr(a), .. } => a.elem(),
            DArr::Perm { inner, .. }
            | DArr::Reshape { inner, .. }
            | DArr::Slice { inner, .. }
            | DArr::Partial { inner, .. }
            | DArr::Update { inner, .. }
            | DArr::Scatter { dest: inner, .. } => inner.elem(),
            DArr::Concat { parts, .. } => parts.first().map_or(PrimType::Bool, |p| p.elem()),
        }
    }
}

/// The kernel values of variables. Delayed arrays that run code where an element is demanded keep
/// the environment of their definition (a copy-on-write snapshot), so a variable rebound later
/// (a function inlined twice, a map's function run for another element) does not change them.
pub type Env = Rc<HashMap<Var, KVal>>;

/// Maximum depth of inlined calls inside one kernel.
const MAX_INLINE: usize = 64;

/// Generates one kernel's code.
pub struct Gen<'a> {
    prog: &'a ir::Program,
    host_types: &'a HashMap<Var, Type>,
    /// Host arrays computed where they are read (replicates of scalars, iotas).
    host_virtual: &'a HashMap<Var, Exp>,
    env: Env,
    /// Host variables that became inputs (valid in the whole kernel).
    inputs: HashMap<Var, KVal>,
    pub code: String,
    /// Loads of host scalars, placed at the top of the kernel so every scope sees them.
    pub pre: String,
    indent: usize,
    next: u32,
    /// Storage buffers (binding `k + 2`).
    pub bufs: Vec<(BufRef, PrimType, Access)>,
    /// Host scalars in the argument buffer, from word `reserved` on.
    pub args: Vec<Atom>,
    /// The words `args` take (two for each 64-bit integer in a wide program).
    arg_len: usize,
    reserved: usize,
    sites: &'a mut Vec<Site>,
    depth: usize,
    span: Span,
    /// i64/u64 values are `vec2<u32>` (see [`super::compile_wide`]); otherwise 32-bit.
    pub wide: bool,
}

pub type R<T> = Result<T, Diagnostic>;

impl<'a> Gen<'a> {
    pub fn new(
        prog: &'a ir::Program,
        host_types: &'a HashMap<Var, Type>,
        host_virtual: &'a HashMap<Var, Exp>,
        sites: &'a mut Vec<Site>,
        reserved: usize,
        span: Span,
    ) -> Gen<'a> {
        Gen {
            prog,
            host_types,
            host_virtual,
            env: Rc::new(HashMap::new()),
            inputs: HashMap::new(),
            code: String::new(),
            pre: String::new(),
            indent: 1,
            next: 0,
            bufs: Vec::new(),
            args: Vec::new(),
            arg_len: 0,
            reserved,
            sites,
            depth: 0,
            span,
            wide: false,
        }
    }

    /// The WGSL type of register values of `t`.
    pub fn ty(&self, t: PrimType) -> &'static str {
        wgsl_type(t, self.wide)
    }

    /// The element type of a buffer of `t`.
    pub fn storage(&self, t: PrimType) -> &'static str {
        storage_type(t, self.wide)
    }

    /// A constant as a WGSL expression.
    pub fn literal(&self, c: PrimValue) -> String {
        scalar::literal(c, self.wide)
    }

    /// Does `t` take two argument and error-record words?
    pub fn two_words(&self, t: PrimType) -> bool {
        self.wide && scalar::narrowed(t)
    }

    /// An integer expression of type `t` as an `i32` index or count (64-bit values saturated in
    /// a wide program, so one outside the i32 range fails every bounds check).
    pub fn to_i32(&self, e: &str, t: PrimType) -> String {
        match t {
            PrimType::Int(IntType::I64) if self.wide => format!("ogm_w_sat({e})"),
            PrimType::Int(IntType::U64) if self.wide => format!("ogm_w_sat_u({e})"),
            _ => to_i32(e, t),
        }
    }

    /// An `i32` index expression as type `t`.
    pub fn of_i32(&self, e: &str, t: PrimType) -> String {
        match t {
            PrimType::Int(IntType::I64 | IntType::U64) if self.wide => format!("ogm_w_i32({e})"),
            _ => from_i32(e, t),
        }
    }

    /// A value of `t` as the error record's words.
    pub fn words(&self, e: &str, t: PrimType) -> Vec<String> {
        if self.two_words(t) {
            vec![format!("{e}.x"), format!("{e}.y")]
        } else {
            vec![word(e, t)]
        }
    }

    pub fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.code.push_str("    ");
        }
        self.code.push_str(s);
        self.code.push('\n');
    }

    pub fn open(&mut self, s: &str) {
        self.line(s);
        self.indent += 1;
    }

    pub fn close(&mut self) {
        self.indent = self.indent.saturating_sub(1);
        self.line("}");
    }

    /// Open `for (var IV = START; IV < BOUND; IV = IV + STEP) {`, a loop over elements whose
    /// body reads `iv` but never assigns it; [`Gen::close_count`] closes it, unrolled when the
    /// body is small (see [`super::unroll`]).
    pub fn open_count(&mut self, iv: &str, start: &str, bound: &str, step: i32) -> CountLoop {
        let header_at = self.code.len();
        let indent = self.indent;
        self.open(&super::unroll::header(iv, start, bound, step));
        CountLoop {
            iv: iv.into(),
            start: start.into(),
            bound: bound.into(),
            step,
            header_at,
            body_at: self.code.len(),
            indent,
        }
    }

    /// Close a loop from [`Gen::open_count`].
    pub fn close_count(&mut self, l: CountLoop) {
        let f = super::unroll::factor(&self.code[l.body_at..]);
        if f < 2 || self.indent != l.indent + 1 {
            self.close();
            return;
        }
        let body = self.code.split_off(l.body_at);
        self.code.truncate(l.header_at);
        let u = self.fresh("u");
        self.code.push_str(&super::unroll::unrolled(&l, &body, f, &u));
        self.indent = l.indent;
    }

    /// Close an `if`'s block and open its `else` block.
    pub fn else_(&mut self) {
        self.indent = self.indent.saturating_sub(1);
        self.open("} else {");
    }

    pub fn fresh(&mut self, base: &str) -> String {
        loop {
            self.next += 1;
            let name = format!("{base}{}", self.next);
            // `i` or `f` and a number can spell a WGSL type (`i32`, `f16`) or a reserved word.
            if !matches!(
                name.as_str(),
                "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "f16" | "f32" | "f64"
            ) {
                return name;
            }
        }
    }

    /// `let NAME: T = e;`, returning the name.
    pub fn let_(&mut self, e: &str, t: PrimType) -> String {
        let n = self.fresh("v");
        self.line(&format!("let {n}: {} = {e};", self.ty(t)));
        n
    }

    /// The expression of argument word `k` (reserved words included) read as `t`.
    pub fn arg_word(k: usize, t: PrimType) -> String {
        let w = arg(k);
        match t {
            PrimType::Bool => format!("({w} != 0u)"),
            PrimType::Int(i) if i.signed() => format!("bitcast<i32>({w})"),
            PrimType::Int(_) => w,
            PrimType::Float(_) => format!("bitcast<f32>({w})"),
        }
    }

    /// Words of the argument buffer the kernel reads (reserved words included).
    pub fn arg_words(&self) -> usize {
        self.reserved + self.arg_len
    }

    /// Add a buffer binding, returning its index in `bufs`.
    pub fn buffer(&mut self, r: BufRef, elem: PrimType, acc: Access) -> usize {
        if let Some(k) = self.bufs.iter().position(|(b, _, a)| *b == r && *a == acc) {
            return k;
        }
        self.bufs.push((r, elem, acc));
        self.bufs.len() - 1
    }

    pub fn bind(&mut self, v: Var, k: KVal) {
        Rc::make_mut(&mut self.env).insert(v, k);
    }

    /// Run `f` in the environment `env`, then restore the current one.
    fn with_env<T>(&mut self, env: &Env, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let saved = std::mem::replace(&mut self.env, env.clone());
        let r = f(self);
        self.env = saved;
        r
    }

    /// A variable's value: a kernel value, or a host value that becomes an input.
    pub fn var(&mut self, v: Var) -> R<KVal> {
        if let Some(k) = self.env.get(&v).or_else(|| self.inputs.get(&v)) {
            return Ok(k.clone());
        }
        if let Some(e) = self.host_virtual.get(&v) {
            let k = match e {
                Exp::Replicate { shape, value } => {
                    let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                    let val = self.atom(value)?;
                    KVal::Arr(Rc::new(DArr::Repl { dims, val }))
                }
                Exp::Iota { n, start, step, it } => {
                    let n = self.atom_i32(n)?;
                    let (start, _) = self.scalar(start)?;
                    let (step, _) = self.scalar(step)?;
                    KVal::Arr(Rc::new(DArr::Iota { n, start, step, ty: PrimType::Int(*it) }))
                }
                Exp::Map { lam, arrs, .. } => {
                    let Some(Type::Array { elem, shape }) = self.host_types.get(&v).cloned() else {
                        return Err(internal(self.span, "a virtual map"));
                    };
                    let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                    let arrs = arrs.iter().map(|a| self.var(*a)).collect::<R<Vec<_>>>()?;
                    // The function sees only host values: an empty environment.
                    let env = Rc::new(HashMap::new());
                    let lam = Rc::new(lam.clone());
                    KVal::Arr(Rc::new(DArr::Map { lam, env, arrs, k: 0, dims, elem }))
                }
                Exp::Rearrange { arr, perm } => KVal::Arr(self.perm(*arr, perm)?),
                Exp::Reshape { arr, shape } => {
                    let KVal::Arr(inner) = self.var(*arr)? else {
                        return Err(internal(self.span, "a virtual reshape"));
                    };
                    let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                    KVal::Arr(Rc::new(DArr::Reshape { dims, inner }))
                }
                _ => return Err(internal(self.span, "a virtual array")),
            };
            self.inputs.insert(v, k.clone());
            return Ok(k);
        }
        let Some(ty) = self.host_types.get(&v).cloned() else {
            return Err(internal(
                self.span,
                format!("variable {} is not in scope", self.prog.name(v)),
            ));
        };
        let k = match ty {
            Type::Prim(t) => {
                let slot = self.arg_words();
                self.args.push(Atom::Var(v));
                let e = if self.two_words(t) {
                    self.arg_len += 2;
                    format!("vec2<u32>({}, {})", arg(slot), arg(slot + 1))
                } else {
                    self.arg_len += 1;
                    Gen::arg_word(slot, t)
                };
                let n = self.fresh("h");
                let _ = writeln!(self.pre, "    let {n}: {} = {e};", self.ty(t));
                KVal::Scalar(n, t)
            }
            Type::Array { elem, shape } => {
                let buf = self.buffer(BufRef::Var(v), elem, Access::Read);
                let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                KVal::Arr(Rc::new(DArr::Buf {
                    buf,
                    elem,
                    offset: "0".into(),
                    strides: row_major(&dims),
                    dims,
                }))
            }
        };
        self.inputs.insert(v, k.clone());
        Ok(k)
    }

    /// `arr` with its dimensions permuted, as a view.
    fn perm(&mut self, arr: Var, perm: &[usize]) -> R<Rc<DArr>> {
        let inner = self.arr(arr)?;
        let idims = inner.dims();
        let dims = perm.iter().map(|&p| idims.get(p).cloned().unwrap_or_default()).collect();
        Ok(Rc::new(DArr::Perm { perm: perm.to_vec(), inner, dims }))
    }

    /// A dimension as an `i32` expression.
    pub fn dim(&mut self, d: &Dim) -> R<String> {
        match d {
            Dim::Const(c) => Ok(format!("i32({})", *c as i32)),
            Dim::Var(v) => self.atom_i32(&Atom::Var(*v)),
        }
    }

    pub fn atom(&mut self, a: &Atom) -> R<KVal> {
        match a {
            Atom::Const(c) => {
                // 64-bit integers are narrowed to 32 bits: a constant that does not fit (such as
                // `i64.highest`, the neutral element of `i64.minimum`) would silently change.
                let fits = match *c {
                    PrimValue::I64(x) => i32::try_from(x).is_ok(),
                    PrimValue::U64(x) => u32::try_from(x).is_ok(),
                    _ => true,
                };
                if !fits && !self.wide {
                    return Err(super::needs_wide(unsupported(
                        self.span,
                        format!(
                            "the 64-bit value {} does not fit in 32 bits",
                            c.as_i128().unwrap_or(0)
                        ),
                    )));
                }
                Ok(KVal::Scalar(self.literal(*c), c.ty()))
            }
            Atom::Var(v) => self.var(*v),
        }
    }

    pub fn scalar(&mut self, a: &Atom) -> R<(String, PrimType)> {
        match self.atom(a)? {
            KVal::Scalar(e, t) => Ok((e, t)),
            KVal::Arr(_) => Err(internal(self.span, "an array where a scalar was expected")),
        }
    }

    fn arr(&mut self, v: Var) -> R<Rc<DArr>> {
        match self.var(v)? {
            KVal::Arr(a) => Ok(a),
            KVal::Scalar(..) => Err(internal(self.span, "a scalar where an array was expected")),
        }
    }

    /// An integer atom as an `i32` index expression.
    pub fn atom_i32(&mut self, a: &Atom) -> R<String> {
        let (e, t) = self.scalar(a)?;
        Ok(self.to_i32(&e, t))
    }

    /// Index a delayed array; `idx.len()` at most its rank. No bounds checks (the caller checks
    /// user indexing; internal indexing is in bounds by construction).
    pub fn index(&mut self, a: &Rc<DArr>, idx: &[String]) -> R<KVal> {
        if idx.is_empty() {
            return Ok(KVal::Arr(a.clone()));
        }
        let rank = a.dims().len();
        match &**a {
            DArr::Buf { buf, elem, offset, dims, strides } => {
                let mut off = offset.clone();
                for (i, s) in idx.iter().zip(strides) {
                    off = format!("({off} + {i} * {s})");
                }
                if idx.len() >= rank {
                    let e = load(&format!("b{buf}[{off}]"), *elem);
                    Ok(KVal::Scalar(self.let_(&e, *elem), *elem))
                } else {
                    let off = self.let_(&off, PrimType::Int(IntType::I32));
                    Ok(KVal::Arr(Rc::new(DArr::Buf {
                        buf: *buf,
                        elem: *elem,
                        offset: off,
                        dims: dims[idx.len()..].to_vec(),
                        strides: strides[idx.len()..].to_vec(),
                    })))
                }
            }
            DArr::Local { name, elem, .. } => {
                let e = load(&format!("{name}[{}]", idx[0]), *elem);
                Ok(KVal::Scalar(self.let_(&e, *elem), *elem))
            }
            DArr::Iota { start, step, ty, .. } => {
                let i = self.of_i32(&idx[0], *ty);
                let wide = self.wide;
                let lit = |k| match ty {
                    PrimType::Int(it) => scalar::literal(PrimValue::int(*it, k), wide),
                    _ => String::new(),
                };
                if self.two_words(*ty) {
                    let mul = format!("ogm_w_mul({i}, {step})");
                    let e = self.let_(&format!("ogm_w_add({start}, {mul})"), *ty);
                    return Ok(KVal::Scalar(e, *ty));
                }
                if scalar::narrowed(*ty) && (*start != lit(0) || *step != lit(1)) {
                    // `start + i * step` in 64 bits: each step must fit in 32.
                    let (start, step) = (start.clone(), step.clone());
                    let p = self.let_(&format!("({i} * {step})"), *ty);
                    let r = self.let_(&format!("({start} + {p})"), *ty);
                    let mul = scalar::binop_overflow(ir::BinOp::Mul, *ty, &i, &step, &p);
                    let add = scalar::binop_overflow(ir::BinOp::Add, *ty, &start, &p, &r);
                    if let (Some(mul), Some(add)) = (mul, add) {
                        let what = "element {} of an iota from {} by {}".to_string();
                        let vals = [(i, *ty), (start, *ty), (step, *ty)];
                        self.fail_narrowed(&format!("({mul} || {add})"), what, *ty, &vals);
                    }
                    return Ok(KVal::Scalar(r, *ty));
                }
                let e = scalar::wrap(format!("({start} + {i} * {step})"), *ty);
                Ok(KVal::Scalar(self.let_(&e, *ty), *ty))
            }
            DArr::Repl { dims, val } => {
                if idx.len() < dims.len() {
                    return Ok(KVal::Arr(Rc::new(DArr::Repl {
                        dims: dims[idx.len()..].to_vec(),
                        val: val.clone(),
                    })));
                }
                match val {
                    KVal::Arr(inner) => self.index(&inner.clone(), &idx[dims.len()..]),
                    s => Ok(s.clone()),
                }
            }
            DArr::Map { lam, env, arrs, k, .. } => self.with_env(env, |g| {
                let i = &idx[0];
                let (body, used) = only_results(&lam.body, &[*k]);
                for (p, arr) in lam.params.iter().zip(arrs) {
                    if !used.contains(&p.var) {
                        continue;
                    }
                    let v = match arr {
                        KVal::Arr(a) => g.index(a, std::slice::from_ref(i))?,
                        s => s.clone(),
                    };
                    g.bind(p.var, v);
                }
                let res = g.body(&body)?;
                let r = res.first().cloned().ok_or_else(|| internal(g.span, "map result"))?;
                match r {
                    KVal::Arr(ra) => g.index(&ra, &idx[1..]),
                    s => Ok(s),
                }
            }),
            _ if idx.len() < rank => {
                Ok(KVal::Arr(Rc::new(DArr::Partial { inner: a.clone(), prefix: idx.to_vec() })))
            }
            DArr::Partial { inner, prefix } => {
                let full: Vec<String> = prefix.iter().chain(idx).cloned().collect();
                self.index(&inner.clone(), &full)
            }
            DArr::Perm { perm, inner, .. } => {
                let mut full = vec![String::new(); perm.len()];
                for (j, &p) in perm.iter().enumerate() {
                    if let (Some(slot), Some(i)) = (full.get_mut(p), idx.get(j)) {
                        *slot = i.clone();
                    }
                }
                self.index(&inner.clone(), &full)
            }
            DArr::Reshape { dims, inner } => {
                let strides = row_major(dims);
                let mut flat = "0".to_string();
                for (i, s) in idx.iter().zip(&strides) {
                    flat = format!("({flat} + {i} * {s})");
                }
                let flat = self.let_(&flat, PrimType::Int(IntType::I32));
                let full = self.unravel(&flat, &inner.dims());
                self.index(&inner.clone(), &full)
            }
            DArr::Slice { inner, idx: six, .. } => {
                let mut it = idx.iter();
                let mut full = Vec::new();
                for s in six {
                    match s {
                        SIx::Fix(f) => full.push(f.clone()),
                        SIx::Range { start, stride } => {
                            let i = it.next().cloned().unwrap_or_else(|| "0".into());
                            full.push(format!("({start} + {i} * {stride})"));
                        }
                    }
                }
                full.extend(it.cloned());
                self.index(&inner.clone(), &full)
            }
            DArr::Concat { axis, parts, .. } => {
                let elem = a.elem();
                let r = self.fresh("c");
                self.line(&format!("var {r}: {};", self.ty(elem)));
                let mut base = "0".to_string();
                let mut opened = 0;
                for (n, p) in parts.iter().enumerate() {
                    let len = p.dims().get(*axis).cloned().unwrap_or_else(|| "0".into());
                    let mut sub = idx.to_vec();
                    if let Some(s) = sub.get_mut(*axis) {
                        *s = format!("({s} - {base})");
                    }
                    let bound = format!("({base} + {len})");
                    let last = n + 1 == parts.len();
                    if !last {
                        let ax = idx.get(*axis).cloned().unwrap_or_default();
                        self.open(&format!("if ({ax} < {bound}) {{"));
                    }
                    let v = self.index(p, &sub)?;
                    let KVal::Scalar(e, _) = v else {
                        return Err(internal(self.span, "concat element"));
                    };
                    self.line(&format!("{r} = {e};"));
                    if !last {
                        self.indent -= 1;
                        self.open("} else {");
                        opened += 1;
                    }
                    base = bound;
                }
                for _ in 0..opened {
                    self.close();
                }
                Ok(KVal::Scalar(r, elem))
            }
            DArr::Lit { elems, elem, .. } => {
                // At a constant index (in bounds: checked before), the element itself.
                if let Some(e) = idx[0].parse::<usize>().ok().and_then(|n| elems.get(n)) {
                    return match e {
                        KVal::Arr(a) => self.index(&a.clone(), &idx[1..]),
                        s => Ok(s.clone()),
                    };
                }
                let r = self.fresh("l");
                self.line(&format!("var {r}: {};", self.ty(*elem)));
                self.open(&format!("switch ({}) {{", idx[0]));
                // An empty literal is never read, but WGSL needs a default case.
                if elems.is_empty() {
                    self.line("default: {}");
                }
                for (n, e) in elems.iter().enumerate() {
                    if n + 1 == elems.len() {
                        self.open("default: {");
                    } else {
                        self.open(&format!("case {n}: {{"));
                    }
                    let v = match e {
                        KVal::Arr(a) => self.index(a, &idx[1..])?,
                        s => s.clone(),
                    };
                    let KVal::Scalar(x, _) = v else {
                        return Err(internal(self.span, "array literal element"));
                    };
                    self.line(&format!("{r} = {x};"));
                    self.close();
                }
                self.close();
                Ok(KVal::Scalar(r, *elem))
            }
            DArr::If { env, cond, bodies, k, elem, .. } => {
                let r = self.fresh("f");
                self.line(&format!("var {r}: {};", self.ty(*elem)));
                self.open(&format!("if ({cond}) {{"));
                let x = self.with_env(env, |g| g.branch_elem(&bodies.0, *k, idx))?;
                self.line(&format!("{r} = {x};"));
                self.indent -= 1;
                self.open("} else {");
                let x = self.with_env(env, |g| g.branch_elem(&bodies.1, *k, idx))?;
                self.line(&format!("{r} = {x};"));
                self.close();
                Ok(KVal::Scalar(r, *elem))
            }
            DArr::Hist { dest, lam, env, is, vs, w, k, elem, .. } => {
                let b = &idx[0];
                let mut accs = Vec::new();
                for d in dest {
                    let (e, t) = self.elem_at(d, std::slice::from_ref(b))?;
                    let n = self.fresh("acc");
                    self.line(&format!("var {n}: {} = {e};", self.ty(t)));
                    accs.push((n, t));
                }
                let j = self.fresh("j");
                let l = self.open_count(&j, "0", w, 1);
                let (e, t) = self.elem_at(is, std::slice::from_ref(&j))?;
                self.open(&format!("if ({} == {b}) {{", self.to_i32(&e, t)));
                self.with_env(env, |g| g.fold_into(lam, &accs, vs, &j))?;
                self.close();
                self.close_count(l);
                let acc = accs.get(*k).ok_or_else(|| internal(self.span, "hist result"))?;
                Ok(KVal::Scalar(self.let_(&acc.0, *elem), *elem))
            }
            DArr::Scan { lam, env, neutral, arrs, k, elem, .. } => {
                let mut accs = Vec::new();
                for (e, t) in neutral {
                    let n = self.fresh("acc");
                    self.line(&format!("var {n}: {} = {e};", self.ty(*t)));
                    accs.push((n, *t));
                }
                let j = self.fresh("j");
                self.open(&format!("for (var {j} = 0; {j} <= {}; {j}++) {{", idx[0]));
                self.with_env(env, |g| g.fold_into(lam, &accs, arrs, &j))?;
                self.close();
                let acc = accs.get(*k).ok_or_else(|| internal(self.span, "scan result"))?;
                Ok(KVal::Scalar(self.let_(&acc.0, *elem), *elem))
            }
            DArr::Scatter { dest, idx: ias, vals, w } => {
                let (init, elem) = self.elem_at(dest, idx)?;
                let r = self.fresh("r");
                self.line(&format!("var {r}: {} = {init};", self.ty(elem)));
                let j = self.fresh("j");
                let l = self.open_count(&j, "0", w, 1);
                let mut conds = Vec::new();
                for (ia, ix) in ias.iter().zip(idx) {
                    let (e, t) = self.elem_at(ia, std::slice::from_ref(&j))?;
                    conds.push(format!("({} == {ix})", self.to_i32(&e, t)));
                }
                self.open(&format!("if ({}) {{", conds.join(" && ")));
                let mut vi = vec![j.clone()];
                vi.extend(idx.iter().skip(ias.len()).cloned());
                let (v, _) = self.elem_at(vals, &vi)?;
                self.line(&format!("{r} = {v};"));
                self.close();
                self.close_count(l);
                Ok(KVal::Scalar(r, elem))
            }
            DArr::RedArr { lam, env, neutral, arrs, w, k, elem, dims } => {
                let mut accs = Vec::new();
                for n in neutral {
                    let (e, t) = self.elem_at(n, idx)?;
                    let a = self.fresh("acc");
                    self.line(&format!("var {a}: {} = {e};", self.ty(t)));
                    accs.push((a, t));
                }
                let j = self.fresh("j");
                let l = self.open_count(&j, "0", w, 1);
                let mut args: Vec<KVal> = accs
                    .iter()
                    .map(|(a, t)| {
                        KVal::Arr(Rc::new(DArr::Acc {
                            name: a.clone(),
                            at: idx.to_vec(),
                            dims: dims.clone(),
                            elem: *t,
                        }))
                    })
                    .collect();
                for a in arrs {
                    args.push(self.index(a, std::slice::from_ref(&j))?);
                }
                let res = self.with_env(env, |g| g.apply_lambda(lam, args))?;
                let mut xs = Vec::new();
                for r in &res {
                    xs.push(match r {
                        KVal::Arr(a) => {
                            let (e, t) = self.elem_at(a, idx)?;
                            KVal::Scalar(e, t)
                        }
                        sc => sc.clone(),
                    });
                }
                let names: Vec<String> = accs.iter().map(|a| a.0.clone()).collect();
                self.assign(&xs, &names)?;
                self.close_count(l);
                let acc = accs.get(*k).ok_or_else(|| internal(self.span, "reduce result"))?;
                Ok(KVal::Scalar(self.let_(&acc.0, *elem), *elem))
            }
            DArr::Acc { name, at, elem, .. } => {
                if at.as_slice() != idx {
                    return Err(unsupported(
                        self.span,
                        "a reduction of arrays in a kernel whose operator is not elementwise",
                    ));
                }
                Ok(KVal::Scalar(name.clone(), *elem))
            }
            DArr::Update { inner, idx: six, lens, value } => {
                let elem = inner.elem();
                let mut conds = Vec::new();
                let mut vi = Vec::new();
                let mut lens = lens.iter();
                for (s, m) in six.iter().zip(idx) {
                    match s {
                        SIx::Fix(f) => conds.push(format!("({m} == {f})")),
                        SIx::Range { start, stride } => {
                            let len = lens.next().cloned().unwrap_or_else(|| "0".into());
                            let st = self.let_(
                                &format!("select({stride}, 1, {stride} == 0)"),
                                PrimType::Int(IntType::I32),
                            );
                            let d =
                                self.let_(&format!("({m} - {start})"), PrimType::Int(IntType::I32));
                            let q =
                                self.let_(&format!("({d} / {st})"), PrimType::Int(IntType::I32));
                            conds.push(format!("({q} * {st} == {d} && {q} >= 0 && {q} < {len})"));
                            vi.push(q);
                        }
                    }
                }
                vi.extend(idx.iter().skip(six.len()).cloned());
                let r = self.fresh("u");
                self.line(&format!("var {r}: {};", self.ty(elem)));
                let cond = if conds.is_empty() { "true".to_string() } else { conds.join(" && ") };
                self.open(&format!("if ({cond}) {{"));
                let x = match value {
                    KVal::Arr(v) => self.elem_at(v, &vi)?.0,
                    KVal::Scalar(x, _) => x.clone(),
                };
                self.line(&format!("{r} = {x};"));
                self.indent -= 1;
                self.open("} else {");
                let (x, _) = self.elem_at(inner, idx)?;
                self.line(&format!("{r} = {x};"));
                self.close();
                Ok(KVal::Scalar(r, elem))
            }
        }
    }

    /// The element of `a` at a full index, as a scalar.
    fn elem_at(&mut self, a: &Rc<DArr>, idx: &[String]) -> R<(String, PrimType)> {
        match self.index(a, idx)? {
            KVal::Scalar(e, t) => Ok((e, t)),
            KVal::Arr(_) => Err(internal(self.span, "an array where an element was expected")),
        }
    }

    /// Run a branch of an `if` and index its result `k` at `idx`.
    fn branch_elem(&mut self, b: &ir::Body, k: usize, idx: &[String]) -> R<String> {
        let res = self.body(b)?;
        match res.get(k) {
            Some(KVal::Arr(a)) => Ok(self.elem_at(&a.clone(), idx)?.0),
            _ => Err(internal(self.span, "an `if` branch without its array result")),
        }
    }

    /// `accs = lam(accs, xs[j])` (scalar `xs` are passed as they are).
    fn fold_into(
        &mut self,
        lam: &Lambda,
        accs: &[(String, PrimType)],
        xs: &[KVal],
        j: &str,
    ) -> R<()> {
        let mut args: Vec<KVal> = accs.iter().map(|(n, t)| KVal::Scalar(n.clone(), *t)).collect();
        for x in xs {
            args.push(match x {
                KVal::Arr(a) => self.index(a, &[j.to_string()])?,
                sc => sc.clone(),
            });
        }
        let res = self.apply_lambda(lam, args)?;
        let names: Vec<String> = accs.iter().map(|a| a.0.clone()).collect();
        self.assign(&res, &names)
    }

    /// The multi-index of flat index `flat` in an array of shape `dims`.
    pub fn unravel(&mut self, flat: &str, dims: &[String]) -> Vec<String> {
        let mut out = vec![String::new(); dims.len()];
        let mut rest = flat.to_string();
        for k in (0..dims.len()).rev() {
            if k == 0 {
                out[0] = rest.clone();
                break;
            }
            // The remainder as `rest - q * d`, not `rest % d`: one division per dimension, and
            // a row-major index `q * d + i` of the same array is then `rest` again, which the
            // driver's compiler folds (the division dies with it when nothing else needs it).
            let d = &dims[k];
            let q = self.let_(&format!("({rest} / max({d}, 1))"), PrimType::Int(IntType::I32));
            let i = self.let_(&format!("({rest} - {q} * {d})"), PrimType::Int(IntType::I32));
            rest = q;
            out[k] = i;
        }
        out
    }

    /// Emit a body's statements; its results.
    pub fn body(&mut self, b: &ir::Body) -> R<Vec<KVal>> {
        for s in &b.stms {
            self.stm(s)?;
        }
        b.result.iter().map(|a| self.atom(a)).collect()
    }

    fn site(&mut self, msg: String, args: Vec<PrimType>) -> u32 {
        self.sites.push(Site { span: self.span, msg, args, narrowed: false });
        (self.sites.len() - 1) as u32
    }

    /// `if (cond) { ogm_fail(site, values) }`.
    fn fail_if(&mut self, cond: &str, site: u32, vals: &[(String, PrimType)]) {
        let mut words: Vec<String> = vals.iter().flat_map(|(e, t)| self.words(e, *t)).collect();
        words.truncate(super::MAX_ERR_ARGS);
        let n = words.len();
        words.resize(super::MAX_ERR_ARGS, "0u".into());
        self.open(&format!("if ({cond}) {{"));
        self.line(&format!("ogm_fail({site}u, array<u32, 8>({}), {n}u);", words.join(", ")));
        self.close();
    }

    /// Report the value `what` (its `{}` filled with `vals`) of the narrowed type `t` when
    /// `cond`: it does not fit in the 32 bits the GPU computes it in.
    pub fn fail_narrowed(
        &mut self,
        cond: &str,
        what: String,
        t: PrimType,
        vals: &[(String, PrimType)],
    ) {
        let msg = format!(
            "{what} is outside the 32-bit range that the GPU backend computes {t} values in \
             (the wasm backend computes them in 64 bits)"
        );
        let site = self.site(msg, vals.iter().map(|v| v.1).collect());
        if let Some(s) = self.sites.get_mut(site as usize) {
            s.narrowed = true;
        }
        self.fail_if(cond, site, vals);
    }

    fn bind_scalar(&mut self, p: &ir::Param, e: &str, t: PrimType) {
        let n = self.let_(e, t);
        self.bind(p.var, KVal::Scalar(n, t));
    }

    pub fn stm(&mut self, s: &ir::Stm) -> R<()> {
        let saved = self.span;
        if s.span != Span::DUMMY {
            self.span = s.span;
        }
        let r = self.stm_inner(s);
        self.span = saved;
        r
    }

    fn stm_inner(&mut self, s: &ir::Stm) -> R<()> {
        let p0 = s.pat.first();
        let one = || p0.ok_or_else(|| internal(s.span, "statement without a result"));
        match &s.exp {
            Exp::Atom(a) => {
                let v = self.atom(a)?;
                self.bind(one()?.var, v);
            }
            Exp::UnOp(op, t, a) => {
                let (a, _) = self.scalar(a)?;
                let e =
                    scalar::unop(*op, *t, &a, self.wide).ok_or_else(|| internal(s.span, "unop"))?;
                if let Some(c) = scalar::unop_overflow(*op, *t, &a).filter(|_| !self.wide) {
                    let what = match op {
                        ir::UnOp::Abs => format!("{t}.abs({{}})"),
                        ir::UnOp::Not => "!{}".to_string(),
                        _ => "-{}".to_string(),
                    };
                    self.fail_narrowed(&c, what, *t, &[(a.clone(), *t)]);
                }
                self.bind_scalar(one()?, &e, *t);
            }
            Exp::BinOp(op, t, a, b) => {
                let (a, _) = self.scalar(a)?;
                let (b, _) = self.scalar(b)?;
                if scalar::divides(*op) && matches!(t, PrimType::Int(_)) {
                    let site = self.site("division by zero".into(), vec![]);
                    let zero = self.literal(PrimValue::zero(*t));
                    let c = scalar::cmp(ir::CmpOp::Eq, *t, &b, &zero, self.wide);
                    self.fail_if(&c, site, &[]);
                }
                if *op == ir::BinOp::Pow && matches!(t, PrimType::Int(i) if i.signed()) {
                    let site = self.site("negative exponent: {} ** {}".into(), vec![*t, *t]);
                    let zero = self.literal(PrimValue::zero(*t));
                    let c = scalar::cmp(ir::CmpOp::Lt, *t, &b, &zero, self.wide);
                    self.fail_if(&c, site, &[(a.clone(), *t), (b.clone(), *t)]);
                }
                let e = scalar::binop(*op, *t, &a, &b, self.wide)
                    .ok_or_else(|| internal(s.span, "binop"))?;
                let r = self.let_(&e, *t);
                if let Some(c) = scalar::binop_overflow(*op, *t, &a, &b, &r).filter(|_| !self.wide)
                {
                    let what = format!("{{}} {} {{}}", crate::ir::print::binop_name(*op));
                    self.fail_narrowed(&c, what, *t, &[(a, *t), (b, *t)]);
                }
                self.bind(one()?.var, KVal::Scalar(r, *t));
            }
            Exp::Cmp(op, t, a, b) => {
                let (a, _) = self.scalar(a)?;
                let (b, _) = self.scalar(b)?;
                self.bind_scalar(one()?, &scalar::cmp(*op, *t, &a, &b, self.wide), PrimType::Bool);
            }
            Exp::Convert { from, to, arg } => {
                let (a, _) = self.scalar(arg)?;
                if let Some(c) = scalar::convert_overflow(*from, *to, &a).filter(|_| !self.wide) {
                    let what = format!("{{}} converted to {to}");
                    self.fail_narrowed(&c, what, *to, &[(a.clone(), *from)]);
                }
                self.bind_scalar(one()?, &scalar::convert(*from, *to, &a, self.wide), *to);
            }
            Exp::Math(f, t, args) => {
                let args = args.iter().map(|a| Ok(self.scalar(a)?.0)).collect::<R<Vec<_>>>()?;
                let e = scalar::math(*f, *t, &args, self.wide)
                    .ok_or_else(|| internal(s.span, "math"))?;
                let rt = one()?.ty.elem();
                self.bind_scalar(one()?, &e, rt);
            }
            Exp::Select(c, a, b) => {
                let (c, _) = self.scalar(c)?;
                match (self.atom(a)?, self.atom(b)?) {
                    (KVal::Scalar(a, t), KVal::Scalar(b, _)) => {
                        self.bind_scalar(one()?, &format!("select({b}, {a}, {c})"), t)
                    }
                    _ => return Err(unsupported(s.span, "selecting between arrays in a kernel")),
                }
            }
            Exp::Index { arr, idx } => self.index_stm(s, *arr, idx)?,
            Exp::Iota { n, start, step, it } => {
                let ty = PrimType::Int(*it);
                let n = self.atom_i32(n)?;
                let (start, _) = self.scalar(start)?;
                let (step, _) = self.scalar(step)?;
                self.bind(one()?.var, KVal::Arr(Rc::new(DArr::Iota { n, start, step, ty })));
            }
            Exp::Replicate { shape, value } => {
                let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                let val = self.atom(value)?;
                self.bind(one()?.var, KVal::Arr(Rc::new(DArr::Repl { dims, val })));
            }
            Exp::Rearrange { arr, perm } => {
                let d = self.perm(*arr, perm)?;
                self.bind(one()?.var, KVal::Arr(d));
            }
            Exp::Reshape { arr, shape } => {
                let inner = self.arr(*arr)?;
                let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                self.bind(one()?.var, KVal::Arr(Rc::new(DArr::Reshape { dims, inner })));
            }
            Exp::Concat { axis, arrs, len } => {
                let parts = arrs.iter().map(|a| self.arr(*a)).collect::<R<Vec<_>>>()?;
                let mut dims = parts.first().map(|p| p.dims()).unwrap_or_default();
                if let Some(d) = dims.get_mut(*axis) {
                    *d = self.dim(len)?;
                }
                let d = DArr::Concat { axis: *axis, parts, dims };
                self.bind(one()?.var, KVal::Arr(Rc::new(d)));
            }
            Exp::ArrayLit { elems, elem_ty } => {
                let elems = elems.iter().map(|a| self.atom(a)).collect::<R<Vec<_>>>()?;
                let mut dims = vec![format!("i32({})", elems.len())];
                if let Some(KVal::Arr(a)) = elems.first() {
                    dims.extend(a.dims());
                }
                let d = DArr::Lit { elems, dims, elem: elem_ty.elem() };
                self.bind(one()?.var, KVal::Arr(Rc::new(d)));
            }
            Exp::Copy(v) => {
                let v = self.var(*v)?;
                self.bind(one()?.var, v);
            }
            Exp::Apply { fun, args } => {
                let f = self.prog.funs.get(*fun).ok_or_else(|| internal(s.span, "call"))?;
                if self.depth >= MAX_INLINE {
                    return Err(unsupported(s.span, "calls nested more than 64 deep in a kernel"));
                }
                let vals = args.iter().map(|a| self.atom(a)).collect::<R<Vec<_>>>()?;
                for (p, v) in f.params.iter().zip(vals) {
                    self.bind(p.var, v);
                }
                self.depth += 1;
                let res = self.body(&f.body);
                self.depth -= 1;
                for (p, v) in s.pat.iter().zip(res?) {
                    self.bind(p.var, v);
                }
            }
            Exp::If { cond, then_body, else_body, .. } => {
                let (c, _) = self.scalar(cond)?;
                // Scalar results are computed here; array results are delayed (`DArr::If`).
                let sks: Vec<(usize, PrimType)> = s
                    .pat
                    .iter()
                    .enumerate()
                    .filter_map(|(k, p)| match p.ty {
                        Type::Prim(t) => Some((k, t)),
                        _ => None,
                    })
                    .collect();
                if !sks.is_empty() {
                    let names: Vec<String> = sks.iter().map(|_| self.fresh("r")).collect();
                    for (n, (_, t)) in names.iter().zip(&sks) {
                        self.line(&format!("var {n}: {};", self.ty(*t)));
                    }
                    self.open(&format!("if ({c}) {{"));
                    self.assign_some(then_body, &sks, &names)?;
                    self.indent -= 1;
                    self.open("} else {");
                    self.assign_some(else_body, &sks, &names)?;
                    self.close();
                    for (n, (k, t)) in names.iter().zip(&sks) {
                        let p = s.pat.get(*k).ok_or_else(|| internal(s.span, "if pattern"))?;
                        self.bind_scalar(p, n, *t);
                    }
                }
                let bodies = Rc::new((then_body.clone(), else_body.clone()));
                for (k, p) in s.pat.iter().enumerate() {
                    let Type::Array { elem, shape } = &p.ty else { continue };
                    let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                    let d = DArr::If {
                        env: self.env.clone(),
                        cond: c.clone(),
                        bodies: bodies.clone(),
                        k,
                        dims,
                        elem: *elem,
                    };
                    self.bind(p.var, KVal::Arr(Rc::new(d)));
                }
            }
            Exp::Loop { params, form, body } => {
                let tys = scalar_types(&params.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>())
                    .ok_or_else(|| unsupported(s.span, "a loop carrying arrays in a kernel"))?;
                let mut names = Vec::new();
                for ((p, init), t) in params.iter().zip(&tys) {
                    let (e, _) = self.scalar(init)?;
                    let n = self.fresh("p");
                    self.line(&format!("var {n}: {} = {e};", self.ty(*t)));
                    self.bind(p.var, KVal::Scalar(n.clone(), *t));
                    names.push(n);
                }
                match form {
                    LoopForm::For { i, it, bound } => {
                        let t = PrimType::Int(*it);
                        let (b, _) = self.scalar(bound)?;
                        let iv = self.fresh("i");
                        if self.two_words(t) {
                            // An i32 counter: no kernel loop runs 2^31 times.
                            let b = self.to_i32(&b, t);
                            self.open(&format!("for (var {iv}: i32 = 0; {iv} < {b}; {iv}++) {{"));
                            let e = self.of_i32(&iv, t);
                            let wv = self.let_(&e, t);
                            self.bind(*i, KVal::Scalar(wv, t));
                        } else {
                            let w = self.ty(t);
                            self.open(&format!(
                                "for (var {iv}: {w} = {w}(0); {iv} < {b}; {iv} = {iv} + {w}(1)) {{"
                            ));
                            self.bind(*i, KVal::Scalar(iv, t));
                        }
                    }
                    LoopForm::While(c) => {
                        let KVal::Scalar(c, _) = self.var(*c)? else {
                            return Err(internal(s.span, "while condition"));
                        };
                        self.open("loop {");
                        self.line(&format!("if (!{c}) {{ break; }}"));
                    }
                }
                self.assign_body(body, &names)?;
                self.close();
                for ((p, n), t) in s.pat.iter().zip(&names).zip(&tys) {
                    self.bind_scalar(p, n, *t);
                }
            }
            // A map without results is kept for the checks its body makes (dead reads that may
            // fail): a loop that runs them.
            Exp::Map { w, lam, arrs } if s.pat.is_empty() => {
                let (l, xs) = self.open_elements_loop(w, arrs)?;
                self.apply_lambda(lam, xs)?;
                self.close_count(l);
            }
            Exp::Map { lam, arrs, .. } => {
                let w = match &s.pat.first().map(|p| &p.ty) {
                    Some(Type::Array { shape, .. }) => shape.first().copied(),
                    _ => None,
                };
                let w = self.dim(&w.ok_or_else(|| internal(s.span, "map result type"))?)?;
                let arrs = arrs.iter().map(|a| self.var(*a)).collect::<R<Vec<_>>>()?;
                let lam = Rc::new(lam.clone());
                for (k, p) in s.pat.iter().enumerate() {
                    let Type::Array { elem, shape } = &p.ty else {
                        return Err(internal(s.span, "map result type"));
                    };
                    let mut dims = vec![w.clone()];
                    for d in shape.iter().skip(1) {
                        dims.push(self.dim(d)?);
                    }
                    let d = DArr::Map {
                        lam: lam.clone(),
                        env: self.env.clone(),
                        arrs: arrs.clone(),
                        k,
                        dims,
                        elem: *elem,
                    };
                    self.bind(p.var, KVal::Arr(Rc::new(d)));
                }
            }
            Exp::Reduce { w, lam, neutral, arrs, .. }
                if s.pat.iter().all(|p| matches!(p.ty, Type::Array { .. })) =>
            {
                let lam = Rc::new(lam.clone());
                let neutral = neutral
                    .iter()
                    .map(|a| match a {
                        Atom::Var(v) => self.arr(*v),
                        Atom::Const(_) => Err(internal(s.span, "reduce neutral")),
                    })
                    .collect::<R<Vec<_>>>()?;
                let arrs = arrs.iter().map(|a| self.arr(*a)).collect::<R<Vec<_>>>()?;
                let w = self.atom_i32(w)?;
                let mut shape = None;
                for (k, p) in s.pat.iter().enumerate() {
                    let Type::Array { elem, shape: sh } = &p.ty else { continue };
                    if shape.get_or_insert(sh) != &sh {
                        return Err(unsupported(
                            s.span,
                            "a reduction of arrays of different shapes in a kernel",
                        ));
                    }
                    let dims = sh.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                    let d = DArr::RedArr {
                        lam: lam.clone(),
                        env: self.env.clone(),
                        neutral: neutral.clone(),
                        arrs: arrs.clone(),
                        w: w.clone(),
                        k,
                        dims,
                        elem: *elem,
                    };
                    self.bind(p.var, KVal::Arr(Rc::new(d)));
                }
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } => {
                let tys = scalar_types(&s.pat)
                    .ok_or_else(|| unsupported(s.span, "a reduction of arrays in a kernel"))?;
                let mut names = Vec::new();
                for (a, t) in neutral.iter().zip(&tys) {
                    let (e, _) = self.scalar(a)?;
                    let n = self.fresh("acc");
                    self.line(&format!("var {n}: {} = {e};", self.ty(*t)));
                    names.push(n);
                }
                let (l, xs) = self.open_elements_loop(w, arrs)?;
                let accs: Vec<KVal> =
                    names.iter().zip(&tys).map(|(n, t)| KVal::Scalar(n.clone(), *t)).collect();
                let res = self.apply_lambda(lam, accs.into_iter().chain(xs).collect())?;
                self.assign(&res, &names)?;
                self.close_count(l);
                for ((p, n), t) in s.pat.iter().zip(&names).zip(&tys) {
                    self.bind_scalar(p, n, *t);
                }
            }
            Exp::Assert { cond, msg, vals } => {
                let (c, _) = self.scalar(cond)?;
                let vals = vals.iter().map(|a| self.scalar(a)).collect::<R<Vec<_>>>()?;
                let site = self.site(msg.clone(), vals.iter().map(|v| v.1).collect());
                self.fail_if(&format!("!{c}"), site, &vals);
            }
            Exp::Scan { lam, neutral, arrs, .. } => {
                // Whether the elements are scalars, before their neutral elements are read.
                let vectors = s
                    .pat
                    .iter()
                    .map(|p| self.vector(s, p, "`scan` of arrays in a kernel"))
                    .collect::<R<Vec<_>>>()?;
                let neutral = neutral.iter().map(|a| self.scalar(a)).collect::<R<Vec<_>>>()?;
                let arrs = arrs.iter().map(|a| self.var(*a)).collect::<R<Vec<_>>>()?;
                let lam = Rc::new(lam.clone());
                for (k, (p, (elem, dims))) in s.pat.iter().zip(vectors).enumerate() {
                    let d = DArr::Scan {
                        lam: lam.clone(),
                        env: self.env.clone(),
                        neutral: neutral.clone(),
                        arrs: arrs.clone(),
                        k,
                        dims,
                        elem,
                    };
                    self.bind(p.var, KVal::Arr(Rc::new(d)));
                }
            }
            Exp::Hist { dest, lam, is, vs, w, .. } => {
                let dest = dest.iter().map(|a| self.arr(*a)).collect::<R<Vec<_>>>()?;
                let is = self.arr(*is)?;
                let vs = vs.iter().map(|a| self.var(*a)).collect::<R<Vec<_>>>()?;
                let w = self.atom_i32(w)?;
                let lam = Rc::new(lam.clone());
                for (k, p) in s.pat.iter().enumerate() {
                    let (elem, dims) = self.vector(s, p, "`hist` with array-valued bins")?;
                    let d = DArr::Hist {
                        dest: dest.clone(),
                        lam: lam.clone(),
                        env: self.env.clone(),
                        is: is.clone(),
                        vs: vs.clone(),
                        w: w.clone(),
                        k,
                        dims,
                        elem,
                    };
                    self.bind(p.var, KVal::Arr(Rc::new(d)));
                }
            }
            Exp::Scatter { dest, idx, vals, w } => {
                let dest = self.arr(*dest)?;
                let idx = idx.iter().map(|a| self.arr(*a)).collect::<R<Vec<_>>>()?;
                let vals = self.arr(*vals)?;
                let w = self.atom_i32(w)?;
                let d = DArr::Scatter { dest, idx, vals, w };
                self.bind(one()?.var, KVal::Arr(Rc::new(d)));
            }
            Exp::Update { arr, idx, value } => {
                let inner = self.arr(*arr)?;
                let (six, out_dims, _) = self.region(&inner.dims(), idx)?;
                let ranges = six.iter().filter(|x| matches!(x, SIx::Range { .. })).count();
                let lens = out_dims.into_iter().take(ranges).collect();
                let value = self.atom(value)?;
                let d = DArr::Update { inner, idx: six, lens, value };
                self.bind(one()?.var, KVal::Arr(Rc::new(d)));
            }
            Exp::Ad { .. } => {
                return Err(internal(s.span, "an AD construct survived differentiation"))
            }
        }
        Ok(())
    }

    /// Open a sequential loop over the `w` elements of `arrs` (closed by the caller with
    /// [`Gen::close_count`]); the elements at the loop's index.
    fn open_elements_loop(&mut self, w: &Atom, arrs: &[Var]) -> R<(CountLoop, Vec<KVal>)> {
        let w = self.atom_i32(w)?;
        let arrs = arrs.iter().map(|a| self.arr(*a)).collect::<R<Vec<_>>>()?;
        let iv = self.fresh("i");
        let l = self.open_count(&iv, "0", &w, 1);
        let xs = arrs.iter().map(|a| self.index(a, std::slice::from_ref(&iv))).collect::<R<_>>()?;
        Ok((l, xs))
    }

    /// Bind a lambda's parameters to `args`, emit its body; its results.
    pub fn apply_lambda(&mut self, lam: &Lambda, args: Vec<KVal>) -> R<Vec<KVal>> {
        for (p, v) in lam.params.iter().zip(args) {
            self.bind(p.var, v);
        }
        self.body(&lam.body)
    }

    /// Assign scalar results to `var`s (through `let`s, so that results naming the vars read the
    /// old values).
    pub fn assign(&mut self, res: &[KVal], names: &[String]) -> R<()> {
        let mut tmps = Vec::new();
        for r in res {
            let KVal::Scalar(e, t) = r else {
                return Err(unsupported(
                    self.span,
                    "array results of a sequential construct in a kernel",
                ));
            };
            tmps.push(self.let_(e, *t));
        }
        for (n, t) in names.iter().zip(tmps) {
            self.line(&format!("{n} = {t};"));
        }
        Ok(())
    }

    /// Run a body and assign its results `ks` (scalars) to `names`.
    fn assign_some(&mut self, b: &ir::Body, ks: &[(usize, PrimType)], names: &[String]) -> R<()> {
        let res = self.body(b)?;
        let res = ks
            .iter()
            .map(|(k, _)| res.get(*k).cloned().ok_or_else(|| internal(self.span, "if result")))
            .collect::<R<Vec<_>>>()?;
        self.assign(&res, names)
    }

    /// The element type and dimensions of a one-dimensional result `p` (else `what` is
    /// unsupported).
    fn vector(&mut self, s: &ir::Stm, p: &ir::Param, what: &str) -> R<(PrimType, Vec<String>)> {
        match &p.ty {
            Type::Array { elem, shape } if shape.len() == 1 => {
                let dims = shape.iter().map(|d| self.dim(d)).collect::<R<Vec<_>>>()?;
                Ok((*elem, dims))
            }
            _ => Err(unsupported(s.span, what)),
        }
    }

    fn assign_body(&mut self, b: &ir::Body, names: &[String]) -> R<()> {
        let res = self.body(b)?;
        self.assign(&res, names)
    }

    fn index_stm(&mut self, s: &ir::Stm, arr: Var, idx: &[DimIndex]) -> R<()> {
        let a = self.arr(arr)?;
        let dims = a.dims();
        let (six, out_dims, fixes) = self.region(&dims, idx)?;
        let p = s.pat.first().ok_or_else(|| internal(s.span, "index"))?;
        let v = match fixes {
            Some(fixes) => {
                // Clamp so a failing invocation still reads inside the buffer.
                let safe: Vec<String> = fixes
                    .iter()
                    .zip(&dims)
                    .map(|(i, d)| format!("clamp({i}, 0, max({d} - 1, 0))"))
                    .collect();
                self.index(&a, &safe)?
            }
            None => KVal::Arr(Rc::new(DArr::Slice { inner: a, idx: six, dims: out_dims })),
        };
        self.bind(p.var, v);
        Ok(())
    }

    /// Check the indices `idx` of an array of shape `dims` (failing as the interpreter does);
    /// the region as a slice view, its shape, and the fixed indices when all are fixed.
    fn region(&mut self, dims: &[String], idx: &[DimIndex]) -> R<Region> {
        let i32t = PrimType::Int(IntType::I32);
        let mut conds = Vec::new();
        let mut shown = Vec::new();
        let mut vals = Vec::new();
        let mut fixes = Vec::new();
        let mut six = Vec::new();
        let mut out_dims = Vec::new();
        let mut all_fix = true;
        for (ix, d) in idx.iter().zip(dims) {
            match ix {
                DimIndex::Fix(i) => {
                    // The message shows the index as it is (a wide program's may not fit i32).
                    let (e, t) = self.scalar(i)?;
                    let i = self.let_(&self.to_i32(&e, t), i32t);
                    conds.push(format!("({i} < 0 || {i} >= {d})"));
                    shown.push("{}".to_string());
                    vals.push((e, t));
                    fixes.push(i.clone());
                    six.push(SIx::Fix(i));
                }
                DimIndex::Slice { start, len, stride } => {
                    all_fix = false;
                    let st = self.atom_i32(start)?;
                    let st = self.let_(&st, i32t);
                    let ln = self.atom_i32(len)?;
                    let ln = self.let_(&ln, i32t);
                    let sd = self.atom_i32(stride)?;
                    let sd = self.let_(&sd, i32t);
                    let last = format!("({st} + ({ln} - 1) * {sd})");
                    conds.push(format!(
                        "({ln} != 0 && ({ln} < 0 || {st} < 0 || {st} >= {d} || {last} < 0 || {last} >= {d}))"
                    ));
                    shown.push("{}:{}:{}".to_string());
                    vals.push((st.clone(), i32t));
                    vals.push((format!("({st} + {ln} * {sd})"), i32t));
                    vals.push((sd.clone(), i32t));
                    out_dims.push(ln);
                    six.push(SIx::Range { start: st, stride: sd });
                }
            }
        }
        out_dims.extend(dims.iter().skip(idx.len()).cloned());
        for d in dims {
            vals.push((d.clone(), i32t));
        }
        let shape: String = dims.iter().map(|_| "[{}]").collect();
        let msg = format!("index [{}] out of bounds for array of shape {shape}", shown.join(", "));
        if !conds.is_empty() {
            let site = self.site(msg, vals.iter().map(|v| v.1).take(super::MAX_ERR_ARGS).collect());
            self.fail_if(&conds.join(" || "), site, &vals);
        }
        Ok((six, out_dims, all_fix.then_some(fixes)))
    }
}

/// A checked region of an array: its slice view, its shape, and the fixed indices when every
/// index is fixed.
type Region = (Vec<SIx>, Vec<String>, Option<Vec<String>>);

/// Argument word `k` as a `u32` expression. The arguments are a uniform buffer (so they do not
/// count against the storage buffers a kernel may bind), an array of `vec4<u32>` because
/// uniform arrays have a 16-byte stride.
pub fn arg(k: usize) -> String {
    format!("ogm_args[{}][{}]", k / 4, k % 4)
}

/// `b` computing only its results `ks` (in that order), and the variables it then uses from
/// outside: an element of one result of a map need not load or compute what only the others
/// use (each load of an unused parameter would also bind its buffer).
pub fn only_results(b: &ir::Body, ks: &[usize]) -> (ir::Body, std::collections::HashSet<Var>) {
    let mut body = b.clone();
    body.result = ks.iter().filter_map(|&k| b.result.get(k).copied()).collect();
    crate::ir::lower::dce(&mut body);
    let used = crate::ad::walk::free_in_body(&body).into_iter().collect();
    (body, used)
}

/// Row-major strides of `dims`.
pub fn row_major(dims: &[String]) -> Vec<String> {
    let mut s = vec!["1".to_string(); dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        s[k] = format!("({} * {})", s[k + 1], dims[k + 1]);
    }
    s
}

fn scalar_types(ps: &[ir::Param]) -> Option<Vec<PrimType>> {
    ps.iter()
        .map(|p| match p.ty {
            Type::Prim(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// An integer expression of type `t` as `i32`.
pub fn to_i32(e: &str, t: PrimType) -> String {
    match t {
        PrimType::Int(i) if i.signed() => e.to_string(),
        PrimType::Bool => format!("select(0, 1, {e})"),
        _ => format!("i32({e})"),
    }
}

/// An `i32` index expression as type `t`.
pub fn from_i32(e: &str, t: PrimType) -> String {
    match t {
        PrimType::Int(i) if i.signed() => e.to_string(),
        _ => format!("{}({e})", wgsl_type(t, false)),
    }
}

/// A value of `t` as a 32-bit word.
pub fn word(e: &str, t: PrimType) -> String {
    match t {
        PrimType::Bool => format!("select(0u, 1u, {e})"),
        PrimType::Int(i) if !i.signed() => e.to_string(),
        _ => format!("bitcast<u32>({e})"),
    }
}

/// A buffer element read as a register value of `t`.
pub fn load(e: &str, t: PrimType) -> String {
    match t {
        PrimType::Bool => format!("({e} != 0u)"),
        _ => e.to_string(),
    }
}

/// A register value of `t` converted for storing in a buffer of `storage_type(t)`.
pub fn store(e: &str, t: PrimType) -> String {
    match t {
        PrimType::Bool => format!("select(0u, 1u, {e})"),
        _ => e.to_string(),
    }
}

/// The declaration of a kernel's storage buffers.
pub fn buffer_decls(bufs: &[(BufRef, PrimType, Access)], wide: bool) -> String {
    let mut s = String::new();
    for (k, (_, t, a)) in bufs.iter().enumerate() {
        let mode = match a {
            Access::Read => "read",
            Access::ReadWrite => "read_write",
        };
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, {mode}> b{k}: array<{}>;",
            k + 2,
            storage_type(*t, wide)
        );
    }
    s
}
