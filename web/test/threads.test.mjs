// The wasm backend on worker threads: in Node a loaded program's parallel maps run on every
// core (or on `threads`), with the results and the run-time errors of one thread and of the
// interpreter. Needs web/pkg (web/build.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { init, load, run } from 'ogham';

const program = `
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  let bt = transpose b
  in map (\\row -> map (\\col -> f32.sum (map2 (*) row col)) bt) a
entry uneven (n: i64) : [n]i64 = map (\\i -> i64.sum (map (* i) (iota (i % 97)))) (iota n)
entry waves (n: i64) : [n][64]f32 =
  map (\\i -> map (\\j -> f32.sin (f32.i64 (i * j)) + f32.log (f32.i64 (i + j + 1))) (iota 64)) (iota n)
entry halves (n: i64) : [n][8]f16 = map (\\i -> map (\\j -> f16.i64 (i + j) / 3f16) (iota 8)) (iota n)
entry fails (n: i64) (k: i64) : [n]i64 =
  map (\\i -> i64.sum (iota (i % 1000)) + (iota n)[k - i]) (iota n)
entry small (xs: []i32) : []i32 = map (+ 1) xs
`;

await init();

const n = 96;
const a = { shape: [n, n], data: Float32Array.from({ length: n * n }, (_, i) => (i % 13) - 6) };
const b = { shape: [n, n], data: Float32Array.from({ length: n * n }, (_, i) => (i % 7) - 3) };

// Every result of `entry` on `args`, or the error's message, span and phase.
async function outcome(p, entry, args) {
  try {
    return (await p.run(entry, args)).map((r) => ({ type: r.type, shape: r.shape, data: Array.from(r.data) }));
  } catch (e) {
    return { message: e.message, span: e.span, phase: e.phase };
  }
}

const cases = [
  ['matmul', [a, b]],
  ['uneven', [3000n]],
  ['waves', [500n]],
  ['halves', [300n]],
  ['fails', [3000n, 2900n]],
  ['small', [new Int32Array([1, 2, 3])]],
];

test('a loaded program uses every core in Node', async () => {
  const p = await load(program);
  assert.equal(p.threads, Math.max(1, availableParallelism()));
  p.free();
  const one = await load(program, { threads: 1 });
  assert.equal(one.threads, 1);
  one.free();
  // A program without a map worth running in parallel needs no workers.
  const plain = await load('entry f (xs: []f32) : []f32 = map (* 2) xs', { threads: 3 });
  assert.equal(plain.threads, 1);
  assert.deepEqual(Array.from((await plain.run('f', [new Float32Array([1, 2])]))[0].data), [2, 4]);
  plain.free();
  // The other backends run on one thread.
  assert.equal((await load(program, { backend: 'interp' })).threads, 1);
});

test('threads agree with one thread and with the interpreter, errors included', async () => {
  const par = await load(program, { threads: 3 });
  assert.equal(par.threads, 3);
  const seq = await load(program, { threads: 1 });
  const interp = await load(program, { backend: 'interp' });
  for (let round = 0; round < 2; round++) {
    for (const [entry, args] of cases) {
      const want = await outcome(seq, entry, args);
      assert.deepEqual(await outcome(par, entry, args), want, `${entry}, threads: 3 against threads: 1`);
      assert.deepEqual(await outcome(interp, entry, args), want, `${entry}, interp against threads: 1`);
    }
  }
  // The error inside the parallel map is the serial one: the first failing iteration's.
  const e = await outcome(par, 'fails', [3000n, 2900n]);
  assert.equal(e.message, 'index [-1] out of bounds for array of shape [3000]');
  assert.equal(e.phase, 'runtime error');
  assert.equal(e.span.line, 10);
  // The program still runs after an error in a worker.
  assert.deepEqual(await outcome(par, 'uneven', [3000n]), await outcome(seq, 'uneven', [3000n]));
  par.free();
  seq.free();
  await assert.rejects(par.run('small', [[1]]), /freed/);
});

test('run takes the threads option too, and rejects a bad one', async () => {
  const [r] = await run(program, 'uneven', [500n], { threads: 2 });
  const [s] = await run(program, 'uneven', [500n], { threads: 1 });
  assert.deepEqual(Array.from(r.data), Array.from(s.data));
  for (const threads of [0, 1.5, 'many', -2]) {
    await assert.rejects(load(program, { threads }), (e) => {
      assert.match(e.message, /^`threads` must be a whole number from 1 to 1024$/);
      assert.equal(e.phase, 'value error');
      return true;
    });
  }
  await assert.rejects(run(program, 'small', '[1i32]', { threads: 0 }), /`threads` must be/);
});
