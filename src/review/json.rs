//! A review's figures for programs (`sentinel analyse --json FILE`): every move's evaluations
//! before and after, its loss, accuracy, mark, the engine's better move and line, its clock,
//! and each side's summary, in the schema `docs/review.md` documents. Scores are from White's
//! side, as in the PGN: `{"cp": 34}` or `{"mate": -3}` (`{"mate": 0}`: mated on the board).

use super::clock::Period;
use super::game::{MoveReview, Review, SideSummary, summarise};
use super::judge::Mark;
use super::lichess::MateSequence;
use super::phase::Phase;
use super::{Effort, clock};
use crate::board::Color;
use crate::notation::pgn::PgnGame;
use crate::search::Score;
use serde_json::{Map, Value, json};

/// The schema's version, for readers that check it: bumped when a field changes meaning.
pub const SCHEMA: u32 = 1;

/// The whole file: who reviewed, how, and the games in the order of the PGN file.
pub fn document(effort: &Effort, formulas: &str, games: Vec<Value>) -> Value {
    json!({
        "schema": SCHEMA,
        "reviewer": format!("Sentinel {}", crate::VERSION),
        "effort": effort.describe(),
        "formulas": formulas,
        "games": games,
    })
}

fn score(score: Score) -> Value {
    match score {
        Score::Centipawns(cp) => json!({ "cp": cp }),
        Score::Mate(moves) => json!({ "mate": moves }),
    }
}

fn mark(mark: Mark) -> &'static str {
    match mark {
        Mark::Only => "only move",
        Mark::Inaccuracy => "inaccuracy",
        Mark::Mistake => "mistake",
        Mark::Blunder => "blunder",
    }
}

fn side(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A percentage or a time, rounded to what it means (hundredths), so that the file reads.
fn round(value: f64) -> Value {
    json!((value * 100.0).round() / 100.0)
}

fn one_move(m: &MoveReview) -> Value {
    let lost = match m.mover {
        Color::White => m.win_before - m.win_after,
        Color::Black => m.win_after - m.win_before,
    };
    json!({
        "ply": m.ply + 1,
        "number": m.number,
        "side": side(m.mover),
        "san": m.san,
        "uci": m.uci,
        "book": m.book,
        "phase": m.phase.name(),
        "eval_before": score(m.eval_before),
        "eval_after": score(m.eval),
        "win_before": round(100.0 * m.win_before),
        "win_after": round(100.0 * m.win_after),
        "win_loss": round(100.0 * lost.max(0.0)),
        "cp_loss": m.cp_loss,
        "accuracy": m.accuracy,
        "judged": m.judged,
        "mark": m.mark.map(mark),
        "mate": m.mate.map(|sequence| match sequence {
            MateSequence::Created => "created",
            MateSequence::Lost => "lost",
        }),
        "best": m.best_san,
        "engine_choice": m.engine_choice(),
        "line": m.line_san,
        "clock": m.clock.map(|c| json!({ "left": round(c.left), "spent": c.spent.map(round) })),
    })
}

fn summary(review: &Review, s: &SideSummary) -> Value {
    let phases: Map<String, Value> =
        Phase::ALL.iter().zip(s.phases).map(|(phase, accuracy)| (phase.name().to_string(), json!(accuracy))).collect();
    let timed = |indices: &[usize], time: &dyn Fn(&clock::MoveTime) -> Option<f64>| -> Vec<Value> {
        indices
            .iter()
            .filter_map(|&i| {
                let m = &review.moves[i];
                let seconds = m.clock.as_ref().and_then(time)?;
                Some(json!({ "ply": m.ply + 1, "move": m.numbered(), "mark": m.mark.map(mark), "seconds": round(seconds) }))
            })
            .collect()
    };
    json!({
        "accuracy": s.accuracy,
        "phases": phases,
        "average_cp_loss": s.average_cp_loss,
        "inaccuracies": s.inaccuracies,
        "mistakes": s.mistakes,
        "blunders": s.blunders,
        "longest_thinks": timed(&s.longest, &|c| c.spent),
        "time_left_at_mistakes": timed(&s.mistakes_timed, &|c| Some(c.left)),
    })
}

fn period(p: &Period) -> Value {
    json!({ "moves": p.moves, "seconds": p.seconds, "increment": p.increment })
}

/// One game's review: game `number` of the file.
pub fn game(number: usize, game: &PgnGame, review: &Review) -> Value {
    let tags: Map<String, Value> = game.tags.iter().map(|(name, value)| (name.clone(), json!(value))).collect();
    let book_plies = review.classification.book_plies;
    let opening = review.classification.opening.as_ref().map(|(opening, ply)| {
        let left = review
            .moves
            .iter()
            .find(|m| m.ply == book_plies)
            .map(|m| json!({ "ply": m.ply + 1, "move": m.numbered() }));
        json!({ "eco": opening.eco, "name": opening.name, "ply": ply, "book_plies": book_plies, "left_book": left })
    });
    let [white, black] = summarise(review).map(|s| s.map(|s| summary(review, &s)));
    json!({
        "number": number,
        "tags": tags,
        "start_fen": game.start_fen,
        "result": game.result.as_str(),
        "opening": opening,
        "division": { "middlegame": review.division.middlegame, "endgame": review.division.endgame },
        "time_control": review.control.as_ref().map(|periods| periods.iter().map(period).collect::<Vec<_>>()),
        "first_move_reviewed": review.skipped + 1,
        "win_start": round(100.0 * review.start_win),
        "moves": review.moves.iter().map(one_move).collect::<Vec<_>>(),
        "summary": { "white": white, "black": black },
    })
}
