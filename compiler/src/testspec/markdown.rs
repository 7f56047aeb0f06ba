//! Programs embedded in Markdown documentation: every fenced code block tagged `futhark` (or
//! `ogham`) is a complete program, so `ogham test docs/guide.md` runs the docs' examples like any
//! other program and the playground's Docs view can open them in the editor.

/// One embedded program.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The 1-based line of the block's first source line in the document.
    pub line: usize,
    pub source: String,
}

fn is_program_fence(info: &str) -> bool {
    matches!(info.split_whitespace().next(), Some("futhark" | "ogham"))
}

/// The programs in `md`, in order. A fence is three or more backticks (or tildes); a block runs
/// until a closing fence of the same character at least as long, or the end of the document.
pub fn programs(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    // (fence char, fence length, is a program, first line, text)
    let mut open: Option<(char, usize, bool, usize, String)> = None;
    for (k, line) in md.lines().enumerate() {
        let trimmed = line.trim_start();
        let fence = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        match &mut open {
            None => {
                for c in ['`', '~'] {
                    let n = fence(c);
                    if n >= 3 {
                        let info = &trimmed[n..];
                        open = Some((c, n, is_program_fence(info), k + 2, String::new()));
                        break;
                    }
                }
            }
            Some((c, n, program, first, text)) => {
                let m = fence(*c);
                if m >= *n && trimmed[m..].trim().is_empty() {
                    if *program {
                        out.push(Block { line: *first, source: std::mem::take(text) });
                    }
                    open = None;
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    if let Some((_, _, true, first, text)) = open {
        out.push(Block { line: first, source: text });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_tagged_blocks() {
        let md = "# T\n\n```futhark\nentry main = 1\n```\n\n```sh\nls\n```\n\n~~~~ ogham x\na\n```\nb\n~~~~\n```futhark\nopen";
        let bs = programs(md);
        assert_eq!(
            bs,
            vec![
                Block { line: 4, source: "entry main = 1\n".into() },
                Block { line: 12, source: "a\n```\nb\n".into() },
                Block { line: 17, source: "open\n".into() },
            ]
        );
        assert!(programs("no code").is_empty());
    }
}
