//! Reading program files, with errors phrased for the command line.

use std::path::Path;

/// The text of a program, or a message saying why it cannot be read.
pub fn read(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes)
        .map_err(|_| format!("cannot read {}: it is not UTF-8 text", path.display()))
}
