//! Starter bot for Entelect Challenge 2017 Battleships (Rust, standard library only).
//!
//! The engine runs `target/release/rust_sample_bot <player key> <round folder>`
//! once per round. The bot reads state.json from the round folder and writes
//! place.txt (phase 1) or command.txt (phase 2) there. Replace choose_shot
//! with your own strategy.
mod json;

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::process::ExitCode;

use json::Value;

const SHIPS: [(&str, i64); 5] = [("Battleship", 4), ("Carrier", 5), ("Cruiser", 3), ("Destroyer", 2), ("Submarine", 3)];
const DIRECTIONS: [(&str, i64, i64); 4] = [("North", 0, 1), ("East", 1, 0), ("South", 0, -1), ("West", -1, 0)];

/// A small seeded generator (splitmix64): the same state gives the same moves.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// below returns a number in 0..n.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// FNV-1a, to seed the generator from the player key and the state.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.iter() {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Places every ship at a random legal start and direction.
fn place_ships(n: i64, rng: &mut Rng) -> String {
    let mut taken: HashSet<(i64, i64)> = HashSet::new();
    let mut out = String::new();
    for (name, length) in SHIPS {
        loop {
            let x = rng.below(n as usize) as i64;
            let y = rng.below(n as usize) as i64;
            let (direction, dx, dy) = DIRECTIONS[rng.below(DIRECTIONS.len())];
            let cells: Vec<(i64, i64)> = (0..length).map(|i| (x + i * dx, y + i * dy)).collect();
            if cells.iter().all(|&(cx, cy)| cx >= 0 && cy >= 0 && cx < n && cy < n && !taken.contains(&(cx, cy))) {
                taken.extend(cells);
                out.push_str(&format!("{} {} {} {}\n", name, x, y, direction));
                break;
            }
        }
    }
    out
}

/// Fires a single shot (code 1) at a random cell not shot before.
fn choose_shot(state: &Value, rng: &mut Rng) -> (i64, i64, i64) {
    let unknown: Vec<&Value> = state
        .get("OpponentMap")
        .get("Cells")
        .items()
        .iter()
        .filter(|c| !c.get("Damaged").as_bool() && !c.get("Missed").as_bool())
        .collect();
    if unknown.is_empty() {
        return (0, 0, 0);
    }
    let cell = unknown[rng.below(unknown.len())];
    (1, cell.get("X").as_i64(), cell.get("Y").as_i64())
}

fn run(key: &str, folder: &Path) -> Result<(), String> {
    let raw = fs::read(folder.join("state.json")).map_err(|e| format!("read state.json: {}", e))?;
    let text = String::from_utf8_lossy(&raw);
    let state = json::parse(&text).map_err(|e| format!("state.json: {}", e))?;
    // Seeded from the state, so the same match plays the same way again.
    let mut rng = Rng(fnv1a(&[key.as_bytes(), &raw]));
    if state.get("Phase").as_i64() == 1 {
        let place = place_ships(state.get("MapDimension").as_i64(), &mut rng);
        return fs::write(folder.join("place.txt"), place).map_err(|e| format!("write place.txt: {}", e));
    }
    let (code, x, y) = choose_shot(&state, &mut rng);
    fs::write(folder.join("command.txt"), format!("{},{},{}\n", code, x, y))
        .map_err(|e| format!("write command.txt: {}", e))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: rust_sample_bot <player key> <round folder>");
        return ExitCode::from(2);
    }
    match run(&args[1], Path::new(&args[2])) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", e);
            ExitCode::FAILURE
        }
    }
}
