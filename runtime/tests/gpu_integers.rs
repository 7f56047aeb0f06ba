//! 64-bit integers on the GPU backend, which computes them in 32 bits: an operation whose 64-bit
//! result does not fit is a run-time error at its source location, never a wrong value.

use ogham::backend::wgsl;
use ogham::driver;
use ogham::value::{text::parse_values, Value};
use ogham_runtime::gpu::Gpu;

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

fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(d) => {
            eprintln!("no GPU, not checked: {}", d.message);
            None
        }
    }
}

fn args(text: &str) -> Vec<Value> {
    parse_values(text).unwrap()
}

#[test]
fn results_outside_32_bits_are_errors_at_their_operation() {
    let Some(mut gpu) = gpu() else { return };
    let c = driver::compile(PROGRAM).unwrap();
    let loaded = gpu.load(wgsl::compile(&c.ir).unwrap()).unwrap();
    let cases: &[(&str, &str, &str, &str)] = &[
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
    for (entry, input, what, at) in cases {
        let e = gpu.run(&loaded, entry, &args(input)).unwrap_err();
        assert!(e.message.contains(what), "{entry}: {}", e.message);
        assert!(e.message.contains("outside the 32-bit range"), "{entry}: {}", e.message);
        let span = &PROGRAM[e.span.range()];
        assert!(span.contains(at), "{entry}: the error is at `{span}`, not at `{at}`");
    }
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
