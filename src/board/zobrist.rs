//! Zobrist keys: one random 64-bit number per (piece, square), castling state, en passant file
//! and side to move. They are computed at compile time from a fixed seed, so they are the same
//! on every run and machine, and make/unmake reads a plain table (a lazily built one would
//! check that it is initialised on every access, in the hottest code of the engine).

use super::types::Piece;

pub struct Keys {
    pub pieces: [[u64; 128]; Piece::COUNT],
    pub castling: [u64; 16],
    pub en_passant_file: [u64; 8],
    pub black_to_move: u64,
    /// By castling right and rook file: added for rights whose rook is not on the a- or
    /// h-file (Chess960), so that which rook may castle is part of the key.
    pub castling_rook_file: [[u64; 8]; 4],
}

const SEED: u64 = 0x05E7_1E1C_4E55;

/// SplitMix64: a small generator whose outputs are well mixed even from a simple seed.
const fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub static KEYS: Keys = {
    let mut state = SEED;
    let mut keys = Keys {
        pieces: [[0; 128]; Piece::COUNT],
        castling: [0; 16],
        en_passant_file: [0; 8],
        black_to_move: 0,
        castling_rook_file: [[0; 8]; 4],
    };
    let mut piece = 0;
    while piece < Piece::COUNT {
        let mut sq = 0;
        while sq < 128 {
            keys.pieces[piece][sq] = next(&mut state);
            sq += 1;
        }
        piece += 1;
    }
    let mut i = 0;
    while i < 16 {
        keys.castling[i] = next(&mut state);
        i += 1;
    }
    i = 0;
    while i < 8 {
        keys.en_passant_file[i] = next(&mut state);
        i += 1;
    }
    keys.black_to_move = next(&mut state);
    // Drawn last, so that the keys above are those of the engine before Chess960.
    i = 0;
    while i < 32 {
        keys.castling_rook_file[i / 8][i % 8] = next(&mut state);
        i += 1;
    }
    keys
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct() {
        let mut all: Vec<u64> = KEYS.pieces.iter().flatten().copied().collect();
        all.extend(KEYS.castling);
        all.extend(KEYS.en_passant_file);
        all.push(KEYS.black_to_move);
        all.extend(KEYS.castling_rook_file.iter().flatten());
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count);
    }
}
