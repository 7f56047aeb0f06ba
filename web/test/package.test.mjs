// Imports the built package (web/pkg must exist: web/build.sh) and runs programs on both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init, compile, run, randomArgs, version } from 'ogham';

const dot = readFileSync(new URL('../../examples/dotprod.fut', import.meta.url), 'utf8');

const program = `
entry scale (a: f32) (xs: []f32) : []f32 = xs * a
entry stats (xs: []i64) : (i64, i64) = (i64.sum xs, i64.maximum xs)
entry at (xs: []i32) (i: i64) : i32 = xs[i]
`;

await init();

test('version and compile', () => {
  assert.match(version(), /^\d+\.\d+\.\d+$/);
  const c = compile(program);
  assert.deepEqual(c.diagnostics, []);
  assert.match(c.stages.elaborated, /map/);
  assert.match(c.stages.ir, /scale/);
  assert.deepEqual(Object.keys(c.stages.derivative).sort(), ['at', 'scale', 'stats']);
  assert.match(c.stages.wasm, /^\(module/);
  assert.match(c.stages.wgsl, /@compute/);
  assert.deepEqual(c.entries, ['scale', 'stats', 'at']);
  for (const k of ['parse', 'check', 'lower', 'ad', 'derivative', 'wasm', 'wat', 'wgsl']) assert.equal(typeof c.timings[k], 'number');
  // The derivative of each entry point: vjp by default, jvp on request.
  assert.match(c.stages.derivative.scale, /entry scale_vjp \(f32, \[\]f32, \[\]f32\)/);
  assert.match(c.stages.derivative.stats, /no vjp of `stats`: entry point `stats` has no float parameters/);
  const j = compile(program, { derivative: 'jvp' });
  assert.match(j.stages.derivative.scale, /entry scale_jvp \(f32, \[\]f32, f32, \[\]f32\)/);
});

test('random arguments run', async () => {
  const args = randomArgs(program, 'scale', { size: 5, seed: 3 });
  assert.equal(args, randomArgs(program, 'scale', { size: 5, seed: 3 }));
  assert.notEqual(args, randomArgs(program, 'scale', { size: 5, seed: 4 }));
  const [r] = await run(program, 'scale', args, { backend: 'wasm' });
  assert.deepEqual(r.shape, [5]);
  assert.throws(() => randomArgs(program, 'nope'), (e) => /unknown entry point `nope`/.test(e.message) && e.diagnostics.length === 1);
  assert.throws(() => randomArgs('entry f = +', 'f'), (e) => e.diagnostics[0].span.line === 1);
});

test('a program the GPU backend cannot compile still compiles, and its WGSL says why', () => {
  const c = compile('entry main (xs: []f64) : f64 = f64.sum xs\n');
  assert.deepEqual(c.diagnostics, []);
  assert.match(c.stages.wasm, /^\(module/);
  assert.match(c.stages.wgsl, /^\/\/ The GPU backend cannot compile this program/);
  assert.match(c.stages.wgsl, /f64 is not available on WebGPU/);
});

test('a type error is a diagnostic with its line', () => {
  const c = compile('def f (x: i32) = x\n\nentry main (x: i32) : bool = f x\n');
  assert.equal(c.diagnostics.length, 1);
  const d = c.diagnostics[0];
  assert.match(d.message, /type mismatch/);
  assert.equal(d.severity, 'error');
  assert.equal(d.span.line, 3);
  assert.equal(c.stages.ir, null);
});

for (const backend of ['wasm', 'interp']) {
  test(`runs on ${backend}`, async () => {
    const [r] = await run(program, 'scale', '2f32 [1f32, 2f32, 3f32]', { backend });
    assert.equal(r.type, 'f32');
    assert.deepEqual(r.shape, [3]);
    assert.ok(r.data instanceof Float32Array);
    assert.deepEqual(Array.from(r.data), [2, 4, 6]);
    const [s, m] = await run(program, 'stats', '[3i64, 9i64, 4i64]', { backend });
    assert.deepEqual(s.shape, []);
    assert.equal(s.data[0], 16n);
    assert.equal(m.text, '9i64');
  });

  test(`sum types cross the entry point on ${backend}`, async () => {
    // The constructor's index (constructors in name order), then every constructor's payload.
    const shapes = `type shape = #circle f32 | #rect f32 f32
entry grow (s: shape) : shape = match s case #circle r -> #circle (r + 1) case #rect w h -> #rect (w + 1) (h + 1)`;
    const [tag, , w, h] = await run(shapes, 'grow', '1i8 0f32 3f32 4f32', { backend });
    assert.ok(tag.data instanceof Int8Array);
    assert.deepEqual([tag.text, w.text, h.text], ['1i8', '4.0f32', '5.0f32']);
    await assert.rejects(run(shapes, 'grow', '2i8 0f32 3f32 4f32', { backend }), /constructor index other than 0 \(`#circle`\), 1 \(`#rect`\)/);
  });

  test(`an example runs on ${backend}`, async () => {
    const [r] = await run(dot, 'main', '[1f32, 2f32, 3f32] [4f32, 5f32, 6f32]', { backend });
    assert.equal(r.text, '32.0f32');
  });

  test(`a run-time error rejects on ${backend}`, async () => {
    await assert.rejects(run(program, 'at', '[1i32, 2i32] 5i64', { backend }), (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.message, 'index [5] out of bounds for array of shape [2]');
      assert.equal(e.diagnostics[0].phase, 'runtime error');
      assert.equal(e.span.line, 4);
      return true;
    });
  });
}

test('compile errors and bad arguments reject with diagnostics', async () => {
  await assert.rejects(run('entry main (x: i32) : i32 = x +', 'main', '1i32'), (e) => {
    assert.equal(e.diagnostics[0].phase, 'parse error');
    assert.ok(e.span.line >= 1);
    return true;
  });
  await assert.rejects(run(program, 'scale', '2f32'), /takes 2 arguments/);
  await assert.rejects(run(program, 'nope', ''), /unknown entry point `nope`/);
  await assert.rejects(run(program, 'scale', '[1f32', {}), (e) => e.span === null);
});

test('webgpu rejects in Node: there is no navigator.gpu', async () => {
  await assert.rejects(run(program, 'scale', '2f32 [1f32]', { backend: 'webgpu' }), (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.message, 'WebGPU is not available in this browser/runtime');
    assert.equal(e.span, null);
    assert.match(e.hint, /`wasm` backend/);
    return true;
  });
  // Compile errors still come first.
  await assert.rejects(run('entry main (x: i32) : i32 = x +', 'main', '1i32', { backend: 'webgpu' }), (e) => e.diagnostics[0].phase === 'parse error');
});
