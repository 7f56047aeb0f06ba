// Scalar helpers every generated kernel includes: Futhark's integer and float semantics where
// WGSL's operators differ (flooring division, shifts by the width or more, NaN-ignoring min/max),
// and the error channel. Binding 0 holds the kernel's scalar arguments as 32-bit words (a uniform
// buffer, so that it does not count against the storage buffers a kernel may bind; word k is
// ogm_args[k / 4][k % 4], and each kernel sizes the array to its own words); binding 1 the error
// record: [0] = failing site + 1 (0: no error), [1..] the message's values.

@group(0) @binding(0) var<uniform> ogm_args: array<vec4<u32>, 1>;
@group(0) @binding(1) var<storage, read_write> ogm_err: array<atomic<u32>>;

fn ogm_fail(site: u32, a: array<u32, 8>, n: u32) {
    var vals = a;
    // The first failure wins; a weak exchange may fail spuriously, so retry while the slot is free.
    loop {
        let r = atomicCompareExchangeWeak(&ogm_err[0], 0u, site + 1u);
        if r.exchanged {
            for (var k = 0u; k < n; k++) {
                atomicStore(&ogm_err[k + 1u], vals[k]);
            }
            break;
        }
        if r.old_value != 0u { break; }
    }
}

fn ogm_div_i32(x: i32, y: i32) -> i32 {
    if y == 0 { return 0; }
    if x == i32(-2147483647 - 1) && y == -1 { return x; }
    let q = x / y;
    let r = x - q * y;
    if r != 0 && ((r < 0) != (y < 0)) { return q - 1; }
    return q;
}

fn ogm_mod_i32(x: i32, y: i32) -> i32 {
    if y == 0 { return 0; }
    if y == -1 { return 0; }
    let r = x % y;
    if r != 0 && ((r < 0) != (y < 0)) { return r + y; }
    return r;
}

fn ogm_quot_i32(x: i32, y: i32) -> i32 {
    if y == 0 { return 0; }
    if x == i32(-2147483647 - 1) && y == -1 { return x; }
    return x / y;
}

fn ogm_rem_i32(x: i32, y: i32) -> i32 {
    if y == 0 || y == -1 { return 0; }
    return x % y;
}

fn ogm_div_u32(x: u32, y: u32) -> u32 {
    if y == 0u { return 0u; }
    return x / y;
}

fn ogm_mod_u32(x: u32, y: u32) -> u32 {
    if y == 0u { return 0u; }
    return x % y;
}

fn ogm_pow_i32(x: i32, y: i32) -> i32 {
    var base = x;
    var rem = u32(y);
    var acc = 1;
    while rem != 0u {
        if (rem & 1u) == 1u { acc = acc * base; }
        base = base * base;
        rem = rem >> 1u;
    }
    return acc;
}

fn ogm_pow_u32(x: u32, y: u32) -> u32 {
    var base = x;
    var rem = y;
    var acc = 1u;
    while rem != 0u {
        if (rem & 1u) == 1u { acc = acc * base; }
        base = base * base;
        rem = rem >> 1u;
    }
    return acc;
}

// Shifts: amounts of at least `bits` shift every bit out (the sign fills signed right shifts).
fn ogm_shl_i32(x: i32, y: i32, bits: u32) -> i32 {
    if u32(y) >= bits { return 0; }
    return x << u32(y);
}

fn ogm_shr_i32(x: i32, y: i32, bits: u32) -> i32 {
    if u32(y) >= bits { return select(0, -1, x < 0); }
    return x >> u32(y);
}

fn ogm_shl_u32(x: u32, y: u32, bits: u32) -> u32 {
    if y >= bits { return 0u; }
    return x << y;
}

fn ogm_shr_u32(x: u32, y: u32, bits: u32) -> u32 {
    if y >= bits { return 0u; }
    return x >> y;
}

// A float from its bits, computed at run time. WGSL makes a constant expression whose value is
// infinite or NaN a shader-creation error (browsers' compilers enforce it; naga does not), so
// non-finite constants are written as calls of this function, which are not constant expressions.
fn ogm_f32_bits(b: u32) -> f32 {
    return bitcast<f32>(b);
}

fn ogm_isnan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn ogm_isinf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

fn ogm_fmin(x: f32, y: f32) -> f32 {
    if ogm_isnan(x) { return y; }
    if ogm_isnan(y) || x <= y { return x; }
    return y;
}

fn ogm_fmax(x: f32, y: f32) -> f32 {
    if ogm_isnan(x) { return y; }
    if ogm_isnan(y) || y <= x { return x; }
    return y;
}

fn ogm_copysign(x: f32, y: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(y) & 0x80000000u));
}

fn ogm_frem(x: f32, y: f32) -> f32 {
    return x - y * trunc(x / y);
}

fn ogm_fmod(x: f32, y: f32) -> f32 {
    let r = ogm_frem(x, y);
    if r == 0.0 { return ogm_copysign(0.0, y); }
    if (r < 0.0) != (y < 0.0) { return r + y; }
    return r;
}

// pow with C semantics for negative bases and integral exponents.
fn ogm_powf(x: f32, y: f32) -> f32 {
    if y == 0.0 { return 1.0; }
    if x == 1.0 { return 1.0; }
    if x < 0.0 && trunc(y) == y {
        let m = pow(-x, y);
        if abs(y) < 16777216.0 && (i32(abs(y)) & 1) == 1 { return -m; }
        return m;
    }
    if x == 0.0 {
        if y > 0.0 { return 0.0; }
        return ogm_f32_bits(0x7f800000u);
    }
    return pow(x, y);
}

fn ogm_fsgn(x: f32) -> f32 {
    if ogm_isnan(x) { return x; }
    return sign(x);
}

fn ogm_round(x: f32) -> f32 {
    return round(x);
}

fn ogm_cbrt(x: f32) -> f32 {
    if x == 0.0 || ogm_isnan(x) || ogm_isinf(x) { return x; }
    return sign(x) * pow(abs(x), 1.0 / 3.0);
}

fn ogm_log1p(x: f32) -> f32 {
    let u = 1.0 + x;
    if u == 1.0 { return x; }
    return log(u) * x / (u - 1.0);
}

// Float to integer: truncated toward zero; NaN and infinities give 0, and other values out of
// range wrap: the result is the low 32 bits of the truncated value.
fn ogm_f2w(x: f32) -> u32 {
    if ogm_isnan(x) || ogm_isinf(x) { return 0u; }
    let t = trunc(x);
    if abs(t) < 2147483648.0 { return bitcast<u32>(i32(t)); }
    // |t| >= 2^31 is m * 2^k with m an integer below 2^24 and k >= 8.
    let f = frexp(abs(t));
    let k = f.exp - 24;
    if k >= 32 { return 0u; }
    let w = u32(f.fract * 16777216.0) << u32(k);
    return select(w, 0u - w, t < 0.0);
}

fn ogm_f2i(x: f32) -> i32 {
    return bitcast<i32>(ogm_f2w(x));
}

fn ogm_f2u(x: f32) -> u32 {
    return ogm_f2w(x);
}

// Does a float converted to a 64-bit integer (truncated, wrapped modulo 2^64) leave the 32-bit
// range the GPU computes i64 (`signed`) or u64 values in?
fn ogm_f2w_ovf(x: f32, signed: bool) -> bool {
    if ogm_isnan(x) || ogm_isinf(x) { return false; }
    let t = trunc(x);
    if signed && t >= -2147483648.0 && t < 2147483648.0 { return false; }
    if !signed && t >= 0.0 && t < 4294967296.0 { return false; }
    // Out of range, it stays out modulo 2^64 unless its lowest set bit is bit 64 or above.
    let f = frexp(abs(t));
    return i32(countTrailingZeros(u32(f.fract * 16777216.0))) + f.exp - 24 < 64;
}

// Overflow checks of 64-bit integer operations, which the GPU computes in 32 bits: does the
// 64-bit result of an operation on operands that fit in 32 bits not fit in 32 bits?
fn ogm_mul_ovf_i32(a: i32, b: i32) -> bool {
    let ua = select(bitcast<u32>(a), 0u - bitcast<u32>(a), a < 0);
    let ub = select(bitcast<u32>(b), 0u - bitcast<u32>(b), b < 0);
    // 46340^2 < 2^31: the common case needs no division.
    if max(ua, ub) <= 46340u || ua == 0u || ub == 0u { return false; }
    let limit = select(0x7fffffffu, 0x80000000u, (a < 0) != (b < 0));
    return ua > limit / ub;
}

fn ogm_mul_ovf_u32(a: u32, b: u32) -> bool {
    if max(a, b) <= 65535u || a == 0u || b == 0u { return false; }
    return a > 0xffffffffu / b;
}

// x ** y modulo 2^64. For |x| >= 2, an even x to a power of at least 64 is 0; otherwise the
// power is at least 2^y, and it is computed exactly while it fits.
fn ogm_pow_ovf_i32(x: i32, y: i32) -> bool {
    if y <= 0 || (x >= -1 && x <= 1) { return false; }
    if y >= 64 { return (x & 1) == 1; }
    var acc = 1;
    for (var k = 0; k < y; k++) {
        if ogm_mul_ovf_i32(acc, x) { return true; }
        acc = acc * x;
    }
    return false;
}

fn ogm_pow_ovf_u32(x: u32, y: u32) -> bool {
    if y == 0u || x <= 1u { return false; }
    if y >= 64u { return (x & 1u) == 1u; }
    var acc = 1u;
    for (var k = 0u; k < y; k++) {
        if ogm_mul_ovf_u32(acc, x) { return true; }
        acc = acc * x;
    }
    return false;
}

// x << y on 64 bits, for x (the low word of a sign-extended i64 when `signed`, of a u64
// otherwise) and an amount read as unsigned: amounts of 64 or more give 0.
fn ogm_shl_ovf_u32(x: u32, y: u32, signed: bool) -> bool {
    if x == 0u || y >= 64u { return false; }
    if y >= 32u { return (x << (y - 32u)) != 0u; }
    if signed { return ((bitcast<i32>(x) << y) >> y) != bitcast<i32>(x); }
    return ((x << y) >> y) != x;
}

// f16 values live in f32 registers and words; every f16 operation rounds its f32 result to the
// nearest f16 (ties to even; beyond the largest finite f16, infinity). One rounding of the exact
// f32 result of +, -, *, / and sqrt gives the correctly rounded f16 result, since f32 has more
// than 2 * 11 + 2 significand bits.
fn ogm_f16(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    let s = b & 0x80000000u;
    let a = b & 0x7fffffffu;
    if a >= 0x7f800000u { return x; }
    if a >= 0x477ff000u { return bitcast<f32>(s | 0x7f800000u); }
    if a < 0x38800000u {
        // Below the smallest normal f16 the spacing is 2^-24: round there (exact scalings).
        return bitcast<f32>(s | bitcast<u32>(round(bitcast<f32>(a) * 16777216.0) / 16777216.0));
    }
    let r = (a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u;
    return bitcast<f32>(s | r);
}

// The 16 bits of an f16 value held in an f32.
fn ogm_f16_to_bits(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let s = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    if a > 0x7f800000u { return s | 0x7e00u | ((a >> 13u) & 0x3ffu); }
    if a >= 0x47800000u { return s | 0x7c00u; }
    if a < 0x38800000u { return s | u32(bitcast<f32>(a) * 16777216.0); }
    return s | (((a >> 23u) - 112u) << 10u) | ((a >> 13u) & 0x3ffu);
}

// The f16 value of 16 bits, as an f32.
fn ogm_f16_from_bits(h: u32) -> f32 {
    let s = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if e == 0u { return bitcast<f32>(s | bitcast<u32>(f32(m) / 16777216.0)); }
    if e == 31u { return bitcast<f32>(s | 0x7f800000u | (m << 13u)); }
    return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}

// 64-bit integers, for programs whose i64/u64 values need more than 32 bits: a vec2<u32> holds
// the low word in x and the high word in y (two's complement for i64). Every operation wraps
// modulo 2^64, as the interpreter's.
fn ogm_w_i32(a: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(a), select(0u, 0xffffffffu, a < 0));
}

// A 64-bit value as an i32 index or count, saturated: values outside the i32 range fail every
// bounds check and make no loop run longer than an i32 count can.
fn ogm_w_sat(a: vec2<u32>) -> i32 {
    let hi = bitcast<i32>(a.y);
    if a.y == select(0u, 0xffffffffu, bitcast<i32>(a.x) < 0) { return bitcast<i32>(a.x); }
    return select(2147483647, i32(-2147483647 - 1), hi < 0);
}

// As ogm_w_sat, for a u64.
fn ogm_w_sat_u(a: vec2<u32>) -> i32 {
    if a.y == 0u && a.x <= 0x7fffffffu { return bitcast<i32>(a.x); }
    return 2147483647;
}

fn ogm_w_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn ogm_w_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn ogm_w_neg(a: vec2<u32>) -> vec2<u32> {
    return ogm_w_sub(vec2<u32>(0u, 0u), a);
}

// The whole 64-bit product of two words, from 16-bit halves.
fn ogm_w_mul32(a: u32, b: u32) -> vec2<u32> {
    // (Local names never look like a buffer's, `b` and a number.)
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let ll = al * bl;
    let lh = al * bh;
    let hl = ah * bl;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    let lo = (ll & 0xffffu) | (mid << 16u);
    return vec2<u32>(lo, ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u));
}

fn ogm_w_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = ogm_w_mul32(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

fn ogm_w_lt_u(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn ogm_w_lt_i(a: vec2<u32>, b: vec2<u32>) -> bool {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    return ah < bh || (ah == bh && a.x < b.x);
}

fn ogm_w_neg_i(a: vec2<u32>) -> bool {
    return bitcast<i32>(a.y) < 0;
}

fn ogm_w_abs(a: vec2<u32>) -> vec2<u32> {
    return select(a, ogm_w_neg(a), ogm_w_neg_i(a));
}

fn ogm_w_sgn(a: vec2<u32>) -> vec2<u32> {
    if ogm_w_neg_i(a) { return vec2<u32>(0xffffffffu, 0xffffffffu); }
    return vec2<u32>(select(0u, 1u, a.x != 0u || a.y != 0u), 0u);
}

// A shift amount (a 64-bit value read as unsigned), at most 64.
fn ogm_w_amount(b: vec2<u32>) -> u32 {
    return select(min(b.x, 64u), 64u, b.y != 0u);
}

fn ogm_w_shl(a: vec2<u32>, n: u32) -> vec2<u32> {
    if n >= 64u { return vec2<u32>(0u, 0u); }
    if n >= 32u { return vec2<u32>(0u, a.x << (n - 32u)); }
    if n == 0u { return a; }
    return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

fn ogm_w_shr_u(a: vec2<u32>, n: u32) -> vec2<u32> {
    if n >= 64u { return vec2<u32>(0u, 0u); }
    if n >= 32u { return vec2<u32>(a.y >> (n - 32u), 0u); }
    if n == 0u { return a; }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}

fn ogm_w_shr_i(a: vec2<u32>, n: u32) -> vec2<u32> {
    let s = select(0u, 0xffffffffu, ogm_w_neg_i(a));
    if n >= 64u { return vec2<u32>(s, s); }
    if n >= 32u { return vec2<u32>(bitcast<u32>(bitcast<i32>(a.y) >> (n - 32u)), s); }
    if n == 0u { return a; }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), bitcast<u32>(bitcast<i32>(a.y) >> n));
}

// Unsigned quotient (xy) and remainder (zw), bit by bit; a zero divisor gives zeros (the
// kernel reports division by zero before).
fn ogm_w_divmod_u(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    if b.x == 0u && b.y == 0u { return vec4<u32>(0u); }
    if a.y == 0u && b.y == 0u { return vec4<u32>(a.x / b.x, 0u, a.x % b.x, 0u); }
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 63u; i < 64u; i--) {
        let bit = select((a.x >> i) & 1u, (a.y >> (i - 32u)) & 1u, i >= 32u);
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if !ogm_w_lt_u(r, b) {
            r = ogm_w_sub(r, b);
            if i >= 32u { q.y = q.y | (1u << (i - 32u)); } else { q.x = q.x | (1u << i); }
        }
    }
    return vec4<u32>(q, r);
}

// Truncating division of i64s; the lowest value divided by -1 wraps to itself.
fn ogm_w_quot_i(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let q = ogm_w_divmod_u(ogm_w_abs(a), ogm_w_abs(b)).xy;
    return select(q, ogm_w_neg(q), ogm_w_neg_i(a) != ogm_w_neg_i(b));
}

fn ogm_w_rem_i(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let r = ogm_w_divmod_u(ogm_w_abs(a), ogm_w_abs(b)).zw;
    return select(r, ogm_w_neg(r), ogm_w_neg_i(a));
}

// Flooring division and modulo of i64s (Futhark's `/` and `%`).
fn ogm_w_div_i(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let q = ogm_w_quot_i(a, b);
    let r = ogm_w_rem_i(a, b);
    if (r.x != 0u || r.y != 0u) && ogm_w_neg_i(r) != ogm_w_neg_i(b) {
        return ogm_w_sub(q, vec2<u32>(1u, 0u));
    }
    return q;
}

fn ogm_w_mod_i(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let r = ogm_w_rem_i(a, b);
    if (r.x != 0u || r.y != 0u) && ogm_w_neg_i(r) != ogm_w_neg_i(b) { return ogm_w_add(r, b); }
    return r;
}

// x ** y, wrapping; y read as unsigned (a negative i64 exponent is reported before).
fn ogm_w_pow(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    var base = x;
    var rem = y;
    var acc = vec2<u32>(1u, 0u);
    while rem.x != 0u || rem.y != 0u {
        if (rem.x & 1u) == 1u { acc = ogm_w_mul(acc, base); }
        base = ogm_w_mul(base, base);
        rem = ogm_w_shr_u(rem, 1u);
    }
    return acc;
}

fn ogm_w_clz(a: vec2<u32>) -> i32 {
    return i32(select(countLeadingZeros(a.y), 32u + countLeadingZeros(a.x), a.y == 0u));
}

fn ogm_w_ctz(a: vec2<u32>) -> i32 {
    return i32(select(countTrailingZeros(a.x), 32u + countTrailingZeros(a.y), a.x == 0u));
}

fn ogm_w_popc(a: vec2<u32>) -> i32 {
    return i32(countOneBits(a.x) + countOneBits(a.y));
}

// A u64 as the nearest f32: the top 32 significant bits with a sticky bit for the rest round
// as the whole value does.
fn ogm_w_to_f32_u(a: vec2<u32>) -> f32 {
    if a.y == 0u { return f32(a.x); }
    let s = countLeadingZeros(a.y);
    let t = ogm_w_shl(a, s);
    return f32(t.y | select(0u, 1u, t.x != 0u)) * exp2(f32(32u - s));
}

fn ogm_w_to_f32_i(a: vec2<u32>) -> f32 {
    let m = ogm_w_to_f32_u(ogm_w_abs(a));
    return select(m, -m, ogm_w_neg_i(a));
}

// A float truncated and wrapped modulo 2^64 (NaN and infinities give 0), as the interpreter
// converts floats to 64-bit integers.
fn ogm_w_from_f32(x: f32) -> vec2<u32> {
    if ogm_isnan(x) || ogm_isinf(x) { return vec2<u32>(0u, 0u); }
    let t = trunc(x);
    if abs(t) < 2147483648.0 { return ogm_w_i32(i32(t)); }
    // |t| >= 2^31 is m * 2^k with m an integer below 2^24 and k >= 8.
    let f = frexp(abs(t));
    let k = f.exp - 24;
    if k >= 64 { return vec2<u32>(0u, 0u); }
    let m = ogm_w_shl(vec2<u32>(u32(f.fract * 16777216.0), 0u), u32(k));
    return select(m, ogm_w_neg(m), t < 0.0);
}
