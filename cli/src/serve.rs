//! `ogham serve`: serves the built playground (www/dist, static files) on localhost. Works from
//! any directory of the checkout: it finds the repository root by walking up from the current
//! directory (then from the executable's). Every response makes the page cross-origin isolated
//! (`Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy: require-corp`), so
//! it has `SharedArrayBuffer` and the compiler package runs wasm programs on every core.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
}

/// The checkout's root: the nearest ancestor of `start` holding www/Cargo.toml.
fn find_root(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join("www").join("Cargo.toml").is_file()).map(Path::to_path_buf)
}

/// The directory with the built playground, or a message saying how to build it.
pub fn dist_dir() -> Result<PathBuf, String> {
    let starts = [std::env::current_dir().ok(), std::env::current_exe().ok()];
    let root = starts.iter().flatten().find_map(|s| find_root(s)).ok_or_else(|| {
        "cannot find the Ogham checkout (a directory with www/Cargo.toml) above the current \
         directory: run `ogham serve` inside the repository"
            .to_string()
    })?;
    let dist = root.join("www").join("dist");
    if !dist.join("index.html").is_file() {
        return Err(format!(
            "the playground is not built ({} has no index.html): run www/build.sh or \
             scripts/bootstrap first",
            dist.display()
        ));
    }
    Ok(dist)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("fut" | "txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The file a request path names under `root`, refusing anything that leaves it.
fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let path = url_path.split(['?', '#']).next().unwrap_or("");
    let rel = Path::new(path.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let p = root.join(rel);
    let p = if p.is_dir() { p.join("index.html") } else { p };
    p.is_file().then_some(p)
}

/// The headers that make a page cross-origin isolated (`crossOriginIsolated`), which shared
/// memories and so wasm threads need. Everything the playground loads is same-origin, so
/// `require-corp` blocks nothing.
const ISOLATION: &str =
    "Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Embedder-Policy: require-corp\r\n";

/// The status line, content type and body for a request line such as `GET /x.js HTTP/1.1`.
fn respond(root: &Path, request_line: &str) -> (&'static str, &'static str, Vec<u8>) {
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        return ("405 Method Not Allowed", "text/plain", b"only GET and HEAD\n".to_vec());
    }
    match resolve(root, target).and_then(|p| Some((std::fs::read(&p).ok()?, p))) {
        Some((body, p)) => ("200 OK", content_type(&p), body),
        None => ("404 Not Found", "text/plain", format!("not found: {target}\n").into_bytes()),
    }
}

/// A response's status line and headers.
fn head(status: &str, ctype: &str, len: usize) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len}\r\n{ISOLATION}\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
    )
}

fn handle(root: &Path, stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let (status, ctype, body) = respond(root, &request_line);
    let mut out = stream;
    out.write_all(head(status, ctype, body.len()).as_bytes())?;
    if !request_line.starts_with("HEAD") {
        out.write_all(&body)?;
    }
    out.flush()
}

pub fn main(args: &Args) -> ExitCode {
    let dist = match dist_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match TcpListener::bind((args.host.as_str(), args.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {}:{}: {e}", args.host, args.port);
            return ExitCode::FAILURE;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    println!("serving the playground ({}) at http://{}:{port}/", dist.display(), args.host);
    let _ = std::io::stdout().flush();
    for stream in listener.incoming().flatten() {
        let root = dist.clone();
        std::thread::spawn(move || {
            let _ = handle(&root, stream);
        });
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_files_and_refuses_to_leave_the_root() {
        let root = std::env::temp_dir().join(format!("ogham-serve-{}", std::process::id()));
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(root.join("index.html"), "<html>").unwrap();
        std::fs::write(root.join("app/x.wasm"), [0, 97, 115, 109]).unwrap();
        let (s, t, b) = respond(&root, "GET / HTTP/1.1\r\n");
        assert_eq!((s, t, b.as_slice()), ("200 OK", "text/html; charset=utf-8", &b"<html>"[..]));
        let (s, t, _) = respond(&root, "GET /app/x.wasm?v=1 HTTP/1.1");
        assert_eq!((s, t), ("200 OK", "application/wasm"));
        assert_eq!(respond(&root, "GET /../etc/passwd HTTP/1.1").0, "404 Not Found");
        assert_eq!(respond(&root, "GET /nope.js HTTP/1.1").0, "404 Not Found");
        assert_eq!(respond(&root, "POST / HTTP/1.1").0, "405 Method Not Allowed");
        // Every response makes the page cross-origin isolated.
        let h = head("200 OK", "text/html", 6);
        assert!(h.starts_with("HTTP/1.1 200 OK\r\n") && h.ends_with("\r\n\r\n"), "{h}");
        assert!(h.contains("\r\nCross-Origin-Opener-Policy: same-origin\r\n"), "{h}");
        assert!(h.contains("\r\nCross-Origin-Embedder-Policy: require-corp\r\n"), "{h}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn finds_the_checkout_from_a_subdirectory() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let root = find_root(&here).unwrap();
        assert!(root.join("www").join("Cargo.toml").is_file());
        assert_eq!(find_root(Path::new("/")), None);
    }
}
