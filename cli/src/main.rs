//! `ogham`: run, test and inspect Ogham programs.

fn main() {
    eprintln!("ogham: not built yet");
    std::process::exit(2);
}
