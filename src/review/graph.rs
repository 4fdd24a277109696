//! A game's evaluation as a picture, the way review sites draw it: White's expected score over
//! the moves, the light area White's share and the dark one Black's, the marked moves as
//! coloured dots (with the move and the scores as a tooltip in a browser). Plain SVG written
//! by hand: a few shapes need no drawing library.

use super::game::{MoveReview, Review, eval_text};
use super::judge::Mark;
use crate::board::Color;
use std::fmt::Write;

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 300.0;
/// The plotting area.
const LEFT: f64 = 56.0;
const RIGHT: f64 = 784.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 240.0;

/// The colour of each mark's dot: the yellow, orange and red review sites use, and green for
/// an only move.
fn colour(mark: Mark) -> &'static str {
    match mark {
        Mark::Only => "#2e9e5b",
        Mark::Inaccuracy => "#e8b400",
        Mark::Mistake => "#f07c00",
        Mark::Blunder => "#d9262b",
    }
}

/// Text made safe inside an SVG (XML) element or attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The graph of one game's review, titled `title`.
pub fn svg(title: &str, review: &Review) -> String {
    let points = review.moves.len() + 1;
    let step = (RIGHT - LEFT) / (points - 1).max(1) as f64;
    let x = |index: usize| LEFT + step * index as f64;
    let y = |expected: f64| BOTTOM - expected.clamp(0.0, 1.0) * (BOTTOM - TOP);
    let expected: Vec<f64> =
        std::iter::once(review.start_white_expected).chain(review.moves.iter().map(|m| m.white_expected)).collect();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(out, "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>");
    let _ = writeln!(out, "<text x=\"{LEFT}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>", escape(title));
    // Black's share fills the plot; White's is drawn over it from the bottom.
    let _ = writeln!(
        out,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{}\" height=\"{}\" fill=\"#3b3b3b\"/>",
        RIGHT - LEFT,
        BOTTOM - TOP
    );
    let mut area = format!("{LEFT:.1},{BOTTOM:.1}");
    let mut curve = String::new();
    for (i, &e) in expected.iter().enumerate() {
        let _ = write!(area, " {:.1},{:.1}", x(i), y(e));
        let _ = write!(curve, "{}{:.1},{:.1}", if i == 0 { "" } else { " " }, x(i), y(e));
    }
    let _ = write!(area, " {:.1},{BOTTOM:.1}", x(points - 1));
    let _ = writeln!(out, "<polygon points=\"{area}\" fill=\"#ececec\"/>");
    let _ = writeln!(out, "<polyline points=\"{curve}\" fill=\"none\" stroke=\"#7a7a7a\" stroke-width=\"1.5\"/>");
    let _ = writeln!(
        out,
        "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{RIGHT}\" y2=\"{0:.1}\" stroke=\"#b0b0b0\" \
         stroke-dasharray=\"4 4\"/>",
        y(0.5)
    );
    for (label, e) in [("100%", 1.0), ("50%", 0.5), ("0%", 0.0)] {
        let _ = writeln!(out, "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>", LEFT - 6.0, y(e) + 4.0);
    }
    let _ = writeln!(
        out,
        "<text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\" fill=\"#555555\">\
         White's expected score</text>",
        (TOP + BOTTOM) / 2.0
    );
    move_numbers(&mut out, review, &x);
    for (i, m) in review.moves.iter().enumerate() {
        if let Some(mark) = m.mark {
            let _ = writeln!(
                out,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"1.5\">\
                 <title>{}</title></circle>",
                x(i + 1),
                y(m.white_expected),
                colour(mark),
                escape(&tooltip(m, mark))
            );
        }
    }
    let mut legend_x = LEFT;
    for mark in [Mark::Inaccuracy, Mark::Mistake, Mark::Blunder, Mark::Only] {
        let name = mark.name().to_lowercase();
        let _ = writeln!(
            out,
            "<circle cx=\"{:.1}\" cy=\"281\" r=\"5\" fill=\"{}\"/><text x=\"{:.1}\" y=\"285\">{name}</text>",
            legend_x + 5.0,
            colour(mark),
            legend_x + 14.0
        );
        legend_x += 30.0 + 7.0 * name.len() as f64;
    }
    out.push_str("</svg>\n");
    out
}

/// Move numbers under the plot, at White's moves, every 5 or 10 moves as the game's length
/// allows.
fn move_numbers(out: &mut String, review: &Review, x: &impl Fn(usize) -> f64) {
    let every = if review.moves.len() > 100 { 10 } else { 5 };
    for (i, m) in review.moves.iter().enumerate() {
        if m.mover == Color::White && m.number % every == 0 {
            let _ = writeln!(
                out,
                "<line x1=\"{0:.1}\" y1=\"{BOTTOM}\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"#7a7a7a\"/>\
                 <text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"middle\">{3}</text>",
                x(i),
                BOTTOM + 4.0,
                BOTTOM + 17.0,
                m.number
            );
        }
    }
}

/// `14. Qd2?? Blunder (0.35 -> -3.20), Nf3 was best`.
fn tooltip(m: &MoveReview, mark: Mark) -> String {
    let number = match m.mover {
        Color::White => format!("{}.", m.number),
        Color::Black => format!("{}...", m.number),
    };
    let symbol = match mark {
        Mark::Only => "!",
        Mark::Inaccuracy => "?!",
        Mark::Mistake => "?",
        Mark::Blunder => "??",
    };
    let mut text =
        format!("{number} {}{symbol} {} ({} -> {})", m.san, mark.name(), eval_text(m.best_eval), eval_text(m.eval));
    if let Some(best) = m.best_san.as_ref().filter(|_| mark != Mark::Only) {
        let _ = write!(text, ", {best} was best");
    }
    text
}
