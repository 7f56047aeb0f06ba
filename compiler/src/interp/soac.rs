//! The second-order array combinators: `map`, `reduce`, `scan`, `scatter` and `hist`.
//!
//! The reference runs them sequentially, in index order:
//! * `reduce` is a left fold starting from the neutral element; backends may reassociate (and,
//!   for `reduce_comm`, reorder), so their float results may differ in rounding.
//! * `scan` is inclusive: element `j` is the fold of elements `0..=j`.
//! * `scatter` ignores out-of-bounds indices; of in-bounds duplicates the last write wins (in
//!   Futhark the result of duplicate writes of different values is unspecified).
//! * `hist` folds each value into its bin in index order, ignoring out-of-bounds bins; the neutral
//!   element is not needed sequentially.

use super::array::{check_index, shape_str, Array, Ix, StackError, Stacker, Val};
use super::eval::{err, Interp, Out, Res};
use super::liveness::{BodyAnn, StmAnn};
use super::prim_ops;
use crate::diag::Span;
use crate::ir::operators::single_operator;
use crate::ir::{Atom, Dim, Lambda, Param, Type, Var};

fn irregular(what: &str, span: Span) -> impl Fn(StackError) -> Box<crate::Diagnostic> + '_ {
    move |e| match e {
        StackError::Irregular(x, y) => err(
            span,
            format!(
                "size mismatch: irregular array: {what} returned arrays of shapes {} and {}",
                shape_str(&x),
                shape_str(&y)
            ),
        ),
        StackError::Other(m) => err(span, m),
    }
}

/// Whether `v` is a parameter of `lam` or bound at the top level of its body.
fn bound_in(lam: &Lambda, v: Var) -> bool {
    lam.params.iter().any(|p| p.var == v)
        || lam.body.stms.iter().any(|s| s.pat.iter().any(|p| p.var == v))
}

impl<'p> Interp<'p> {
    fn width(&self, w: &Atom, span: Span) -> Res<usize> {
        let n = self.i64(w, span)?;
        usize::try_from(n).map_err(|_| err(span, format!("negative size: {n} elements")))
    }

    /// The arrays a SOAC traverses, each of outer size `w`.
    fn outer_arrays(&self, arrs: &[Var], w: usize, what: &str, span: Span) -> Res<Vec<Array>> {
        arrs.iter()
            .map(|&v| {
                let a = self.array(v, span)?;
                if a.shape().is_empty() || a.outer() != w as i64 {
                    return Err(err(
                        span,
                        format!(
                            "size mismatch: `{what}` of width {w} applied to `{}` of shape {}",
                            self.prog.name(v),
                            shape_str(a.shape())
                        ),
                    ));
                }
                Ok(a.clone())
            })
            .collect()
    }

    fn rows(arrays: &[Array], j: usize, into: &mut Vec<Val>, span: Span) -> Res<()> {
        for a in arrays {
            into.push(a.row(j).ok_or_else(|| err(span, "internal error: row out of range"))?);
        }
        Ok(())
    }

    fn sub(ann: &'p StmAnn, span: Span) -> Res<&'p BodyAnn> {
        ann.subs.first().ok_or_else(|| err(span, "internal error: missing annotation"))
    }

    /// Apply an anonymous function: bind and check its parameters, run it, check its results.
    fn apply_lambda(
        &mut self,
        lam: &'p Lambda,
        ann: &'p BodyAnn,
        args: Vec<Val>,
        span: Span,
    ) -> Res<Vec<Val>> {
        let prog = self.prog;
        let what = |p: &Param| format!("parameter `{}` of an anonymous function", prog.name(p.var));
        self.bind_params(&lam.params, args, &what, span)?;
        let res = self.exec_body(&lam.body, ann, span)?;
        if res.len() != lam.ret.len() {
            return Err(err(
                span,
                format!(
                    "internal error: an anonymous function returned {} values but declares {}",
                    res.len(),
                    lam.ret.len()
                ),
            ));
        }
        for (k, (t, v)) in lam.ret.iter().zip(&res).enumerate() {
            let what = || format!("result {} of an anonymous function", k + 1);
            self.check_type(v, t, &what, false, span)?;
        }
        Ok(res)
    }

    #[inline(never)]
    pub(super) fn map(
        &mut self,
        w: &Atom,
        lam: &'p Lambda,
        arrs: &[Var],
        ann: &'p StmAnn,
        span: Span,
    ) -> Res<Out> {
        let sub = Self::sub(ann, span)?;
        let w = self.width(w, span)?;
        let arrays = self.outer_arrays(arrs, w, "map", span)?;
        if let Some(out) = self.map_columns(lam, &arrays, w, span)? {
            return Ok(Out::Many(out));
        }
        let mut stackers: Vec<Stacker> =
            lam.ret.iter().map(|t| Stacker::new(t.elem(), w)).collect();
        for j in 0..w {
            let mut args = Vec::with_capacity(arrays.len());
            Self::rows(&arrays, j, &mut args, span)?;
            let res = self.apply_lambda(lam, sub, args, span)?;
            for (st, v) in stackers.iter_mut().zip(&res) {
                st.push(&self.meter, v).map_err(irregular("map's function", span))?;
            }
        }
        let mut out = Vec::with_capacity(stackers.len());
        for (st, t) in stackers.into_iter().zip(&lam.ret) {
            // With no iterations the element shape comes from the declared type; a size bound
            // inside the function (which never ran) counts as 0.
            let inner: Vec<i64> = match t {
                Type::Prim(_) => Vec::new(),
                Type::Array { shape, .. } => shape
                    .iter()
                    .map(|d| match d {
                        Dim::Var(v) if bound_in(lam, *v) => 0,
                        _ => self.dim_opt(d).unwrap_or(0),
                    })
                    .collect(),
            };
            out.push(Val::Arr(st.finish(&self.meter, &inner).map_err(|m| err(span, m))?));
        }
        Ok(Out::Many(out))
    }

    #[inline(never)]
    pub(super) fn reduce(
        &mut self,
        w: &Atom,
        lam: &'p Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        ann: &'p StmAnn,
        span: Span,
    ) -> Res<Out> {
        let sub = Self::sub(ann, span)?;
        let w = self.width(w, span)?;
        let arrays = self.outer_arrays(arrs, w, "reduce", span)?;
        let mut acc = neutral.iter().map(|a| self.atom(a, span)).collect::<Res<Vec<_>>>()?;
        if let Some((r, _)) = self.fold_operator(lam, &acc, &arrays, false, span)? {
            return Ok(Out::One(r));
        }
        for j in 0..w {
            Self::rows(&arrays, j, &mut acc, span)?;
            acc = self.apply_lambda(lam, sub, acc, span)?;
        }
        Ok(Out::Many(acc))
    }

    #[inline(never)]
    pub(super) fn scan(
        &mut self,
        w: &Atom,
        lam: &'p Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        ann: &'p StmAnn,
        span: Span,
    ) -> Res<Out> {
        let sub = Self::sub(ann, span)?;
        let w = self.width(w, span)?;
        let arrays = self.outer_arrays(arrs, w, "scan", span)?;
        let mut acc = neutral.iter().map(|a| self.atom(a, span)).collect::<Res<Vec<_>>>()?;
        if let Some((_, Some(all))) = self.fold_operator(lam, &acc, &arrays, true, span)? {
            return Ok(Out::One(Val::Arr(all)));
        }
        let inner: Vec<Vec<i64>> = acc.iter().map(|v| v.shape().to_vec()).collect();
        let mut stackers: Vec<Stacker> = acc.iter().map(|v| Stacker::new(v.elem(), w)).collect();
        for j in 0..w {
            Self::rows(&arrays, j, &mut acc, span)?;
            acc = self.apply_lambda(lam, sub, acc, span)?;
            for (st, v) in stackers.iter_mut().zip(&acc) {
                st.push(&self.meter, v).map_err(irregular("scan's operator", span))?;
            }
        }
        let mut out = Vec::with_capacity(stackers.len());
        for (st, inner) in stackers.into_iter().zip(&inner) {
            out.push(Val::Arr(st.finish(&self.meter, inner).map_err(|m| err(span, m))?));
        }
        Ok(Out::Many(out))
    }

    fn take_array(&mut self, v: Var, ann: &StmAnn, span: Span) -> Res<Array> {
        match self.take(v, ann, span)? {
            Val::Arr(a) => Ok(a),
            Val::Prim(_) => Err(err(span, "internal error: a scalar where an array is expected")),
        }
    }

    /// Element `j` of a one-dimensional integer array, as an index.
    fn index_at(a: &Array, j: usize, span: Span) -> Res<i64> {
        a.get(j)
            .and_then(|p| p.as_i128())
            .map(|i| i64::try_from(i).unwrap_or(i64::MAX))
            .ok_or_else(|| err(span, "internal error: indices must be integers"))
    }

    #[inline(never)]
    pub(super) fn scatter(
        &mut self,
        dest: Var,
        idx: &[Var],
        vals: Var,
        w: &Atom,
        ann: &'p StmAnn,
        span: Span,
    ) -> Res<Out> {
        let w = self.width(w, span)?;
        let idx_arrays = self.outer_arrays(idx, w, "scatter", span)?;
        let vals_array = self.outer_arrays(&[vals], w, "scatter", span)?;
        let mut d = self.take_array(dest, ann, span)?;
        if idx.is_empty() || idx.len() > d.shape().len() {
            return Err(err(span, "internal error: scatter with the wrong number of indices"));
        }
        // Scalars into every dimension: write the elements directly.
        if idx.len() == d.shape().len() && vals_array.iter().all(|a| a.shape().len() == 1) {
            let shape = d.shape().to_vec();
            let (data, base) = d.make_mut(&self.meter).map_err(|m| err(span, m))?;
            for j in 0..w {
                let mut off: usize = 0;
                let mut inside = true;
                for (a, &dim) in idx_arrays.iter().zip(&shape) {
                    let i = Self::index_at(a, j, span)?;
                    inside &= 0 <= i && i < dim;
                    off = if inside { off * dim as usize + i as usize } else { 0 };
                }
                let v = vals_array.first().and_then(|a| a.get(j));
                if let Some(v) = v.filter(|_| inside) {
                    if !data.set(base + off, v) {
                        return Err(err(
                            span,
                            "internal error: scatter of a value of another type",
                        ));
                    }
                }
            }
            return Ok(Out::One(Val::Arr(d)));
        }
        let mut ix = Vec::with_capacity(idx.len());
        for j in 0..w {
            ix.clear();
            for a in &idx_arrays {
                ix.push(Ix::Fix(Self::index_at(a, j, span)?));
            }
            if check_index(d.shape(), &ix).is_err() {
                continue;
            }
            let mut v = Vec::with_capacity(1);
            Self::rows(&vals_array, j, &mut v, span)?;
            if let Some(v) = v.first() {
                d.update(&self.meter, &ix, v).map_err(|m| err(span, m))?;
            }
        }
        Ok(Out::One(Val::Arr(d)))
    }

    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hist(
        &mut self,
        dest: &[Var],
        lam: &'p Lambda,
        is: Var,
        vs: &[Var],
        w: &Atom,
        ann: &'p StmAnn,
        span: Span,
    ) -> Res<Out> {
        let sub = Self::sub(ann, span)?;
        let w = self.width(w, span)?;
        let bins_of = self.outer_arrays(&[is], w, "hist", span)?;
        let values = self.outer_arrays(vs, w, "hist", span)?;
        let mut dests =
            dest.iter().map(|v| self.take_array(*v, ann, span)).collect::<Res<Vec<_>>>()?;
        let Some(bins) = dests.first().map(Array::outer) else {
            return Err(err(span, "internal error: histogram without destination"));
        };
        if let Some(d) = dests.iter().find(|d| d.shape().is_empty() || d.outer() != bins) {
            return Err(err(
                span,
                format!(
                    "size mismatch: histogram destinations of shapes {} and {}",
                    shape_str(dests[0].shape()),
                    shape_str(d.shape())
                ),
            ));
        }
        // One scalar destination and a single-operator function: fold into the elements directly.
        if let (Some((op, t, left)), [d], [vals], Some(bins_arr)) =
            (single_operator(lam), &mut dests[..], &values[..], bins_of.first())
        {
            if d.shape().len() == 1 && vals.shape().len() == 1 && d.elem() == t && vals.elem() == t
            {
                let stm_span = lam.body.stms.first().map_or(span, |s| s.span);
                let (data, base) = d.make_mut(&self.meter).map_err(|m| err(span, m))?;
                for j in 0..w {
                    let b = Self::index_at(bins_arr, j, span)?;
                    if b < 0 || b >= bins {
                        continue;
                    }
                    let slot = base + b as usize;
                    let (Some(cur), Some(x)) = (data.get(slot), vals.get(j)) else {
                        return Err(err(span, "internal error: histogram element"));
                    };
                    let new = if left {
                        prim_ops::binop(op, cur, x)
                    } else {
                        prim_ops::binop(op, x, cur)
                    };
                    let new = new.map_err(|m| err(stm_span, m))?;
                    if !data.set(slot, new) {
                        return Err(err(span, "internal error: histogram of another type"));
                    }
                }
                self.count_steps(w as u64, span)?;
                return Ok(Out::Many(dests.into_iter().map(Val::Arr).collect()));
            }
        }
        for j in 0..w {
            let b = match bins_of.first() {
                Some(a) => Self::index_at(a, j, span)?,
                None => continue,
            };
            if b < 0 || b >= bins {
                continue;
            }
            let mut args = Vec::with_capacity(dests.len() + values.len());
            for d in &dests {
                // A copy, not a view: the bin is written back into `d` right after.
                let row = match d.row(b as usize) {
                    Some(Val::Arr(r)) => {
                        Val::Arr(r.materialize(&self.meter).map_err(|m| err(span, m))?)
                    }
                    Some(v) => v,
                    None => return Err(err(span, "internal error: bin out of range")),
                };
                args.push(row);
            }
            Self::rows(&values, j, &mut args, span)?;
            let new = self.apply_lambda(lam, sub, args, span)?;
            for (d, v) in dests.iter_mut().zip(&new) {
                d.update(&self.meter, &[Ix::Fix(b)], v).map_err(|m| err(span, m))?;
            }
        }
        Ok(Out::Many(dests.into_iter().map(Val::Arr).collect()))
    }
}
