//! The bridge to the compiler's Web Worker (worker.js). The worker and its message handler live
//! in thread-locals (JS objects are not `Send`, so they cannot sit in signals); `restart`
//! terminates a worker stuck in a runaway program and starts a fresh one with the same handler.

use std::cell::RefCell;

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    static HANDLER: RefCell<Option<Closure<dyn FnMut(MessageEvent)>>> = const { RefCell::new(None) };
}

fn spawn() -> Option<Worker> {
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    let w = Worker::new_with_options("worker.js", &opts).ok()?;
    HANDLER.with(|h| {
        if let Some(h) = h.borrow().as_ref() {
            w.set_onmessage(Some(h.as_ref().unchecked_ref()));
        }
    });
    Some(w)
}

/// Start the worker; `on_message` receives every message's data.
pub fn start(on_message: impl Fn(JsValue) + 'static) {
    let h = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| on_message(ev.data()));
    HANDLER.with(|slot| *slot.borrow_mut() = Some(h));
    let w = spawn();
    WORKER.with(|slot| *slot.borrow_mut() = w);
}

/// Terminate the worker (a runaway program with it) and start another.
pub fn restart() {
    WORKER.with(|slot| {
        if let Some(w) = slot.borrow_mut().take() {
            w.terminate();
        }
        *slot.borrow_mut() = spawn();
    });
}

pub fn post(msg: &JsValue) {
    WORKER.with(|slot| {
        if let Some(w) = slot.borrow().as_ref() {
            let _ = w.post_message(msg);
        }
    });
}

/// A message object from (key, value) pairs.
pub fn message(fields: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}
