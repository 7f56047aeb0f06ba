type t0 = i32

type t1 = [3]bool

type t2 = [][]f64

type t3 = (i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64)

type t4 = {a: i32, b: {c: [2]u8}}

type t5 = i32 -> i32 -> bool

type t6 = (i32 -> i32) -> i32

type^ t7 = (x: i64) -> [x]f32

type t8 = ()

type t9 'a 'b = (a, b)

type t10 [n] = [n](i32, f32)

type t11 = #red | #green | #blue

type t12 = t9 i32 (t10 [3])

type~ t13 = ?[n].[n]i32

type t14 = *[]i32

def conv (x: f32) = (i32.f32 x, f64.f32 x, u8.f32 x, bool.i32 1, f32.from_fraction 1 2)

def consts = (f32.pi, f64.inf, i32.highest, u64.lowest, f16.nan)
