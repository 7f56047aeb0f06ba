//! AUTOMAP's cost: for every example, type-checking time with AUTOMAP on and off (the AUTOMAP
//! style source vs its elaboration checked with AUTOMAP off), their ratio, the largest ILP's size
//! and solve time, and the solver's work. `cargo bench -p ogham --bench automap [-- FILTER]`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ogham::syntax;
use ogham::types::{self, automap, ilp};

/// Runs of each timing. The fastest run is reported: on a shared machine the others measure the
/// machine's load more than the checker.
const RUNS: usize = 15;

/// The fastest of `runs` timings of `f`, in milliseconds.
fn time(runs: usize, f: &dyn Fn()) -> f64 {
    time_pair(runs, f, &|| {}).0
}

/// The fastest of `runs` timings of `f` and of `g`, in milliseconds, run alternately so that a
/// change in the machine's load affects both alike.
fn time_pair(runs: usize, f: &dyn Fn(), g: &dyn Fn()) -> (f64, f64) {
    let ms = |h: &dyn Fn()| {
        let t = Instant::now();
        h();
        t.elapsed().as_secs_f64() * 1e3
    };
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..runs {
        a = a.min(ms(f));
        b = b.min(ms(g));
    }
    (a, b)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "fut") {
            out.push(p);
        }
    }
}

fn main() {
    let filter: Vec<String> =
        std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect::<Vec<_>>();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    walk(&root.join("examples"), &mut files);
    files.retain(|p| filter.is_empty() || filter.iter().any(|f| p.to_string_lossy().contains(f)));
    println!(
        "{:42} {:>9} {:>9} {:>7} {:>10} {:>9} {:>7} {:>8}",
        "example", "off ms", "on ms", "ratio", "ILP v/c", "ILP ms", "nodes", "pivots"
    );
    let mut ratios = Vec::new();
    let mut max_ilp = (0.0f64, String::new());
    for path in files {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(ast) = syntax::parse(&src) else { continue };
        let (Ok(cp), reports) = types::check_automap_report(&ast) else { continue };
        // Off: the same program with every map and rep explicit, checked with AUTOMAP off.
        let explicit = if types::check_with(&ast, false).is_ok() {
            ast.clone()
        } else {
            match syntax::parse(&automap::print_elaborated(&cp, &[], &src)) {
                Ok(a) => a,
                Err(_) => continue,
            }
        };
        let (off, on) = time_pair(
            RUNS,
            &|| {
                let _ = types::check_with(&explicit, false);
            },
            &|| {
                let _ = types::check_with(&ast, true);
            },
        );
        let _ = ilp::take_counters();
        let _ = types::check_with(&ast, true);
        let work = ilp::take_counters();
        // The largest ILP built (AUTOMAP solves it by connected components; this is the whole).
        let big = reports.iter().max_by_key(|r| r.problem.vars.len());
        let (size, ilp_ms) = match big {
            Some(r) if !r.problem.vars.is_empty() => (
                format!("{}/{}", r.problem.vars.len(), r.problem.constraints.len()),
                time(RUNS, &|| {
                    let _ = r.problem.solve();
                }),
            ),
            _ => ("-".to_string(), 0.0),
        };
        let name = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
        let ratio = on / off;
        println!(
            "{name:42} {off:9.3} {on:9.3} {ratio:7.2} {size:>10} {ilp_ms:9.3} {:7} {:8}",
            work.nodes, work.pivots
        );
        ratios.push((ratio, name.clone()));
        if ilp_ms > max_ilp.0 {
            max_ilp = (ilp_ms, name);
        }
    }
    if ratios.is_empty() {
        println!("no examples matched");
        return;
    }
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = ratios[ratios.len() / 2].0;
    let (max, worst) = ratios.last().map(|(r, n)| (*r, n.clone())).unwrap_or_default();
    println!(
        "summary: {} examples, median ratio {median:.2}, max ratio {max:.2} ({worst}), \
         max ILP solve {:.3} ms ({})",
        ratios.len(),
        max_ilp.0,
        max_ilp.1
    );
}
