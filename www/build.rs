//! Embeds examples/ (the top level, automap/ and ad/) into the playground's examples menu, and the
//! user documentation (docs/guide.md, docs/cli.md) as HTML for its Docs view: each `futhark` code
//! block gets an "Open in editor" button.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::fmt::Write;
use std::path::Path;

/// The documents of the Docs view: (title, file under docs/).
const DOCS: [(&str, &str); 2] = [("A tour of Ogham", "guide.md"), ("The ogham command", "cli.md")];

fn is_program(kind: &CodeBlockKind) -> bool {
    matches!(kind, CodeBlockKind::Fenced(info)
        if matches!(info.split_whitespace().next(), Some("futhark" | "ogham")))
}

/// `md` as HTML, with the program blocks wrapped so the page can open them in the editor.
fn render(md: &str) -> String {
    let mut in_program = false;
    let events = Parser::new_ext(md, Options::ENABLE_TABLES).flat_map(|e| match e {
        Event::Start(Tag::CodeBlock(ref kind)) if is_program(kind) => {
            in_program = true;
            vec![
                Event::Html(
                    "<div class=\"code\"><button class=\"open-code\" data-testid=\"open-code\">Open in editor</button>"
                        .into(),
                ),
                e,
            ]
        }
        Event::End(TagEnd::CodeBlock) if in_program => {
            in_program = false;
            vec![e, Event::Html("</div>".into())]
        }
        other => vec![other],
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

fn docs(out_dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
    let mut out = String::from(
        "/// The documents of the Docs view: (title, HTML).\npub const DOCS: &[(&str, &str)] = &[\n",
    );
    for (title, file) in DOCS {
        let path = root.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let md = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let _ = writeln!(out, "    ({title:?}, {:?}),", render(&md));
    }
    out.push_str("];\n");
    if let Err(e) = std::fs::write(out_dir.join("docs.rs"), out) {
        panic!("cannot write docs.rs: {e}");
    }
}

fn main() {
    let out_dir = std::env::var("OUT_DIR").unwrap_or_default();
    docs(Path::new(&out_dir));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut list = Vec::new();
    for sub in ["", "automap", "ad"] {
        let dir = root.join(sub);
        println!("cargo:rerun-if-changed={}", dir.display());
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "fut"))
            .collect();
        files.sort();
        for f in files {
            let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let name = if sub.is_empty() { stem } else { format!("{sub}/{stem}") };
            list.push((name, f.canonicalize().unwrap_or(f)));
        }
    }
    let mut out = String::from(
        "/// Every example: (name, source).\npub const EXAMPLES: &[(&str, &str)] = &[\n",
    );
    for (name, path) in list {
        let _ = writeln!(out, "    ({name:?}, include_str!({:?})),", path.display().to_string());
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("examples.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        panic!("cannot write {}: {e}", dest.display());
    }
}
