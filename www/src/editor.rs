//! The bridge to the code editor: CodeMirror 6, bundled from www/js/editor.js into dist/editor.js
//! and exposed by index.html as the global `OghamEditor` before the app starts.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// One mounted editor (see `create` in www/js/editor.js).
    pub type Editor;

    #[wasm_bindgen(js_namespace = OghamEditor, js_name = create)]
    fn create_raw(parent: &web_sys::HtmlElement, doc: &str, on_change: &JsValue) -> Editor;

    /// Replace the whole text; the change is not reported back as an edit.
    #[wasm_bindgen(method, js_name = setText)]
    pub fn set_text(this: &Editor, text: &str);

    #[wasm_bindgen(method, js_name = setDiagnostics)]
    fn set_diagnostics_raw(this: &Editor, diags: &Array);

    /// Put the cursor on a 1-based line and focus the editor.
    #[wasm_bindgen(method)]
    pub fn goto(this: &Editor, line: u32);
}

/// One underline: byte offsets into the source, the message and the hint.
pub struct Mark<'a> {
    pub start: u32,
    pub end: u32,
    pub message: &'a str,
    pub phase: &'a str,
    pub hint: Option<&'a str>,
}

/// Mount an editor in `parent`; `on_change` gets the whole text after every user edit.
pub fn create(
    parent: &web_sys::HtmlElement,
    doc: &str,
    on_change: impl FnMut(String) + 'static,
) -> Editor {
    // The editor lives as long as the page: its callback is never freed.
    let cb = Closure::<dyn FnMut(String)>::new(on_change).into_js_value();
    create_raw(parent, doc, &cb)
}

impl Editor {
    /// Underline `marks` (replacing the previous ones).
    pub fn set_diagnostics(&self, marks: &[Mark]) {
        let arr = Array::new();
        for m in marks {
            let o = Object::new();
            let set = |k: &str, v: JsValue| {
                let _ = Reflect::set(&o, &k.into(), &v);
            };
            set("start", m.start.into());
            set("end", m.end.into());
            set("message", m.message.into());
            set("phase", m.phase.into());
            set("hint", m.hint.map_or(JsValue::NULL, JsValue::from));
            arr.push(&o);
        }
        self.set_diagnostics_raw(&arr);
    }
}
