//! Lowering tests: source text through the parser and checker, lowered, validated, printed.

mod erf;
mod gamma;
mod props;
mod run;

use expect_test::{expect, Expect};

use crate::diag::Diagnostic;
use crate::ir::{print::print_program, validate::validate, Program};
use crate::{syntax, types};

/// Parse, check, lower and validate; `None` while the checker is not available.
pub(super) fn lower_src(src: &str) -> Option<Result<Program, Vec<Diagnostic>>> {
    let ast = match syntax::parse(src) {
        Ok(a) => a,
        Err(d) => return Some(Err(d)),
    };
    let checked = match types::check(&ast) {
        Ok(c) => c,
        Err(d) if d.iter().any(|d| d.message.contains("not built yet")) => return None,
        Err(d) => return Some(Err(d)),
    };
    let r = super::lower(&checked);
    if let Ok(p) = &r {
        if let Err(e) = validate(p) {
            panic!("invalid IR: {e}\n{}", print_program(p));
        }
    }
    Some(r)
}

fn check_ir(src: &str, expect: Expect) {
    let Some(r) = lower_src(src) else { return };
    match r {
        Ok(p) => expect.assert_eq(&print_program(&p)),
        Err(d) => panic!("lowering failed: {d:#?}"),
    }
}

/// Lowering reports `needle` (or the checker already rejects the program).
fn check_err(src: &str, needle: &str) {
    let Some(r) = lower_src(src) else { return };
    match r {
        Ok(p) => panic!("expected an error containing {needle:?}, got\n{}", print_program(&p)),
        Err(d) if d.iter().all(|d| d.phase != crate::diag::Phase::Lower) => {}
        Err(d) => assert!(d.iter().any(|d| d.message.contains(needle)), "{d:#?}"),
    }
}

#[test]
fn dotprod() {
    check_ir(
        "def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 = reduce (+) 0 (map2 (*) xs ys)",
        expect![[r#"
            fun dotprod (n_0: i64, xs_1: [n_0]f32, ys_2: [n_0]f32) : f32 =
              let res_6: [n_0]f32 =
                map(n_0,
                  \(x_3: f32, y_4: f32) : f32 ->
                    let prod_5: f32 = x_3 * y_4
                    in prod_5,
                  xs_1, ys_2)
              let res_10: f32 =
                reduce(n_0,
                  \(p_7: f32, p_8: f32) : f32 ->
                    let sum_9: f32 = p_7 + p_8
                    in sum_9,
                  (0.0f32), res_6)
              in res_10
        "#]],
    );
}

#[test]
fn matmul() {
    check_ir(
        "def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 = reduce (+) 0 (map2 (*) xs ys)
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\row -> map (\\col -> dotprod row col) (transpose b)) a",
        expect![[r#"
            fun dotprod (n_0: i64, xs_1: [n_0]f32, ys_2: [n_0]f32) : f32 =
              let res_6: [n_0]f32 =
                map(n_0,
                  \(x_3: f32, y_4: f32) : f32 ->
                    let prod_5: f32 = x_3 * y_4
                    in prod_5,
                  xs_1, ys_2)
              let res_10: f32 =
                reduce(n_0,
                  \(p_7: f32, p_8: f32) : f32 ->
                    let sum_9: f32 = p_7 + p_8
                    in sum_9,
                  (0.0f32), res_6)
              in res_10

            fun matmul (n_11: i64, m_12: i64, m_13: i64, p_14: i64, a_15: [n_11][m_12]f32, b_16: [m_13][p_14]f32) : [n_11][p_14]f32 =
              let c_17: bool = m_13 == m_12
              let () = assert(c_17, "size mismatch: argument `b` of shape [{}][{}] does not match `[m][p]f32` with m = {}", m_13, p_14, m_12)
              let b_18: [m_12][p_14]f32 = reshape([m_12][p_14], b_16)
              let res_24: [n_11][p_14]f32 =
                map(n_11,
                  \(row_19: [m_12]f32) : [p_14]f32 ->
                    let t_20: [p_14][m_12]f32 = rearrange((1, 0), b_18)
                    let res_23: [p_14]f32 =
                      map(p_14,
                        \(col_21: [m_12]f32) : f32 ->
                          let r_22: f32 = dotprod(m_12, row_19, col_21)
                          in r_22,
                        t_20)
                    in res_23,
                  a_15)
              in res_24

            entry matmul ([n][m]f32, [m][p]f32) : [n][p]f32 = matmul
        "#]],
    );
}

#[test]
fn filter_and_partition() {
    check_ir(
        "entry pos (xs: []i32) : []i32 = filter (> 0) xs
entry parts (xs: []f32) : ([]f32, []f32) = partition (\\x -> x < 1) xs",
        expect![[r#"
            fun pos (d_0: i64, xs_1: [d_0]i32) : ?[count_13].[count_13]i32 =
              let flags_5: [d_0]i64 =
                map(d_0,
                  \(p_2: i32) : i64 ->
                    let c_3: bool = p_2 > 0i32
                    let t_4: i64 = i64.bool(c_3)
                    in t_4,
                  xs_1)
              let offsets_9: [d_0]i64 =
                scan(d_0,
                  \(a_6: i64, b_7: i64) : i64 ->
                    let t_8: i64 = a_6 + b_7
                    in t_8,
                  (0i64), flags_5)
              let c_10: bool = d_0 == 0i64
              let count_13: i64 =
                if c_10 : i64 then
                  in 0i64
                else
                  let diff_11: i64 = d_0 - 1i64
                  let count_12: i64 = offsets_9[diff_11]
                  in count_12
              let dest_idx_19: [d_0]i64 =
                map(d_0,
                  \(flag_14: i64, offset_15: i64) : i64 ->
                    let c_16: bool = flag_14 == 1i64
                    let diff_17: i64 = offset_15 - 1i64
                    let t_18: i64 = select(c_16, diff_17, -1i64)
                    in t_18,
                  flags_5, offsets_9)
              let blank_20: [count_13]i32 = replicate([count_13], 0i32)
              let filtered_21: [count_13]i32 = scatter(d_0, blank_20, (dest_idx_19), xs_1)
              in (count_13, filtered_21)

            fun parts (d_22: i64, xs_23: [d_22]f32) : ?[count_35][diff_46].([count_35]f32, [diff_46]f32) =
              let flags_27: [d_22]i64 =
                map(d_22,
                  \(x_24: f32) : i64 ->
                    let c_25: bool = x_24 < 1.0f32
                    let t_26: i64 = i64.bool(c_25)
                    in t_26,
                  xs_23)
              let offsets_31: [d_22]i64 =
                scan(d_22,
                  \(a_28: i64, b_29: i64) : i64 ->
                    let t_30: i64 = a_28 + b_29
                    in t_30,
                  (0i64), flags_27)
              let c_32: bool = d_22 == 0i64
              let count_35: i64 =
                if c_32 : i64 then
                  in 0i64
                else
                  let diff_33: i64 = d_22 - 1i64
                  let count_34: i64 = offsets_31[diff_33]
                  in count_34
              let iota_36: [d_22]i64 = iota_i64(d_22, 0i64, 1i64)
              let dest_idx_45: [d_22]i64 =
                map(d_22,
                  \(flag_37: i64, offset_38: i64, i_39: i64) : i64 ->
                    let c_40: bool = flag_37 == 1i64
                    let diff_41: i64 = offset_38 - 1i64
                    let diff_42: i64 = i_39 - offset_38
                    let sum_43: i64 = count_35 + diff_42
                    let t_44: i64 = select(c_40, diff_41, sum_43)
                    in t_44,
                  flags_27, offsets_31, iota_36)
              let diff_46: i64 = d_22 - count_35
              let blank_47: [d_22]f32 = replicate([d_22], 0.0f32)
              let parts_48: [d_22]f32 = scatter(d_22, blank_47, (dest_idx_45), xs_23)
              let trues_49: [count_35]f32 = parts_48[0i64:+count_35*1i64]
              let falses_50: [diff_46]f32 = parts_48[count_35:+diff_46*1i64]
              in (count_35, diff_46, trues_49, falses_50)

            entry pos ([]i32) : []i32 = pos
            entry parts ([]f32) : ([]f32, []f32) = parts
        "#]],
    );
}

#[test]
fn loops() {
    check_ir(
        "entry fib (n: i32) : i32 = (loop (a, b) = (0, 1) for _i < n do (b, a + b)).0
entry grow (n: i64) : []i64 = loop acc = [0] for i < n do acc ++ [i]
entry fill (n: i64) : [n]i64 = loop acc = replicate n 0 for i < n do acc with [i] = i * i
entry collatz (x: i64) : i64 = (loop (x, k) = (x, 0) while x != 1 do (if x % 2 == 0 then x / 2 else 3 * x + 1, k + 1)).1
entry sum_in (xs: []f64) : f64 = loop s = 0 for x in xs do s + x",
        expect![[r#"
            fun fib (n_0: i32) : i32 =
              let (r_5: i32, r_6: i32) =
                loop (a_1: i32, b_2: i32) = (0i32, 1i32) for _i_3: i32 < n_0 do
                  let sum_4: i32 = a_1 + b_2
                  in (b_2, sum_4)
              in r_5

            fun grow (n_7: i64) : ?[d_15].[d_15]i64 =
              let t_8: [1]i64 = [0i64] : i64
              let (d_15: i64, r_16: [d_15]i64) =
                loop (d_9: i64, acc_10: [d_9]i64) = (1i64, t_8) for i_11: i64 < n_7 do
                  let t_12: [1]i64 = [i_11] : i64
                  let sum_13: i64 = d_9 + 1i64
                  let concat_14: [sum_13]i64 = concat@0(sum_13, acc_10, t_12)
                  in (sum_13, concat_14)
              in (d_15, r_16)

            fun fill (n_17: i64) : [n_17]i64 =
              let rep_18: [n_17]i64 = replicate([n_17], 0i64)
              let r_24: [n_17]i64 =
                loop (acc_20: [n_17]i64) = (rep_18) for i_21: i64 < n_17 do
                  let prod_22: i64 = i_21 * i_21
                  let t_23: [n_17]i64 = acc_20 with [i_21] = prod_22
                  in t_23
              in r_24

            fun collatz (x_25: i64) : i64 =
              let c_26: bool = x_25 == 1i64
              let t_27: bool = !c_26
              let (d_40: bool, r_41: i64, r_42: i64) =
                loop (cond_28: bool, x_29: i64, k_30: i64) = (t_27, x_25, 0i64) while cond_28 do
                  let t_31: i64 = x_29 % 2i64
                  let c_32: bool = t_31 == 0i64
                  let x_36: i64 =
                    if c_32 : i64 then
                      let t_33: i64 = x_29 / 2i64
                      in t_33
                    else
                      let prod_34: i64 = 3i64 * x_29
                      let sum_35: i64 = prod_34 + 1i64
                      in sum_35
                  let k_37: i64 = k_30 + 1i64
                  let c_38: bool = x_36 == 1i64
                  let t_39: bool = !c_38
                  in (t_39, x_36, k_37)
              in r_42

            fun sum_in (d_43: i64, xs_44: [d_43]f64) : f64 =
              let r_49: f64 =
                loop (s_45: f64) = (0.0f64) for i_46: i64 < d_43 do
                  let x_47: f64 = xs_44[i_46]
                  let sum_48: f64 = s_45 + x_47
                  in sum_48
              in r_49

            entry fib (i32) : i32 = fib
            entry grow (i64) : []i64 = grow
            entry fill (i64) : [n]i64 = fill
            entry collatz (i64) : i64 = collatz
            entry sum_in ([]f64) : f64 = sum_in
        "#]],
    );
}

#[test]
fn records_and_tuples() {
    check_ir(
        "type point = {x: f32, y: f32}
def norm (p: point) : f32 = f32.sqrt (p.x * p.x + p.y * p.y)
entry main [n] (xs: [n]f32) (ys: [n]f32) : []f32 =
  let ps = map2 (\\x y -> {x, y}) xs ys
  let moved = map (\\p -> p with x = p.x + 1) ps
  in map norm moved",
        expect![[r#"
            fun norm (p_0: f32, p_1: f32) : f32 =
              let prod_2: f32 = p_0 * p_0
              let prod_3: f32 = p_1 * p_1
              let sum_4: f32 = prod_2 + prod_3
              let t_5: f32 = f32.sqrt(sum_4)
              in t_5

            fun main (n_6: i64, n_7: i64, xs_8: [n_6]f32, ys_9: [n_7]f32) : [n_6]f32 =
              let c_10: bool = n_7 == n_6
              let () = assert(c_10, "size mismatch: argument `ys` of shape [{}] does not match `[n]f32` with n = {}", n_7, n_6)
              let ys_11: [n_6]f32 = reshape([n_6], ys_9)
              let (ps_14: [n_6]f32, ps_15: [n_6]f32) =
                map(n_6,
                  \(x_12: f32, y_13: f32) : (f32, f32) -> (x_12, y_13),
                  xs_8, ys_11)
              let (moved_19: [n_6]f32, moved_20: [n_6]f32) =
                map(n_6,
                  \(p_16: f32, p_17: f32) : (f32, f32) ->
                    let sum_18: f32 = p_16 + 1.0f32
                    in (sum_18, p_17),
                  ps_14, ps_15)
              let res_24: [n_6]f32 =
                map(n_6,
                  \(p_21: f32, p_22: f32) : f32 ->
                    let r_23: f32 = norm(p_21, p_22)
                    in r_23,
                  moved_19, moved_20)
              in res_24

            entry main ([n]f32, [n]f32) : []f32 = main
        "#]],
    );
}

#[test]
fn higher_order() {
    check_ir(
        "def twice 'a (f: a -> a) (x: a) : a = f (f x)
def compose 'a 'b 'c (f: b -> c) (g: a -> b) : a -> c = \\x -> f (g x)
entry main (x: i32) (xs: []i32) : (i32, []i32, i32) =
  (twice (+ 1) x, map (compose (* 2) (+ 3)) xs, x |> ((\\y -> y - 1) >-> (* 5)))",
        expect![[r#"
            fun main (d_0: i64, x_1: i32, xs_2: [d_0]i32) : (i32, [d_0]i32, i32) =
              let sum_3: i32 = x_1 + 1i32
              let sum_4: i32 = sum_3 + 1i32
              let res_8: [d_0]i32 =
                map(d_0,
                  \(x_5: i32) : i32 ->
                    let sum_6: i32 = x_5 + 3i32
                    let prod_7: i32 = sum_6 * 2i32
                    in prod_7,
                  xs_2)
              let diff_9: i32 = x_1 - 1i32
              let prod_10: i32 = diff_9 * 5i32
              in (sum_4, res_8, prod_10)

            entry main (i32, []i32) : (i32, []i32, i32) = main
        "#]],
    );
}

#[test]
fn polymorphic_instances() {
    check_ir(
        "def swap 'a 'b (p: (a, b)) : (b, a) = (p.1, p.0)
def pick 't (c: bool) (x: t) (y: t) : t = if c then x else y
entry main [n] (a: i32) (b: f64) (xs: [n]i32) (ys: [n]i32) : (f64, i32, []i32) =
  let (u, v) = swap (a, b)
  in (u, v, pick (a > 0) xs ys)",
        expect![[r#"
            fun swap (p_8: i32, p_9: f64) : (f64, i32) =
              in (p_9, p_8)

            fun pick (d_13: i64, d_14: i64, c_15: bool, x_16: [d_13]i32, y_17: [d_14]i32) : ?[d_18].[d_18]i32 =
              let (d_18: i64, r_19: [d_18]i32) = if c_15 then (d_13, x_16) else (d_14, y_17)
              in (d_18, r_19)

            fun main (n_0: i64, n_1: i64, a_2: i32, b_3: f64, xs_4: [n_0]i32, ys_5: [n_1]i32) : ?[d_20].(f64, i32, [d_20]i32) =
              let c_6: bool = n_1 == n_0
              let () = assert(c_6, "size mismatch: argument `ys` of shape [{}] does not match `[n]i32` with n = {}", n_1, n_0)
              let ys_7: [n_0]i32 = reshape([n_0], ys_5)
              let (u_10: f64, v_11: i32) = swap(a_2, b_3)
              let c_12: bool = a_2 > 0i32
              let (d_20: i64, r_21: [d_20]i32) = pick(n_0, n_0, c_12, xs_4, ys_7)
              in (d_20, u_10, v_11, r_21)

            entry main (i32, f64, [n]i32, [n]i32) : (f64, i32, []i32) = main
        "#]],
    );
}

#[test]
fn sums_and_match() {
    check_ir(
        "type shape = #circle f32 | #rect f32 f32
def area (s: shape) : f32 = match s case #circle r -> 3 * r * r case #rect w h -> w * h
entry main (k: i32) (x: f32) : (f32, i32) =
  let s = if k > 0 then #circle x else #rect x 2
  in (area s, match (k, x > 1) case (0, _) -> 10 case (_, true) -> 20 case _ -> 30)",
        expect![[r#"
            fun area (s_0: i8, s_1: f32, s_2: f32, s_3: f32) : f32 =
              let c_4: bool = s_0 == 0i8
              let r_8: f32 =
                if c_4 : f32 then
                  let prod_5: f32 = 3.0f32 * s_1
                  let prod_6: f32 = prod_5 * s_1
                  in prod_6
                else
                  let prod_7: f32 = s_2 * s_3
                  in prod_7
              in r_8

            fun main (k_9: i32, x_10: f32) : (f32, i32) =
              let c_11: bool = k_9 > 0i32
              let (s_12: i8, s_13: f32, s_14: f32, s_15: f32) = if c_11 then (0i8, x_10, 0.0f32, 0.0f32) else (1i8, 0.0f32, x_10, 2.0f32)
              let r_16: f32 = area(s_12, s_13, s_14, s_15)
              let c_17: bool = x_10 > 1.0f32
              let c_18: bool = k_9 == 0i32
              let r_20: i32 =
                if c_18 : i32 then
                  in 10i32
                else
                  let r_19: i32 = if c_17 then 20i32 else 30i32
                  in r_19
              in (r_16, r_20)

            entry main (i32, f32) : (f32, i32) = main
        "#]],
    );
}

#[test]
fn ranges_and_slices() {
    check_ir(
        "entry main (n: i32) (xs: []f32) : ([]i32, []i32, []f32, []f32, [][]f32) =
  (0..<n, 10..8...0, xs[1:], xs[::-1], unflatten (xs[0:6]) : [2][3]f32)",
        expect![[r#"
            fun main (d_0: i64, n_1: i32, xs_2: [d_0]f32) : ?[t_3][diff_9][t_16].([t_3]i32, [6]i32, [diff_9]f32, [t_16]f32, [2][3]f32) =
              let t_3: i64 = i64.i32(n_1)
              let c_4: bool = n_1 < 0i32
              let t_5: bool = !c_4
              let () = assert(t_5, "invalid range {}..<{}", 0i32, n_1)
              let t_6: [t_3]i32 = iota_i32(t_3, 0i32, 1i32)
              let t_7: [6]i32 = iota_i32(6i64, 10i32, -2i32)
              let diff_9: i64 = d_0 - 1i64
              let c_10: bool = diff_9 == 0i64
              let c_11: bool = 1i64 <= d_0
              let t_12: bool = c_10 || c_11
              let () = assert(t_12, "index [{}:] out of bounds for array of shape [{}]", 1i64, d_0)
              let elem_13: [diff_9]f32 = xs_2[1i64:+diff_9*1i64]
              let diff_14: i64 = d_0 - 1i64
              let diff_15: i64 = -1i64 - diff_14
              let t_16: i64 = diff_15 // -1i64
              let c_17: bool = t_16 == 0i64
              let diff_18: i64 = t_16 - 1i64
              let prod_19: i64 = diff_18 * -1i64
              let sum_20: i64 = diff_14 + prod_19
              let c_21: bool = 0i64 <= sum_20
              let c_28: bool = -1i64 <= diff_14
              let c_29: bool = sum_20 <= d_0
              let t_30: bool = c_28 && c_21
              let t_31: bool = t_30 && c_29
              let t_32: bool = c_17 || t_31
              let () = assert(t_32, "index [::{}] out of bounds for array of shape [{}]", -1i64, d_0)
              let elem_33: [t_16]f32 = xs_2[diff_14:+t_16*-1i64]
              let c_35: bool = 6i64 <= d_0
              let () = assert(c_35, "index [{}:{}] out of bounds for array of shape [{}]", 0i64, 6i64, d_0)
              let elem_36: [6]f32 = xs_2[0i64:+6i64*1i64]
              let t_37: [2][3]f32 = reshape([2][3], elem_36)
              in (t_3, diff_9, t_16, t_6, t_7, elem_13, elem_33, t_37)

            entry main (i32, []f32) : ([]i32, []i32, []f32, []f32, [][]f32) = main
        "#]],
    );
}

#[test]
fn in_place_updates() {
    check_ir(
        "entry main (xs: *[]i32) (i: i64) : ([]i32, [][]i32) =
  let xs[i] = 7
  let ys = xs with [0] = 1
  let m = replicate 2 (replicate 3 0)
  let m[1, 0:2] = [5, 6]
  in (ys, m)",
        expect![[r#"
            fun main (d_0: i64, xs_1: [d_0]i32, i_2: i64) : ([d_0]i32, [2][3]i32) =
              let t_3: [d_0]i32 = xs_1 with [i_2] = 7i32
              let ys_4: [d_0]i32 = t_3 with [0i64] = 1i32
              let rep_5: [3]i32 = replicate([3], 0i32)
              let rep_6: [2][3]i32 = replicate([2], rep_5)
              let t_7: [2]i32 = [5i32, 6i32] : i32
              let t_8: [2][3]i32 = rep_6 with [1i64, 0i64:+2i64*1i64] = t_7
              in (ys_4, t_8)

            entry main (*[]i32, i64) : ([]i32, [][]i32) = main
        "#]],
    );
}

#[test]
fn scatter_and_histograms() {
    check_ir(
        "entry main [n] (is: [n]i64) (vs: [n]f32) : ([]f32, []f32, []i32) =
  (scatter (replicate 4 0) is vs,
   reduce_by_index (replicate 4 0) (+) 0 is vs,
   hist (+) 0 3 is (map (\\_ -> 1) is))",
        expect![[r#"
            fun main (n_0: i64, n_1: i64, is_2: [n_0]i64, vs_3: [n_1]f32) : ([4]f32, [4]f32, [3]i32) =
              let c_4: bool = n_1 == n_0
              let () = assert(c_4, "size mismatch: argument `vs` of shape [{}] does not match `[n]f32` with n = {}", n_1, n_0)
              let vs_5: [n_0]f32 = reshape([n_0], vs_3)
              let rep_6: [4]f32 = replicate([4], 0.0f32)
              let scattered_7: [4]f32 = scatter(n_0, rep_6, (is_2), vs_5)
              let rep_8: [4]f32 = replicate([4], 0.0f32)
              let hist_12: [4]f32 =
                hist(n_0,
                  \(p_9: f32, p_10: f32) : f32 ->
                    let sum_11: f32 = p_9 + p_10
                    in sum_11,
                  (rep_8), (0.0f32), is_2, vs_5)
              let res_14: [n_0]i32 =
                map(n_0,
                  \(p_13: i64) : i32 -> 1i32,
                  is_2)
              let hist_15: [3]i32 = replicate([3], 0i32)
              let hist_19: [3]i32 =
                hist(n_0,
                  \(p_16: i32, p_17: i32) : i32 ->
                    let sum_18: i32 = p_16 + p_17
                    in sum_18,
                  (hist_15), (0i32), is_2, res_14)
              in (scattered_7, hist_12, hist_19)

            entry main ([n]i64, [n]f32) : ([]f32, []f32, []i32) = main
        "#]],
    );
}

#[test]
fn equality_and_short_circuit() {
    check_ir(
        "entry main [n] (xs: [n]i32) (ys: [n]i32) (i: i64) : (bool, bool, bool) =
  (xs == ys, (1, 2.0) != (1, 2.0), i < length xs && xs[i] > 0)",
        expect![[r#"
            fun main (n_0: i64, n_1: i64, xs_2: [n_0]i32, ys_3: [n_1]i32, i_4: i64) : (bool, bool, bool) =
              let c_5: bool = n_1 == n_0
              let () = assert(c_5, "size mismatch: argument `ys` of shape [{}] does not match `[n]i32` with n = {}", n_1, n_0)
              let ys_6: [n_0]i32 = reshape([n_0], ys_3)
              let eqs_10: [n_0]bool =
                map(n_0,
                  \(x_7: i32, y_8: i32) : bool ->
                    let c_9: bool = x_7 == y_8
                    in c_9,
                  xs_2, ys_6)
              let all_14: bool =
                reduce_comm(n_0,
                  \(a_11: bool, b_12: bool) : bool ->
                    let t_13: bool = a_11 && b_12
                    in t_13,
                  (true), eqs_10)
              let c_15: bool = 2.0f64 == 2.0f64
              let t_16: bool = !c_15
              let c_17: bool = i_4 < n_0
              let c_20: bool =
                if c_17 : bool then
                  let elem_18: i32 = xs_2[i_4]
                  let c_19: bool = elem_18 > 0i32
                  in c_19
                else
                  in false
              in (all_14, t_16, c_20)

            entry main ([n]i32, [n]i32, i64) : (bool, bool, bool) = main
        "#]],
    );
}

#[test]
fn sizes_and_checks() {
    check_ir(
        "def take_n [n] 't (k: i64) (xs: [n]t) : [k]t = xs[0:k]
entry main [n] (xs: [n]f32) (k: i64) : ([k]f32, [3]f32, i64) =
  let ys = take_n k xs
  in (ys, xs[0:3] :> [3]f32, assert (k >= 0) n)",
        expect![[r#"
            fun take_n (n_3: i64, k_4: i64, xs_5: [n_3]f32) : [k_4]f32 =
              let c_7: bool = k_4 == 0i64
              let c_8: bool = 0i64 <= k_4
              let c_9: bool = k_4 <= n_3
              let t_10: bool = c_8 && c_9
              let t_11: bool = c_7 || t_10
              let () = assert(t_11, "index [{}:{}] out of bounds for array of shape [{}]", 0i64, k_4, n_3)
              let elem_12: [k_4]f32 = xs_5[0i64:+k_4*1i64]
              in elem_12

            fun main (n_0: i64, xs_1: [n_0]f32, k_2: i64) : ([k_2]f32, [3]f32, i64) =
              let ys_13: [k_2]f32 = take_n(n_0, k_2, xs_1)
              let c_15: bool = 3i64 <= n_0
              let () = assert(c_15, "index [{}:{}] out of bounds for array of shape [{}]", 0i64, 3i64, n_0)
              let elem_16: [3]f32 = xs_1[0i64:+3i64*1i64]
              let c_17: bool = k_2 >= 0i64
              let () = assert(c_17, "assertion failed: k >= 0")
              in (ys_13, elem_16, n_0)

            entry main ([n]f32, i64) : ([k]f32, [3]f32, i64) = main
        "#]],
    );
}

#[test]
fn irregular_map_checks_each_row() {
    check_ir(
        "entry main (xss: [][]i32) : [][]i32 = map (\\xs -> filter (> 0) xs) xss",
        expect![[r#"
            fun main (d_0: i64, d_1: i64, xss_2: [d_0][d_1]i32) : ?[d_46].[d_0][d_46]i32 =
              let c_24: bool = d_0 == 0i64
              let d_46: i64 =
                if c_24 : i64 then
                  in 0i64
                else
                  let xs_25: [d_1]i32 = xss_2[0i64]
                  let flags_29: [d_1]i64 =
                    map(d_1,
                      \(p_26: i32) : i64 ->
                        let c_27: bool = p_26 > 0i32
                        let t_28: i64 = i64.bool(c_27)
                        in t_28,
                      xs_25)
                  let offsets_33: [d_1]i64 =
                    scan(d_1,
                      \(a_30: i64, b_31: i64) : i64 ->
                        let t_32: i64 = a_30 + b_31
                        in t_32,
                      (0i64), flags_29)
                  let c_34: bool = d_1 == 0i64
                  let count_37: i64 =
                    if c_34 : i64 then
                      in 0i64
                    else
                      let diff_35: i64 = d_1 - 1i64
                      let count_36: i64 = offsets_33[diff_35]
                      in count_36
                  in count_37
              let res_70: [d_0][d_46]i32 =
                map(d_0,
                  \(xs_47: [d_1]i32) : [d_46]i32 ->
                    let flags_51: [d_1]i64 =
                      map(d_1,
                        \(p_48: i32) : i64 ->
                          let c_49: bool = p_48 > 0i32
                          let t_50: i64 = i64.bool(c_49)
                          in t_50,
                        xs_47)
                    let offsets_55: [d_1]i64 =
                      scan(d_1,
                        \(a_52: i64, b_53: i64) : i64 ->
                          let t_54: i64 = a_52 + b_53
                          in t_54,
                        (0i64), flags_51)
                    let c_56: bool = d_1 == 0i64
                    let count_59: i64 =
                      if c_56 : i64 then
                        in 0i64
                      else
                        let diff_57: i64 = d_1 - 1i64
                        let count_58: i64 = offsets_55[diff_57]
                        in count_58
                    let dest_idx_65: [d_1]i64 =
                      map(d_1,
                        \(flag_60: i64, offset_61: i64) : i64 ->
                          let c_62: bool = flag_60 == 1i64
                          let diff_63: i64 = offset_61 - 1i64
                          let t_64: i64 = select(c_62, diff_63, -1i64)
                          in t_64,
                        flags_51, offsets_55)
                    let blank_66: [count_59]i32 = replicate([count_59], 0i32)
                    let filtered_67: [count_59]i32 = scatter(d_1, blank_66, (dest_idx_65), xs_47)
                    let c_68: bool = count_59 == d_46
                    let () = assert(c_68, "size mismatch: a row of the `map` result of shape [{}] does not match the expected shape [{}]", count_59, d_46)
                    let t_69: [d_46]i32 = reshape([d_46], filtered_67)
                    in t_69,
                  xss_2)
              in (d_46, res_70)

            entry main ([][]i32) : [][]i32 = main
        "#]],
    );
}

#[test]
fn hoists_sizes_out_of_lambdas() {
    check_ir(
        "entry main (n: i64) (xs: []f32) : [][]f32 = map (\\x -> replicate (n + 1) x) xs",
        expect![[r#"
            fun main (d_0: i64, n_1: i64, xs_2: [d_0]f32) : ?[sum_4].[d_0][sum_4]f32 =
              let sum_4: i64 = n_1 + 1i64
              let res_6: [d_0][sum_4]f32 =
                map(d_0,
                  \(x_3: f32) : [sum_4]f32 ->
                    let rep_5: [sum_4]f32 = replicate([sum_4], x_3)
                    in rep_5,
                  xs_2)
              in (sum_4, res_6)

            entry main (i64, []f32) : [][]f32 = main
        "#]],
    );
}

#[test]
fn entry_points_take_and_return_arrays_and_scalars() {
    // Tuples, records and arrays of them are passed as their components (records by field
    // name), an array of tuples as one array per component.
    check_ir(
        "entry f [n] (p: (i32, [n](f32, bool))) (r: {b: i64, a: [n]i32}) : {x: i32, y: [n]f32} =
           {y = map (.0) p.1, x = p.0 + i32.sum r.a}",
        expect![[r#"
            fun f (n_0: i64, n_1: i64, n_2: i64, p_3: i32, p_4: [n_0]f32, p_5: [n_1]bool, r_6: [n_2]i32, r_7: i64) : (i32, [n_0]f32) =
              let c_8: bool = n_1 == n_0
              let () = assert(c_8, "size mismatch: argument `p` of shape [{}] does not match `(i32, [n](f32, bool))` with n = {}", n_1, n_0)
              let p_9: [n_0]bool = reshape([n_0], p_5)
              let c_10: bool = n_2 == n_0
              let () = assert(c_10, "size mismatch: argument `r` of shape [{}] does not match `{a: [n]i32, b: i64}` with n = {}", n_2, n_0)
              let r_11: [n_0]i32 = reshape([n_0], r_6)
              let res_14: [n_0]f32 =
                map(n_0,
                  \(p_12: f32, p_13: bool) : f32 -> p_12,
                  p_4, p_9)
              let sum_18: i32 =
                reduce_comm(n_0,
                  \(a_15: i32, b_16: i32) : i32 ->
                    let t_17: i32 = a_15 + b_16
                    in t_17,
                  (0i32), r_11)
              let sum_19: i32 = p_3 + sum_18
              in (sum_19, res_14)

            entry f (i32, [n]f32, [n]bool, [n]i32, i64) : (i32, [n]f32) = f
        "#]],
    );
    // A sum type is its constructor's index, checked, then every constructor's payload.
    check_ir(
        "type t = #a | #b f32\ndef main (xs: []t) : f32 = match xs[0] case #a -> 1 case #b x -> x",
        expect![[r#"
            fun main (d_0: i64, d_1: i64, xs_2: [d_0]i8, xs_3: [d_1]f32) : f32 =
              let oks_8: [d_0]bool =
                map(d_0,
                  \(t_4: i8) : bool ->
                    let c_5: bool = t_4 >= 0i8
                    let c_6: bool = t_4 < 2i8
                    let t_7: bool = c_5 && c_6
                    in t_7,
                  xs_2)
              let all_12: bool =
                reduce_comm(d_0,
                  \(a_9: bool, b_10: bool) : bool ->
                    let t_11: bool = a_9 && b_10
                    in t_11,
                  (true), oks_8)
              let () = assert(all_12, "argument `xs` has a constructor index other than 0 (`#a`), 1 (`#b`)")
              let c_13: bool = d_1 == d_0
              let () = assert(c_13, "size mismatch: argument `xs` of shape [{}] does not match the expected shape [{}]", d_1, d_0)
              let xs_14: [d_0]f32 = reshape([d_0], xs_3)
              let elem_15: i8 = xs_2[0i64]
              let x_16: f32 = xs_14[0i64]
              let c_17: bool = elem_15 == 0i8
              let r_18: f32 = if c_17 then 1.0f32 else x_16
              in r_18

            entry main ([]i8, []f32) : f32 = main
        "#]],
    );
    // `def main` is an entry point too; functions have no representation outside a program.
    check_err(
        "def main (f: i32 -> i32) : i32 = f 1",
        "unsupported: entry point `main` takes a parameter of type `i32 -> i32`",
    );
}

/// Deeply nested expressions (as deep as the parser accepts) lower without exhausting the stack.
#[test]
fn deep_nesting() {
    for (wrap, max) in [
        ("(1 + E)", 400),
        ("(if x > 0 then E else 0)", 400),
        ("(let y = E in y + 1)", 400),
        ("((\\z -> z + E) 1)", 400),
    ] {
        // The deepest nesting the parser accepts.
        let mut e = String::from("x");
        let mut last = None;
        for _ in 0..max {
            e = wrap.replace('E', &e);
            let src = format!("entry main (x: i32) : i32 = {e}");
            if syntax::parse(&src).is_err() {
                break;
            }
            last = Some(src);
        }
        if let Some(src) = last {
            if let Some(Err(ds)) = lower_src(&src) {
                assert!(ds.iter().all(|d| d.phase != crate::diag::Phase::Lower), "{ds:?}");
            }
        }
    }
}

/// Long chains of inlined higher-order functions either lower or report that they nest too
/// deeply, without exhausting the stack.
#[test]
fn deep_inlining() {
    for n in [40, 400] {
        let mut src = String::from("def f0 (g: i32 -> i32) (x: i32) : i32 = g x\n");
        for i in 1..n {
            src.push_str(&format!(
                "def f{i} (g: i32 -> i32) (x: i32) : i32 = f{} g (x + 1)\n",
                i - 1
            ));
        }
        src.push_str(&format!("entry main (x: i32) : i32 = f{} (+ 1) x\n", n - 1));
        match lower_src(&src) {
            Some(Ok(_)) => assert!(n < 100),
            Some(Err(ds)) => {
                assert!(ds.iter().any(|d| d.message.contains("nested too deeply")), "{ds:?}")
            }
            None => {}
        }
    }
}

#[test]
fn polymorphic_function_used_at_two_types() {
    check_ir(
        "def twice_sum 't (add: t -> t -> t) (x: t) : t = add x x
def first [n] 't (xs: [n]t) : t = xs[0]
entry main (a: []i32) (b: []f64) : (i32, f64, i32) = (first a, first b, twice_sum (+) (first a))",
        expect![[r#"
            fun first (n_4: i64, xs_5: [n_4]i32) : i32 =
              let elem_6: i32 = xs_5[0i64]
              in elem_6

            fun first_1 (n_8: i64, xs_9: [n_8]f64) : f64 =
              let elem_10: f64 = xs_9[0i64]
              in elem_10

            fun main (d_0: i64, d_1: i64, a_2: [d_0]i32, b_3: [d_1]f64) : (i32, f64, i32) =
              let r_7: i32 = first(d_0, a_2)
              let r_11: f64 = first_1(d_1, b_3)
              let x_12: i32 = first(d_0, a_2)
              let sum_13: i32 = x_12 + x_12
              in (r_7, r_11, sum_13)

            entry main ([]i32, []f64) : (i32, f64, i32) = main
        "#]],
    );
}
