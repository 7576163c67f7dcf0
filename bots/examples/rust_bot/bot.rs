// A Palaestra bot in Rust, standard library only: the line protocol (docs/PROTOCOL.md) on stdin
// and stdout. It answers `hello` with `ready`, every `act` with option 0 (the safe default) and
// exits on `bye`. Build it first, the arena never compiles: rustc -O -o bot bot.rs
use std::io::BufRead;

// The number after "key": in one of the referee's lines, which are compact JSON.
fn number(line: &str, key: &str) -> Option<u64> {
    let pattern = format!("\"{key}\":");
    let start = line.find(&pattern)? + pattern.len();
    let digits: String = line[start..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin is the referee's pipe");
        // Every message begins with its type; an act with {"type":"act","id":N,...
        if line.starts_with(r#"{"type":"hello""#) {
            // println! sends each line at once: Rust's stdout is line-buffered, even to a pipe.
            println!(r#"{{"type":"ready","name":"rust_bot","author":"Palaestra examples"}}"#);
        } else if line.starts_with(r#"{"type":"act""#) {
            let id = number(&line, "id").expect("an act carries its id");
            println!(r#"{{"type":"action","id":{id},"choice":0}}"#);
        } else if line.starts_with(r#"{"type":"bye""#) {
            break;
        }
    }
}
