fn main() { println!("bot"); }
