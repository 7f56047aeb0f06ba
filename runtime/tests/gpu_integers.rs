//! 64-bit integers on the GPU backend. A program computes i64/u64 in 32 bits first: an operation
//! whose 64-bit result does not fit is an error at its source location, never a wrong value, and
//! the runtime then runs the entry on the program with 64-bit integers, which gives the
//! interpreter's results.

mod common;

use common::gpu;
use ogham::backend::wgsl;
use ogham::driver;
use ogham::value::{text::parse_values, Value};

const PROGRAM: &str = "
entry square (xs: []i64) = map (\\x -> x * x) xs
entry plus (xs: []i64) (ys: []i64) = map2 (+) xs ys
entry minus (xs: []u64) (ys: []u64) = map2 (-) xs ys
entry negate (xs: []i64) = map (\\x -> -x) xs
entry shift (xs: []i64) (k: i64) = map (\\x -> x << k) xs
entry power (xs: []i64) (k: i64) = map (\\x -> x ** k) xs
entry quotient (xs: []i64) (y: i64) = map (\\x -> x / y) xs
entry widen (xs: []u32) = map i64.u32 xs
entry from_float (xs: []f32) = map i64.f32 xs
entry counts [n] (bins: [n]i64) (ws: [n]i64) = hist (+) 0 2 bins ws
entry total (xs: []i64) = i64.sum xs
entry stepped (n: i64) (s: i64) = map (\\i -> i * 3) (map (\\i -> i * s) (iota n))
";

fn args(text: &str) -> Vec<Value> {
    parse_values(text).unwrap()
}

/// The cases whose results need 64 bits: entry, arguments, the narrow program's message, and
/// the source the message points at.
const WIDE_CASES: &[(&str, &str, &str, &str)] = &[
    ("square", "[3i64, 46341i64]", "46341 * 46341", "x * x"),
    ("plus", "[2147483647i64] [1i64]", "2147483647 + 1", "(+)"),
    ("minus", "[1u64] [2u64]", "1 - 2", "(-)"),
    ("negate", "[-2147483648i64]", "--2147483648", "-x"),
    ("shift", "[1i64] 40i64", "1 << 40", "x << k"),
    ("shift", "[-65536i64] 16i64", "-65536 << 16", "x << k"),
    ("power", "[3i64] 21i64", "3 ** 21", "x ** k"),
    ("quotient", "[-2147483648i64] -1i64", "-2147483648 / -1", "x / y"),
    ("widen", "[2147483648u32]", "2147483648 converted to i64", "i64.u32"),
    ("from_float", "[1.0e10f32]", "10000000000 converted to i64", "i64.f32"),
    ("counts", "[1i64, 1i64] [2147483647i64, 1i64]", "+", "hist (+) 0 2 bins ws"),
    ("total", "[2147483647i64, 1i64]", "+", "i64.sum xs"),
    ("stepped", "3i64 1000000000i64", "* 3", "i * 3"),
];

#[test]
fn results_outside_32_bits_are_errors_of_the_narrow_program_at_their_operation() {
    let Some(mut gpu) = gpu() else { return };
    let c = driver::compile(PROGRAM).unwrap();
    let mut narrow = wgsl::compile(&c.ir).unwrap();
    // Without its source, a program cannot be compiled again with 64-bit integers.
    narrow.source = None;
    let loaded = gpu.load(narrow).unwrap();
    for (entry, input, what, at) in WIDE_CASES {
        let e = gpu.run(&loaded, entry, &args(input)).unwrap_err();
        assert!(e.message.contains(what), "{entry}: {}", e.message);
        assert!(e.message.contains("outside the 32-bit range"), "{entry}: {}", e.message);
        assert!(wgsl::is_needs_wide(&e), "{entry}: {}", e.message);
        let span = &PROGRAM[e.span.range()];
        assert!(span.contains(at), "{entry}: the error is at `{span}`, not at `{at}`");
    }
}

#[test]
fn results_outside_32_bits_are_computed_in_64_bits() {
    let Some(mut gpu) = gpu() else { return };
    let c = driver::compile(PROGRAM).unwrap();
    let loaded = gpu.load(wgsl::compile(&c.ir).unwrap()).unwrap();
    for (entry, input, _, _) in WIDE_CASES {
        let expected = ogham::interp::run_entry(&c.ir, entry, &args(input)).unwrap();
        let r = gpu.run(&loaded, entry, &args(input)).unwrap();
        assert_eq!(r, expected, "{entry} {input}");
    }
}

/// Every operation on 64-bit integers, at values that need 64 bits, in kernels, host
/// reductions, scans, histograms and loops.
const WIDE_PROGRAM: &str = r"
entry arith (xs: []i64) (ys: []i64) =
  (map2 (+) xs ys, map2 (-) xs ys, map2 (*) xs ys, map2 (/) xs ys, map2 (%) xs ys,
   map2 (//) xs ys, map2 (%%) xs ys, map2 i64.min xs ys, map2 i64.max xs ys)
entry unsigned (xs: []u64) (ys: []u64) =
  (map2 (+) xs ys, map2 (-) xs ys, map2 (*) xs ys, map2 (/) xs ys, map2 (%) xs ys,
   map2 u64.min xs ys, map2 (<) xs ys, map2 (>=) xs ys)
entry bits (xs: []i64) (k: i64) =
  (map (\x -> x << k) xs, map (\x -> x >> k) xs, map (\x -> u64.i64 x >> u64.i64 k) xs,
   map i64.clz xs, map i64.ctz xs, map i64.popc xs, map (\x -> x ^ 0x5555555555555555) xs,
   map (\x -> !x) xs, map i64.abs xs, map i64.sgn xs, map (\x -> -x) xs)
entry powers (xs: []i64) (k: i64) = map (\x -> x ** k) xs
entry compare (xs: []i64) (ys: []i64) =
  (map2 (==) xs ys, map2 (!=) xs ys, map2 (<) xs ys, map2 (<=) xs ys, map2 (>) xs ys)
entry convert (xs: []i64) =
  (map f32.i64 xs, map i32.i64 xs, map u8.i64 xs, map u64.i64 xs, map (\x -> i64.f32 (f32.i64 x)) xs,
   map (\x -> i64.i32 (i32.i64 x)) xs, map (\x -> i64.bool (x > 0)) xs, map f32.u64 (map u64.i64 xs))
entry summary (xs: []i64) = (i64.sum xs, i64.minimum xs, i64.maximum xs, scan (+) 0 xs)
entry counts [n] (bins: [n]i64) (ws: [n]i64) = hist (+) 0 3 bins ws
entry looped (x: i64) (n: i64) = map (\y -> loop acc = y for i < n do acc * 3 + i) [x, x + 1]
entry element (xs: []i64) (i: i64) = xs[i]
";

#[test]
fn every_operation_on_64_bit_values_agrees_with_the_interpreter() {
    let Some(mut gpu) = gpu() else { return };
    let c = driver::compile(WIDE_PROGRAM).unwrap();
    let loaded = gpu.load(wgsl::compile(&c.ir).unwrap()).unwrap();
    let big = "[9000000000i64, -9000000000i64, 4611686018427387904i64, -9223372036854775808i64, 7i64, -3i64]";
    let other = "[-7i64, 3000000000i64, 3i64, -1i64, 9223372036854775807i64, 5000000000i64]";
    let cases: Vec<(&str, String)> = vec![
        ("arith", format!("{big} {other}")),
        (
            "unsigned",
            "[18446744073709551615u64, 4294967296u64, 12345678901234u64, 0u64]              [4294967297u64, 3u64, 18446744073709551615u64, 5u64]"
                .into(),
        ),
        ("bits", format!("{big} 3i64")),
        ("bits", format!("{big} 35i64")),
        ("bits", format!("{big} 64i64")),
        ("powers", "[3i64, -5i64, 2i64] 41i64".into()),
        ("compare", format!("{big} {other}")),
        ("convert", big.to_string()),
        ("summary", big.to_string()),
        ("counts", "[0i64, 2i64, 2i64, 1i64] [9000000000i64, 5i64, 9000000000i64, -1i64]".into()),
        ("looped", "5000000000i64 30i64".into()),
        ("element", "[1i64, 5000000000i64] 1i64".into()),
    ];
    for (entry, input) in &cases {
        let expected = ogham::interp::run_entry(&c.ir, entry, &args(input)).unwrap();
        let r = gpu.run(&loaded, entry, &args(input)).unwrap();
        assert_eq!(r, expected, "{entry} {input}");
    }
    // Errors of the 64-bit program show the values as they are.
    let e = gpu.run(&loaded, "element", &args("[1i64, 5000000000i64] 5000000000i64")).unwrap_err();
    let expected =
        ogham::interp::run_entry(&c.ir, "element", &args("[1i64, 5000000000i64] 5000000000i64"))
            .unwrap_err();
    assert_eq!(e.message, expected.message);
}

#[test]
fn results_that_fit_in_32_bits_are_exact() {
    let Some(mut gpu) = gpu() else { return };
    let c = driver::compile(PROGRAM).unwrap();
    let loaded = gpu.load(wgsl::compile(&c.ir).unwrap()).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("square", "[-46340i64]", "[2147395600i64]"),
        ("minus", "[4294967295u64] [0u64]", "[4294967295u64]"),
        ("shift", "[-1i64, 0i64] 31i64", "[-2147483648i64, 0i64]"),
        ("shift", "[-2147483648i64] 33i64", "[0i64]"),
        ("power", "[2i64, -2i64, 6i64] 64i64", "[0i64, 0i64, 0i64]"),
        ("power", "[-2i64] 31i64", "[-2147483648i64]"),
        ("from_float", "[-2147483648f32, 1.8446744e19f32]", "[-2147483648i64, 0i64]"),
        ("counts", "[0i64, 1i64, 1i64] [5i64, 2147483646i64, 1i64]", "[5i64, 2147483647i64]"),
        ("stepped", "3i64 100i64", "[0i64, 300i64, 600i64]"),
    ];
    for (entry, input, expected) in cases {
        let r = gpu.run(&loaded, entry, &args(input)).unwrap();
        assert_eq!(r, args(expected), "{entry} {input}");
    }
}
