//! A game's evaluation as a picture, the way review sites draw it: White's chances over the
//! moves (lichess's win percentage, or Sentinel's expected score), the light area White's share
//! and the dark one Black's, the marked moves as coloured dots (with the move and the scores
//! as a tooltip in a browser); under it, where the game has clocks, the time each move took,
//! White's moves as bars up from a line and Black's down, as lichess's "move times" chart
//! draws them. Plain SVG written by hand: a few shapes need no drawing library.

use super::clock;
use super::game::{Marks, MoveReview, Review, eval_text, symbol};
use super::judge::Mark;
use crate::board::Color;
use std::fmt::Write;

const WIDTH: f64 = 800.0;
/// The height without the time strip, and the strip's own.
const HEIGHT: f64 = 300.0;
const STRIP: f64 = 110.0;
/// The plotting area.
const LEFT: f64 = 56.0;
const RIGHT: f64 = 784.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 240.0;
/// The time strip: its middle line, and the height of the longest think's bar.
const STRIP_MIDDLE: f64 = BOTTOM + 80.0;
const BAR: f64 = 40.0;

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
    let y = |win: f64| BOTTOM - win.clamp(0.0, 1.0) * (BOTTOM - TOP);
    let wins: Vec<f64> = std::iter::once(review.start_win).chain(review.moves.iter().map(|m| m.win_after)).collect();
    let longest = review.moves.iter().filter_map(|m| m.clock.and_then(|c| c.spent)).fold(0.0, f64::max);
    let height = if longest > 0.0 { HEIGHT + STRIP } else { HEIGHT };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(out, "<rect width=\"{WIDTH}\" height=\"{height}\" fill=\"#ffffff\"/>");
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
    for (i, &win) in wins.iter().enumerate() {
        let _ = write!(area, " {:.1},{:.1}", x(i), y(win));
        let _ = write!(curve, "{}{:.1},{:.1}", if i == 0 { "" } else { " " }, x(i), y(win));
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
    for (label, win) in [("100%", 1.0), ("50%", 0.5), ("0%", 0.0)] {
        let _ =
            writeln!(out, "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>", LEFT - 6.0, y(win) + 4.0);
    }
    let axis = match review.marks {
        Marks::Lichess => "White's win %",
        Marks::Sentinel => "White's expected score",
    };
    let _ = writeln!(
        out,
        "<text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\" fill=\"#555555\">{axis}</text>",
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
                y(m.win_after),
                colour(mark),
                escape(&tooltip(m, mark))
            );
        }
    }
    if longest > 0.0 {
        time_strip(&mut out, review, longest, &x);
    }
    let legend_y = height - 19.0;
    let mut legend_x = LEFT;
    for mark in [Mark::Inaccuracy, Mark::Mistake, Mark::Blunder, Mark::Only] {
        let name = mark.name().to_lowercase();
        let _ = writeln!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{legend_y}\" r=\"5\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{}\">{name}</text>",
            legend_x + 5.0,
            colour(mark),
            legend_x + 14.0,
            legend_y + 4.0
        );
        legend_x += 30.0 + 7.0 * name.len() as f64;
    }
    out.push_str("</svg>\n");
    out
}

/// The time each move took, as bars from a middle line (White's up, Black's down), scaled to
/// the longest think, which is named beside the strip.
fn time_strip(out: &mut String, review: &Review, longest: f64, x: &impl Fn(usize) -> f64) {
    let _ = writeln!(
        out,
        "<text x=\"{LEFT}\" y=\"{:.1}\" fill=\"#555555\">Time per move (longest {})</text>",
        STRIP_MIDDLE - BAR - 8.0,
        clock::format(longest)
    );
    let _ = writeln!(
        out,
        "<line x1=\"{LEFT}\" y1=\"{STRIP_MIDDLE}\" x2=\"{RIGHT}\" y2=\"{STRIP_MIDDLE}\" stroke=\"#b0b0b0\"/>"
    );
    for (label, y) in [("White", STRIP_MIDDLE - BAR / 2.0 + 4.0), ("Black", STRIP_MIDDLE + BAR / 2.0 + 4.0)] {
        let _ = writeln!(out, "<text x=\"{}\" y=\"{y:.1}\" text-anchor=\"end\">{label}</text>", LEFT - 6.0);
    }
    let step = x(1) - x(0);
    let width = (step * 0.7).clamp(1.0, 12.0);
    for (i, m) in review.moves.iter().enumerate() {
        let Some(spent) = m.clock.and_then(|c| c.spent) else { continue };
        let length = (spent / longest * BAR).max(0.5);
        let (top, fill) = match m.mover {
            Color::White => (STRIP_MIDDLE - length, "#c8c8c8"),
            Color::Black => (STRIP_MIDDLE, "#3b3b3b"),
        };
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{top:.1}\" width=\"{width:.1}\" height=\"{length:.1}\" fill=\"{fill}\" \
             stroke=\"#7a7a7a\" stroke-width=\"0.5\"><title>{}</title></rect>",
            x(i + 1) - width / 2.0,
            escape(&format!("{} {}", m.numbered(), clock::format(spent)))
        );
    }
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
    let mut text = format!(
        "{}{} {} ({} -> {})",
        m.numbered(),
        symbol(mark),
        mark.name(),
        eval_text(m.eval_before),
        eval_text(m.eval)
    );
    if let Some(best) = m.best_san.as_ref().filter(|_| mark != Mark::Only) {
        let _ = write!(text, ", {best} was best");
    }
    text
}
