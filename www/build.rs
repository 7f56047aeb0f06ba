//! Embeds examples/ (the top level, automap/ and ad/) into the playground's examples menu.

use std::fmt::Write;
use std::path::Path;

fn main() {
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
