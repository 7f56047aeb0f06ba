#!/usr/bin/env bash
# Builds the playground into www/dist/: the compiler package (web/build.sh), the leptos app for
# wasm32 through wasm-bindgen, the code editor (CodeMirror, bundled by esbuild) and the static
# files. Serve it with `ogham serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-target}"
web/build.sh
cargo build -p ogham-playground --target wasm32-unknown-unknown --profile wasm-release
rm -rf www/dist
mkdir -p www/dist/ogham/pkg
wasm-bindgen --target web --no-typescript --out-dir www/dist/app \
  "$target_dir/wasm32-unknown-unknown/wasm-release/ogham_playground.wasm"
if [ ! -x node_modules/.bin/esbuild ]; then
  echo "www/build.sh: node_modules/.bin/esbuild is missing: run npm ci in the repository root" >&2
  exit 1
fi
node_modules/.bin/esbuild www/js/editor.js --bundle --format=esm --minify --log-level=warning \
  --outfile=www/dist/editor.js
cp www/index.html www/style.css www/worker.js www/dist/
cp web/index.js web/threads.js web/package.json www/dist/ogham/
cp web/pkg/ogham_web.js web/pkg/ogham_web_bg.wasm web/pkg/ogham.mjs web/pkg/worker.mjs www/dist/ogham/pkg/
# The service worker, with the list of every file it caches for offline use.
(
  cd www/dist
  printf 'const FILES = [\n  "./",\n'
  find . -type f ! -name 'sw.js*' | sort | sed 's|^\./\(.*\)$|  "./\1",|'
  printf '];\n\n'
  cat ../sw.js
) > www/dist/sw.js.tmp
mv www/dist/sw.js.tmp www/dist/sw.js
echo "www/dist: the playground is built (serve it with: cargo run -p ogham-cli -- serve)"
