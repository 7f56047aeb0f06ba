//! Futhark-format test blocks (`-- ==`, `entry:`, `input { } output { }`, `error:`, ...), parsed from
//! the comments of a `.fut` file.
