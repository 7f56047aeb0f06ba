//! The Docs view: the user documentation (docs/guide.md, docs/cli.md), rendered to HTML at build
//! time (build.rs). Each program block carries an "Open in editor" button (`.open-code`).

include!(concat!(env!("OUT_DIR"), "/docs.rs"));

/// The program of the code block whose "Open in editor" button is `target`, if it is one.
pub fn program_of_button(target: &web_sys::Element) -> Option<String> {
    if !target.class_list().contains("open-code") {
        return None;
    }
    let block = target.closest(".code").ok()??;
    block.query_selector("pre").ok()??.text_content()
}
