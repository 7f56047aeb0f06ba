use super::*;

#[test]
fn smoke() {
    let src = r#"
-- Dot product.
def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 =
  reduce (+) 0 (map2 (*) xs ys)

entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\row -> map (\col -> dotprod row col) (transpose b)) a

def f (x: i32) = let y = x + 1 let z = y * 2 in if z > 3 then z else -z

def g xs = loop acc = 0 for i < length xs do acc + xs[i]

def h (r: {a: i32, b: (f32, bool)}) = match r.b.1 case true -> r.a case false -> 0

type vec [n] 't = [n]t
"#;
    let p = parse(src).unwrap_or_else(|e| panic!("{e:?}"));
    let out = printer::print_program(&p);
    println!("{out}");
    let q = parse(&out).unwrap_or_else(|e| panic!("{e:?}\n{out}"));
    assert!(strip::same_program(&p, &q));
}
