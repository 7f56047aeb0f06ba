//! `random input { [100]f32 [10][10]i32 10i64 }`: reading the type list and generating values
//! with a small seeded generator (SplitMix64), so runs are reproducible and need no I/O.
//!
//! Floats are uniform in [0, 1); integers are uniform in [0, 100) (small, so they are safe as sizes
//! and indices of modest arrays); booleans are fair coin flips.

use super::RandomValue;
use crate::diag::{Diagnostic, Phase, Span};
use crate::prim::{f16, FloatType, PrimType, PrimValue};
use crate::value::text::parse_values;
use crate::value::{ArrayValue, Value};

/// More elements than this in one random value is an error rather than an allocation.
pub const MAX_RANDOM_ELEMS: usize = 1 << 26;

/// Read the inside of a `random input { ... }` block. Spans are offsets into `text`.
pub fn parse_random_spec(text: &str) -> Result<Vec<RandomValue>, Diagnostic> {
    let err = |a: usize, b: usize, m: String| Diagnostic::new(Phase::Value, Span::new(a, b), m);
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut out = Vec::new();
    let skip = |pos: &mut usize| {
        while bytes.get(*pos).is_some_and(|c| c.is_ascii_whitespace()) {
            *pos += 1;
        }
    };
    loop {
        skip(&mut pos);
        if pos >= bytes.len() {
            return Ok(out);
        }
        let start = pos;
        let mut shape = Vec::new();
        while bytes.get(pos) == Some(&b'[') {
            pos += 1;
            skip(&mut pos);
            let d0 = pos;
            while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                pos += 1;
            }
            let d: i64 = text[d0..pos].parse().map_err(|_| {
                err(
                    d0,
                    pos.max(d0 + 1).min(text.len()),
                    "expected an array size such as `[100]`".into(),
                )
            })?;
            shape.push(d);
            skip(&mut pos);
            if bytes.get(pos) != Some(&b']') {
                return Err(err(pos, (pos + 1).min(text.len()), "expected `]`".into()));
            }
            pos += 1;
        }
        let w0 = pos;
        while bytes.get(pos).is_some_and(|c| !c.is_ascii_whitespace() && *c != b'[') {
            pos += 1;
        }
        let word = &text[w0..pos];
        if let Some(elem) = PrimType::from_name(word) {
            out.push(RandomValue::Random { shape, elem });
            continue;
        }
        if !shape.is_empty() || word.is_empty() {
            return Err(err(
                w0,
                pos.max(w0 + 1).min(text.len()),
                format!("expected a primitive type such as `f32`, found `{word}`"),
            ));
        }
        match parse_values(word).map(|mut v| (v.len(), v.pop())) {
            Ok((1, Some(Value::Prim(p)))) => out.push(RandomValue::Fixed(p)),
            _ => {
                return Err(err(
                    start,
                    pos,
                    format!(
                    "expected a type such as `[100]f32` or a scalar such as `10i64`, found `{word}`"
                ),
                ))
            }
        }
    }
}

/// SplitMix64: tiny, fast, and good enough for test data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A generator for one test case, from a base seed and the case's identity.
    pub fn for_case(seed: u64, file: &str, line: usize, entry: &str) -> Rng {
        // FNV-1a over the identity, mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
        for b in file.bytes().chain(line.to_le_bytes()).chain(entry.bytes()) {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Rng(h)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn prim(&mut self, t: PrimType) -> PrimValue {
        match t {
            PrimType::Bool => PrimValue::Bool(self.next_u64() & 1 == 1),
            PrimType::Int(it) => PrimValue::int(it, (self.next_u64() % 100) as i128),
            PrimType::Float(FloatType::F16) => {
                // Round down so the value stays below 1 (0.9995 would round up to 1.0 in f16).
                let x = (self.next_u64() >> 54) as f32 / 1024.0;
                PrimValue::F16(f16::from_f32(x))
            }
            PrimType::Float(FloatType::F32) => {
                PrimValue::F32((self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32))
            }
            PrimType::Float(FloatType::F64) => PrimValue::F64(self.next_f64()),
        }
    }
}

/// Generate the values of a `random input` block.
pub fn generate(spec: &[RandomValue], rng: &mut Rng) -> Result<Vec<Value>, String> {
    spec.iter()
        .map(|item| match item {
            RandomValue::Fixed(p) => Ok(Value::Prim(*p)),
            RandomValue::Random { shape, elem } if shape.is_empty() => {
                Ok(Value::Prim(rng.prim(*elem)))
            }
            RandomValue::Random { shape, elem } => {
                let n = shape
                    .iter()
                    .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))
                    .filter(|&n| n <= MAX_RANDOM_ELEMS)
                    .ok_or_else(|| {
                        format!(
                            "random input {} is too large (at most {MAX_RANDOM_ELEMS} elements)",
                            crate::value::text::format_type(shape, *elem)
                        )
                    })?;
                let data = (0..n).map(|_| rng.prim(*elem)).collect();
                Ok(Value::Array(ArrayValue { elem: *elem, shape: shape.clone(), data }))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_types_and_fixed_values() {
        let spec = parse_random_spec(" [100]f32 [10][ 10 ]i32\n 10i64 bool 2.5f32 ").unwrap();
        assert_eq!(
            spec,
            vec![
                RandomValue::Random { shape: vec![100], elem: PrimType::F32 },
                RandomValue::Random { shape: vec![10, 10], elem: PrimType::I32 },
                RandomValue::Fixed(PrimValue::I64(10)),
                RandomValue::Random { shape: vec![], elem: PrimType::Bool },
                RandomValue::Fixed(PrimValue::F32(2.5)),
            ]
        );
        assert_eq!(parse_random_spec("").unwrap(), vec![]);
    }

    #[test]
    fn spec_errors() {
        let e = parse_random_spec("[10]x32").unwrap_err();
        assert_eq!(e.message, "expected a primitive type such as `f32`, found `x32`");
        assert_eq!(e.span, Span::new(4, 7));
        assert_eq!(
            parse_random_spec("[n]f32").unwrap_err().message,
            "expected an array size such as `[100]`"
        );
        assert_eq!(parse_random_spec("[10 f32").unwrap_err().message, "expected `]`");
        assert_eq!(parse_random_spec("[1,2]").unwrap_err().message, "expected `]`");
        assert!(parse_random_spec("foo")
            .unwrap_err()
            .message
            .starts_with("expected a type such as"));
        assert!(parse_random_spec("[10]")
            .unwrap_err()
            .message
            .starts_with("expected a primitive type"));
    }

    #[test]
    fn generation_is_seeded_and_in_range() {
        let spec = parse_random_spec(
            "[1000]f32 [1000]f16 [1000]f64 [10][100]u8 [1000]i64 [1000]bool 7i32",
        )
        .unwrap();
        let a = generate(&spec, &mut Rng::for_case(0, "a.fut", 3, "main")).unwrap();
        let b = generate(&spec, &mut Rng::for_case(0, "a.fut", 3, "main")).unwrap();
        let c = generate(&spec, &mut Rng::for_case(0, "a.fut", 4, "main")).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a[3].type_string(), "[10][100]u8");
        assert_eq!(a[6], Value::Prim(PrimValue::I32(7)));
        for v in &a {
            for p in v.elems() {
                match *p {
                    PrimValue::Bool(_) => {}
                    p if p.as_i128().is_some() => assert!((0..100).contains(&p.as_i128().unwrap())),
                    p => {
                        let x = p.as_f64().unwrap();
                        assert!((0.0..1.0).contains(&x), "{p:?}");
                    }
                }
            }
        }
        let bools = a[5].elems().iter().filter(|p| **p == PrimValue::Bool(true)).count();
        assert!((400..600).contains(&bools));
    }

    #[test]
    fn oversized_inputs_are_errors() {
        let spec = parse_random_spec("[100000][100000]f32").unwrap();
        assert!(generate(&spec, &mut Rng::new(1)).unwrap_err().contains("too large"));
        let spec = parse_random_spec("[99999999999][99999999999][99999999999]f32").unwrap();
        assert!(generate(&spec, &mut Rng::new(1)).unwrap_err().contains("too large"));
    }
}
