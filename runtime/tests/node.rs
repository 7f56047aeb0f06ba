//! The same module runs in Node (WebAssembly.instantiate, through runtime/js/ogham.mjs) and gives
//! the same results as under wasmtime. Skipped, with a note, where `node` is not installed.

use std::path::Path;
use std::process::Command;

use ogham::backend::wasm;

const PROGRAM: &str = "
entry dot (xs: []f32) (ys: []f32) : f32 = reduce (+) 0 (map2 (*) xs ys)
entry scale (a: f32) (xs: []f32) : []f32 = map (*a) xs
entry bad (xs: []i32) (i: i64) : i32 = xs[i]
";

#[test]
fn a_module_runs_in_node() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("node is not installed: skipping");
        return;
    }
    let c = ogham::driver::compile(PROGRAM).unwrap();
    let m = wasm::compile(&c.ir, &wasm::Options::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("ogham-node-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("prog.wasm"), &m.bytes).unwrap();
    std::fs::write(dir.join("prog.json"), m.manifest.to_json()).unwrap();
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("js/ogham.mjs");
    let script = format!(
        r#"
import {{ readFileSync }} from 'node:fs';
import {{ load }} from '{}';
const bytes = readFileSync('{}');
if (!WebAssembly.validate(bytes)) throw new Error('invalid module');
const p = await load(bytes, JSON.parse(readFileSync('{}', 'utf8')));
const xs = {{ shape: [4], data: new Float32Array([1, 2, 3, 4]) }};
console.log(p.run('dot', [xs, xs])[0]);
console.log(Array.from(p.run('scale', [2, xs])[0].data).join(' '));
try {{ p.run('bad', [{{ shape: [2], data: new Int32Array([1, 2]) }}, 5n]); }} catch (e) {{ console.log(e.message); }}
"#,
        lib.display(),
        dir.join("prog.wasm").display(),
        dir.join("prog.json").display()
    );
    let js = dir.join("t.mjs");
    std::fs::write(&js, script).unwrap();
    let out = Command::new("node").arg(&js).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["30", "2 4 6 8", "index [5] out of bounds for array of shape [2]"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module built with threads runs its parallel maps on worker threads in Node (worker_threads,
/// a shared memory) and gives the results and errors of the same program without threads.
#[test]
fn a_module_with_threads_runs_in_node_workers() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("node is not installed: skipping");
        return;
    }
    let src = "
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) a
entry uneven (n: i64) : [n]i64 = map (\\i -> i64.sum (map (* i) (iota (i % 97)))) (iota n)
entry fails (n: i64) (k: i64) : [n]i64 = map (\\i -> i64.sum (iota (i % 1000)) + (iota n)[k - i]) (iota n)
";
    let c = ogham::driver::compile(src).unwrap();
    let dir = std::env::temp_dir().join(format!("ogham-node-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, threads) in [("par", true), ("seq", false)] {
        let opts = wasm::Options { threads, ..wasm::Options::default() };
        let m = wasm::compile(&c.ir, &opts).unwrap();
        std::fs::write(dir.join(format!("{name}.wasm")), &m.bytes).unwrap();
        std::fs::write(dir.join(format!("{name}.json")), m.manifest.to_json()).unwrap();
    }
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("js/ogham.mjs");
    let script = format!(
        r#"
import {{ readFileSync }} from 'node:fs';
import {{ load }} from '{lib}';
const open = (name, threads) => load(readFileSync('{dir}/' + name + '.wasm'), JSON.parse(readFileSync('{dir}/' + name + '.json', 'utf8')), {{ threads }});
const par = await open('par', 3);
const seq = await open('seq');
if (par.threads !== 3) throw new Error('threads: ' + par.threads);
const a = {{ shape: [61, 33], data: Float32Array.from({{ length: 61 * 33 }}, (_, i) => (i % 13) - 6) }};
const b = {{ shape: [33, 17], data: Float32Array.from({{ length: 33 * 17 }}, (_, i) => (i % 5) * 0.25) }};
const same = (x, y) => x.length === y.length && x.every((v, i) => v === y[i]);
const err = (p, args) => {{ try {{ p.run('fails', args); return 'no error'; }} catch (e) {{ return e.message + ' at ' + e.span; }} }};
for (let k = 0; k < 2; k++) {{
  console.log(same(par.run('matmul', [a, b])[0].data, seq.run('matmul', [a, b])[0].data));
  console.log(same(par.run('uneven', [2000n])[0].data, seq.run('uneven', [2000n])[0].data));
  console.log(err(par, [3000n, 2900n]) === err(seq, [3000n, 2900n]));
}}
console.log(err(par, [3000n, 2900n]));
par.close();
"#,
        lib = lib.display(),
        dir = dir.display(),
    );
    let js = dir.join("t.mjs");
    std::fs::write(&js, script).unwrap();
    let out = Command::new("node").arg(&js).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[..6], ["true"; 6], "{stdout}");
    assert!(lines[6].starts_with("index [-1] out of bounds for array of shape [3000]"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
