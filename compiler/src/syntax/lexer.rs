//! The lexer: source text to tokens, following Futhark's lexical rules.
//!
//! Two details matter to the parser and are decided here, where whitespace is still visible:
//! a `[` that directly follows a name, a literal, `)` or `]` is an [`Tok::IndexBracket`] (so `a[i]`
//! indexes while `a [i]` applies `a` to an array literal), and a numeric-module member such as
//! `f32.sqrt` is one [`Tok::QualIdent`]. Errors (bad characters, malformed numbers, literals out of
//! range for their suffix) are diagnostics; the lexer skips the offending text and keeps going.

use crate::diag::{Diagnostic, Span};
use crate::prim::{FloatType, IntType};
use crate::syntax::ast::NUMERIC_MODULES;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kw {
    Def,
    Entry,
    Let,
    In,
    If,
    Then,
    Else,
    Loop,
    For,
    While,
    Do,
    With,
    Match,
    Case,
    Type,
    Val,
    Assert,
    True,
    False,
    // Futhark's module-language keywords: reserved, reported as unsupported.
    Module,
    Import,
    Open,
    Local,
    Include,
}

impl Kw {
    const ALL: [(&'static str, Kw); 24] = [
        ("def", Kw::Def),
        ("entry", Kw::Entry),
        ("let", Kw::Let),
        ("in", Kw::In),
        ("if", Kw::If),
        ("then", Kw::Then),
        ("else", Kw::Else),
        ("loop", Kw::Loop),
        ("for", Kw::For),
        ("while", Kw::While),
        ("do", Kw::Do),
        ("with", Kw::With),
        ("match", Kw::Match),
        ("case", Kw::Case),
        ("type", Kw::Type),
        ("val", Kw::Val),
        ("assert", Kw::Assert),
        ("true", Kw::True),
        ("false", Kw::False),
        ("module", Kw::Module),
        ("import", Kw::Import),
        ("open", Kw::Open),
        ("local", Kw::Local),
        ("include", Kw::Include),
    ];

    pub fn from_name(s: &str) -> Option<Kw> {
        Kw::ALL.iter().find(|(n, _)| *n == s).map(|&(_, k)| k)
    }

    pub fn as_str(self) -> &'static str {
        Kw::ALL.iter().find(|(_, k)| *k == self).map_or("?", |(n, _)| n)
    }
}

/// Whether a name is a keyword (and so cannot be a variable).
pub fn is_keyword(s: &str) -> bool {
    Kw::from_name(s).is_some()
}

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// A member of a numeric module, `f32.sqrt`, as one name.
    QualIdent(String),
    /// `#foo`, without the `#`.
    Constructor(String),
    /// `` `f` ``, without the backticks.
    Backticked(String),
    /// An integer literal: its value, suffix, and whether it was written in decimal (signed
    /// decimal literals may reach `2^(bits-1)` only when negated; see the parser).
    Int {
        value: i128,
        suffix: Option<IntType>,
        decimal: bool,
    },
    Float(f64, Option<FloatType>),
    /// A string literal's UTF-8 bytes.
    Str(Vec<u8>),
    /// A symbolic operator such as `+`, `|>`, `-` or `*` (also used for negation and uniqueness).
    Op(String),
    Kw(Kw),
    LParen,
    RParen,
    LBracket,
    /// A `[` written directly after a name, literal, `)` or `]`: an index or slice.
    IndexBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    ColonGt,
    Arrow,
    Backslash,
    Equals,
    Dot,
    DotDot,
    DotDotDot,
    DotDotLt,
    DotDotGt,
    Underscore,
    Apostrophe,
    ApostropheHat,
    ApostropheTilde,
    Tilde,
    Question,
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
    /// The token starts a line (column 1): declarations there are recovery points.
    pub col1: bool,
    /// The `--` comment lines directly above this token, if it is the first on its line.
    pub doc: Option<String>,
}

/// Characters that make up symbolic operators (`.` may continue but not start one).
pub(crate) fn is_op_char(c: u8) -> bool {
    matches!(c, b'+' | b'-' | b'*' | b'/' | b'%' | b'=' | b'!' | b'>' | b'<' | b'|' | b'&' | b'^')
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

fn is_constituent(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'\''
}

/// Tokenise `src`; spans are offset by `base`. The token list always ends with [`Tok::Eof`].
pub fn lex(src: &str, base: u32) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        pos: 0,
        base,
        line: 0,
        line_start: 0,
        toks: Vec::new(),
        diags: Vec::new(),
        comments: Vec::new(),
        comment_end_line: 0,
    };
    lx.run();
    (lx.toks, lx.diags)
}

struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    base: u32,
    line: usize,
    line_start: usize,
    toks: Vec<Token>,
    diags: Vec<Diagnostic>,
    /// The current block of whole-line comments, and the line of its last comment.
    comments: Vec<String>,
    comment_end_line: usize,
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.pos + k).copied().unwrap_or(0)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(start + self.base as usize, end + self.base as usize)
    }

    fn error(&mut self, start: usize, end: usize, msg: impl Into<String>) {
        let d = Diagnostic::parse(self.span(start, end), msg);
        self.diags.push(d);
    }

    fn push(&mut self, tok: Tok, start: usize) {
        let col1 = start == self.line_start;
        let first_on_line = self.src[self.line_start..start].trim().is_empty();
        let doc =
            if first_on_line && !self.comments.is_empty() && self.comment_end_line + 1 == self.line
            {
                Some(self.comments.join("\n"))
            } else {
                None
            };
        self.comments.clear();
        let span = self.span(start, self.pos);
        self.toks.push(Token { tok, span, col1, doc });
    }

    fn run(&mut self) {
        while self.pos < self.b.len() {
            let c = self.b[self.pos];
            let start = self.pos;
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'-' if self.peek(1) == b'-' => self.comment(),
                b'0'..=b'9' => self.number(),
                b'a'..=b'z' | b'A'..=b'Z' => self.ident(),
                b'_' => {
                    if self.peek(1).is_ascii_alphanumeric() {
                        self.ident();
                    } else {
                        self.pos += 1;
                        self.push(Tok::Underscore, start);
                    }
                }
                b'\'' => self.apostrophe(),
                b'`' => self.backticked(),
                b'#' => self.constructor(),
                b'"' => self.string(),
                b'.' => self.dots(),
                b':' => {
                    if self.peek(1) == b'>' {
                        self.pos += 2;
                        self.push(Tok::ColonGt, start);
                    } else {
                        self.pos += 1;
                        self.push(Tok::Colon, start);
                    }
                }
                b'[' => {
                    let prev = if start > 0 { self.b[start - 1] } else { b' ' };
                    self.pos += 1;
                    let tok = if is_constituent(prev) || prev == b')' || prev == b']' {
                        Tok::IndexBracket
                    } else {
                        Tok::LBracket
                    };
                    self.push(tok, start);
                }
                _ if is_op_char(c) => self.operator(),
                _ => {
                    let simple = match c {
                        b'(' => Some(Tok::LParen),
                        b')' => Some(Tok::RParen),
                        b']' => Some(Tok::RBracket),
                        b'{' => Some(Tok::LBrace),
                        b'}' => Some(Tok::RBrace),
                        b',' => Some(Tok::Comma),
                        b'\\' => Some(Tok::Backslash),
                        b'~' => Some(Tok::Tilde),
                        b'?' => Some(Tok::Question),
                        _ => None,
                    };
                    match simple {
                        Some(t) => {
                            self.pos += 1;
                            self.push(t, start);
                        }
                        None => self.bad_char(),
                    }
                }
            }
        }
        self.comments.clear();
        let end = self.b.len();
        self.toks.push(Token { tok: Tok::Eof, span: self.span(end, end), col1: false, doc: None });
    }

    fn bad_char(&mut self) {
        let start = self.pos;
        let ch = self.src[start..].chars().next().unwrap_or('\u{fffd}');
        self.pos += ch.len_utf8().max(1);
        let shown = if ch.is_control() { format!("{:?}", ch) } else { format!("`{ch}`") };
        self.error(start, self.pos, format!("unexpected character {shown}"));
    }

    fn comment(&mut self) {
        let start = self.pos;
        while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
            self.pos += 1;
        }
        let whole_line = self.src[self.line_start..start].trim().is_empty();
        if !whole_line {
            // A comment after code on the same line documents nothing.
            self.comments.clear();
            return;
        }
        if !self.comments.is_empty() && self.comment_end_line + 1 != self.line {
            self.comments.clear();
        }
        let text = &self.src[start + 2..self.pos];
        let text = text.strip_prefix(' ').unwrap_or(text).trim_end();
        self.comments.push(text.to_string());
        self.comment_end_line = self.line;
    }

    /// Whether the text at `start` follows a single `.` (a projection, not a range's `..`).
    fn after_projection_dot(&self, start: usize) -> bool {
        start > 0 && self.b[start - 1] == b'.' && (start < 2 || self.b[start - 2] != b'.')
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) {
        while self.pos < self.b.len() && f(self.b[self.pos]) {
            self.pos += 1;
        }
    }

    fn ident(&mut self) {
        let start = self.pos;
        self.pos += 1;
        self.take_while(is_constituent);
        let mut name = &self.src[start..self.pos];
        let after_dot = self.after_projection_dot(start);
        // `f32.sqrt`: one qualified name, only for the built-in numeric modules.
        if !after_dot
            && NUMERIC_MODULES.contains(&name)
            && self.peek(0) == b'.'
            && (is_ident_start(self.peek(1))
                || (self.peek(1) == b'_' && self.peek(2).is_ascii_alphanumeric()))
        {
            self.pos += 2;
            self.take_while(is_constituent);
            name = &self.src[start..self.pos];
            self.push(Tok::QualIdent(name.to_string()), start);
            return;
        }
        // `f32.+`: a numeric module's operator, one operator token (the parser reads it as `+`
        // on that type).
        if !after_dot
            && NUMERIC_MODULES.contains(&name)
            && self.peek(0) == b'.'
            && is_op_char(self.peek(1))
        {
            self.pos += 1;
            self.take_while(|c| is_op_char(c) || c == b'.');
            self.push(Tok::Op(self.src[start..self.pos].to_string()), start);
            return;
        }
        let tok = match Kw::from_name(name) {
            Some(k) => Tok::Kw(k),
            None => Tok::Ident(name.to_string()),
        };
        self.push(tok, start);
    }

    fn apostrophe(&mut self) {
        let start = self.pos;
        // `'a'`, `'\n'`, `'λ'`: a character literal, an integer literal of the code point.
        if let Some((c, len)) = self.char_literal(start + 1) {
            if self.b.get(start + 1 + len) == Some(&b'\'') {
                self.pos = start + len + 2;
                match c {
                    Ok(c) => self.push(
                        Tok::Int { value: i128::from(u32::from(c)), suffix: None, decimal: true },
                        start,
                    ),
                    Err(msg) => self.error(start, self.pos, msg),
                }
                return;
            }
        }
        let tok = match self.peek(1) {
            b'^' => Tok::ApostropheHat,
            b'~' => Tok::ApostropheTilde,
            _ => Tok::Apostrophe,
        };
        self.pos += if tok == Tok::Apostrophe { 1 } else { 2 };
        self.push(tok, start);
    }

    fn backticked(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let name_start = self.pos;
        self.take_while(|c| is_constituent(c) || c == b'.');
        let name = &self.src[name_start..self.pos];
        let valid = name.split('.').all(|part| {
            let b = part.as_bytes();
            !b.is_empty() && (is_ident_start(b[0]) || (b[0] == b'_' && b.len() > 1))
        });
        let closed = self.peek(0) == b'`';
        if closed {
            self.pos += 1;
        }
        if closed && valid {
            let name = name.to_string();
            self.push(Tok::Backticked(name), start);
        } else {
            self.error(start, self.pos, "expected a name between backticks, as in `` `f` ``");
        }
    }

    fn constructor(&mut self) {
        let start = self.pos;
        let c = self.peek(1);
        if is_ident_start(c) || (c == b'_' && self.peek(2).is_ascii_alphanumeric()) {
            self.pos += 1;
            let name_start = self.pos;
            self.take_while(is_constituent);
            let name = self.src[name_start..self.pos].to_string();
            self.push(Tok::Constructor(name), start);
        } else if c == b'[' {
            // An attribute (`#[unsafe]`, `#[incremental_flattening(only_inner)]`): advice to
            // Futhark's compiler that never changes what a correct program computes, so it is
            // read and dropped, like a comment.
            self.pos += 2;
            let mut depth = 1usize;
            while self.pos < self.b.len() && depth > 0 {
                match self.b[self.pos] {
                    b'[' | b'(' => depth += 1,
                    b']' | b')' => depth -= 1,
                    b'\n' => break,
                    _ => {}
                }
                self.pos += 1;
            }
            if depth > 0 {
                self.error(
                    start,
                    self.pos,
                    "unterminated attribute: expected `]` before the end of the line",
                );
            }
        } else {
            self.bad_char();
        }
    }

    /// The character (or escape) at byte `at` of a character or string literal, and its length
    /// in bytes; `None` at the end of input, a newline or a quote that ends the literal.
    fn char_literal(&self, at: usize) -> Option<(Result<char, String>, usize)> {
        let rest = self.src.get(at..)?;
        let c = rest.chars().next()?;
        match c {
            '\n' | '\'' => None,
            '\\' => {
                let e = rest[1..].chars().next()?;
                let simple = match e {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    '0' => Some('\0'),
                    '\\' => Some('\\'),
                    '\'' => Some('\''),
                    '"' => Some('"'),
                    _ => None,
                };
                if let Some(c) = simple {
                    return Some((Ok(c), 2));
                }
                // `\xHH` and `\u{H...}`.
                let hex =
                    |digits: &str| u32::from_str_radix(digits, 16).ok().and_then(char::from_u32);
                if e == 'x' {
                    let digits = rest.get(2..4)?;
                    return Some((
                        hex(digits).ok_or_else(|| format!("invalid escape `\\x{digits}`")),
                        4,
                    ));
                }
                if e == 'u' && rest[2..].starts_with('{') {
                    let close = rest.find('}')?;
                    let digits = &rest[3..close];
                    return Some((
                        hex(digits).ok_or_else(|| format!("invalid escape `\\u{{{digits}}}`")),
                        close + 1,
                    ));
                }
                let len = 1 + e.len_utf8();
                Some((Err(format!("unknown escape `\\{e}` (known: \\n \\t \\r \\0 \\\\ \\' \\\" \\xHH \\u{{H}})")), len))
            }
            c => Some((Ok(c), c.len_utf8())),
        }
    }

    /// `"text"`: the UTF-8 bytes of the text, as an array of `u8` (as in Futhark).
    fn string(&mut self) {
        let start = self.pos;
        let mut at = start + 1;
        let mut bytes = Vec::new();
        let mut bad = None;
        loop {
            match self.b.get(at) {
                Some(b'"') => break,
                None | Some(b'\n') => {
                    self.pos = at;
                    self.error(start, at, "unterminated string literal");
                    return;
                }
                _ => {}
            }
            match self.char_literal(at) {
                Some((c, len)) => {
                    match c {
                        Ok(c) => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                        Err(msg) => bad = bad.or(Some((at, at + len, msg))),
                    }
                    at += len;
                }
                // A `'` inside a string is itself.
                None => {
                    bytes.push(self.b[at]);
                    at += 1;
                }
            }
        }
        self.pos = at + 1;
        match bad {
            Some((s, e, msg)) => self.error(s, e, msg),
            None => self.push(Tok::Str(bytes), start),
        }
    }

    fn dots(&mut self) {
        let start = self.pos;
        let (tok, len) = match (self.peek(1), self.peek(2)) {
            (b'.', b'.') => (Tok::DotDotDot, 3),
            (b'.', b'<') => (Tok::DotDotLt, 3),
            (b'.', b'>') => (Tok::DotDotGt, 3),
            (b'.', _) => (Tok::DotDot, 2),
            _ => (Tok::Dot, 1),
        };
        self.pos += len;
        self.push(tok, start);
    }

    fn operator(&mut self) {
        let start = self.pos;
        self.pos += 1;
        self.take_while(|c| is_op_char(c) || c == b'.');
        let op = &self.src[start..self.pos];
        let tok = match op {
            "=" => Tok::Equals,
            "->" => Tok::Arrow,
            _ => Tok::Op(op.to_string()),
        };
        self.push(tok, start);
    }

    fn number(&mut self) {
        let start = self.pos;
        // After a `.` only a field number can follow (`x.0.1` is two projections).
        let after_dot = self.after_projection_dot(start);
        let radix = match (self.peek(0), self.peek(1)) {
            _ if after_dot => 10,
            (b'0', b'x' | b'X') => 16,
            (b'0', b'b' | b'B') => 2,
            _ => 10,
        };
        let mut is_float = false;
        if radix != 10 {
            self.pos += 2;
            let digits_start = self.pos;
            self.take_while(|c| {
                c.is_ascii_digit() || c == b'_' || (radix == 16 && c.is_ascii_hexdigit())
            });
            if self.pos == digits_start || self.b[digits_start] == b'_' {
                self.take_while(is_constituent);
                let text = self.src[start..self.pos].to_string();
                self.error(start, self.pos, format!("malformed number `{text}`"));
                self.push(Tok::Int { value: 0, suffix: None, decimal: false }, start);
                return;
            }
            if radix == 16 {
                is_float = self.hex_float_tail();
            }
        } else {
            self.take_while(|c| c.is_ascii_digit() || c == b'_');
            if !after_dot {
                if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
                    is_float = true;
                    self.pos += 1;
                    self.take_while(|c| c.is_ascii_digit() || c == b'_');
                }
                let exp_digits = match (self.peek(0), self.peek(1), self.peek(2)) {
                    (b'e' | b'E', b'+' | b'-', d) if d.is_ascii_digit() => Some(2),
                    (b'e' | b'E', d, _) if d.is_ascii_digit() => Some(1),
                    _ => None,
                };
                if let Some(skip) = exp_digits {
                    is_float = true;
                    self.pos += skip;
                    self.take_while(|c| c.is_ascii_digit());
                }
            }
        }
        let body_end = self.pos;
        if !after_dot {
            self.take_while(is_constituent);
        }
        let body = &self.src[start..body_end];
        let suffix = &self.src[body_end..self.pos];
        let text = &self.src[start..self.pos];
        match self.number_token(body, suffix, radix, is_float) {
            Ok(tok) => self.push(tok, start),
            Err(msg) => {
                let msg = msg.replace("{}", text);
                self.error(start, self.pos, msg);
                let tok = if is_float {
                    Tok::Float(0.0, None)
                } else {
                    Tok::Int { value: 0, suffix: None, decimal: radix == 10 }
                };
                self.push(tok, start);
            }
        }
    }

    /// After a hexadecimal literal's digits: takes a float's tail, an optional fraction `.h…`
    /// and the binary exponent `p±d…` that makes it a float (`0xf.fp1` is 31.875), and says
    /// whether there was one. Without the exponent nothing is taken.
    fn hex_float_tail(&mut self) -> bool {
        let save = self.pos;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_hexdigit() {
            self.pos += 1;
            self.take_while(|c| c.is_ascii_hexdigit() || c == b'_');
        }
        let sign = usize::from(matches!(self.peek(1), b'+' | b'-'));
        if matches!(self.peek(0), b'p' | b'P') && self.peek(1 + sign).is_ascii_digit() {
            self.pos += 1 + sign;
            self.take_while(|c| c.is_ascii_digit());
            return true;
        }
        self.pos = save;
        false
    }

    /// The token for a numeric literal, or an error message (with `{}` standing for its text).
    fn number_token(
        &self,
        body: &str,
        suffix: &str,
        radix: u32,
        is_float: bool,
    ) -> Result<Tok, String> {
        let int_suffix = IntType::ALL.into_iter().find(|t| t.name() == suffix);
        let float_suffix = FloatType::ALL.into_iter().find(|t| t.name() == suffix);
        if !suffix.is_empty() && int_suffix.is_none() && float_suffix.is_none() {
            return Err(format!("malformed number `{{}}`: unknown suffix `{suffix}`"));
        }
        if is_float || float_suffix.is_some() {
            if int_suffix.is_some() {
                return Err("malformed number `{}`: a float literal cannot have an integer suffix"
                    .to_string());
            }
            let v: f64 = if radix == 16 && is_float {
                hex_float(&body[2..]).ok_or_else(|| "malformed number `{}`".to_string())?
            } else if radix != 10 {
                // A hexadecimal suffix `f32` is digits, so only a binary literal gets here.
                return Err("malformed number `{}`: binary literals are integers".to_string());
            } else {
                let digits: String = body.chars().filter(|&c| c != '_').collect();
                digits.parse().map_err(|_| "malformed number `{}`".to_string())?
            };
            let max = match float_suffix {
                Some(FloatType::F16) => 65504.0,
                Some(FloatType::F32) => f32::MAX as f64,
                _ => f64::MAX,
            };
            if !v.is_finite() || v > max {
                let t = float_suffix.map_or("f64", |t| t.name());
                return Err(format!("literal `{{}}` is out of range for `{t}`"));
            }
            return Ok(Tok::Float(v, float_suffix));
        }
        let digits = if radix == 10 { body } else { &body[2..] };
        let mut v: u128 = 0;
        for c in digits.chars().filter(|&c| c != '_') {
            let d = c.to_digit(radix).ok_or_else(|| "malformed number `{}`".to_string())?;
            v = v
                .checked_mul(radix as u128)
                .and_then(|v| v.checked_add(d as u128))
                .filter(|&v| v <= u64::MAX as u128)
                .ok_or_else(|| {
                    "integer literal `{}` is too large for any integer type".to_string()
                })?;
        }
        if let Some(t) = int_suffix {
            // Signed decimal literals may reach 2^(bits-1) so that `-128i8` can be written;
            // hexadecimal and binary literals are bit patterns.
            let limit: u128 = if t.signed() && radix == 10 {
                1u128 << (t.bits() - 1)
            } else {
                (1u128 << t.bits()) - 1
            };
            if v > limit {
                return Err(format!("literal `{{}}` is out of range for `{}`", t.name()));
            }
        }
        Ok(Tok::Int { value: v as i128, suffix: int_suffix, decimal: radix == 10 })
    }
}

/// The value of a hexadecimal float's digits and exponent, `h…[.h…]p±d…` (underscores
/// allowed between digits): the digits as one integer, scaled by the exponent less four bits
/// per fraction digit. Rounds once, where the integer becomes an `f64`, unless the result is
/// subnormal; `None` if it has more than 128 bits of digits.
fn hex_float(text: &str) -> Option<f64> {
    let (mantissa, exp) = text.split_once(['p', 'P'])?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut m: u128 = 0;
    let mut frac_digits: i32 = 0;
    for (c, in_frac) in int.chars().map(|c| (c, false)).chain(frac.chars().map(|c| (c, true))) {
        if c == '_' {
            continue;
        }
        m = m.checked_mul(16)?.checked_add(c.to_digit(16)? as u128)?;
        frac_digits += i32::from(in_frac);
    }
    let e: i32 = exp.parse::<i64>().ok()?.clamp(-4000, 4000) as i32 - 4 * frac_digits;
    // Two steps, so that neither power of two over- or underflows on its own.
    let (e1, e2) = (e / 2, e - e / 2);
    Some(m as f64 * 2f64.powi(e1) * 2f64.powi(e2))
}

#[cfg(test)]
mod tests;
