//! Hand-built IR programs for every construct, operator family and run-time error.

mod arrays;
mod builder;
mod control;
mod entry;
mod perf;
mod props;
mod soacs;
mod vector;
