//! The engine's options, in one table: each entry has its identifier, name, kind, default and
//! range, and says how a new value is applied. UCI renders the table as `option name ...` lines
//! and XBoard as `feature option="..."`; both turn the name a GUI sends into an `OptionId` and
//! set it with `EngineCommand::SetOption`, which parses the value against the entry, so an
//! option is added by adding one entry. The engine starts from the entries' defaults
//! (`Settings::default`); those the search also needs without an engine (hash size, move
//! overhead, tablebase probing) are the search's constants, which the entries name.

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
    /// Text, such as a path. UCI writes an empty default as `<empty>`, as Stockfish writes its
    /// own (nothing after `default` leaves a space at the end of the line); `<empty>` given
    /// as a value means none.
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

/// Which protocols list an option: some belong to UCI alone, because XBoard has its own command
/// for the same thing (`memory`, `cores`, `egtpath`, `variant`, `hard`/`easy`) or, for
/// `UCI_ShowWDL`, because XBoard's thinking output has no place for what it shows; one, the
/// shape of XBoard's thinking output, to XBoard alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    Everywhere,
    UciOnly,
    XBoardOnly,
}

pub struct Spec {
    pub id: OptionId,
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
            Kind::Spin { min, max, .. } => parse_spin(self.name, Some(text), min, max).map(Value::Int),
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

/// Reads a whole number from `min` to `max` given for the spin option `option`.
pub(super) fn parse_spin(option: &'static str, text: Option<&str>, min: i64, max: i64) -> Result<i64, EngineError> {
    let text = text.map(str::trim).unwrap_or_default();
    match text.parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(EngineError::BadOptionValue {
            option,
            value: text.to_string(),
            expected: format!("a whole number from {min} to {max}"),
        }),
    }
}

/// The options' values, as the engine keeps them (the searcher is given those it needs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub hash_mb: usize,
    pub threads: usize,
    /// Set aside for each move still to play, for GUI and pipe lag.
    pub move_overhead: Duration,
    pub multipv: usize,
    pub chess960: bool,
    /// The GUI is analysing (`UCI_AnalyseMode`): the engine plays no book moves, since the
    /// GUI wants its own judgement of the position.
    pub analyse_mode: bool,
    /// Whether info lines show win/draw/loss chances.
    pub show_wdl: bool,
    /// Whether XBoard's thinking lines carry seldepth, nps and tbhits before the variation.
    pub thinking_extras: bool,
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
    /// The table's defaults.
    fn default() -> Settings {
        Settings {
            hash_mb: int(OptionId::Hash.default()) as usize,
            threads: int(OptionId::Threads.default()) as usize,
            move_overhead: Duration::from_millis(int(OptionId::MoveOverhead.default()) as u64),
            multipv: int(OptionId::MultiPv.default()) as usize,
            chess960: flag(OptionId::UciChess960.default()),
            analyse_mode: flag(OptionId::UciAnalyseMode.default()),
            show_wdl: flag(OptionId::UciShowWdl.default()),
            thinking_extras: flag(OptionId::ThinkingExtras.default()),
            probe: ProbeSettings {
                limit: int(OptionId::SyzygyProbeLimit.default()) as usize,
                depth: int(OptionId::SyzygyProbeDepth.default()) as i32,
                fifty_move_rule: flag(OptionId::Syzygy50MoveRule.default()),
            },
            own_book: flag(OptionId::OwnBook.default()),
            book_depth: int(OptionId::BookDepth.default()) as u32,
            ponder: flag(OptionId::Ponder.default()),
            limit_strength: flag(OptionId::UciLimitStrength.default()),
            elo: int(OptionId::UciElo.default()) as i32,
            skill_level: int(OptionId::SkillLevel.default()) as i32,
            skill_seed: int(OptionId::SkillSeed.default()) as u64,
            use_nnue: flag(OptionId::UseNnue.default()),
            eval_file: text(OptionId::EvalFile.default()),
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

/// The largest value a spin may have: GUIs keep spins in 32-bit signed integers (Cute Chess
/// refuses an XBoard option beyond it and reads a larger UCI maximum as 0).
pub const MAX_SPIN: i64 = i32::MAX as i64;

/// Declares the options: `OptionId`, one variant per option, and `OPTIONS`, their entries in
/// the same order, so that code names an option by a variant (a renamed or removed option is a
/// compile error, not a setting that fails at run time) and finds its entry by index.
macro_rules! option_table {
    ($($id:ident { $($field:ident: $value:expr),* $(,)? })*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum OptionId {
            $($id),*
        }

        /// Every option, in the order UCI lists them.
        pub static OPTIONS: &[Spec] = &[$(Spec { id: OptionId::$id, $($field: $value),* }),*];
    };
}

option_table! {
    Hash {
        name: "Hash",
        kind: Kind::Spin { default: DEFAULT_HASH_MB as i64, min: 1, max: MAX_HASH_MB as i64 },
        shown: Shown::UciOnly,
        apply: |engine, value| engine.resize_hash(int(value) as usize).map(|()| None),
    }
    Threads {
        name: "Threads",
        kind: Kind::Spin { default: 1, min: 1, max: MAX_THREADS as i64 },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.finish_search();
            engine.settings.threads = int(value) as usize;
            engine.searcher.set_threads(engine.settings.threads);
            Ok(None)
        },
    }
    MoveOverhead {
        name: "Move Overhead",
        kind: Kind::Spin { default: DEFAULT_MOVE_OVERHEAD_MS as i64, min: 0, max: MAX_MOVE_OVERHEAD_MS as i64 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.move_overhead = Duration::from_millis(int(value) as u64);
            engine.searcher.set_move_overhead(engine.settings.move_overhead);
            Ok(None)
        },
    }
    ClearHash {
        name: "Clear Hash",
        kind: Kind::Button,
        shown: Shown::Everywhere,
        apply: |engine, _| {
            engine.finish_search();
            engine.searcher.clear();
            Ok(None)
        },
    }
    Ponder {
        name: "Ponder",
        kind: Kind::Check { default: false },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.settings.ponder = flag(value);
            Ok(None)
        },
    }
    MultiPv {
        name: "MultiPV",
        kind: Kind::Spin { default: 1, min: 1, max: 256 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.multipv = int(value) as usize;
            Ok(None)
        },
    }
    SyzygyPath {
        name: "SyzygyPath",
        kind: Kind::String { default: "" },
        shown: Shown::UciOnly,
        apply: |engine, value| engine.open_tablebases(&text(value)),
    }
    SyzygyProbeDepth {
        name: "SyzygyProbeDepth",
        kind: Kind::Spin { default: ProbeSettings::DEFAULT.depth as i64, min: 1, max: 100 },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_probe(|probe| probe.depth = int(value) as i32),
    }
    Syzygy50MoveRule {
        name: "Syzygy50MoveRule",
        kind: Kind::Check { default: ProbeSettings::DEFAULT.fifty_move_rule },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_probe(|probe| probe.fifty_move_rule = flag(value)),
    }
    SyzygyProbeLimit {
        name: "SyzygyProbeLimit",
        kind: Kind::Spin { default: ProbeSettings::DEFAULT.limit as i64, min: 0, max: 7 },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_probe(|probe| probe.limit = int(value) as usize),
    }
    OwnBook {
        name: "OwnBook",
        kind: Kind::Check { default: false },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.own_book = flag(value);
            Ok(None)
        },
    }
    BookFile {
        name: "BookFile",
        kind: Kind::String { default: "" },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.open_book(&text(value)),
    }
    BookDepth {
        name: "BookDepth",
        kind: Kind::Spin { default: 255, min: 1, max: 1000 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.book_depth = int(value) as u32;
            Ok(None)
        },
    }
    UseNnue {
        name: "Use NNUE",
        kind: Kind::Check { default: true },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            let file = engine.settings.eval_file.clone();
            engine.set_evaluation(flag(value), file).map(|()| None)
        },
    }
    EvalFile {
        name: "EvalFile",
        kind: Kind::String { default: "" },
        shown: Shown::Everywhere,
        apply: |engine, value| engine.set_evaluation(engine.settings.use_nnue, text(value)).map(|()| None),
    }
    UciShowWdl {
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.settings.show_wdl = flag(value);
            Ok(None)
        },
    }
    // Off by default: ChessX takes the fifth field of a thinking line for the variation's first
    // move, and shows no analysis when that is a number.
    ThinkingExtras {
        name: "Thinking Extras",
        kind: Kind::Check { default: false },
        shown: Shown::XBoardOnly,
        apply: |engine, value| {
            engine.settings.thinking_extras = flag(value);
            Ok(None)
        },
    }
    // XBoard says `analyze` instead.
    UciAnalyseMode {
        name: "UCI_AnalyseMode",
        kind: Kind::Check { default: false },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.settings.analyse_mode = flag(value);
            Ok(None)
        },
    }
    UciLimitStrength {
        name: "UCI_LimitStrength",
        kind: Kind::Check { default: false },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.limit_strength = flag(value);
            Ok(None)
        },
    }
    UciElo {
        name: "UCI_Elo",
        kind: Kind::Spin { default: MIN_ELO as i64, min: MIN_ELO as i64, max: MAX_ELO as i64 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.elo = int(value) as i32;
            Ok(None)
        },
    }
    SkillLevel {
        name: "Skill Level",
        kind: Kind::Spin { default: MAX_SKILL_LEVEL as i64, min: 0, max: MAX_SKILL_LEVEL as i64 },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.skill_level = int(value) as i32;
            Ok(None)
        },
    }
    SkillSeed {
        name: "Skill Seed",
        kind: Kind::Spin { default: 0, min: 0, max: MAX_SPIN },
        shown: Shown::Everywhere,
        apply: |engine, value| {
            engine.settings.skill_seed = int(value) as u64;
            Ok(None)
        },
    }
    UciChess960 {
        name: "UCI_Chess960",
        kind: Kind::Check { default: false },
        shown: Shown::UciOnly,
        apply: |engine, value| {
            engine.settings.chess960 = flag(value);
            Ok(None)
        },
    }
}

impl OptionId {
    pub fn spec(self) -> &'static Spec {
        &OPTIONS[self as usize]
    }

    /// The option a GUI or a user names (case-insensitive, as UCI wants).
    pub fn named(name: &str) -> Result<OptionId, EngineError> {
        OPTIONS
            .iter()
            .find(|spec| spec.name.eq_ignore_ascii_case(name.trim()))
            .map(|spec| spec.id)
            .ok_or_else(|| EngineError::UnknownOption(name.to_string()))
    }

    /// The option's default value (a button's is its press).
    fn default(self) -> Value {
        match self.spec().kind {
            Kind::Spin { default, .. } => Value::Int(default),
            Kind::Check { default } => Value::Bool(default),
            Kind::String { default } => Value::Text(default.to_string()),
            Kind::Button => Value::Press,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_parsed_and_range_checked() {
        let hash = OptionId::Hash.spec();
        assert_eq!(hash.parse(Some(" 64 ")), Ok(Value::Int(64)));
        for bad in ["0", "x", "", "99999999"] {
            let error = hash.parse(Some(bad)).unwrap_err().to_string();
            assert!(error.contains(&format!("a whole number from 1 to {MAX_HASH_MB}")), "{error}");
        }
        let chess960 = OptionId::UciChess960.spec();
        assert_eq!(chess960.parse(Some("true")), Ok(Value::Bool(true)));
        assert_eq!(chess960.parse(Some("0")), Ok(Value::Bool(false)));
        assert!(chess960.parse(Some("yes")).is_err());
        assert_eq!(OptionId::ClearHash.spec().parse(None), Ok(Value::Press));
    }

    /// GUIs and users name options in any case, with spaces around.
    #[test]
    fn options_are_found_by_name() {
        assert_eq!(OptionId::named("hash"), Ok(OptionId::Hash));
        assert_eq!(OptionId::named(" skill SEED "), Ok(OptionId::SkillSeed));
        assert_eq!(OptionId::named("Nonsense"), Err(EngineError::UnknownOption("Nonsense".into())));
        for spec in OPTIONS {
            assert_eq!(OptionId::named(spec.name), Ok(spec.id));
            assert_eq!(spec.id.spec().name, spec.name);
        }
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
