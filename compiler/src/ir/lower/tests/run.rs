//! End to end: source → lowered, validated IR → the reference interpreter.

use super::lower_src;
use crate::interp::run_entry;
use crate::ir::print::print_program;
use crate::value::text::{format_value_line, parse_values};

/// Run `entry` on `args` (Futhark's value format); the results on one line, or the run-time
/// error's message.
fn run(src: &str, entry: &str, args: &str) -> Option<Result<String, String>> {
    let prog = match lower_src(src)? {
        Ok(p) => p,
        Err(d) => panic!("compilation failed: {d:#?}"),
    };
    let args = parse_values(args).unwrap_or_else(|d| panic!("bad test arguments: {d:?}"));
    Some(match run_entry(&prog, entry, &args) {
        Ok(vs) => Ok(vs.iter().map(format_value_line).collect::<Vec<_>>().join(" ")),
        Err(d) => Err(format!("{}\n{}", d.message, print_program(&prog))),
    })
}

#[track_caller]
fn ok(src: &str, entry: &str, args: &str, expected: &str) {
    match run(src, entry, args) {
        None => {}
        Some(Ok(got)) => assert_eq!(got, expected, "for {entry} {args}"),
        Some(Err(e)) => panic!("{entry} {args} failed: {e}"),
    }
}

#[track_caller]
fn fails(src: &str, entry: &str, args: &str, needle: &str) {
    match run(src, entry, args) {
        None => {}
        Some(Ok(got)) => {
            panic!("{entry} {args}: expected an error containing {needle:?}, got {got}")
        }
        Some(Err(e)) => assert!(e.contains(needle), "{e}"),
    }
}

#[test]
fn filters_and_partitions() {
    let src = "entry pos (xs: []i32) : []i32 = filter (> 0) xs
entry parts (xs: []i32) : ([]i32, []i32) = partition (\\x -> x % 2 == 0) xs
entry pairs [n] (xs: [n]i32) (ys: [n]f32) : ([]i32, []f32) = unzip (filter (\\(x, y) -> f32.i32 x < y) (zip xs ys))";
    ok(src, "pos", "[1i32, -2i32, 3i32, 0i32]", "[1i32, 3i32]");
    ok(src, "pos", "empty([0]i32)", "empty([0]i32)");
    ok(src, "pos", "[-1i32]", "empty([0]i32)");
    ok(src, "parts", "[1i32, 2i32, 3i32, 4i32, 6i32]", "[2i32, 4i32, 6i32] [1i32, 3i32]");
    ok(src, "parts", "empty([0]i32)", "empty([0]i32) empty([0]i32)");
    ok(src, "pairs", "[1i32, 5i32, 2i32] [2f32, 1f32, 3f32]", "[1i32, 2i32] [2.0f32, 3.0f32]");
}

#[test]
fn loops_whose_sizes_change() {
    let src = "entry grow (n: i64) : []i64 = loop acc = [0] for i < n do acc ++ [i + 1]
entry halve (xs: []i32) : []i32 = loop xs while length xs > 1 do xs[0:length xs / 2]
entry fill (n: i64) : [n]i64 = loop acc = replicate n 0 for i < n do acc with [i] = i * i";
    ok(src, "grow", "3i64", "[0i64, 1i64, 2i64, 3i64]");
    ok(src, "grow", "0i64", "[0i64]");
    ok(src, "halve", "[1i32, 2i32, 3i32, 4i32, 5i32]", "[1i32]");
    ok(src, "fill", "4i64", "[0i64, 1i64, 4i64, 9i64]");
}

#[test]
fn higher_order_functions_and_sections() {
    let src = "def twice 'a (f: a -> a) (x: a) : a = f (f x)
def compose 'a 'b 'c (f: b -> c) (g: a -> b) : a -> c = \\x -> f (g x)
entry main (x: i32) (xs: []i32) : (i32, []i32, i32, i32) =
  (twice (+ 1) x, map (compose (* 2) (+ 3)) xs, x |> ((\\y -> y - 1) >-> (* 5)), (10 -) x)";
    ok(src, "main", "4i32 [1i32, 2i32]", "6i32 [8i32, 10i32] 15i32 6i32");
}

#[test]
fn sums_and_match() {
    let src = "type shape = #circle f32 | #rect f32 f32
def area (s: shape) : f32 = match s case #circle r -> 3 * r * r case #rect w h -> w * h
entry main (k: i32) (x: f32) : f32 = area (if k > 0 then #circle x else #rect x 2)
entry areas (xs: []f32) : []f32 = map (\\x -> area (if x > 1 then #circle x else #rect x x)) xs";
    ok(src, "main", "1i32 2f32", "12.0f32");
    ok(src, "main", "0i32 2f32", "4.0f32");
    ok(src, "areas", "[1f32, 2f32]", "[1.0f32, 12.0f32]");
}

#[test]
fn slices_and_ranges() {
    let src = "entry slices (xs: []i32) : ([]i32, []i32, []i32, []i32, []i32) =
  (xs[1:], xs[::-1], xs[5:0:-2], xs[1::3], xs[2:2])
entry ranges (n: i32) : ([]i32, []i32, []i32, []i32) = (0..<n, n..>0, 1..3...n, n..n-1...0)
entry bad (n: i32) : []i32 = n..<0
entry oob (xs: []i32) (i: i64) : []i32 = xs[i:]";
    ok(
        src,
        "slices",
        "[0i32, 1i32, 2i32, 3i32, 4i32, 5i32, 6i32]",
        "[1i32, 2i32, 3i32, 4i32, 5i32, 6i32] [6i32, 5i32, 4i32, 3i32, 2i32, 1i32, 0i32] [5i32, 3i32, 1i32] [1i32, 4i32] empty([0]i32)",
    );
    ok(src, "ranges", "4i32", "[0i32, 1i32, 2i32, 3i32] [4i32, 3i32, 2i32, 1i32] [1i32, 3i32] [4i32, 3i32, 2i32, 1i32, 0i32]");
    ok(
        src,
        "ranges",
        "3i32",
        "[0i32, 1i32, 2i32] [3i32, 2i32, 1i32] [1i32, 3i32] [3i32, 2i32, 1i32, 0i32]",
    );
    fails(src, "ranges", "0i32", "invalid range 1..3...0");
    fails(src, "bad", "3i32", "invalid range 3..<0");
    fails(src, "oob", "[1i32, 2i32] 3i64", "index [3:] out of bounds for array of shape [2]");
    ok(src, "oob", "[1i32, 2i32] 2i64", "empty([0]i32)");
}

#[test]
fn in_place_updates_and_scatter() {
    let src = "entry upd (xs: *[]i32) (i: i64) : []i32 = let xs[i] = 7 in xs with [0] = 1
entry rows (n: i64) : [][]i32 = let m = replicate n (replicate 3 0) let m[1, 0:2] = [5, 6] in m
entry sc [n] (is: [n]i64) (vs: [n]f32) : []f32 = scatter (replicate 3 0) is vs
entry sc2 [n] (is: [n]i64) (js: [n]i64) (vs: [n]i32) : [][]i32 =
  scatter_2d (replicate 2 (replicate 2 0)) (zip is js) vs";
    ok(src, "upd", "[4i32, 5i32, 6i32] 2i64", "[1i32, 5i32, 7i32]");
    fails(src, "upd", "[4i32, 5i32, 6i32] 3i64", "out of bounds");
    ok(src, "rows", "2i64", "[[0i32, 0i32, 0i32], [5i32, 6i32, 0i32]]");
    ok(src, "sc", "[2i64, 7i64, 0i64] [1f32, 2f32, 3f32]", "[3.0f32, 0.0f32, 1.0f32]");
    ok(src, "sc2", "[0i64, 1i64] [1i64, 0i64] [8i32, 9i32]", "[[0i32, 8i32], [9i32, 0i32]]");
}

#[test]
fn histograms() {
    let src = "entry h [n] (is: [n]i64) (vs: [n]f32) : ([]f32, []i32, []f32) =
  (reduce_by_index (replicate 3 0) (+) 0 is vs, hist (+) 0 2 is (map (\\_ -> 1) is),
   reduce_by_index (replicate 2 (-f32.inf)) f32.max (-f32.inf) is vs)";
    ok(
        src,
        "h",
        "[0i64, 2i64, 0i64, 5i64] [1f32, 2f32, 3f32, 4f32]",
        "[4.0f32, 0.0f32, 2.0f32] [2i32, 0i32] [3.0f32, -f32.inf]",
    );
}

#[test]
fn equality_and_short_circuit() {
    let src = "entry eq [n] (xs: [n]i32) (ys: [n]i32) : (bool, bool) = (xs == ys, xs != ys)
entry eq2 [n][m] (xss: [n][m]i32) (yss: [n][m]i32) : bool = xss == yss
entry sc (xs: []i32) (i: i64) : (bool, bool) = (i < length xs && xs[i] > 0, i >= length xs || xs[i] > 0)";
    ok(src, "eq", "[1i32, 2i32] [1i32, 2i32]", "true false");
    ok(src, "eq", "[1i32, 2i32] [1i32, 3i32]", "false true");
    ok(src, "eq2", "[[1i32, 2i32]] [[1i32, 2i32]]", "true");
    ok(src, "sc", "[1i32] 5i64", "false true");
    ok(src, "sc", "[1i32] 0i64", "true true");
}

#[test]
fn size_checks_name_both_sizes() {
    let src =
        "entry z [n] (xs: [n]i32) (ys: []i32) : ([]i32, []i32) = unzip (zip xs (ys :> [n]i32))
entry c [n] (xs: [n]i32) (m: i64) : [m]i32 = xs :> [m]i32
entry u (xs: []i32) : [2][2]i32 = unflatten xs
entry irregular (xss: [][]i32) : [][]i32 = map (\\xs -> filter (> 0) xs) xss
entry same [n] (xs: [n]i32) (ys: [n]i32) : [n]i32 = map2 (+) xs ys";
    fails(src, "z", "[1i32] [1i32, 2i32]", "size mismatch");
    fails(
        src,
        "c",
        "[1i32, 2i32, 3i32] 4i64",
        "size mismatch: value of shape [3] does not match `[m]i32` with m = 4",
    );
    ok(src, "c", "[1i32, 2i32] 2i64", "[1i32, 2i32]");
    fails(
        src,
        "u",
        "[1i32, 2i32, 3i32]",
        "size mismatch: cannot unflatten an array of 3 elements into [2][2]",
    );
    ok(src, "u", "[1i32, 2i32, 3i32, 4i32]", "[[1i32, 2i32], [3i32, 4i32]]");
    ok(src, "irregular", "[[1i32, -2i32], [-3i32, 4i32]]", "[[1i32], [4i32]]");
    ok(src, "irregular", "empty([0][2]i32)", "empty([0][0]i32)");
    fails(src, "irregular", "[[1i32, -2i32], [3i32, 4i32]]", "size mismatch");
    fails(
        src,
        "same",
        "[1i32, 2i32] [1i32]",
        "size mismatch: argument `ys` of shape [1] does not match `[n]i32` with n = 2",
    );
}

#[test]
fn numeric_members() {
    let src = "entry ints (x: i32) : (i32, i32, i32, i32, i32, i32, i32, i64) =
  (i32.get_bit 1 x, i32.set_bit 0 x 1, i32.popc x, i32.clz x, i32.abs (-x), i32.sgn (-x), x >>> 1, i32.to_i64 x)
entry floats (x: f32) : (f32, f32, f32, bool, u32, f32, f32) =
  (f32.lerp 0 10 x, f32.from_fraction 1 4, f32.sqrt x, f32.isnan (f32.nan), f32.to_bits 1, f32.max x 2, f32.i64 3)
entry reductions (xs: []f32) : (f32, f32, f32, f32) = (f32.sum xs, f32.product xs, f32.maximum xs, f32.minimum xs)
entry limits (u: u8) : (u8, i16, u8, f64) = (u8.highest, i16.lowest, u + 250, f64.e)";
    ok(src, "ints", "6i32", "1i32 7i32 2i32 29i32 6i32 -1i32 3i32 6i64");
    ok(src, "ints", "-2i32", "1i32 -1i32 31i32 0i32 2i32 1i32 2147483647i32 -2i64");
    ok(src, "floats", "0.25f32", "2.5f32 0.25f32 0.5f32 true 1065353216u32 2.0f32 3.0f32");
    ok(src, "reductions", "[1f32, 3f32, 2f32]", "6.0f32 6.0f32 3.0f32 1.0f32");
    ok(src, "reductions", "empty([0]f32)", "0.0f32 1.0f32 -f32.inf f32.inf");
    ok(src, "limits", "10u8", "255u8 -32768i16 4u8 2.718281828459045f64");
}

#[test]
fn records_tuples_and_polymorphism() {
    let src = "type point = {x: f32, y: f32}
def norm2 (p: point) : f32 = p.x * p.x + p.y * p.y
def swap 'a 'b (p: (a, b)) : (b, a) = (p.1, p.0)
def pick 't (c: bool) (x: t) (y: t) : t = if c then x else y
entry main [n] (xs: [n]f32) (ys: [n]f32) : ([]f32, i32, f32, []f32) =
  let ps = map2 (\\x y -> {x, y}) xs ys
  let moved = map (\\p -> p with x = p.x + 1) ps
  let (a, b) = swap (1f32, 2i32)
  in (map norm2 moved, a, b, pick (length xs > 1) xs ys)";
    ok(src, "main", "[0f32, 1f32] [1f32, 2f32]", "[2.0f32, 8.0f32] 2i32 1.0f32 [0.0f32, 1.0f32]");
    ok(src, "main", "[0f32] [1f32]", "[2.0f32] 2i32 1.0f32 [1.0f32]");
}

#[test]
fn assertions_and_division() {
    let src = "entry a (x: i32) : i32 = assert (x > 0) (x * 2)
entry d (x: i32) (y: i32) : (i32, i32, i32, i32) = (x / y, x % y, x // y, x %% y)";
    ok(src, "a", "3i32", "6i32");
    fails(src, "a", "0i32", "assertion failed: x > 0");
    ok(src, "d", "-7i32 2i32", "-4i32 1i32 -3i32 -1i32");
    fails(src, "d", "1i32 0i32", "division by zero");
}

#[test]
fn arrays_of_tuples_and_transposes() {
    let src = "entry t (xss: [][]i32) : ([][]i32, []i32, [][]i32) = (transpose xss, flatten xss, copy xss)
entry c (xs: []i32) (ys: []i32) : []i32 = xs ++ ys ++ xs
entry z [n] (xs: [n]i32) (ys: [n]f32) : ([]f32, []i32) = let ps = zip xs ys in (map (.1) ps, map (.0) (reverse ps))";
    ok(
        src,
        "t",
        "[[1i32, 2i32], [3i32, 4i32]]",
        "[[1i32, 3i32], [2i32, 4i32]] [1i32, 2i32, 3i32, 4i32] [[1i32, 2i32], [3i32, 4i32]]",
    );
    ok(src, "c", "[1i32] [2i32, 3i32]", "[1i32, 2i32, 3i32, 1i32]");
    ok(src, "z", "[1i32, 2i32] [3f32, 4f32]", "[3.0f32, 4.0f32] [2i32, 1i32]");
}

#[test]
fn operators_functions_and_local_definitions() {
    let src = "def avg (a: f32) (b: f32) : f32 = (a + b) / 2
def sub (a: i32) (b: i32) : i32 = a - b
entry ops (x: i32) (y: i32) : (i32, i32, i32) = (x `sub` y, (`sub` y) x, (x `sub`) y)
entry backticks (a: f32) (b: f32) : f32 = a `avg` b
entry locals (xs: []i32) : ([]i32, i32) =
  let add [n] (k: i32) (ys: [n]i32) : [n]i32 = map (+ k) ys
  let total = reduce (+) 0
  in (add 1 xs, total xs)
entry sized (xs: []i32) : i64 = let [n] (ys: [n]i32) = filter (> 0) xs in n
entry noinit (n: i64) : (i64, i64) = let a = 1 let b = 0 in loop (a, b) for i < n do (a + b, a)";
    ok(src, "ops", "1i32 2i32", "-1i32 -1i32 -1i32");
    ok(src, "backticks", "1f32 2f32", "1.5f32");
    ok(src, "locals", "[1i32, 2i32]", "[2i32, 3i32] 3i32");
    ok(src, "sized", "[1i32, -2i32, 3i32]", "2i64");
    ok(src, "noinit", "5i64", "8i64 5i64");
}

#[test]
fn for_in_loops_over_tuples_and_nested_maps() {
    let src =
        "entry dot [n] (xs: [n]f32) (ys: [n]f32) : f32 = loop s = 0 for (x, y) in zip xs ys do s + x * y
entry outer (xs: []i32) (ys: []i32) : [][]i32 = map (\\x -> map (\\y -> x * y) ys) xs
entry rows (xss: [][]f32) : []f32 = map (\\row -> f32.sum row) xss";
    ok(src, "dot", "[1f32, 2f32] [3f32, 4f32]", "11.0f32");
    ok(
        src,
        "outer",
        "[1i32, 2i32] [3i32, 4i32, 5i32]",
        "[[3i32, 4i32, 5i32], [6i32, 8i32, 10i32]]",
    );
    ok(src, "outer", "empty([0]i32) [3i32]", "empty([0][1]i32)");
    ok(src, "rows", "[[1f32, 2f32], [3f32, 4f32]]", "[3.0f32, 7.0f32]");
}

#[test]
fn tuples_through_soacs() {
    let src = "entry minmax (xs: []i32) : (i32, i32) =
  reduce (\\(a, b) (c, d) -> (i32.min a c, i32.max b d)) (i32.highest, i32.lowest) (zip xs xs)
entry running (xs: []f32) : ([]f32, []i64) =
  unzip (scan (\\(s, n) (t, m) -> (s + t, n + m)) (0, 0) (map (\\x -> (x, 1)) xs))
entry reps (n: i64) : ([]i32, []bool) = unzip (replicate n (7, true))
entry lits (b: bool) : ([]i32, []f32) = unzip (if b then [(1, 2.0), (3, 4.0)] else [])
entry z3 (xs: []i32) : ([]i32, []i32, []i32) = unzip3 (zip3 xs (map (* 2) xs) (map (* 3) xs))";
    ok(src, "minmax", "[3i32, -1i32, 7i32]", "-1i32 7i32");
    ok(src, "minmax", "empty([0]i32)", "2147483647i32 -2147483648i32");
    ok(src, "running", "[1f32, 2f32, 3f32]", "[1.0f32, 3.0f32, 6.0f32] [1i64, 2i64, 3i64]");
    ok(src, "reps", "2i64", "[7i32, 7i32] [true, true]");
    ok(src, "lits", "true", "[1i32, 3i32] [2.0f32, 4.0f32]");
    ok(src, "lits", "false", "empty([0]i32) empty([0]f32)");
    ok(src, "z3", "[1i32, 2i32]", "[1i32, 2i32] [2i32, 4i32] [3i32, 6i32]");
}

#[test]
fn records_loops_and_matches() {
    let src = "type acc = {sum: f64, count: i64}
def step (a: acc) (x: f64) : acc = {sum = a.sum + x, count = a.count + 1}
entry mean (xs: []f64) : f64 = let r = loop a = {sum = 0, count = 0} for x in xs do step a x in r.sum / f64.i64 r.count
entry kind (xs: []i32) : []i32 =
  map (\\x -> match {v = x, pos = x > 0} case {v = 0, pos = _} -> 0 case {v = _, pos = true} -> 1 case _ -> 2) xs
entry sums (xs: []i32) : []i32 =
  let tagged = map (\\x -> if x % 2 == 0 then #even (x / 2) else #odd [x, x]) xs
  in map (\\t -> match t case #even h -> h case #odd p -> p[0] + p[1]) tagged";
    ok(src, "mean", "[1f64, 2f64, 6f64]", "3.0f64");
    ok(src, "kind", "[0i32, 5i32, -5i32]", "[0i32, 1i32, 2i32]");
    ok(src, "sums", "[4i32, 3i32]", "[2i32, 6i32]");
}

#[test]
fn functions_with_existential_results() {
    let src = "def positives (xs: []i32) : ?[k].[k]i32 = filter (> 0) xs
def both (xs: []i32) : ([]i32, i64) = let ys = positives xs in (ys, length ys)
entry main (xs: []i32) : ([]i32, i64, []i32) =
  let (ys, n) = both xs
  let zs = map (\\y -> y + i32.i64 n) ys
  in (ys, n, zs ++ positives (map (\\x -> -x) xs))
entry irregular_tuples (xss: [][]i32) : ([][]i32, []i64) =
  unzip (map (\\xs -> let ys = filter (> 0) xs in (ys, length ys)) xss)";
    ok(src, "main", "[1i32, -2i32, 3i32]", "[1i32, 3i32] 2i64 [3i32, 5i32, 2i32]");
    ok(src, "irregular_tuples", "[[1i32, -1i32], [0i32, 2i32]]", "[[1i32], [2i32]] [1i64, 1i64]");
    fails(src, "irregular_tuples", "[[1i32, 1i32], [0i32, 2i32]]", "size mismatch");
}

#[test]
fn shadowing_and_conversions() {
    let src = "def one : i32 = 1
def x : i32 = one + 1
def f (y: i32) : i32 = let x = y * 10 in x + 1
entry main (y: i32) : (i32, i32, i64, f64, u8, i32, bool) =
  (x, f y, i64.i32 y, f64.f32 (f32.i32 y), u8.i32 (y + 256), i32.bool (y > 0), bool.i32 y)";
    ok(src, "main", "3i32", "2i32 31i32 3i64 3.0f64 3u8 1i32 true");
    ok(src, "main", "0i32", "2i32 1i32 0i64 0.0f64 0u8 0i32 false");
}

/// A run-time error inside an inlined prelude function points at the user's call.
#[test]
fn prelude_errors_point_at_the_call() {
    let src = "entry main (xs: []i32) : i32 = 1 + head xs";
    let Some(Ok(prog)) = lower_src(src) else { return };
    let args = parse_values("empty([0]i32)").unwrap_or_default();
    match run_entry(&prog, "main", &args) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(d) => {
            assert!(d.message.contains("out of bounds"), "{}", d.message);
            assert_eq!(&src[d.span.range()], "head xs");
        }
    }
}

/// A local function's size parameter is bound anew at each call, even where an outer size of
/// the same name is in scope.
#[test]
fn local_size_parameters_shadow_outer_sizes() {
    let src = "entry main [n] (xs: [n]i32) (ys: []i32) : (i64, i64, i64) =
  let f [n] (zs: [n]i32) : i64 = n
  let [n] (ws: [n]i32) = filter (> 1) ys
  in (f ys, f xs, n + i64.i32 (reduce (+) 0 ws))";
    ok(src, "main", "[1i32, 2i32] [1i32, 2i32, 3i32]", "3i64 2i64 7i64");
}
