// The playground's code editor: CodeMirror 6 with Ogham/Futhark highlighting, line numbers and the
// compiler's diagnostics underlined at their spans (message and hint on hover). www/build.sh
// bundles this file with esbuild into dist/editor.js; index.html exposes it as `OghamEditor` for
// the leptos app (www/src/editor.rs).
import { EditorState, Annotation } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import {
  StreamLanguage, syntaxHighlighting, HighlightStyle, bracketMatching, indentUnit,
} from '@codemirror/language';
import { setDiagnostics, lintGutter } from '@codemirror/lint';
import { tags as t } from '@lezer/highlight';

const KEYWORDS = new Set([
  'def', 'entry', 'let', 'in', 'if', 'then', 'else', 'loop', 'for', 'while', 'do', 'with', 'type',
  'module', 'open', 'import', 'local', 'val', 'match', 'case', 'assert', 'include',
]);
const TYPES = new Set([
  'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f16', 'f32', 'f64', 'bool',
]);
const BUILTINS = new Set([
  'map', 'map2', 'map3', 'map4', 'map5', 'reduce', 'reduce_comm', 'scan', 'scatter', 'hist',
  'reduce_by_index', 'iota', 'replicate', 'rep', 'zip', 'zip3', 'unzip', 'unzip3', 'transpose',
  'flatten', 'unflatten', 'concat', 'rotate', 'reverse', 'length', 'copy', 'filter', 'partition',
  'jvp', 'vjp', 'jvp2', 'vjp2', 'tabulate', 'tabulate_2d', 'foldl', 'foldr', 'head', 'tail',
  'last', 'init', 'take', 'drop', 'split', 'sum', 'product', 'maximum', 'minimum', 'and', 'or',
  'any', 'all', 'id', 'const', 'flip', 'curry', 'uncurry', 'redomap', 'unflatten_3d',
  'unflatten_4d', 'flatten_3d', 'flatten_4d', 'scatter_2d', 'scatter_3d', 'reduce_by_index_2d',
  'reduce_by_index_3d', 'spread', 'partition2', 'zip2', 'unzip2', 'null', 'sized', 'manifest',
  'iterate', 'iterate_until', 'iterate_while', 'tabulate_3d', 'indices', 'zip4', 'zip5',
  'unzip4', 'unzip5', 'map1',
]);

// A stream tokenizer for the Futhark subset Ogham reads.
const ogham = StreamLanguage.define({
  name: 'ogham',
  startState: () => ({}),
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match('--')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^'(?:[^'\\]|\\.)'/)) return 'string';
    if (stream.match(/^(?:0x[0-9a-fA-F_]+|0b[01_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)(?:[iuf](?:8|16|32|64))?/)) {
      return 'number';
    }
    if (stream.match(/^(?:true|false)\b/)) return 'bool';
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_']*/);
    if (word) {
      const w = word[0];
      if (KEYWORDS.has(w)) return 'keyword';
      if (TYPES.has(w)) return 'typeName';
      if (BUILTINS.has(w)) return 'variableName.standard';
      return 'variableName';
    }
    if (stream.match(/^[-+*/%=<>!&|^.:\\@#~`?]+/)) return 'operator';
    if (stream.match(/^[()[\]{},]/)) return 'bracket';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '--' } },
});

const style = HighlightStyle.define([
  { tag: t.keyword, color: '#8959a8', fontWeight: 'bold' },
  { tag: t.typeName, color: '#3e999f' },
  { tag: t.standard(t.variableName), color: '#4271ae' },
  { tag: t.number, color: '#f5871f' },
  { tag: t.bool, color: '#f5871f' },
  { tag: t.string, color: '#718c00' },
  { tag: t.comment, color: '#8e908c', fontStyle: 'italic' },
  { tag: t.operator, color: '#3e999f' },
]);

// A change the app made (a new example, a share link): not echoed back to it as an edit.
const external = Annotation.define();

/** The editor's position of byte offset `byte` of `text` (UTF-8 offsets → UTF-16 positions). */
export function bytePos(text, byte) {
  let b = 0;
  let i = 0;
  while (i < text.length && b < byte) {
    const c = text.codePointAt(i);
    b += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    i += c >= 0x10000 ? 2 : 1;
  }
  return i;
}

/**
 * Mount an editor in `parent` showing `doc`; `onChange(text)` is called on every user edit.
 * The editable element carries `data-testid="editor"` and a `value` property with the text.
 */
export function create(parent, doc, onChange) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        bracketMatching(),
        highlightActiveLine(),
        indentUnit.of('  '),
        // Ctrl+Enter runs the program (the page's handler), so the editor leaves it alone.
        keymap.of([
          ...defaultKeymap.filter((b) => b.key !== 'Mod-Enter'),
          ...historyKeymap,
          indentWithTab,
        ]),
        ogham,
        syntaxHighlighting(style),
        lintGutter(),
        EditorView.contentAttributes.of({ 'data-testid': 'editor', 'aria-label': 'program source' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !u.transactions.some((tr) => tr.annotation(external))) {
            onChange(u.state.doc.toString());
          }
        }),
      ],
    }),
  });
  Object.defineProperty(view.contentDOM, 'value', {
    get: () => view.state.doc.toString(),
    set: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: String(text) } }),
  });
  return {
    text: () => view.state.doc.toString(),
    /** Replace the whole text (no-op when it is already `text`). */
    setText(text) {
      if (view.state.doc.toString() === text) return;
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        annotations: external.of(true),
      });
    },
    /** Underline `diags`: [{start, end, message, hint}] with byte offsets into the source. */
    setDiagnostics(diags) {
      const text = view.state.doc.toString();
      const len = view.state.doc.length;
      const list = [];
      for (const d of diags) {
        if (d.start == null) continue;
        let from = Math.min(bytePos(text, d.start), len);
        let to = Math.min(bytePos(text, Math.max(d.end, d.start)), len);
        // An empty span still marks one character, so the underline can be seen and hovered.
        if (to === from) {
          if (to < len) to += 1;
          else if (from > 0) from -= 1;
        }
        const message = d.hint ? `${d.message}\nhint: ${d.hint}` : d.message;
        list.push({ from, to, severity: 'error', message, source: d.phase });
      }
      view.dispatch(setDiagnostics(view.state, list));
    },
    /** Put the cursor at 1-based `line` and focus the editor. */
    goto(line) {
      const l = view.state.doc.line(Math.max(1, Math.min(line, view.state.doc.lines)));
      view.dispatch({ selection: { anchor: l.from }, scrollIntoView: true });
      view.focus();
    },
  };
}
