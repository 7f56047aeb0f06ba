// Shared by the Node benchmark and the browser page (no imports): timing and result comparison.

/**
 * Warm-up calls, then timed calls of `fn`: the last result, the median, min and max in ms, and
 * how many timed runs there were. Once the timed runs have taken `budgetMs` in all, no more are
 * started (on a slow adapter a cell may then rest on fewer runs than asked; the table says so).
 */
export async function timeRuns(fn, { warmup, runs, budgetMs = Infinity, probe }) {
  const times = [];
  const probed = [];
  let out;
  for (let i = 0; i < warmup; i++) out = await fn();
  let spent = 0;
  for (let i = 0; i < runs && (i === 0 || spent < budgetMs); i++) {
    const t0 = performance.now();
    out = await fn();
    const t = performance.now() - t0;
    times.push(t);
    spent += t;
    if (probe) probed.push(probe());
  }
  return summary(times, probe && probed, out);
}

/**
 * What a cell reports of its timed runs: the last result, the median, min and max of `times` in
 * ms, how many there were, and the median of `probed` (a second measurement of each run, e.g.
 * the module's own time; `probeMedian` is undefined without one).
 */
function summary(times, probed, out) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const sorted = [...times].sort((a, b) => a - b);
  return {
    probeMedian: probed ? median(probed) : undefined,
    out,
    median: sorted[Math.floor(sorted.length / 2)],
    min: sorted[0],
    max: sorted[sorted.length - 1],
    runs: sorted.length,
  };
}

/**
 * `timeRuns` for several implementations of one workload, in turns: each round times one call of
 * each (in a rotated order), so a slow period of the machine falls on all of them alike rather
 * than on whichever ran then. `impls` maps a key to `{fn, probe}`; resolves to a map from each key
 * to `timeRuns`' result, or to `{error}` for an implementation that threw (it takes no more turns).
 */
export async function timeInterleaved(impls, { warmup, runs }) {
  const keys = Object.keys(impls);
  const st = Object.fromEntries(keys.map((k) => [k, { times: [], probed: [], out: undefined }]));
  const live = () => keys.filter((k) => !st[k].error);
  const call = async (k, timed) => {
    try {
      const t0 = performance.now();
      st[k].out = await impls[k].fn();
      const t = performance.now() - t0;
      if (timed) {
        st[k].times.push(t);
        if (impls[k].probe) st[k].probed.push(impls[k].probe());
      }
    } catch (e) {
      st[k].error = String(e.message ?? e).split('\n')[0];
    }
  };
  for (const k of keys) for (let i = 0; i < warmup && !st[k].error; i++) await call(k, false);
  for (let i = 0; i < runs; i++) {
    const ks = live();
    for (let j = 0; j < ks.length; j++) await call(ks[(i + j) % ks.length], true);
  }
  return Object.fromEntries(keys.map((k) => {
    const { times, probed, error, out } = st[k];
    return [k, error ? { error } : summary(times, impls[k].probe && probed, out)];
  }));
}

/** The largest relative difference between two flat result lists (relative to max |b|). */
export function maxRelDiff(as, bs) {
  if (as.length !== bs.length) return Infinity;
  let worst = 0;
  for (let j = 0; j < as.length; j++) {
    const a = as[j];
    const b = bs[j];
    if (a.length !== b.length) return Infinity;
    let scale = 1e-30;
    for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(Number(b[i])));
    for (let i = 0; i < a.length; i++) {
      const d = Math.abs(Number(a[i]) - Number(b[i])) / scale;
      // NaN where the other is not counts as the worst difference.
      worst = Number.isNaN(d) ? (Number.isNaN(Number(a[i])) && Number.isNaN(Number(b[i])) ? worst : Infinity) : Math.max(worst, d);
    }
  }
  return worst;
}

/** The fraction of elements that differ at all (for integer results such as escape counts). */
export function mismatchFraction(as, bs) {
  if (as.length !== bs.length) return 1;
  let bad = 0;
  let total = 0;
  for (let j = 0; j < as.length; j++) {
    if (as[j].length !== bs[j].length) return 1;
    for (let i = 0; i < as[j].length; i++) bad += Number(as[j][i]) !== Number(bs[j][i]) ? 1 : 0;
    total += as[j].length;
  }
  return total ? bad / total : 0;
}

/** How far `out` is from `ref`: mismatch fraction for integer results, else relative difference. */
export function agreement(out, ref) {
  const isInt = ref.every((r) => r instanceof Int32Array);
  return { isInt, agree: isInt ? mismatchFraction(out, ref) : maxRelDiff(out, ref) };
}
