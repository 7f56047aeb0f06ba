//! Futhark's textual value format: reading values (`parse_values`) and printing them
//! (`format_value`) exactly as `futhark run` does.
//!
//! Reading follows Futhark's data format: every primitive type with its suffix (`1i8`, `2u64`,
//! `3.5f32`, `1f64`), unsuffixed literals (integers are `i32`, decimals `f64`), hexadecimal and
//! binary integers (`-0x1F`, `0b101`), underscores in numbers (`1_000`), `f32.inf`, `-f32.inf`,
//! `f32.nan`, `true`/`false`, string literals (arrays of `u8`), regular nested arrays and
//! `empty([0][3]f32)`. Values are separated by whitespace; `--` starts a comment.
//!
//! An array takes its element type from its first element that has one (a suffixed number, a
//! boolean, a string or an `empty`); unsuffixed numbers adopt it, so `[1f32, 2, 3]` is an `f32`
//! array (Futhark's documented rule: only the first element needs a suffix). Without any typed
//! element, integers are `i32` and an array with a decimal literal is `f64`.
//!
//! Integer range: a decimal literal must fit its type; a hexadecimal or binary literal may use the
//! type's whole bit width and is read as a bit pattern (`0xFFi8` is `-1i8`).

use std::fmt::Write as _;

use crate::diag::{Diagnostic, Phase, Span};
use crate::prim::{f16, FloatType, IntType, PrimType, PrimValue};
use crate::value::{ArrayValue, Value};

/// Arrays nested deeper than this are rejected (the reader is recursive).
const MAX_DEPTH: usize = 500;

/// Parse every value in `src`. Spans of errors are byte offsets into `src`.
pub fn parse_values(src: &str) -> Result<Vec<Value>, Diagnostic> {
    let mut p = Reader { src, bytes: src.as_bytes(), pos: 0 };
    let mut out = Vec::new();
    p.skip_ws();
    while p.pos < p.bytes.len() {
        out.push(p.value()?);
        p.skip_ws();
    }
    Ok(out)
}

/// Print a value as `futhark run` does: suffixes always, `[1i32, 2i32]`, rows of arrays of rank
/// two or more on separate lines (aligned one column in), `empty([0][3]f32)` for empty arrays.
pub fn format_value(v: &Value) -> String {
    format_with(v, true)
}

/// As [`format_value`], but on one line (for messages and diffs).
pub fn format_value_line(v: &Value) -> String {
    format_with(v, false)
}

/// One primitive value with its suffix (`1i32`, `2.5f32`, `true`, `-f64.inf`).
pub fn format_prim(p: PrimValue) -> String {
    let mut s = String::new();
    push_prim(&mut s, p);
    s
}

/// The text of a primitive type followed by dimensions, as in `[2][3]f32` (`shape` outermost first).
pub fn format_type(shape: &[i64], elem: PrimType) -> String {
    let mut s: String = shape.iter().map(|d| format!("[{d}]")).collect();
    s.push_str(elem.name());
    s
}

fn format_with(v: &Value, multiline: bool) -> String {
    match v {
        Value::Prim(p) => format_prim(*p),
        Value::Array(a) => {
            if a.shape.contains(&0) || a.shape.is_empty() || a.data.is_empty() {
                // A rank-0 "array" cannot be built by the reader; print it as its only element.
                if let (true, Some(p)) = (a.shape.is_empty(), a.data.first()) {
                    return format_prim(*p);
                }
                return format!("empty({})", format_type(&a.shape, a.elem));
            }
            let mut s = String::new();
            push_rows(&mut s, &a.shape, &a.data, 0, multiline);
            s
        }
    }
}

fn push_rows(s: &mut String, shape: &[i64], data: &[PrimValue], indent: usize, multiline: bool) {
    let Some((&n, inner)) = shape.split_first() else {
        if let Some(p) = data.first() {
            push_prim(s, *p);
        }
        return;
    };
    let row = inner.iter().fold(1usize, |a, &d| a.saturating_mul(d.max(0) as usize));
    s.push('[');
    // Never print more rows than the data holds, even for a malformed value.
    let rows = (n.max(0) as usize).min(data.len() / row.max(1));
    for i in 0..rows {
        if i > 0 {
            if inner.is_empty() || !multiline {
                s.push_str(", ");
            } else {
                s.push_str(",\n");
                s.extend(std::iter::repeat_n(' ', indent + 1));
            }
        }
        let chunk = data.get(i * row..(i + 1) * row).unwrap_or(&[]);
        push_rows(s, inner, chunk, indent + 1, multiline);
    }
    s.push(']');
}

fn push_prim(s: &mut String, p: PrimValue) {
    let _ = match p {
        PrimValue::Bool(b) => write!(s, "{b}"),
        PrimValue::I8(v) => write!(s, "{v}i8"),
        PrimValue::I16(v) => write!(s, "{v}i16"),
        PrimValue::I32(v) => write!(s, "{v}i32"),
        PrimValue::I64(v) => write!(s, "{v}i64"),
        PrimValue::U8(v) => write!(s, "{v}u8"),
        PrimValue::U16(v) => write!(s, "{v}u16"),
        PrimValue::U32(v) => write!(s, "{v}u32"),
        PrimValue::U64(v) => write!(s, "{v}u64"),
        // Futhark shows a half through its `Float` value, so its digits are those of the f32.
        PrimValue::F16(v) => push_float(s, v.to_f32() as f64, format!("{:e}", v.to_f32()), "f16"),
        PrimValue::F32(v) => push_float(s, v as f64, format!("{v:e}"), "f32"),
        PrimValue::F64(v) => push_float(s, v, format!("{v:e}"), "f64"),
    };
}

/// Haskell's `show` for floating point (what Futhark prints): the shortest digits that read back
/// to the same value, in positional notation for 0.1 <= |x| < 10^7 and scientific otherwise
/// (`0.1`, `1234567.0`, `1.0e-2`, `1.2345678e7`), then the type suffix.
/// `sci` is Rust's `{:e}` rendering of the value, which has exactly those shortest digits.
fn push_float(s: &mut String, x: f64, sci: String, suffix: &str) -> std::fmt::Result {
    if x.is_nan() {
        return write!(s, "{suffix}.nan");
    }
    if x.is_infinite() {
        let sign = if x < 0.0 { "-" } else { "" };
        return write!(s, "{sign}{suffix}.inf");
    }
    if x.is_sign_negative() {
        s.push('-');
    }
    let sci = sci.trim_start_matches('-');
    let (mant, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let exp: i64 = exp.parse().unwrap_or(0);
    if digits.bytes().all(|d| d == b'0') {
        return write!(s, "0.0{suffix}");
    }
    // Haskell's exponent `e` has the value as 0.d1d2... * 10^e.
    let e = exp + 1;
    if !(0..=7).contains(&e) {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        return write!(s, "{first}.{rest}e{}{suffix}", e - 1);
    }
    if e == 0 {
        return write!(s, "0.{digits}{suffix}");
    }
    let e = e as usize;
    if digits.len() <= e {
        let zeros = "0".repeat(e - digits.len());
        write!(s, "{digits}{zeros}.0{suffix}")
    } else {
        let (int, frac) = digits.split_at(e);
        write!(s, "{int}.{frac}{suffix}")
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

#[derive(Clone, Copy, Debug)]
enum LitKind {
    /// An integer literal: its mathematical value, and whether it was hexadecimal or binary.
    Int {
        value: i128,
        bits: bool,
    },
    /// A decimal literal; its text (the span, minus underscores) is parsed once the type is known.
    Dec,
    Bool(bool),
    Inf {
        neg: bool,
    },
    NaN,
    Byte(u8),
}

#[derive(Clone, Copy, Debug)]
struct Lit {
    kind: LitKind,
    /// The explicit type: a suffix, or the type a literal form implies (`true`, `f32.inf`, bytes).
    ty: Option<PrimType>,
    /// The whole literal, suffix included.
    span: Span,
    /// The number without its suffix (what a decimal's value is read from).
    num: Span,
}

/// A value being read: its scalars flat in row-major order, and the types that were written.
struct Raw {
    lits: Vec<Lit>,
    /// `empty(...)` element types, checked against the array's element type.
    empties: Vec<(PrimType, Span)>,
}

struct Reader<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

fn value_err(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Phase::Value, span, msg)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.pos + k).copied()
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or("")
    }

    fn span_from(&self, start: usize) -> Span {
        Span::new(start, self.pos)
    }

    fn skip_ws(&mut self) {
        loop {
            while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                self.pos += 1;
            }
            if self.rest().starts_with("--") {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.pos += 1;
                }
            } else {
                return;
            }
        }
    }

    /// A description of what is at the current position, for `found ...`.
    fn found(&self) -> (Span, String) {
        match self.rest().chars().next() {
            None => (Span::new(self.pos, self.pos), "end of input".to_string()),
            Some(c) => {
                let len = if c.is_ascii_alphanumeric() {
                    self.bytes[self.pos..].iter().take_while(|&&b| is_ident(b)).count()
                } else {
                    c.len_utf8()
                };
                let text = self.src.get(self.pos..self.pos + len).unwrap_or("");
                (Span::new(self.pos, self.pos + len), format!("`{text}`"))
            }
        }
    }

    fn expected(&self, what: &str) -> Diagnostic {
        let (span, found) = self.found();
        value_err(span, format!("expected {what}, found {found}"))
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Is the keyword `kw` here, not followed by more of an identifier?
    fn at_keyword(&self, kw: &str) -> bool {
        self.rest().starts_with(kw) && !self.peek_at(kw.len()).is_some_and(is_ident)
    }

    fn value(&mut self) -> Result<Value, Diagnostic> {
        let start = self.pos;
        let mut raw = Raw { lits: Vec::new(), empties: Vec::new() };
        let shape = self.element(&mut raw, 0)?;
        let span = self.span_from(start);
        build(self.src, raw, shape, span)
    }

    /// Read one element (scalar, array, string or `empty`), pushing its scalars; returns its shape.
    fn element(&mut self, raw: &mut Raw, depth: usize) -> Result<Vec<i64>, Diagnostic> {
        match self.peek() {
            Some(b'[') => self.array(raw, depth),
            Some(b'"') => self.string(raw),
            Some(_) if self.at_keyword("empty") => self.empty(raw),
            _ => {
                let lit = self.scalar()?;
                raw.lits.push(lit);
                Ok(Vec::new())
            }
        }
    }

    fn array(&mut self, raw: &mut Raw, depth: usize) -> Result<Vec<i64>, Diagnostic> {
        let open = self.pos;
        if depth >= MAX_DEPTH {
            return Err(value_err(
                Span::new(open, open + 1),
                format!("array nesting too deep (more than {MAX_DEPTH} levels)"),
            ));
        }
        self.pos += 1;
        self.skip_ws();
        let mut first: Option<(Vec<i64>, Span)> = None;
        let mut n: i64 = 0;
        loop {
            if self.eat("]") {
                break;
            }
            let start = self.pos;
            let shape = self.element(raw, depth + 1)?;
            let span = self.span_from(start);
            match &first {
                None => first = Some((shape, span)),
                Some((s0, span0)) if *s0 != shape => {
                    return Err(irregular(s0, *span0, &shape, span))
                }
                Some(_) => {}
            }
            n += 1;
            self.skip_ws();
            if self.eat(",") {
                self.skip_ws();
            } else if self.eat("]") {
                break;
            } else {
                return Err(self.expected("`,` or `]`"));
            }
        }
        match first {
            None => Err(value_err(
                self.span_from(open),
                "empty array literal: its type is unknown; write `empty([0]t)` with an element type",
            )),
            Some((inner, _)) => {
                let mut shape = vec![n];
                shape.extend(inner);
                Ok(shape)
            }
        }
    }

    fn string(&mut self, raw: &mut Raw) -> Result<Vec<i64>, Diagnostic> {
        let open = self.pos;
        self.pos += 1;
        let mut n = 0i64;
        loop {
            let start = self.pos;
            let Some(c) = self.rest().chars().next() else {
                return Err(value_err(Span::new(open, self.pos), "unterminated string literal"));
            };
            self.pos += c.len_utf8();
            let mut buf = [0u8; 4];
            let bytes: &[u8] = match c {
                '"' => break,
                '\\' => {
                    let Some(e) = self.peek() else {
                        return Err(value_err(
                            Span::new(open, self.pos),
                            "unterminated string literal",
                        ));
                    };
                    self.pos += 1;
                    let b = match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'0' => 0,
                        b'\\' => b'\\',
                        b'"' => b'"',
                        b'\'' => b'\'',
                        _ => {
                            return Err(value_err(
                                self.span_from(start),
                                "unknown escape in string literal (known: \\n \\t \\r \\0 \\\\ \\\" \\')",
                            ))
                        }
                    };
                    buf[0] = b;
                    &buf[..1]
                }
                c => c.encode_utf8(&mut buf).as_bytes(),
            };
            for &b in bytes {
                let span = self.span_from(start);
                raw.lits.push(Lit {
                    kind: LitKind::Byte(b),
                    ty: Some(PrimType::Int(IntType::U8)),
                    span,
                    num: span,
                });
                n += 1;
            }
        }
        if n == 0 {
            raw.empties.push((PrimType::Int(IntType::U8), self.span_from(open)));
        }
        Ok(vec![n])
    }

    fn empty(&mut self, raw: &mut Raw) -> Result<Vec<i64>, Diagnostic> {
        let start = self.pos;
        self.pos += "empty".len();
        self.skip_ws();
        if !self.eat("(") {
            return Err(self.expected("`(` after `empty`"));
        }
        self.skip_ws();
        let mut shape = Vec::new();
        while self.eat("[") {
            self.skip_ws();
            let dstart = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'_') {
                self.pos += 1;
            }
            let text: String = self.src[dstart..self.pos].chars().filter(|&c| c != '_').collect();
            if text.is_empty() {
                return Err(self.expected("a dimension (a non-negative integer)"));
            }
            let d: i64 = text.parse().map_err(|_| {
                value_err(self.span_from(dstart), format!("dimension `{text}` is too large"))
            })?;
            shape.push(d);
            self.skip_ws();
            if !self.eat("]") {
                return Err(self.expected("`]`"));
            }
            self.skip_ws();
        }
        let tstart = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            self.pos += 1;
        }
        let tname = &self.src[tstart..self.pos];
        let Some(elem) = PrimType::from_name(tname) else {
            self.pos = tstart;
            return Err(self.expected("a primitive type such as `i32` or `f32`"));
        };
        self.skip_ws();
        if !self.eat(")") {
            return Err(self.expected("`)`"));
        }
        let span = self.span_from(start);
        if shape.is_empty() {
            return Err(value_err(span, "`empty` needs the array's shape, as in `empty([0]i32)`"));
        }
        if !shape.contains(&0) {
            return Err(value_err(
                span,
                format!(
                    "`empty` array of shape {} has no zero dimension",
                    format_type(&shape, elem).trim_end_matches(elem.name())
                ),
            ));
        }
        raw.empties.push((elem, span));
        Ok(shape)
    }

    fn scalar(&mut self) -> Result<Lit, Diagnostic> {
        let start = self.pos;
        for (kw, b) in [("true", true), ("false", false)] {
            if self.at_keyword(kw) {
                self.pos += kw.len();
                let span = self.span_from(start);
                return Ok(Lit {
                    kind: LitKind::Bool(b),
                    ty: Some(PrimType::Bool),
                    span,
                    num: span,
                });
            }
        }
        let neg = self.peek() == Some(b'-');
        let after_sign = self.pos + usize::from(neg);
        for ft in FloatType::ALL {
            let name = ft.name();
            let rest = self.src.get(after_sign..).unwrap_or("");
            for (field, kind) in [("inf", LitKind::Inf { neg }), ("nan", LitKind::NaN)] {
                let kw = format!("{name}.{field}");
                if rest.starts_with(&kw)
                    && !rest.as_bytes().get(kw.len()).is_some_and(|&c| is_ident(c))
                {
                    self.pos = after_sign + kw.len();
                    let span = self.span_from(start);
                    if neg && matches!(kind, LitKind::NaN) {
                        return Err(value_err(span, format!("unexpected `-{kw}`: write `{kw}`")));
                    }
                    return Ok(Lit { kind, ty: Some(PrimType::Float(ft)), span, num: span });
                }
            }
        }
        if !self.bytes.get(after_sign).is_some_and(|c| c.is_ascii_digit()) {
            return Err(self.expected("a value"));
        }
        self.pos = after_sign;
        let lower = self.rest().get(..2).map(|s| s.to_ascii_lowercase());
        let radix = match lower.as_deref() {
            Some("0x") => 16,
            Some("0b") => 2,
            _ => 10,
        };
        let kind = if radix != 10 {
            self.pos += 2;
            let dstart = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit() || c == b'_') {
                self.pos += 1;
            }
            let digits: String = self.src[dstart..self.pos].chars().filter(|&c| c != '_').collect();
            let what = if radix == 16 { "hexadecimal" } else { "binary" };
            if digits.is_empty() {
                return Err(value_err(self.span_from(start), format!("expected {what} digits")));
            }
            let mag = u128::from_str_radix(&digits, radix)
                .map_err(|_| value_err(self.span_from(start), format!("invalid {what} literal")))?;
            let value = i128::try_from(mag)
                .map_err(|_| value_err(self.span_from(start), "integer literal is too large"))?;
            LitKind::Int { value: if neg { -value } else { value }, bits: true }
        } else {
            self.digits();
            let mut dec = false;
            if self.peek() == Some(b'.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
                self.digits();
                dec = true;
            }
            if matches!(self.peek(), Some(b'e' | b'E')) {
                let save = self.pos;
                self.pos += 1;
                if matches!(self.peek(), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.digits();
                    dec = true;
                } else {
                    self.pos = save;
                }
            }
            if dec {
                LitKind::Dec
            } else {
                let digits: String =
                    self.src[after_sign..self.pos].chars().filter(|&c| c != '_').collect();
                let mag: i128 = digits.parse().map_err(|_| {
                    value_err(self.span_from(start), "integer literal is too large")
                })?;
                LitKind::Int { value: if neg { -mag } else { mag }, bits: false }
            }
        };
        let num = self.span_from(start);
        // The suffix, if any, directly follows the number.
        let sstart = self.pos;
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        let suffix = &self.src[sstart..self.pos];
        let ty = if suffix.is_empty() {
            None
        } else {
            match PrimType::from_name(suffix) {
                Some(t) if t.is_numeric() => Some(t),
                _ => {
                    return Err(value_err(
                        self.span_from(sstart),
                        format!("unknown suffix `{suffix}` (expected a numeric type such as `i64` or `f32`)"),
                    ))
                }
            }
        };
        let span = self.span_from(start);
        if let (LitKind::Dec, Some(t @ PrimType::Int(_))) = (kind, ty) {
            return Err(value_err(span, format!("a decimal literal cannot have type `{t}`")));
        }
        Ok(Lit { kind, ty, span, num })
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'_') {
            self.pos += 1;
        }
    }
}

fn shape_text(s: &[i64]) -> String {
    s.iter().map(|d| format!("[{d}]")).collect()
}

fn irregular(s0: &[i64], span0: Span, s1: &[i64], span1: Span) -> Diagnostic {
    let msg = if s0.len() != s1.len() {
        format!("irregular array: elements of rank {} and {}", s0.len(), s1.len())
    } else if s0.len() == 1 {
        format!("irregular array: rows of lengths {} and {}", s0[0], s1[0])
    } else {
        format!("irregular array: rows of shapes {} and {}", shape_text(s0), shape_text(s1))
    };
    value_err(span1, msg)
        .with_label("this row differs from the first")
        .with_secondary(span0, "first row")
}

/// Decide the element type of a read value and convert its scalars.
fn build(src: &str, raw: Raw, shape: Vec<i64>, span: Span) -> Result<Value, Diagnostic> {
    let explicit = raw
        .lits
        .iter()
        .filter_map(|l| l.ty.map(|t| (t, l.span)))
        .chain(raw.empties.iter().copied())
        .min_by_key(|(_, s)| s.start);
    let elem = match explicit {
        Some((t, _)) => t,
        None if raw.lits.iter().any(|l| matches!(l.kind, LitKind::Dec)) => PrimType::F64,
        None => PrimType::I32,
    };
    for &(t, s) in &raw.empties {
        if t != elem {
            return Err(mismatch(elem, t.name(), s, explicit));
        }
    }
    let data =
        raw.lits.iter().map(|l| convert(src, l, elem, explicit)).collect::<Result<Vec<_>, _>>()?;
    if shape.is_empty() {
        match data.first() {
            Some(p) => Ok(Value::Prim(*p)),
            None => Err(value_err(span, "expected a value")),
        }
    } else {
        Ok(Value::Array(ArrayValue { elem, shape, data }))
    }
}

fn mismatch(
    elem: PrimType,
    found: &str,
    span: Span,
    first: Option<(PrimType, Span)>,
) -> Diagnostic {
    let d = value_err(span, format!("type mismatch: expected `{elem}`, found `{found}`"))
        .with_label("array elements must all have the same type");
    match first {
        Some((_, s)) if s != span => {
            d.with_secondary(s, format!("the array's type is `{elem}` from here"))
        }
        _ => d,
    }
}

fn convert(
    src: &str,
    l: &Lit,
    elem: PrimType,
    first: Option<(PrimType, Span)>,
) -> Result<PrimValue, Diagnostic> {
    if let Some(t) = l.ty {
        if t != elem {
            return Err(mismatch(elem, t.name(), l.span, first));
        }
    }
    let text = || -> String {
        src.get(l.num.range()).unwrap_or("").chars().filter(|&c| c != '_').collect()
    };
    match (l.kind, elem) {
        (LitKind::Bool(b), PrimType::Bool) => Ok(PrimValue::Bool(b)),
        (LitKind::Byte(b), PrimType::Int(IntType::U8)) => Ok(PrimValue::U8(b)),
        (LitKind::Inf { neg }, PrimType::Float(ft)) => {
            Ok(PrimValue::float(ft, if neg { f64::NEG_INFINITY } else { f64::INFINITY }))
        }
        (LitKind::NaN, PrimType::Float(ft)) => Ok(PrimValue::float(ft, f64::NAN)),
        (LitKind::Int { value, bits }, PrimType::Int(it)) => int_value(value, bits, it, l.span),
        (LitKind::Int { value, bits: true }, PrimType::Float(ft)) => {
            Ok(PrimValue::float(ft, value as f64))
        }
        (LitKind::Int { bits: false, .. } | LitKind::Dec, PrimType::Float(ft)) => {
            float_value(&text(), ft, l.span)
        }
        (LitKind::Dec, _) => Err(mismatch(elem, "f64", l.span, first).with_hint(format!(
            "`{}` is a decimal literal; it cannot be of type `{elem}`",
            text()
        ))),
        (LitKind::Int { .. }, _) => Err(mismatch(elem, "i32", l.span, first)),
        (LitKind::Bool(_), _) => Err(mismatch(elem, "bool", l.span, first)),
        (LitKind::Byte(_), _) => Err(mismatch(elem, "u8", l.span, first)),
        (LitKind::Inf { .. } | LitKind::NaN, _) => {
            Err(mismatch(elem, l.ty.map_or("f64", |t| t.name()), l.span, first))
        }
    }
}

fn int_value(value: i128, bits: bool, it: IntType, span: Span) -> Result<PrimValue, Diagnostic> {
    // A bit pattern, or a negative value of an unsigned type (`-1u8`, read as Futhark reads
    // it: two's complement), may use the type's whole width either way.
    let (lo, hi) = if bits || !it.signed() {
        (-(1i128 << (it.bits() - 1)), (1i128 << it.bits()) - 1)
    } else {
        (-(1i128 << (it.bits() - 1)), (1i128 << (it.bits() - 1)) - 1)
    };
    if value < lo || value > hi {
        let holds = if it.signed() || bits {
            format!("`{}` holds {lo} to {hi}", it.name())
        } else {
            format!("`{}` holds 0 to {hi}; a negative value down to {lo} is read as its two's complement", it.name())
        };
        return Err(value_err(
            span,
            format!("integer literal {value} is out of range for `{}`", it.name()),
        )
        .with_hint(holds));
    }
    Ok(PrimValue::int(it, value))
}

fn float_value(text: &str, ft: FloatType, span: Span) -> Result<PrimValue, Diagnostic> {
    // Rust's parsers round correctly from the decimal text; a half goes through f32, as in
    // Futhark (double rounding cannot move a value that was printed from a half).
    let bad = || value_err(span, format!("invalid number `{text}`"));
    Ok(match ft {
        FloatType::F16 => PrimValue::F16(f16::from_f32(text.parse::<f32>().map_err(|_| bad())?)),
        FloatType::F32 => PrimValue::F32(text.parse::<f32>().map_err(|_| bad())?),
        FloatType::F64 => PrimValue::F64(text.parse::<f64>().map_err(|_| bad())?),
    })
}

#[cfg(test)]
mod tests;
