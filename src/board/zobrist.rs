//! Zobrist keys: one random 64-bit number per (piece, square), castling state, en passant file
//! and side to move. The generator is seeded with a constant, so the keys (and with them every
//! search that touches the transposition table) are the same on every run and machine.

use super::types::Piece;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::sync::LazyLock;

pub struct Keys {
    pub pieces: [[u64; 128]; Piece::COUNT],
    pub castling: [u64; 16],
    pub en_passant_file: [u64; 8],
    pub black_to_move: u64,
}

const SEED: u64 = 0x05E7_1E1C_4E55;

pub static KEYS: LazyLock<Keys> = LazyLock::new(|| {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut keys =
        Keys { pieces: [[0; 128]; Piece::COUNT], castling: [0; 16], en_passant_file: [0; 8], black_to_move: 0 };
    for table in keys.pieces.iter_mut() {
        table.iter_mut().for_each(|k| *k = rng.next_u64());
    }
    keys.castling.iter_mut().for_each(|k| *k = rng.next_u64());
    keys.en_passant_file.iter_mut().for_each(|k| *k = rng.next_u64());
    keys.black_to_move = rng.next_u64();
    keys
});
