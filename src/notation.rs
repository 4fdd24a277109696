//! Chess notation for people and files: Standard Algebraic Notation (`Nf3`, `exd5`, `O-O`) in
//! both directions, PGN game records read and written, and the EPD records of test suites.
//! The engine's protocols speak coordinate moves; a person at a terminal and game files need
//! this instead, as do XBoard's Chess960 castling (`O-O`) and its book listing (`bk`), so it
//! lives in one place on top of the board and move generator.

pub mod epd;
pub mod pgn;
pub mod san;
