// Share links: the playground's state as deflate-compressed, base64url-encoded JSON in the URL
// fragment (`#s=...`), so a link carries the whole program and needs no server.

function toBase64Url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function encodeState(source, entry, backend, args) {
  const json = JSON.stringify({ source, entry, backend, args });
  const packed = await pipe(new TextEncoder().encode(json), new CompressionStream('deflate-raw'));
  return 's=' + toBase64Url(packed);
}

// The state in a fragment (with or without its '#'), or null when there is none or it is damaged.
export async function decodeState(fragment) {
  const m = /^#?s=([A-Za-z0-9_-]+)$/.exec(fragment || '');
  if (!m) return null;
  try {
    const bytes = await pipe(fromBase64Url(m[1]), new DecompressionStream('deflate-raw'));
    const st = JSON.parse(new TextDecoder().decode(bytes));
    return typeof st.source === 'string' ? st : null;
  } catch {
    return null;
  }
}

// A 2-D array of numbers as a heatmap image (a data: URL), scaled between its minimum and maximum.
export function heatmap(rows, cols, data) {
  const canvas = document.createElement('canvas');
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(cols, rows);
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of data) {
    if (Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  const span = hi > lo ? hi - lo : 1;
  for (let k = 0; k < rows * cols; k++) {
    const t = Number.isFinite(data[k]) ? (data[k] - lo) / span : 0;
    // A dark-blue → yellow ramp.
    img.data[4 * k] = Math.round(255 * Math.min(1, 2 * t));
    img.data[4 * k + 1] = Math.round(255 * t);
    img.data[4 * k + 2] = Math.round(255 * (0.5 - 0.5 * t));
    img.data[4 * k + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return canvas.toDataURL();
}
