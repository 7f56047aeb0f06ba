//! Errors as data: a [`Diagnostic`] is created where a problem is known (parser, checker, lowering,
//! interpreter) and rendered once, here, for the CLI and the playground alike.

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

/// A half-open byte range `[start, end)` into the source text of one program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// 1-based line and column of the start of the span.
    pub fn line_col(self, src: &str) -> (usize, usize) {
        let start = (self.start as usize).min(src.len());
        let before = &src[..floor_char_boundary(src, start)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Which stage found the problem; shown in the message header and used by tools that filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Parse,
    Type,
    Size,
    Rank,
    Lower,
    Runtime,
    Value,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Parse => "parse error",
            Phase::Type => "type error",
            Phase::Size => "size error",
            Phase::Rank => "rank error",
            Phase::Lower => "unsupported",
            Phase::Runtime => "runtime error",
            Phase::Value => "value error",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One error with a primary span, optional secondary spans and hints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub phase: Phase,
    pub message: String,
    pub span: Span,
    /// Text shown under the caret of the primary span (may be empty).
    pub label: String,
    pub secondary: Vec<Label>,
    pub hints: Vec<String>,
}

impl Diagnostic {
    pub fn new(phase: Phase, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            phase,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            hints: Vec::new(),
        }
    }

    pub fn parse(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Phase::Parse, span, message)
    }

    pub fn ty(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Phase::Type, span, message)
    }

    pub fn runtime(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Phase::Runtime, span, message)
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label { span, message: message.into() });
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hints.push(hint.into());
        self
    }

    /// `phase: message`, without saying the phase twice when the message already starts with it
    /// (lowering's `unsupported: ...` messages).
    pub fn header(&self) -> String {
        let phase = self.phase.as_str();
        match self.message.strip_prefix(phase) {
            Some(rest) if rest.starts_with(':') => self.message.clone(),
            _ => format!("{phase}: {}", self.message),
        }
    }

    /// `file:line:col: phase: message`, the one-line form used by the test runner's `error:` regexes.
    pub fn one_line(&self, file: &str, src: &str) -> String {
        let (l, c) = self.span.line_col(src);
        format!("{file}:{l}:{c}: {}", self.header())
    }

    /// Multi-line rendering with a source excerpt and carets (no colour).
    pub fn render(&self, file: &str, src: &str) -> String {
        let files = SimpleFile::new(file, src);
        let clamp = |s: Span| {
            let len = src.len();
            let a = floor_char_boundary(src, (s.start as usize).min(len));
            let b = floor_char_boundary(src, (s.end as usize).min(len)).max(a);
            a..b
        };
        let mut labels = vec![cs::Label::primary((), clamp(self.span)).with_message(&self.label)];
        for l in &self.secondary {
            labels.push(cs::Label::secondary((), clamp(l.span)).with_message(&l.message));
        }
        let (l, c) = self.span.line_col(src);
        let d = cs::Diagnostic::error()
            .with_message(self.header())
            .with_labels(labels)
            .with_notes(self.hints.iter().map(|h| format!("hint: {h}")).collect());
        let mut out = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
        let config = term::Config::default();
        let mut text = match term::emit(&mut out, &config, &files, &d) {
            Ok(()) => String::from_utf8_lossy(&out.into_inner()).into_owned(),
            Err(_) => format!("{file}:{l}:{c}: {}\n", self.header()),
        };
        // codespan prints `file:line:col`; keep that first line greppable even for empty sources.
        if !text.contains(&format!("{file}:{l}:{c}")) {
            text = format!("{file}:{l}:{c}\n{text}");
        }
        text
    }
}

/// Render many diagnostics, one after another.
pub fn render_all(diags: &[Diagnostic], file: &str, src: &str) -> String {
    diags.iter().map(|d| d.render(file, src)).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let src = "def f =\n  1 +\n";
        assert_eq!(Span::new(0, 1).line_col(src), (1, 1));
        assert_eq!(Span::new(10, 11).line_col(src), (2, 3));
    }

    #[test]
    fn render_shows_excerpt_and_caret() {
        let src = "def main = if true else 1";
        let d = Diagnostic::parse(Span::new(19, 23), "expected `then`, found `else`")
            .with_label("expected `then` here")
            .with_hint("an `if` needs both branches");
        let r = d.render("t.fut", src);
        assert!(r.contains("t.fut:1:20"), "{r}");
        assert!(r.contains("^^^^"), "{r}");
        assert!(r.contains("hint: an `if` needs both branches"), "{r}");
    }

    #[test]
    fn header_names_the_phase_once() {
        let d = Diagnostic::new(Phase::Lower, Span::DUMMY, "unsupported: modules");
        assert_eq!(d.header(), "unsupported: modules");
        let d = Diagnostic::new(Phase::Lower, Span::DUMMY, "unsupportedness");
        assert_eq!(d.header(), "unsupported: unsupportedness");
        let d = Diagnostic::ty(Span::DUMMY, "unknown variable `x`");
        assert_eq!(d.header(), "type error: unknown variable `x`");
    }

    #[test]
    fn render_survives_out_of_range_spans() {
        let d = Diagnostic::parse(Span::new(100, 200), "unexpected end of input");
        let r = d.render("t.fut", "def");
        assert!(r.contains("unexpected end of input"));
    }
}
