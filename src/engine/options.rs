//! The engine's options, in one table: each entry has its name, kind, default and range, and
//! says how a new value is applied. UCI renders the table as `option name ...` lines and
//! XBoard as `feature option="..."`; both parse values through `Engine::set_option`, so an
//! option is added by adding one entry.

use super::{Engine, EngineError};
use crate::search::strength::{MAX_ELO, MAX_SKILL_LEVEL, MIN_ELO};
use crate::search::{
    DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, MAX_HASH_MB, MAX_MOVE_OVERHEAD_MS, MAX_THREADS, ProbeSettings,
};
use std::time::Duration;

/// What kind of value an option takes, with its default (and range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    /// An action without a value.
    Button,
    /// Text, such as a path; UCI writes an empty one as `<empty>`.
    String {
        default: &'static str,
    },
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Text(String),
    Press,
}

/// Which protocols list an option: some belong to UCI alone because XBoard has its own command
/// for the same thing (`memory`, `cores`, `hard`, `variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    Everywhere,
    UciOnly,
}

pub struct Spec {
    pub name: &'static str,
    pub kind: Kind,
    pub shown: Shown,
    /// Sets the value; may return a message for the user (what was loaded, say).
    apply: fn(&mut Engine, Value) -> Result<Option<String>, EngineError>,
}

impl Spec {
    /// Reads a value given as text: a whole number within range, `true`/`false` (or XBoard's
    /// `1`/`0`), any text (`<empty>` for none), or nothing for a button.
    pub fn parse(&self, text: Option<&str>) -> Result<Value, EngineError> {
        let text = text.map(str::trim).unwrap_or_default();
        let bad =
            |expected: String| EngineError::BadOptionValue { option: self.name, value: text.to_string(), expected };
        match self.kind {
            Kind::Spin { min, max, .. } => match text.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(Value::Int(n)),
                _ => Err(bad(format!("a whole number from {min} to {max}"))),
            },
            Kind::Check { .. } => match text.to_ascii_lowercase().as_str() {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                _ => Err(bad("true or false".to_string())),
            },
            Kind::String { .. } => Ok(Value::Text(if text == "<empty>" { String::new() } else { text.to_string() })),
            Kind::Button => Ok(Value::Press),
        }
    }

    pub(super) fn apply(&self, engine: &mut Engine, value: Value) -> Result<Option<String>, EngineError> {
        (self.apply)(engine, value)
    }
}

/// Option values that are not kept by the searcher itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub chess960: bool,
    /// Whether info lines show win/draw/loss chances.
    pub show_wdl: bool,
    /// When the search probes the endgame tablebases.
    pub probe: ProbeSettings,
    /// Whether to play from the opening book, up to which move of the game.
    pub own_book: bool,
    pub book_depth: u32,
    /// Whether the GUI lets us think on the opponent's time (UCI tells us; it changes nothing
    /// in the search itself, since the GUI decides when to ponder).
    pub ponder: bool,
    /// Play at `elo` (`UCI_LimitStrength`), else at `skill_level` (20: full strength).
    pub limit_strength: bool,
    pub elo: i32,
    pub skill_level: i32,
    /// The seed a limited strength draws its moves with; 0 for a new one every search.
    pub skill_seed: u64,
    /// Evaluate with a network (else the hand-crafted evaluation): the one in `eval_file`, or
    /// the built-in one when that is empty.
    pub use_nnue: bool,
    pub eval_file: String,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            multipv: 1,
            chess960: false,
            show_wdl: false,
            probe: ProbeSettings::default(),
            own_book: false,
            book_depth: DEFAULT_BOOK_DEPTH,
            ponder: false,
            limit_strength: false,
            elo: MIN_ELO,
            skill_level: MAX_SKILL_LEVEL,
            skill_seed: 0,
            use_nnue: true,
            eval_file: String::new(),
        }
    }
}

fn int(value: Value) -> i64 {
    if let Value::Int(n) = value { n } else { 0 }
}

fn flag(value: Value) -> bool {
    matches!(value, Value::Bool(true))
}

fn text(value: Value) -> String {
    if let Value::Text(text) = value { text } else { String::new() }
}

pub const MAX_MULTIPV: i64 = 256;
/// The largest value a spin may have: GUIs keep spins in 32-bit signed integers (Cute Chess
/// refuses an XBoard option beyond it and reads a larger UCI maximum as 0).
pub const MAX_SPIN: i64 = i32::MAX as i64;
const DEFAULT_BOOK_DEPTH: u32 = 255;

pub static OPTIONS: &[Spec] = &[
    Spec {
        name: "Hash",
        kind: Kind::Spin { default: DEFAULT_HASH_MB as i64, min: 1, max: MAX_HASH_MB as i64 },
        shown: Shown::UciOnly,
        apply: |engine, value| engine.resize_hash(int(value) as usize).map(|()| None),
    },
    Spec {
        name: "Threads",
        kind: Kind::Spin { default: 1, min: 1, max: MAX_THREADS as i64 },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.finish_search();
            engine.settings.threads = int(value) as usize;
            engine.searcher.set_threads(engine.settings.threads);
            Ok(None)
        },
    },
    Spec {
        name: "Move Overhead",
        kind: Kind::Spin { default: DEFAULT_MOVE_OVERHEAD_MS as i64, min: 0, max: MAX_MOVE_OVERHEAD_MS as i64 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.searcher.set_move_overhead(Duration::from_millis(int(value) as u64));
            Ok(None)
        },
    },
    Spec {
        name: "Clear Hash",
        kind: Kind::Button,
        shown: Shown::Everywhere,
        apply: |engine, _| {
            engine.finish_search();
            engine.searcher.clear();
            Ok(None)
        },
    },
    Spec {
        name: "Ponder",
        kind: Kind::Check { default: false },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.settings.ponder = flag(value);
            Ok(None)
        },
    },
    Spec {
        name: "MultiPV",
        kind: Kind::Spin { default: 1, min: 1, max: MAX_MULTIPV },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.multipv = int(value) as usize;
            Ok(None)
        },
    },
    Spec {
        name: "SyzygyPath",
        kind: Kind::String { default: "" },
        shown: Shown::UciOnly,
        apply: |engine, value| engine.open_tablebases(&text(value)),
    },
    Spec {
        name: "SyzygyProbeDepth",
        kind: Kind::Spin { default: 1, min: 1, max: 100 },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_probe(|probe| probe.depth = int(value) as i32),
    },
    Spec {
        name: "Syzygy50MoveRule",
        kind: Kind::Check { default: true },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_probe(|probe| probe.fifty_move_rule = flag(value)),
    },
    Spec {
        name: "SyzygyProbeLimit",
        kind: Kind::Spin { default: 7, min: 0, max: 7 },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_probe(|probe| probe.limit = int(value) as usize),
    },
    Spec {
        name: "OwnBook",
        kind: Kind::Check { default: false },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.own_book = flag(value);
            Ok(None)
        },
    },
    Spec {
        name: "BookFile",
        kind: Kind::String { default: "" },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.open_book(&text(value)),
    },
    Spec {
        name: "BookDepth",
        kind: Kind::Spin { default: DEFAULT_BOOK_DEPTH as i64, min: 1, max: 1000 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.book_depth = int(value) as u32;
            Ok(None)
        },
    },
    Spec {
        name: "Use NNUE",
        kind: Kind::Check { default: true },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            let file = engine.settings.eval_file.clone();
            engine.set_evaluation(flag(value), file).map(|()| None)
        },
    },
    Spec {
        name: "EvalFile",
        kind: Kind::String { default: "" },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_evaluation(engine.settings.use_nnue, text(value)).map(|()| None),
    },
    Spec {
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.settings.show_wdl = flag(value);
            Ok(None)
        },
    },
    Spec {
        name: "UCI_LimitStrength",
        kind: Kind::Check { default: false },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.limit_strength = flag(value);
            Ok(None)
        },
    },
    Spec {
        name: "UCI_Elo",
        kind: Kind::Spin { default: MIN_ELO as i64, min: MIN_ELO as i64, max: MAX_ELO as i64 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.elo = int(value) as i32;
            Ok(None)
        },
    },
    Spec {
        name: "Skill Level",
        kind: Kind::Spin { default: MAX_SKILL_LEVEL as i64, min: 0, max: MAX_SKILL_LEVEL as i64 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.skill_level = int(value) as i32;
            Ok(None)
        },
    },
    Spec {
        name: "Skill Seed",
        kind: Kind::Spin { default: 0, min: 0, max: MAX_SPIN },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.skill_seed = int(value) as u64;
            Ok(None)
        },
    },
    Spec {
        name: "UCI_Chess960",
        kind: Kind::Check { default: false },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.settings.chess960 = flag(value);
            Ok(None)
        },
    },
];

/// The option of this name (case-insensitive, as UCI wants).
pub fn find(name: &str) -> Option<&'static Spec> {
    OPTIONS.iter().find(|spec| spec.name.eq_ignore_ascii_case(name.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_parsed_and_range_checked() {
        let hash = find("hash").unwrap();
        assert_eq!(hash.parse(Some(" 64 ")), Ok(Value::Int(64)));
        for bad in ["0", "x", "", "99999999"] {
            let error = hash.parse(Some(bad)).unwrap_err().to_string();
            assert!(error.contains(&format!("a whole number from 1 to {MAX_HASH_MB}")), "{error}");
        }
        let chess960 = find("UCI_Chess960").unwrap();
        assert_eq!(chess960.parse(Some("true")), Ok(Value::Bool(true)));
        assert_eq!(chess960.parse(Some("0")), Ok(Value::Bool(false)));
        assert!(chess960.parse(Some("yes")).is_err());
        assert_eq!(find("clear hash").unwrap().parse(None), Ok(Value::Press));
        assert!(find("no such option").is_none());
    }

    #[test]
    fn every_spin_fits_a_gui_integer() {
        for spec in OPTIONS {
            if let Kind::Spin { default, min, max } = spec.kind {
                assert!(-MAX_SPIN - 1 <= min && min <= default && default <= max && max <= MAX_SPIN, "{}", spec.name);
            }
        }
    }

    #[test]
    fn names_are_unique() {
        for (i, spec) in OPTIONS.iter().enumerate() {
            assert!(OPTIONS[i + 1..].iter().all(|other| !other.name.eq_ignore_ascii_case(spec.name)), "{}", spec.name);
        }
    }
}
