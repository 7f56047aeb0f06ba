//! Reading the `-- ==` blocks of a program.
//!
//! The lines of a block after `==` are joined (without their `--`) into one text, which a small
//! cursor parser reads; offsets in that text map back to the file, so every error and every case
//! carries a span into the program.

use super::{CaseKind, Expected, ExpectedError, Input, TestBlock, TestCase};
use crate::diag::{Diagnostic, Label, Span};
use crate::value::text::parse_values;

/// Read every test block of a program. Blocks with errors are reported (all of them) instead.
pub fn parse_tests(src: &str) -> Result<Vec<TestBlock>, Vec<Diagnostic>> {
    let mut blocks = Vec::new();
    let mut errors = Vec::new();
    for run in comment_runs(src) {
        let Some(sep) = run.iter().position(|l| l.text.trim() == "==") else { continue };
        let description = run[..sep]
            .iter()
            .map(|l| l.text.trim())
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string();
        let eq = &run[sep];
        let span = Span::new(eq.start - 2, eq.start + eq.text.len());
        let mut text = String::new();
        let mut map = Vec::new();
        for l in &run[sep + 1..] {
            if !text.is_empty() {
                text.push('\n');
            }
            map.push((text.len(), l.start));
            text.push_str(l.text);
        }
        let mut p = BlockParser { src, text: &text, map: &map, pos: 0 };
        match p.block() {
            Ok((tags, cases)) => blocks.push(TestBlock {
                line: span.line_col(src).0,
                span,
                description,
                tags,
                cases,
            }),
            Err(d) => errors.push(d),
        }
    }
    if errors.is_empty() {
        Ok(blocks)
    } else {
        Err(errors)
    }
}

/// A comment line: the text after its `--`, and where that text starts in the file.
struct CommentLine<'a> {
    start: usize,
    text: &'a str,
}

/// Runs of consecutive lines that start with `--`.
fn comment_runs(src: &str) -> Vec<Vec<CommentLine<'_>>> {
    let mut runs = Vec::new();
    let mut cur: Vec<CommentLine<'_>> = Vec::new();
    let mut off = 0;
    for raw in src.split_inclusive('\n') {
        let line = raw.trim_end_matches('\n').trim_end_matches('\r');
        if let Some(text) = line.strip_prefix("--") {
            cur.push(CommentLine { start: off + 2, text });
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
        off += raw.len();
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    runs
}

struct BlockParser<'a> {
    src: &'a str,
    /// The block's lines after `==`, joined with newlines.
    text: &'a str,
    /// For each line: its offset in `text` and in the file.
    map: &'a [(usize, usize)],
    pos: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

impl<'a> BlockParser<'a> {
    fn file_offset(&self, v: usize) -> usize {
        let i = self.map.partition_point(|&(vs, _)| vs <= v).saturating_sub(1);
        match self.map.get(i) {
            Some(&(vs, fs)) => fs + (v - vs),
            None => self.src.len(),
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file_offset(start), self.file_offset(end))
    }

    fn err(&self, start: usize, end: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::parse(self.span(start, end), msg)
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn eof(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn word(&self) -> &'a str {
        let rest = self.rest();
        let n = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
        &rest[..n]
    }

    /// Is the keyword `kw` next (a whole word)?
    fn at(&self, kw: &str) -> bool {
        self.word() == kw
    }

    /// `found <what>` for errors at the cursor.
    fn expected(&self, what: &str) -> Diagnostic {
        let w = self.word();
        let (len, found) = if self.eof() {
            (0, "the end of the test block".to_string())
        } else if w.is_empty() {
            let c = self.rest().chars().next().map_or(1, char::len_utf8);
            (c, format!("`{}`", &self.rest()[..c]))
        } else {
            (w.len(), format!("`{w}`"))
        };
        self.err(self.pos, self.pos + len, format!("expected {what}, found {found}"))
    }

    fn rest_of_line(&mut self) -> &'a str {
        let rest = self.rest();
        let n = rest.find('\n').unwrap_or(rest.len());
        self.pos += n;
        &rest[..n]
    }

    /// `{ ... }` with nested braces; returns the offset of the text inside and the text.
    fn braces(&mut self) -> Result<(usize, &'a str), Diagnostic> {
        if !self.rest().starts_with('{') {
            return Err(self.expected("`{`"));
        }
        let open = self.pos;
        let mut depth = 0usize;
        for (i, c) in self.rest().char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        let inner = &self.text[open + 1..open + i];
                        self.pos = open + i + 1;
                        return Ok((open + 1, inner));
                    }
                }
                _ => {}
            }
        }
        Err(self.err(open, open + 1, "unclosed `{` in test block"))
    }

    /// Move a diagnostic about `text[base..]` to the file.
    fn relocate(&self, base: usize, mut d: Diagnostic) -> Diagnostic {
        let shift = |s: Span| self.span(base + s.start as usize, base + s.end as usize);
        d.span = shift(d.span);
        d.secondary = d.secondary.into_iter().map(|l| Label { span: shift(l.span), ..l }).collect();
        d
    }

    fn values(&mut self) -> Result<Vec<crate::value::Value>, Diagnostic> {
        let (base, inner) = self.braces()?;
        parse_values(inner).map_err(|d| self.relocate(base, d))
    }

    fn regex(&mut self) -> Result<ExpectedError, Diagnostic> {
        self.skip_inline_ws();
        let start = self.pos;
        let line = self.rest_of_line();
        ExpectedError::new(line).map_err(|e| {
            let msg = e.to_string();
            let first = msg.lines().last().unwrap_or("").trim().to_string();
            self.err(start, self.pos, format!("invalid regular expression in `error:`: {first}"))
        })
    }

    fn skip_inline_ws(&mut self) {
        let rest = self.rest();
        let n = rest.find(|c: char| c == '\n' || !c.is_whitespace()).unwrap_or(rest.len());
        self.pos += n;
    }

    fn block(&mut self) -> Result<(Vec<String>, Vec<TestCase>), Diagnostic> {
        let mut tags = Vec::new();
        let mut entries = vec!["main".to_string()];
        let mut cases = Vec::new();
        loop {
            self.skip_ws();
            if self.eof() {
                break;
            }
            let start = self.pos;
            let case = |p: &Self, entries: Vec<String>, tags, kind| TestCase {
                index: 0,
                name: None,
                entries,
                tags,
                span: p.span(start, p.pos),
                line: p.span(start, start).line_col(p.src).0,
                kind,
            };
            if self.at("tags") && self.rest()[4..].trim_start().starts_with('{') {
                self.pos += 4;
                self.skip_ws();
                let (base, inner) = self.braces()?;
                for w in inner.split_whitespace() {
                    if !w.chars().all(is_word_char) {
                        let at = base + inner.find(w).unwrap_or(0);
                        return Err(self.err(at, at + w.len(), format!("invalid tag `{w}`")));
                    }
                    tags.push(w.to_string());
                }
            } else if self.rest().starts_with("entry:") {
                self.pos += "entry:".len();
                let names: Vec<String> =
                    self.rest_of_line().split_whitespace().map(str::to_string).collect();
                if names.is_empty() {
                    return Err(self.err(
                        start,
                        self.pos,
                        "expected entry point names after `entry:`",
                    ));
                }
                entries = names;
            } else if self.rest().starts_with("error:") {
                self.pos += "error:".len();
                let e = self.regex()?;
                cases.push(case(self, Vec::new(), Vec::new(), CaseKind::CompileError(e)));
            } else if let Some(kw) =
                ["property:", "warning:"].into_iter().find(|k| self.rest().starts_with(k))
            {
                self.rest_of_line();
                let what = if kw == "property:" { "property-based tests" } else { "warning tests" };
                let kind = CaseKind::Unsupported(format!("{what} (`{kw}`) are not supported"));
                cases.push(case(self, Vec::new(), Vec::new(), kind));
            } else if self.at("structure") {
                self.pos += "structure".len();
                self.skip_ws();
                let w = self.word();
                self.pos += w.len();
                self.skip_ws();
                self.braces()?;
                let kind =
                    CaseKind::Unsupported("structure tests (`structure`) are not supported".into());
                cases.push(case(self, Vec::new(), Vec::new(), kind));
            } else {
                let c = self.run_case(start, &entries)?;
                cases.push(c);
            }
        }
        for (i, c) in cases.iter_mut().enumerate() {
            c.index = i;
        }
        Ok((tags, cases))
    }

    fn run_case(&mut self, start: usize, entries: &[String]) -> Result<TestCase, Diagnostic> {
        let mut name = None;
        if self.rest().starts_with('"') {
            let rest = &self.rest()[1..];
            let Some(n) = rest.find('"') else {
                return Err(self.err(self.pos, self.pos + 1, "unterminated dataset name"));
            };
            name = Some(rest[..n].to_string());
            self.pos += n + 2;
            self.skip_ws();
        }
        let mut tags = Vec::new();
        while !self.at("input") {
            let w = self.word();
            if w.is_empty() {
                return Err(self.expected("`input`"));
            }
            tags.push(w.to_string());
            self.pos += w.len();
            self.skip_ws();
        }
        self.pos += "input".len();
        self.skip_ws();
        let mut unsupported = None;
        let input = if self.rest().starts_with('@') {
            self.pos += 1;
            self.skip_inline_ws();
            let file = self.rest().split_whitespace().next().unwrap_or("").to_string();
            self.pos += file.len();
            unsupported = Some(format!("input from a file (`input @ {file}`) is not supported"));
            None
        } else if !self.rest().starts_with('{') {
            return Err(self.expected("`{` or `@` after `input`"));
        } else if tags.iter().any(|t| t == "script") {
            self.braces()?;
            unsupported =
                Some("FutharkScript inputs (`script input`) are not supported".to_string());
            None
        } else if tags.iter().any(|t| t == "random") {
            let (base, inner) = self.braces()?;
            let spec =
                super::random::parse_random_spec(inner).map_err(|d| self.relocate(base, d))?;
            Some(Input::Random(spec))
        } else {
            Some(Input::Values(self.values()?))
        };
        let save = self.pos;
        self.skip_ws();
        let expected = if self.at("output") {
            self.pos += "output".len();
            self.skip_ws();
            if self.rest().starts_with('@') {
                self.pos += 1;
                self.skip_inline_ws();
                let file = self.rest().split_whitespace().next().unwrap_or("").to_string();
                self.pos += file.len();
                unsupported = unsupported
                    .or(Some(format!("output from a file (`output @ {file}`) is not supported")));
                Expected::Succeeds
            } else {
                Expected::Values(self.values()?)
            }
        } else if self.at("auto") {
            self.pos += "auto".len();
            self.skip_ws();
            if !self.at("output") {
                return Err(self.expected("`output` after `auto`"));
            }
            self.pos += "output".len();
            Expected::Succeeds
        } else if self.rest().starts_with("error:") {
            self.pos += "error:".len();
            Expected::Error(self.regex()?)
        } else {
            self.pos = save;
            Expected::Succeeds
        };
        let kind = match (input, unsupported) {
            (_, Some(reason)) => CaseKind::Unsupported(reason),
            (Some(input), None) => CaseKind::Run { input, expected },
            (None, None) => CaseKind::Unsupported("unreadable input".to_string()),
        };
        Ok(TestCase {
            index: 0,
            name,
            entries: entries.to_vec(),
            tags,
            span: self.span(start, self.pos),
            line: self.span(start, start).line_col(self.src).0,
            kind,
        })
    }
}

#[cfg(test)]
mod tests;
