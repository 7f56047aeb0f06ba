//! The Ogham playground: a leptos client-side app. The compiler (the `ogham` npm package built
//! from web/) runs in a Web Worker (worker.js), so compiling on every edit never blocks the page
//! and Stop terminates a runaway program. Every control and pane carries a `data-testid`.

mod docs;
mod editor;
mod examples;
mod worker;

use js_sys::{Array, Object, Reflect};
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/share.js")]
extern "C" {
    #[wasm_bindgen(js_name = encodeState)]
    fn encode_state(source: &str, entry: &str, backend: &str, args: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = decodeState)]
    fn decode_state(fragment: &str) -> js_sys::Promise;
    fn heatmap(rows: u32, cols: u32, data: &js_sys::Float64Array) -> String;
}

/// The example shown when the page opens without a share link.
const FIRST_EXAMPLE: &str = "automap/vector_add";
/// Output longer than this is cut until the user asks for all of it.
const OUTPUT_LIMIT: usize = 4000;

fn get(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn get_str(o: &JsValue, k: &str) -> Option<String> {
    get(o, k).as_string()
}

fn get_f64(o: &JsValue, k: &str) -> Option<f64> {
    get(o, k).as_f64()
}

fn array(v: JsValue) -> Vec<JsValue> {
    v.dyn_into::<Array>().map(|a| a.iter().collect()).unwrap_or_default()
}

#[derive(Clone, Debug, Default, PartialEq)]
struct DiagView {
    message: String,
    phase: String,
    line: Option<u32>,
    col: Option<u32>,
    /// Byte offsets into the source.
    start: Option<u32>,
    end: Option<u32>,
    hint: Option<String>,
}

impl DiagView {
    fn from_js(d: &JsValue) -> DiagView {
        let span = get(d, "span");
        DiagView {
            message: get_str(d, "message").unwrap_or_default(),
            phase: get_str(d, "phase").unwrap_or_else(|| "error".into()),
            line: get_f64(&span, "line").map(|x| x as u32),
            col: get_f64(&span, "col").map(|x| x as u32),
            start: get_f64(&span, "start").map(|x| x as u32),
            end: get_f64(&span, "end").map(|x| x as u32),
            hint: get_str(d, "hint"),
        }
    }

    fn render(&self) -> String {
        match (self.line, self.col) {
            (Some(l), Some(c)) => format!("line {l}:{c}: {}: {}", self.phase, self.message),
            _ => format!("{}: {}", self.phase, self.message),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
struct CompileView {
    diagnostics: Vec<DiagView>,
    elaborated: Option<String>,
    ir: Option<String>,
    derivative: Vec<(String, String)>,
    wasm: Option<String>,
    wgsl: Option<String>,
    entries: Vec<String>,
    timings: Vec<(String, f64)>,
    total: f64,
}

impl CompileView {
    fn from_js(msg: &JsValue) -> CompileView {
        let r = get(msg, "result");
        let stages = get(&r, "stages");
        let der = get(&stages, "derivative");
        let derivative = if der.is_object() {
            Object::keys(der.unchecked_ref::<Object>())
                .iter()
                .filter_map(|k| {
                    let k = k.as_string()?;
                    Some((k.clone(), get_str(&der, &k)?))
                })
                .collect()
        } else {
            vec![]
        };
        let t = get(&r, "timings");
        let timings = if t.is_object() {
            Object::keys(t.unchecked_ref::<Object>())
                .iter()
                .filter_map(|k| {
                    let k = k.as_string()?;
                    Some((k.clone(), get_f64(&t, &k)?))
                })
                .collect()
        } else {
            vec![]
        };
        CompileView {
            diagnostics: array(get(&r, "diagnostics")).iter().map(DiagView::from_js).collect(),
            elaborated: get_str(&stages, "elaborated"),
            ir: get_str(&stages, "ir"),
            derivative,
            wasm: get_str(&stages, "wasm"),
            wgsl: get_str(&stages, "wgsl"),
            entries: array(get(&r, "entries")).iter().filter_map(|e| e.as_string()).collect(),
            timings,
            total: get_f64(msg, "total").unwrap_or(0.0),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Plot {
    Line(String),
    Image(String),
}

#[derive(Clone, Debug, Default, PartialEq)]
struct RunView {
    status: String,
    text: String,
    plots: Vec<Plot>,
    diagnostics: Vec<DiagView>,
    ms: Option<f64>,
    backend: String,
}

/// The SVG polyline points of a line plot of `ys` in a `w`×`h` box.
fn line_points(ys: &[f64], w: f64, h: f64) -> String {
    let finite = ys.iter().copied().filter(|y| y.is_finite());
    let lo = finite.clone().fold(f64::INFINITY, f64::min);
    let hi = finite.fold(f64::NEG_INFINITY, f64::max);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let n = ys.len().max(2) - 1;
    ys.iter()
        .enumerate()
        .map(|(k, y)| {
            let y = if y.is_finite() { (y - lo) / span } else { 0.0 };
            format!("{:.1},{:.1}", k as f64 / n as f64 * w, h - 4.0 - y * (h - 8.0))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl RunView {
    fn from_js(msg: &JsValue, backend: &str) -> RunView {
        let ms = get_f64(msg, "ms");
        if get(msg, "ok").as_bool() != Some(true) {
            let diagnostics: Vec<DiagView> =
                array(get(msg, "diagnostics")).iter().map(DiagView::from_js).collect();
            return RunView {
                status: "error".into(),
                text: diagnostics.iter().map(DiagView::render).collect::<Vec<_>>().join("\n"),
                diagnostics,
                ms,
                backend: backend.into(),
                ..Default::default()
            };
        }
        let mut text = String::new();
        let mut plots = Vec::new();
        for r in array(get(msg, "results")) {
            text.push_str(&get_str(&r, "text").unwrap_or_default());
            text.push('\n');
            let shape: Vec<u32> = array(get(&r, "shape"))
                .iter()
                .filter_map(|d| d.as_f64())
                .map(|d| d as u32)
                .collect();
            let data = get(&r, "data").dyn_into::<js_sys::Float64Array>().ok();
            let Some(data) = data else { continue };
            match shape[..] {
                [n] if n >= 2 => plots.push(Plot::Line(line_points(&data.to_vec(), 400.0, 120.0))),
                [rows, cols] if rows >= 2 && cols >= 2 => {
                    plots.push(Plot::Image(heatmap(rows, cols, &data)))
                }
                _ => {}
            }
        }
        RunView {
            status: "done".into(),
            text,
            plots,
            ms,
            backend: backend.into(),
            ..Default::default()
        }
    }
}

fn location_hash() -> String {
    window().location().hash().unwrap_or_default()
}

#[component]
fn App() -> impl IntoView {
    let source = RwSignal::new(String::new());
    let entry = RwSignal::new(String::new());
    let args = RwSignal::new(String::new());
    let backend = RwSignal::new("wasm".to_string());
    let example = RwSignal::new(String::new());
    let compiled = RwSignal::new(CompileView::default());
    let ran = RwSignal::new(RunView { status: "idle".into(), ..Default::default() });
    let tab = RwSignal::new("elaborated");
    let der_entry = RwSignal::new(String::new());
    let der_mode = RwSignal::new("vjp".to_string());
    let random_size = RwSignal::new("8".to_string());
    let random_seed = StoredValue::new(0u32);
    let editor_box = NodeRef::<leptos::html::Div>::new();
    let editor = StoredValue::new_local(None::<editor::Editor>);
    let doc_index = RwSignal::new(0usize);
    let show_all = RwSignal::new(false);
    let share_url = RwSignal::new(String::new());
    let compile_id = StoredValue::new(0u32);
    let run_id = StoredValue::new(0u32);
    let compiling = RwSignal::new(false);

    let load_example = move |name: &str| {
        if let Some(src) = examples::find(name) {
            let (e, a) = examples::defaults(src);
            example.set(name.to_string());
            entry.set(e);
            args.set(a);
            source.set(src.to_string());
        }
    };

    let post_compile = move || {
        let id = compile_id.get_value() + 1;
        compile_id.set_value(id);
        compiling.set(true);
        worker::post(&worker::message(&[
            ("kind", "compile".into()),
            ("id", id.into()),
            ("source", source.get_untracked().into()),
            ("derivative", der_mode.get_untracked().into()),
        ]));
    };

    worker::start(move |msg: JsValue| match get_str(&msg, "kind").as_deref() {
        Some("compiled") => {
            if get_f64(&msg, "id") == Some(compile_id.get_value() as f64) {
                compiling.set(false);
                compiled.set(CompileView::from_js(&msg));
            }
        }
        Some("ran") => {
            if get_f64(&msg, "id") == Some(run_id.get_value() as f64) {
                ran.set(RunView::from_js(&msg, &backend.get_untracked()));
                show_all.set(false);
            }
        }
        Some("random") => match get_str(&msg, "args") {
            Some(a) => args.set(a),
            None => {
                let ds: Vec<DiagView> =
                    array(get(&msg, "diagnostics")).iter().map(DiagView::from_js).collect();
                ran.set(RunView {
                    status: "error".into(),
                    text: ds.iter().map(DiagView::render).collect::<Vec<_>>().join("\n"),
                    diagnostics: ds,
                    ..Default::default()
                });
            }
        },
        Some("fatal") => ran.set(RunView {
            status: "error".into(),
            text: get_str(&msg, "message").unwrap_or_default(),
            ..Default::default()
        }),
        _ => {}
    });

    // Compile on every edit (and when the derivative's mode changes), debounced.
    Effect::new(move |_| {
        source.track();
        der_mode.track();
        let id = compile_id.get_value();
        set_timeout(
            move || {
                if compile_id.get_value() == id {
                    post_compile();
                }
            },
            Duration::from_millis(150),
        );
    });

    let do_run = move || {
        let id = run_id.get_value() + 1;
        run_id.set_value(id);
        ran.set(RunView { status: "running".into(), ..Default::default() });
        worker::post(&worker::message(&[
            ("kind", "run".into()),
            ("id", id.into()),
            ("source", source.get_untracked().into()),
            ("entry", entry.get_untracked().into()),
            ("args", args.get_untracked().into()),
            ("backend", backend.get_untracked().into()),
        ]));
    };

    let do_random = move || {
        let seed = random_seed.get_value() + 1;
        random_seed.set_value(seed);
        let size = random_size.get_untracked().trim().parse::<u32>().unwrap_or(8);
        worker::post(&worker::message(&[
            ("kind", "random".into()),
            ("source", source.get_untracked().into()),
            ("entry", entry.get_untracked().into()),
            ("size", size.into()),
            ("seed", seed.into()),
        ]));
    };

    // The editor mounts once its box is in the page; from then on it and `source` follow each
    // other: user edits set `source`, and a new `source` (an example, a share link) is shown.
    Effect::new(move |_| {
        let Some(el) = editor_box.get() else { return };
        if editor.with_value(Option::is_some) {
            return;
        }
        let ed = editor::create(&el, &source.get_untracked(), move |text| source.set(text));
        editor.set_value(Some(ed));
    });
    Effect::new(move |_| {
        let text = source.get();
        editor.with_value(|e| {
            if let Some(e) = e {
                e.set_text(&text)
            }
        });
    });
    Effect::new(move |_| {
        compiled.with(|c| {
            let marks: Vec<editor::Mark> = c
                .diagnostics
                .iter()
                .filter_map(|d| {
                    Some(editor::Mark {
                        start: d.start?,
                        end: d.end.unwrap_or(d.start?),
                        message: &d.message,
                        phase: &d.phase,
                        hint: d.hint.as_deref(),
                    })
                })
                .collect();
            editor.with_value(|e| {
                if let Some(e) = e {
                    e.set_diagnostics(&marks)
                }
            });
        });
    });
    let goto_line = move |line: u32| {
        editor.with_value(|e| {
            if let Some(e) = e {
                e.goto(line)
            }
        })
    };

    let do_stop = move || {
        worker::restart();
        run_id.set_value(run_id.get_value() + 1);
        ran.set(RunView { status: "stopped".into(), text: "stopped".into(), ..Default::default() });
        post_compile();
    };

    let do_share = move || {
        let p = encode_state(
            &source.get_untracked(),
            &entry.get_untracked(),
            &backend.get_untracked(),
            &args.get_untracked(),
        );
        leptos::task::spawn_local(async move {
            if let Ok(frag) = wasm_bindgen_futures::JsFuture::from(p).await {
                let frag = frag.as_string().unwrap_or_default();
                let loc = window().location();
                let _ = loc.set_hash(&frag);
                share_url.set(loc.href().unwrap_or_default());
            }
        });
    };

    // Start from a share link when the page has one, else from the first example.
    leptos::task::spawn_local(async move {
        let st = wasm_bindgen_futures::JsFuture::from(decode_state(&location_hash())).await;
        match st.ok().filter(|s| s.is_object()) {
            Some(s) => {
                entry.set(get_str(&s, "entry").unwrap_or_default());
                args.set(get_str(&s, "args").unwrap_or_default());
                let b = get_str(&s, "backend").unwrap_or_default();
                if b == "wasm" || b == "interp" || b == "webgpu" {
                    backend.set(b);
                }
                source.set(get_str(&s, "source").unwrap_or_default());
            }
            None => load_example(FIRST_EXAMPLE),
        }
    });

    // The page's lifetime: the listener is never removed.
    std::mem::forget(window_event_listener(leptos::ev::keydown, move |ev| {
        if (ev.ctrl_key() || ev.meta_key()) && ev.key() == "Enter" {
            ev.prevent_default();
            do_run();
        }
    }));

    // The derivative pane follows the chosen entry point unless the user picks another.
    Effect::new(move |_| {
        let e = entry.get();
        let c = compiled.get();
        if c.derivative.iter().any(|(n, _)| *n == e) {
            der_entry.set(e);
        } else if let Some((n, _)) = c.derivative.first() {
            if !c.derivative.iter().any(|(m, _)| *m == der_entry.get_untracked()) {
                der_entry.set(n.clone());
            }
        }
    });

    let gpu = js_sys::Reflect::has(&window().navigator(), &"gpu".into()).unwrap_or(false);
    let gpu_note = if gpu {
        "WebGPU runs the program's WGSL kernels on this browser's GPU (f64 programs need Wasm SIMD or the interpreter)."
    } else {
        "WebGPU is not available in this browser: runs use the Wasm SIMD backend or the interpreter."
    };

    let pane_text = move |which: &'static str| {
        compiled.with(|c| match which {
            "ir" => c.ir.clone(),
            "wasm" => c.wasm.clone(),
            _ => None,
        })
    };
    let placeholder = move || {
        if compiled.with(|c| !c.diagnostics.is_empty()) {
            "(the program has errors: see Diagnostics)".to_string()
        } else {
            "(compiling...)".to_string()
        }
    };

    let tab_button = move |id: &'static str, label: &'static str| {
        view! {
            <button class="tab" class:active=move || tab.get() == id on:click=move |_| tab.set(id)>
                {label}
            </button>
        }
    };

    view! {
        <header>
            <h1>"Ogham"</h1>
            <label>"Example "
                <select data-testid="examples" prop:value=move || example.get()
                    on:change=move |ev| load_example(&event_target_value(&ev))>
                    <option value="" disabled=true>"choose an example"</option>
                    {examples::EXAMPLES.iter().map(|(n, _)| view! { <option value=*n>{*n}</option> }).collect_view()}
                </select>
            </label>
            <label>"Backend "
                <select data-testid="backend" prop:value=move || backend.get()
                    on:change=move |ev| backend.set(event_target_value(&ev))>
                    <option value="webgpu" disabled=!gpu title=gpu_note>{if gpu { "WebGPU" } else { "WebGPU (not available)" }}</option>
                    <option value="wasm">"Wasm SIMD"</option>
                    <option value="interp">"Interpreter"</option>
                </select>
            </label>
            <label>"Entry "
                <input data-testid="entry" size="10" prop:value=move || entry.get()
                    on:input=move |ev| entry.set(event_target_value(&ev))
                    list="entries"/>
                <datalist id="entries">
                    {move || compiled.with(|c| c.entries.clone()).into_iter()
                        .map(|e| view! { <option value=e.clone()></option> }).collect_view()}
                </datalist>
            </label>
            <label class="args">"Arguments "
                <input data-testid="args" prop:value=move || args.get()
                    placeholder="Futhark values, e.g. [1f32, 2f32] 3f32"
                    on:input=move |ev| args.set(event_target_value(&ev))/>
            </label>
            <button data-testid="run" class="primary" title="Ctrl+Enter" on:click=move |_| do_run()>"Run"</button>
            <button data-testid="stop" on:click=move |_| do_stop()
                disabled=move || ran.with(|r| r.status != "running")>"Stop"</button>
            <button data-testid="random" title="random arguments of the entry point's types"
                on:click=move |_| do_random()>"Random"</button>
            <label title="every array dimension of random arguments">"size "
                <input data-testid="random-size" type="number" min="0" max="4096" size="4" class="size"
                    prop:value=move || random_size.get()
                    on:input=move |ev| random_size.set(event_target_value(&ev))/>
            </label>
            <button data-testid="share" on:click=move |_| do_share()>"Share"</button>
            <input data-testid="share-link" class="share-link" readonly=true
                prop:value=move || share_url.get() placeholder="share link"/>
        </header>
        <p class="note">{gpu_note}</p>
        <main>
            <section class="left">
                <div class="editor" node_ref=editor_box></div>
                <h2>"Diagnostics"</h2>
                <div data-testid="diagnostics" class="diagnostics">
                    {move || {
                        let ds = compiled.with(|c| c.diagnostics.clone());
                        if ds.is_empty() {
                            view! { <p class="ok">{move || if compiling.get() { "compiling..." } else { "no errors" }}</p> }.into_any()
                        } else {
                            ds.into_iter().map(|d| view! {
                                <div class="diag" data-line=d.line.map(|l| l.to_string()).unwrap_or_default()
                                    title="go to this line"
                                    on:click=move |_| if let Some(l) = d.line { goto_line(l) }>
                                    {d.render()}
                                    {d.hint.clone().map(|h| view! { <div class="hint">{h}</div> })}
                                </div>
                            }).collect_view().into_any()
                        }
                    }}
                </div>
            </section>
            <section class="right">
                <nav class="tabs">
                    {tab_button("elaborated", "Elaborated")}
                    {tab_button("ir", "Core IR")}
                    {tab_button("derivative", "Derivative")}
                    {tab_button("wgsl", "WGSL")}
                    {tab_button("wasm", "Wasm")}
                    {tab_button("docs", "Docs")}
                </nav>
                <div data-testid="pane-elaborated" class="pane" class:hidden=move || tab.get() != "elaborated">
                    {move || match compiled.with(|c| c.elaborated.clone()) {
                        None => view! { <pre>{placeholder()}</pre> }.into_any(),
                        Some(t) => view! { <pre>{t.lines().map(|l| {
                            let cls = if l.starts_with("-- inserted") { "inserted" } else { "" };
                            let line = format!("{l}\n");
                            view! { <span class=cls title={if cls.is_empty() { "" } else { "AUTOMAP inserted this map/rep so the ranks of the application line up" }}>{line}</span> }
                        }).collect_view()}</pre> }.into_any(),
                    }}
                </div>
                <div data-testid="pane-ir" class="pane" class:hidden=move || tab.get() != "ir">
                    <pre>{move || pane_text("ir").unwrap_or_else(placeholder)}</pre>
                </div>
                <div data-testid="pane-derivative" class="pane" class:hidden=move || tab.get() != "derivative">
                    <label>"Entry point "
                        <select data-testid="derivative-entry" prop:value=move || der_entry.get() on:change=move |ev| der_entry.set(event_target_value(&ev))>
                            {move || compiled.with(|c| c.derivative.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>())
                                .into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>" Mode "
                        <select data-testid="derivative-mode" prop:value=move || der_mode.get() on:change=move |ev| der_mode.set(event_target_value(&ev))>
                            <option value="vjp">"vjp (reverse)"</option>
                            <option value="jvp">"jvp (forward)"</option>
                        </select>
                    </label>
                    <p class="note">{move || if der_mode.get() == "jvp" {
                        "The jvp of the entry point with respect to all of its parameters: the arguments, then one tangent per parameter. Core IR after AD and simplification."
                    } else {
                        "The vjp of the entry point with respect to all of its parameters: the arguments, then one adjoint per result. Core IR after AD and simplification."
                    }}</p>
                    <pre>{move || {
                        let e = der_entry.get();
                        compiled.with(|c| c.derivative.iter().find(|(n, _)| *n == e).map(|(_, t)| t.clone()))
                            .unwrap_or_else(placeholder)
                    }}</pre>
                </div>
                <div data-testid="pane-wgsl" class="pane" class:hidden=move || tab.get() != "wgsl">
                    <pre>{move || compiled.with(|c| c.wgsl.clone()).unwrap_or_else(placeholder)}</pre>
                </div>
                <div data-testid="pane-wasm" class="pane" class:hidden=move || tab.get() != "wasm">
                    <pre>{move || pane_text("wasm").unwrap_or_else(placeholder)}</pre>
                </div>
                <div data-testid="pane-docs" class="pane docs" class:hidden=move || tab.get() != "docs"
                    on:click=move |ev| {
                        let target = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
                        if let Some(src) = target.as_ref().and_then(docs::program_of_button) {
                            let (e, a) = examples::defaults(&src);
                            example.set(String::new());
                            entry.set(e);
                            args.set(a);
                            source.set(src);
                        }
                    }>
                    <label>"Document "
                        <select data-testid="docs" prop:value=move || doc_index.get().to_string()
                            on:change=move |ev| doc_index.set(event_target_value(&ev).parse().unwrap_or(0))>
                            {docs::DOCS.iter().enumerate().map(|(k, (title, _))| view! { <option value=k.to_string()>{*title}</option> }).collect_view()}
                        </select>
                    </label>
                    <article inner_html=move || docs::DOCS.get(doc_index.get()).map_or("", |d| d.1)></article>
                </div>
                <h2>"Output"</h2>
                <div data-testid="output" class="output" data-status=move || ran.with(|r| r.status.clone())>
                    {move || {
                        let r = ran.get();
                        let long = r.text.len() > OUTPUT_LIMIT && !show_all.get();
                        let shown = if long {
                            let mut cut = OUTPUT_LIMIT;
                            while !r.text.is_char_boundary(cut) { cut -= 1; }
                            format!("{}...", &r.text[..cut])
                        } else {
                            r.text.clone()
                        };
                        let total = r.text.len();
                        view! {
                            <pre class={if r.status == "error" { "error" } else { "" }}>{shown}</pre>
                            {long.then(|| view! { <button on:click=move |_| show_all.set(true)>{format!("show all ({total} characters)")}</button> })}
                            {r.plots.iter().map(|p| match p {
                                Plot::Line(pts) => view! {
                                    <svg class="plot" viewBox="0 0 400 120" width="400" height="120">
                                        <polyline points=pts.clone() fill="none" stroke="#2b6cb0" stroke-width="1.5"/>
                                    </svg>
                                }.into_any(),
                                Plot::Image(url) => view! { <img class="heatmap" src=url.clone()/> }.into_any(),
                            }).collect_view()}
                        }
                    }}
                </div>
                <h2>"Timings"</h2>
                <table data-testid="timings" class="timings">
                    {move || compiled.with(|c| c.timings.iter().map(|(s, ms)| view! {
                        <tr><td>{s.clone()}</td><td>{format!("{ms:.2} ms")}</td></tr>
                    }).collect_view())}
                    <tr><td>"compile (total)"</td><td>{move || format!("{:.2} ms", compiled.with(|c| c.total))}</td></tr>
                    <tr><td>"run"</td><td>{move || ran.with(|r| r.ms.map(|m| format!("{m:.2} ms ({})", r.backend)).unwrap_or_else(|| "-".into()))}</td></tr>
                </table>
            </section>
        </main>
    }
}

#[wasm_bindgen(start)]
pub fn start() {
    leptos::mount::mount_to_body(App);
}
