//! Fitting the evaluation to game results (built with `--features tune`).
//!
//! `datagen` plays fast self-play games and writes quiet positions labelled with the game's
//! result; `trace` records which weights the evaluation uses in a position and how often;
//! `tuner` fits the weights to the results (the Texel method) and `params_file` writes them
//! back as `src/eval/params.rs`.

pub mod datagen;
pub mod params_file;
pub mod trace;
pub mod tuner;
