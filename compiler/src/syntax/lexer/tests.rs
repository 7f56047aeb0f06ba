use super::*;
use crate::prim::{FloatType as F, IntType as I};

fn toks(src: &str) -> Vec<Tok> {
    let (ts, ds) = lex(src, 0);
    assert!(ds.is_empty(), "{src}: {ds:?}");
    ts.into_iter().map(|t| t.tok).filter(|t| *t != Tok::Eof).collect()
}

fn one(src: &str) -> Tok {
    let ts = toks(src);
    assert_eq!(ts.len(), 1, "{src}: {ts:?}");
    ts.into_iter().next().unwrap()
}

fn errors(src: &str) -> Vec<String> {
    lex(src, 0).1.into_iter().map(|d| d.message).collect()
}

fn int(value: i128, suffix: Option<I>) -> Tok {
    Tok::Int { value, suffix, decimal: true }
}

fn op(s: &str) -> Tok {
    Tok::Op(s.into())
}

fn id(s: &str) -> Tok {
    Tok::Ident(s.into())
}

#[test]
fn integer_literals() {
    assert_eq!(one("42"), int(42, None));
    assert_eq!(one("1_000_000"), int(1_000_000, None));
    assert_eq!(one("0xff"), Tok::Int { value: 255, suffix: None, decimal: false });
    assert_eq!(one("0XFF_FF"), Tok::Int { value: 0xffff, suffix: None, decimal: false });
    assert_eq!(one("0b1010"), Tok::Int { value: 10, suffix: None, decimal: false });
    assert_eq!(one("0xffu8"), Tok::Int { value: 255, suffix: Some(I::U8), decimal: false });
    assert_eq!(one("18446744073709551615u64"), int(u64::MAX as i128, Some(I::U64)));
    assert_eq!(one("0x1f32"), Tok::Int { value: 0x1f32, suffix: None, decimal: false });
    for t in I::ALL {
        assert_eq!(one(&format!("7{}", t.name())), int(7, Some(t)));
    }
}

#[test]
fn float_literals() {
    assert_eq!(one("1.5"), Tok::Float(1.5, None));
    assert_eq!(one("1e-3"), Tok::Float(1e-3, None));
    assert_eq!(one("1E+3"), Tok::Float(1e3, None));
    assert_eq!(one("2.5e10f32"), Tok::Float(2.5e10, Some(F::F32)));
    assert_eq!(one("1_000.000_1"), Tok::Float(1000.0001, None));
    assert_eq!(one("3f32"), Tok::Float(3.0, Some(F::F32)));
    assert_eq!(one("3f16"), Tok::Float(3.0, Some(F::F16)));
    assert_eq!(one("0.5f64"), Tok::Float(0.5, Some(F::F64)));
}

#[test]
fn hexadecimal_float_literals() {
    assert_eq!(one("0xf.fp1"), Tok::Float(31.875, None));
    assert_eq!(one("0x11.ffp0f64"), Tok::Float(17.99609375, Some(F::F64)));
    assert_eq!(one("0xf.fp-2f32"), Tok::Float(3.984375, Some(F::F32)));
    assert_eq!(one("0x0.f0p0f32"), Tok::Float(0.9375, Some(F::F32)));
    assert_eq!(one("0x1P+4"), Tok::Float(16.0, None));
    assert_eq!(one("0x1_0.8p0"), Tok::Float(16.5, None));
    assert_eq!(one("0x1p-1074"), Tok::Float(f64::from_bits(1), None));
    assert_eq!(one("0x1.fffffffffffffp1023"), Tok::Float(f64::MAX, None));
    // Without the exponent a hexadecimal literal is an integer, and a dot after it a projection.
    assert_eq!(
        toks("0xf.f"),
        [Tok::Int { value: 15, suffix: None, decimal: false }, Tok::Dot, id("f")]
    );
    assert_eq!(errors("0x1p2000"), ["literal `0x1p2000` is out of range for `f64`"]);
    assert_eq!(errors("0x1p200f32"), ["literal `0x1p200f32` is out of range for `f32`"]);
}

#[test]
fn dots_after_numbers() {
    // `1..2` is a range, `x.0.1` two projections, and `1.` not a float.
    assert_eq!(toks("1..2"), [int(1, None), Tok::DotDot, int(2, None)]);
    assert_eq!(toks("1...2"), [int(1, None), Tok::DotDotDot, int(2, None)]);
    assert_eq!(toks("x.0.1"), [id("x"), Tok::Dot, int(0, None), Tok::Dot, int(1, None)]);
    assert_eq!(toks("0..<n"), [int(0, None), Tok::DotDotLt, id("n")]);
    assert_eq!(toks("1..2.5"), [int(1, None), Tok::DotDot, Tok::Float(2.5, None)]);
    assert_eq!(toks("n..>0"), [id("n"), Tok::DotDotGt, int(0, None)]);
}

#[test]
fn literal_errors() {
    assert_eq!(errors("0x"), ["malformed number `0x`"]);
    assert_eq!(errors("0b102"), ["malformed number `0b102`"]);
    assert_eq!(errors("3i7"), ["malformed number `3i7`: unknown suffix `i7`"]);
    assert_eq!(errors("3q"), ["malformed number `3q`: unknown suffix `q`"]);
    assert_eq!(errors("1e"), ["malformed number `1e`: unknown suffix `e`"]);
    assert_eq!(
        errors("1.5i32"),
        ["malformed number `1.5i32`: a float literal cannot have an integer suffix"]
    );
    assert_eq!(errors("0x1fu8"), Vec::<String>::new());
    assert_eq!(errors("0b1f32"), ["malformed number `0b1f32`: binary literals are integers"]);
    assert_eq!(errors("256u8"), ["literal `256u8` is out of range for `u8`"]);
    assert_eq!(errors("129i8"), ["literal `129i8` is out of range for `i8`"]);
    assert_eq!(errors("0x100i8"), ["literal `0x100i8` is out of range for `i8`"]);
    assert_eq!(
        errors("18446744073709551616"),
        ["integer literal `18446744073709551616` is too large for any integer type"]
    );
    assert_eq!(errors("1e40f32"), ["literal `1e40f32` is out of range for `f32`"]);
    assert_eq!(errors("70000f16"), ["literal `70000f16` is out of range for `f16`"]);
    assert_eq!(errors("1e400"), ["literal `1e400` is out of range for `f64`"]);
    // `128i8` is in range for the lexer: `-128i8` is legal. The parser checks the sign.
    assert!(errors("128i8").is_empty());
    assert!(errors("0xffi8").is_empty());
}

#[test]
fn errors_do_not_stop_the_lexer() {
    let (ts, ds) = lex("a $ 0x + 3q @ b", 0);
    assert_eq!(ds.len(), 4, "{ds:?}");
    assert_eq!(ds[0].message, "unexpected character `$`");
    assert_eq!(ds[0].span, Span::new(2, 3));
    assert_eq!(ds[3].message, "unexpected character `@`");
    let kinds: Vec<Tok> = ts.into_iter().map(|t| t.tok).collect();
    assert_eq!(kinds.first(), Some(&id("a")));
    assert_eq!(kinds[kinds.len() - 2], id("b"));
    assert_eq!(errors("λ"), ["unexpected character `λ`"]);
    assert_eq!(errors("\u{0}"), ["unexpected character '\\0'"]);
}

#[test]
fn identifiers_and_keywords() {
    assert_eq!(toks("x' x'' _y y_1 a'b"), [id("x'"), id("x''"), id("_y"), id("y_1"), id("a'b")]);
    assert_eq!(toks("_ __x"), [Tok::Underscore, Tok::Underscore, id("_x")]);
    for (kw, k) in Kw::ALL {
        assert_eq!(one(kw), Tok::Kw(k));
        assert!(is_keyword(kw));
    }
    assert_eq!(one("definitely"), id("definitely"));
}

#[test]
fn qualified_numeric_names() {
    assert_eq!(one("f32.sqrt"), Tok::QualIdent("f32.sqrt".into()));
    assert_eq!(one("i64.max"), Tok::QualIdent("i64.max".into()));
    assert_eq!(one("bool.i32"), Tok::QualIdent("bool.i32".into()));
    // Field projections on anything else.
    assert_eq!(toks("r.sqrt"), [id("r"), Tok::Dot, id("sqrt")]);
    assert_eq!(toks("f32 . sqrt"), [id("f32"), Tok::Dot, id("sqrt")]);
    assert_eq!(toks("x.f32.y"), [id("x"), Tok::Dot, id("f32"), Tok::Dot, id("y")]);
}

#[test]
fn operators() {
    for o in [
        "+", "-", "*", "/", "%", "//", "%%", "**", "==", "!=", "<", "<=", ">", ">=", "&&", "||",
        "&", "|", "^", "<<", ">>", ">>>", "!", "++", "|>", "<|", ">->", "<-<",
    ] {
        assert_eq!(one(o), op(o), "{o}");
    }
    assert_eq!(toks("a+b"), [id("a"), op("+"), id("b")]);
    // Maximal munch, as in Futhark.
    assert_eq!(toks("a+-b"), [id("a"), op("+-"), id("b")]);
    assert_eq!(
        toks("= : :> -> \\ , ( ) [ ] { } . _ ~ ?"),
        [
            Tok::Equals,
            Tok::Colon,
            Tok::ColonGt,
            Tok::Arrow,
            Tok::Backslash,
            Tok::Comma,
            Tok::LParen,
            Tok::RParen,
            Tok::LBracket,
            Tok::RBracket,
            Tok::LBrace,
            Tok::RBrace,
            Tok::Dot,
            Tok::Underscore,
            Tok::Tilde,
            Tok::Question,
        ]
    );
    assert_eq!(
        toks("'a '^b '~c"),
        [Tok::Apostrophe, id("a"), Tok::ApostropheHat, id("b"), Tok::ApostropheTilde, id("c")]
    );
}

#[test]
fn backticks_and_constructors() {
    assert_eq!(one("`max`"), Tok::Backticked("max".into()));
    assert_eq!(one("`f32.max`"), Tok::Backticked("f32.max".into()));
    assert_eq!(one("#some"), Tok::Constructor("some".into()));
    assert_eq!(errors("`1`"), ["expected a name between backticks, as in `` `f` ``"]);
    assert_eq!(errors("`f"), ["expected a name between backticks, as in `` `f` ``"]);
}

#[test]
fn index_brackets_follow_immediately() {
    assert_eq!(toks("a[i]"), [id("a"), Tok::IndexBracket, id("i"), Tok::RBracket]);
    assert_eq!(toks("a [i]"), [id("a"), Tok::LBracket, id("i"), Tok::RBracket]);
    assert_eq!(toks("f(x)[0]")[4], Tok::IndexBracket);
    assert_eq!(toks("[n][m]")[3], Tok::IndexBracket);
    assert_eq!(toks("x'[0]")[1], Tok::IndexBracket);
    assert_eq!(toks("{}[0]")[2], Tok::LBracket);
    assert_eq!(toks("[[1]]")[1], Tok::LBracket);
}

#[test]
fn comments_and_docs() {
    let (ts, _) = lex("-- hello\n--  world\n--\ndef x = 1 -- trailing\ndef y = 2", 0);
    assert_eq!(ts[0].tok, Tok::Kw(Kw::Def));
    assert_eq!(ts[0].doc.as_deref(), Some("hello\n world\n"));
    assert!(ts[0].col1);
    assert!(ts.iter().skip(1).all(|t| t.doc.is_none()));
    // A blank line separates a comment from the declaration.
    let (ts, _) = lex("-- far\n\ndef x = 1", 0);
    assert_eq!(ts[0].doc, None);
    // `--` always starts a comment, even after other operator characters at a token start.
    assert_eq!(toks("a --> b"), [id("a")]);
    assert_eq!(toks("a - -b"), [id("a"), op("-"), op("-"), id("b")]);
}

#[test]
fn columns_and_spans_with_a_base() {
    let (ts, _) = lex("def x =\n  1\ndef", 100);
    assert!(ts[0].col1 && !ts[1].col1 && !ts[3].col1 && ts[4].col1);
    assert_eq!(ts[1].span, Span::new(104, 105));
    assert_eq!(ts.last().map(|t| t.span), Some(Span::new(115, 115)));
}

#[test]
fn character_and_string_literals() {
    // A character is an integer literal of its code point.
    assert_eq!(one("'c'"), int(99, None));
    assert_eq!(one("'\\n'"), int(10, None));
    assert_eq!(one("'\\''"), int(39, None));
    assert_eq!(one("'λ'"), int(0x3bb, None));
    assert_eq!(one("'\\x41'"), int(65, None));
    assert_eq!(one("'\\u{1F600}'"), int(0x1f600, None));
    // A type parameter is not one.
    assert_eq!(toks("'a 'b"), [Tok::Apostrophe, id("a"), Tok::Apostrophe, id("b")]);
    // A string is its UTF-8 bytes.
    assert_eq!(one("\"aλ\\t'\\\"\""), Tok::Str(vec![b'a', 0xce, 0xbb, b'\t', b'\'', b'"']));
    assert_eq!(one("\"\""), Tok::Str(Vec::new()));
    assert_eq!(errors("\"str"), ["unterminated string literal"]);
    assert_eq!(errors("\"a\nb\""), ["unterminated string literal", "unterminated string literal"]);
    assert_eq!(
        errors("\"\\q\""),
        ["unknown escape `\\q` (known: \\n \\t \\r \\0 \\\\ \\' \\\" \\xHH \\u{H})"]
    );
    assert_eq!(errors("'\\xZZ'"), ["invalid escape `\\xZZ`"]);
}

#[test]
fn numeric_module_operators_are_one_token() {
    assert_eq!(toks("f32.+ i32.<= u8.>>>"), vec![op("f32.+"), op("i32.<="), op("u8.>>>")]);
    assert_eq!(toks("r.x+1").len(), 5);
}

#[test]
fn attributes_are_dropped() {
    assert_eq!(toks("#[inline] x"), toks("x"));
    assert_eq!(toks("f (#[incremental_flattening(only_inner)] y) #[unsafe]"), toks("f (y)"));
    assert_eq!(
        errors("#[unsafe x"),
        ["unterminated attribute: expected `]` before the end of the line"]
    );
}
