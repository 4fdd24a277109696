//! The search: iterative deepening over a principal variation search (negamax alpha-beta),
//! each line ending in a quiescence search of captures.
//!
//! The `Searcher` (`threads.rs`) runs searches on threads, each a `Worker`; read this file top
//! to bottom: `iterative_deepening` searches one ply deeper each time and reports; `negamax` is
//! the tree search; `quiescence` settles captures at the leaves so that no line is judged in
//! the middle of an exchange.

mod history;
mod limits;
mod movepicker;
mod params;
mod prefetch;
mod see;
pub mod strength;
pub mod tablebase;
mod threads;
mod time;
mod tt;
pub mod win_rate;

pub use limits::{Bound, Clock, Info, Limits, Report, Score};
pub use threads::{MAX_THREADS, ProbeSettings, Reporter, Searcher};
#[cfg(test)]
pub use tt::physical_memory;

use crate::board::{Board, Move, PieceKind};
use crate::eval::{Evaluation, Evaluator};
use crate::movegen::{is_legal, legal_moves};
use history::{Continuations, History, PieceTo};
use movepicker::MovePicker;
use params::Params;
#[cfg(feature = "spsa")]
pub use params::{TUNABLES, Tunable};
use see::see_ge;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tablebase::{Tablebases, Wdl};
use threads::Control;
use time::TimeManager;
use tt::{TranspositionTable, TtEntry};

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 65536;
/// The time reserved per move for the GUI and the pipes between us, unless the user sets it.
/// Stockfish's default too: a few milliseconds cover a local GUI, and every millisecond more,
/// set aside for each move still to play, costs real thinking time at bullet time controls.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;

/// How often, in nodes, a thread publishes its node count and the main thread looks at the
/// clock and the other threads' counts.
const PUBLISH_INTERVAL: u64 = 1024;

/// The deepest line the search follows; iterative deepening stops short of it.
pub const MAX_PLY: usize = 128;
/// The deepest iteration: the most any depth limit (`go depth`, `bench`, `search --depth`)
/// can ask for, deeper ones searching this deep.
pub const MAX_DEPTH: i32 = MAX_PLY as i32 - 1;
/// After this long the main thread reports each root move as it starts searching it
/// (`currmove`): Stockfish's threshold, late enough that short searches stay quiet.
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

const INFINITY: i32 = 32001;
/// Being mated now scores -MATE; mate in n plies scores MATE - n.
const MATE: i32 = 32000;
/// Scores beyond this are mates found within the search horizon.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A tablebase win found `ply` plies from the root scores TB_WIN - ply: below every mate,
/// above every evaluation. Scores beyond TB_WIN_BOUND are such wins (or mates).
const TB_WIN: i32 = MATE_BOUND - 1;
const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// What a tablebase win is reported as, in centipawns.
const TB_WIN_REPORTED: i32 = 20000;
const DRAW: i32 = 0;
/// Stands for "not evaluated" (positions in check) in the table's evaluation field.
const NO_EVAL: i32 = -32768;

/// What a search thread keeps from one search to the next: move-ordering statistics, and the
/// evaluation with its buffers and caches.
struct ThreadState {
    history: History,
    evaluator: Evaluator,
}

impl ThreadState {
    fn new(evaluation: &Evaluation) -> ThreadState {
        ThreadState { history: History::new(), evaluator: Evaluator::new(evaluation) }
    }
}

/// The principal variation below each ply, kept as a triangular table: the line at `ply` is
/// the best move there followed by the line at `ply + 1`.
struct PvTable {
    moves: [[Move; MAX_PLY + 1]; MAX_PLY + 1],
    len: [usize; MAX_PLY + 1],
}

impl PvTable {
    fn clear(&mut self, ply: usize) {
        self.len[ply] = 0;
    }

    fn update(&mut self, ply: usize, mv: Move) {
        let (this, below) = self.moves.split_at_mut(ply + 1);
        let child_len = self.len[ply + 1];
        this[ply][0] = mv;
        this[ply][1..=child_len].copy_from_slice(&below[0][..child_len]);
        self.len[ply] = child_len + 1;
    }

    fn line(&self) -> &[Move] {
        &self.moves[0][..self.len[0]]
    }
}

/// What the search keeps for one ply of the line it is on: what the node found out about
/// itself, and the move it made, for the nodes below to read.
#[derive(Clone, Copy)]
struct StackEntry {
    /// Static evaluation, corrected (NO_EVAL when in check), and before correction.
    static_eval: i32,
    raw_eval: i32,
    /// The move a singular-extension search leaves out (usually none).
    excluded: Move,
    /// Quiet moves that refuted sibling positions at this ply, most recent first.
    killers: [Move; 2],
    /// The move made from this ply's position (`Move::NONE` for a null move), and its
    /// continuation key.
    current_move: Move,
    piece_to: PieceTo,
    /// On a principal variation now or when the table last saw it.
    tt_pv: bool,
    /// Double extensions on the line up to and including the move made from this ply: they
    /// are capped per line, or a forcing line could deepen without end.
    double_extensions: u32,
    /// How many nodes at this ply have failed high since the node two plies up began its
    /// moves: many mean the moves into this ply are being refuted one after another.
    cutoffs: u32,
    /// The late-move reduction of the move being searched from this ply (0 when none).
    reduction: i32,
}

impl StackEntry {
    const EMPTY: StackEntry = StackEntry {
        static_eval: NO_EVAL,
        raw_eval: NO_EVAL,
        excluded: Move::NONE,
        killers: [Move::NONE; 2],
        current_move: Move::NONE,
        piece_to: PieceTo::NONE,
        tt_pv: false,
        double_extensions: 0,
        cutoffs: 0,
        reduction: 0,
    };
}

/// A move at the root, with what the last searches found for it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    /// This iteration's score: exact for the best move (of each MultiPV line), an upper bound
    /// for moves that failed low, -INFINITY for moves not searched.
    pub score: i32,
    pub previous_score: i32,
    /// The line the score comes from, this move first.
    pub pv: Vec<Move>,
    /// Nodes searched below this move in the whole search.
    pub nodes: u64,
}

/// What every search thread of one search reads: the table, the control flags, the evaluation,
/// the endgame tablebases.
#[derive(Clone, Copy)]
struct Shared<'a> {
    tt: &'a TranspositionTable,
    control: &'a Control,
    evaluation: &'a Evaluation,
    params: &'a Params,
    tablebases: Option<(&'a Tablebases, ProbeSettings)>,
}

/// One search thread's state.
struct Worker<'a> {
    /// 0 for the main thread, which alone watches the clock and reports; helpers (Lazy SMP)
    /// only fill the shared transposition table.
    id: usize,
    board: Board,
    tt: &'a TranspositionTable,
    control: &'a Control,
    params: &'a Params,
    /// The tables the search probes, with the rules for when; `None` once the root itself is
    /// in the tables (its moves are then chosen by them).
    tablebases: Option<(&'a Tablebases, ProbeSettings)>,
    /// The tables' verdict on the root, when it is in them.
    root_wdl: Option<Wdl>,
    state: &'a mut ThreadState,
    limits: Limits,
    time: TimeManager,
    pv: Box<PvTable>,
    /// What the search keeps for each ply of the line it is on.
    stack: [StackEntry; MAX_PLY + 1],
    /// The root's moves (all, or those of `go searchmoves`), best first after each iteration.
    root_moves: Vec<RootMove>,
    /// With MultiPV, the line being searched: root moves before it are left out.
    pv_index: usize,
    /// With a limited strength: the best root moves of the last completed iteration, with
    /// their exact scores, to choose the move to play from.
    choices: Vec<RootMove>,
    nodes: u64,
    /// The helper threads' nodes when last counted: the main thread applies a node limit to
    /// all threads together.
    helper_nodes: u64,
    seldepth: usize,
    /// Set once the search must unwind; scores computed after it are meaningless.
    stopped: bool,
    /// Whether the clock had started when last checked (it has not while pondering).
    clock_running: bool,
    /// Where reports go: the caller's reporter, lent for the length of `iterative_deepening`
    /// so that the root move loop deep in `negamax` can report progress too.
    reporter: Reporter,
}

impl<'a> Worker<'a> {
    fn new(
        id: usize,
        board: Board,
        shared: Shared<'a>,
        state: &'a mut ThreadState,
        limits: Limits,
        time: TimeManager,
    ) -> Worker<'a> {
        state.evaluator.start(shared.evaluation, &board);
        Worker {
            id,
            board,
            tt: shared.tt,
            control: shared.control,
            params: shared.params,
            tablebases: shared.tablebases,
            root_wdl: None,
            state,
            limits,
            time,
            pv: Box::new(PvTable { moves: [[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1], len: [0; MAX_PLY + 1] }),
            stack: [StackEntry::EMPTY; MAX_PLY + 1],
            root_moves: Vec::new(),
            pv_index: 0,
            choices: Vec::new(),
            nodes: 0,
            helper_nodes: 0,
            seldepth: 0,
            stopped: false,
            clock_running: true,
            reporter: Box::new(|_| {}),
        }
    }

    /// Searches depth 1, 2, 3, ... until a limit says stop, reporting each completed depth
    /// (one line per MultiPV line). Returns the best move and the expected reply. Only
    /// completed iterations count: an interrupted one has not looked at every move.
    fn iterative_deepening(&mut self, reporter: &mut Reporter) -> (Option<Move>, Option<Move>) {
        std::mem::swap(&mut self.reporter, reporter);
        let result = self.deepen();
        std::mem::swap(&mut self.reporter, reporter);
        result
    }

    fn deepen(&mut self) -> (Option<Move>, Option<Move>) {
        let legal = legal_moves(&self.board);
        self.root_moves = legal
            .iter()
            .filter(|&mv| self.limits.searchmoves.is_empty() || self.limits.searchmoves.contains(&mv))
            .map(|mv| RootMove { mv, score: -INFINITY, previous_score: -INFINITY, pv: vec![mv], nodes: 0 })
            .collect();
        self.probe_root();
        let Some(first) = self.root_moves.first() else {
            // A finished game is still scored, as Stockfish scores it (depth 0, mated or a
            // draw), so that a GUI analysing the final position shows its result.
            if legal.is_empty() {
                let (score, wdl) = if self.board.in_check() { (-MATE, [0, 0, 1000]) } else { (DRAW, [0, 1000, 0]) };
                let info = Info { wdl, ..self.info(0, 0, score, Bound::Exact, Vec::new()) };
                (self.reporter)(Report::Info(info));
            }
            return (None, None);
        };
        let forced = self.root_moves.len() == 1;
        let mut best = (first.mv, None);
        let reported = self.limits.multipv.clamp(1, self.root_moves.len());
        let mut lines = reported;
        let mut max_depth = self.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        if let Some(level) = self.limits.strength.map(|s| s.level()) {
            lines = level.candidates.clamp(reported, self.root_moves.len());
            max_depth = max_depth.min(level.depth.max(1));
            // A cap on iterations, not a hard stop: an interrupted iteration would leave the
            // candidates unscored, and the depth cap bounds the last one anyway.
            self.limits.soft_nodes = Some(self.limits.soft_nodes.map_or(level.nodes, |n| n.min(level.nodes)));
        }
        let mut score = 0;
        let mut stable_iterations = 0;
        // Lazy SMP: every other helper runs a ply ahead of the main thread, so that the threads'
        // trees differ more and deeper results reach the shared table sooner.
        let depth_offset = (self.id % 2) as i32;
        for depth in 1..=max_depth {
            let depth = (depth + depth_offset).min(max_depth);
            for root_move in &mut self.root_moves {
                root_move.previous_score = root_move.score;
            }
            let previous_score = score;
            for pv_index in 0..lines {
                self.pv_index = pv_index;
                self.seldepth = 0;
                // The first line's window centres on the last best score; the others on
                // what their move scored last time.
                let centre = if pv_index == 0 { score } else { self.root_moves[pv_index].previous_score };
                let line_score = self.aspiration_search(depth, centre);
                // Stable, so that moves of equal score keep the order they were searched in.
                self.root_moves[pv_index..].sort_by_key(|r| std::cmp::Reverse(r.score));
                if pv_index == 0 {
                    score = line_score;
                }
                if self.stopped {
                    break;
                }
            }
            if self.stopped && depth > 1 {
                break;
            }
            self.root_moves[..lines].sort_by_key(|r| std::cmp::Reverse(r.score));
            let best_line = &self.root_moves[0].pv;
            stable_iterations = if best.0 == best_line[0] { stable_iterations + 1 } else { 0 };
            best = (best_line[0], best_line.get(1).copied());
            // Helpers report nothing: building the lines would cost them time and memory.
            for line in 0..if self.id == 0 { reported } else { 0 } {
                let root_move = &self.root_moves[line];
                let info = self.info(line, depth, root_move.score, Bound::Exact, root_move.pv.clone());
                (self.reporter)(Report::Info(info));
            }
            if self.limits.strength.is_some() {
                self.choices = self.root_moves[..lines].to_vec();
            }
            if self.stopped || self.found_requested_mate(score, depth) || self.mate_settled(score, depth) {
                break;
            }
            if self.limits.soft_nodes.is_some_and(|n| self.nodes >= n) {
                break;
            }
            // While pondering the clock is the opponent's: deepen until the ponder hit starts
            // ours (or `stop` comes).
            let effort = self.root_moves[0].nodes as f64 / self.nodes.max(1) as f64;
            let share = time_share(forced, stable_iterations, previous_score - score, effort, self.params);
            let pondering = self.control.pondering.load(Ordering::Relaxed);
            if depth > 1 && !pondering && !self.time.iteration_affordable(share) {
                break;
            }
        }
        if let Some(strength) = self.limits.strength
            && !self.choices.is_empty()
        {
            let line = &self.choices[strength.choose(self.board.key(), &self.choices)].pv;
            best = (line[0], line.get(1).copied());
        }
        let ponder = best.1.or_else(|| self.ponder_from_table(best.0));
        (Some(best.0), ponder)
    }

    /// Searches with a narrow window around the previous iteration's score, which cuts off
    /// more of the tree; when the score falls outside, the window widens on that side and the
    /// search repeats. Shallow depths, whose scores still jump about, use the full window, as
    /// does a MultiPV line without a previous score.
    fn aspiration_search(&mut self, depth: i32, previous: i32) -> i32 {
        let mut delta = self.params.aspiration_delta();
        let (mut alpha, mut beta) = if depth >= self.params.aspiration_min_depth() && previous > -INFINITY {
            ((previous - delta).max(-INFINITY), (previous + delta).min(INFINITY))
        } else {
            (-INFINITY, INFINITY)
        };
        // After a fail high the move that failed high is probably good enough, and what the
        // iteration still has to learn is by how much: re-search shallower, so that it ends
        // sooner (a fail low wants the full depth back).
        let mut fail_highs = 0;
        loop {
            let score = self.negamax(alpha, beta, (depth - fail_highs).max(1), 0, false);
            if self.stopped {
                return score;
            }
            let bound = if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                fail_highs = 0;
                Bound::Upper
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                fail_highs = (fail_highs + 1).min(self.params.aspiration_fail_high_max());
                Bound::Lower
            } else {
                return score;
            };
            // A GUI showing a long search likes to see that the score is moving.
            if self.id == 0 && self.time.elapsed() > Duration::from_secs(2) && self.pv_index < self.limits.multipv {
                let info = self.info(self.pv_index, depth, score, bound, self.pv.line().to_vec());
                (self.reporter)(Report::Info(info));
            }
            delta += delta / 2;
        }
    }

    /// When the root is in the tablebases (with DTZ), keeps only the root moves that hold its
    /// result under the 50-move rule, best-ranked first, and stops probing inside the search:
    /// the search then only has to choose among moves that cannot spoil the result.
    fn probe_root(&mut self) {
        let Some((tables, settings)) = self.tablebases else {
            return;
        };
        if self.board.piece_count() > settings.limit.min(tables.max_pieces()) || self.board.castling_rights() != 0 {
            return;
        }
        let Some(probe) = tables.probe_root(&self.board, settings.fifty_move_rule) else {
            return;
        };
        self.control.add_tb_hits(self.id, probe.moves.len() as u64);
        let keep: Vec<Move> = probe.best_moves().collect();
        self.root_moves.retain(|r| keep.contains(&r.mv));
        self.root_moves.sort_by_key(|r| keep.iter().position(|&m| m == r.mv));
        self.root_wdl = Some(probe.wdl());
        self.tablebases = None;
    }

    /// The tables' result for this node, if they know it and the settings allow a probe here:
    /// at most as many pieces as the tables hold (and the limit), as deep as asked when it is
    /// as many as the largest tables, no castling rights, and just after a capture or pawn move
    /// (the 50-move count starting afresh, as the tables assume).
    fn probe_wdl(&mut self, depth: i32) -> Option<Wdl> {
        let (tables, settings) = self.tablebases?;
        let pieces = self.board.piece_count();
        let cardinality = settings.limit.min(tables.max_pieces());
        if pieces > cardinality
            || (pieces == cardinality && depth < settings.depth)
            || self.board.halfmove_clock() != 0
            || self.board.castling_rights() != 0
        {
            return None;
        }
        let wdl = tables.probe_wdl(&self.board)?;
        self.control.add_tb_hits(self.id, 1);
        Some(if settings.fifty_move_rule { wdl } else { wdl.without_fifty_move_rule() })
    }

    /// Whether `mv` may be searched at the root: one of the root moves, and not the move of an
    /// earlier MultiPV line.
    fn is_root_move(&self, mv: Move) -> bool {
        self.root_moves[self.pv_index..].iter().any(|r| r.mv == mv)
    }

    /// `go mate N`: a mate in N moves or fewer is proven, by an iteration deep enough to have
    /// seen the whole line (so that its principal variation is complete).
    fn found_requested_mate(&self, score: i32, depth: i32) -> bool {
        let plies = MATE - score;
        // Mate in n moves is 2n - 1 plies; counted in moves, so that no limit overflows.
        self.limits.mate.is_some_and(|n| score > MATE_BOUND && (plies + 1) / 2 <= n && depth >= plies)
    }

    /// A mate that no deeper iteration can change: a mate in one, for either side (nothing is
    /// shorter, and every root move was searched, so none escapes it). Any longer mate may
    /// hide a shorter one that the reductions and prunings kept from this depth (a mate in 4
    /// found at depth 17 can hide a mate in 3 that shows at 26), so the search goes on for as
    /// long as the clock allows; analysis (infinite or pondering) goes on as asked. The few
    /// iterations past the mate give the other MultiPV lines some depth.
    fn mate_settled(&self, score: i32, depth: i32) -> bool {
        let plies = MATE - score.abs();
        !self.limits.infinite && !self.limits.ponder && plies <= 2 && depth >= 2 * plies + 4
    }

    /// The expected reply to `best` when the line has only one move (it ended in a table
    /// cutoff): the table's move in the position after it, if legal there.
    fn ponder_from_table(&mut self, best: Move) -> Option<Move> {
        self.board.make_move(best);
        let reply = self.tt.probe(self.board.key()).map(|e| e.mv).filter(|&mv| is_legal(&self.board, mv));
        self.board.unmake_move();
        reply
    }

    fn info(&self, line: usize, depth: i32, score: i32, bound: Bound, pv: Vec<Move>) -> Info {
        // With the root in the tables, the best line's result is known exactly: unless the
        // search has proved a mate, report the tables' verdict.
        let score = match self.root_wdl {
            Some(wdl) if line == 0 && score.abs() < TB_WIN_BOUND => tablebase_score(wdl, 0).0,
            _ => score,
        };
        let (search_score, reported) = reported_scores(score);
        let wdl = match reported {
            Score::Mate(n) if n > 0 => [1000, 0, 0],
            Score::Mate(_) => [0, 0, 1000],
            Score::Centipawns(cp) => win_rate::win_draw_loss(cp, &self.board),
        };
        Info {
            multipv: line + 1,
            depth,
            seldepth: self.seldepth as i32,
            score: reported,
            search_score,
            wdl,
            bound,
            nodes: self.control.total_nodes(self.id, self.nodes),
            elapsed: self.time.elapsed(),
            hashfull: self.tt.hashfull(),
            tb_hits: self.control.tb_hits(),
            pv,
        }
    }

    /// Called at every node: counts it and, every so often, looks at the clock and the flags.
    /// The main thread applies the limits and stops the helpers when it finishes; a helper
    /// applies only the node limit, itself.
    fn check_limits(&mut self) {
        self.nodes += 1;
        // At every node, not every thousand: once the search is stopped, each thread must
        // give up its core at its next turn on one (one read of a line that nobody writes).
        if self.control.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        let main = self.id == 0;
        if main && self.limits.nodes.is_some_and(|n| self.nodes + self.helper_nodes >= n) {
            self.stopped = true;
        }
        if !self.nodes.is_multiple_of(PUBLISH_INTERVAL) {
            return;
        }
        self.control.publish_nodes(self.id, self.nodes);
        if !main {
            // All threads' nodes count against `go nodes`: while the main thread waits for a
            // core, a helper would otherwise search on past the limit until it is stopped.
            if self.limits.nodes.is_some_and(|n| self.control.total_nodes(self.id, self.nodes) >= n) {
                self.stopped = true;
            }
            return;
        }
        self.helper_nodes = self.control.total_nodes(self.id, 0);
        let pondering = self.control.pondering.load(Ordering::Relaxed);
        if !pondering && !self.clock_running {
            self.time.restart(self.control.ponder_hit().unwrap_or_else(Instant::now));
        }
        self.clock_running = !pondering;
        if self.clock_running && self.time.out_of_time() {
            self.stopped = true;
        }
    }

    /// The principal variation search. Returns the score of the position for the side to
    /// move, exact if it lies strictly between alpha and beta, otherwise a bound. `cut_node`:
    /// a null-window node expected to fail high (its parent expects its move to be refuted
    /// here), which can afford more reduction.
    fn negamax(&mut self, mut alpha: i32, mut beta: i32, mut depth: i32, ply: usize, cut_node: bool) -> i32 {
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        self.pv.clear(ply);
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply);
        }
        self.check_limits();
        self.seldepth = self.seldepth.max(ply);
        // Depth 1 always completes, so there is always a move to play.
        if self.stopped && !root {
            return DRAW;
        }

        let in_check = self.board.in_check();
        if !root {
            if self.board.is_draw_in_search(ply, in_check) {
                return DRAW;
            }
            // A move back to a position of the line is at least a draw for the side to move:
            // below that, alpha is raised to it before any move is searched.
            if alpha < DRAW && self.board.has_upcoming_repetition(ply) {
                alpha = DRAW;
                if alpha >= beta {
                    return alpha;
                }
            }
            if ply >= MAX_PLY {
                return if in_check { DRAW } else { self.evaluate() };
            }
            // Mate distance pruning: no line from here can beat a mate already found closer
            // to the root, nor be worse than being mated here.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // A singular-extension search of this node (one move left out) is not a search of the
        // position: it neither reads nor writes the table's verdict on it.
        let excluded = self.stack[ply].excluded;
        let entry = if excluded == Move::NONE { self.tt.probe(self.board.key()) } else { None };
        let tt_score = entry.map(|e| score_from_tt(e.score, ply));
        // A position that was once on a principal variation stays a candidate for one: it is
        // reduced less.
        if excluded == Move::NONE {
            self.stack[ply].tt_pv = pv_node || entry.is_some_and(|e| e.tt_pv);
        }
        let tt_pv = self.stack[ply].tt_pv;
        if let (Some(e), Some(score)) = (entry, tt_score)
            && !pv_node
            && e.depth >= depth
            && cutoff_allowed(e.bound, score, alpha, beta)
        {
            return score;
        }
        // The tablebases: an exact result, or a bound that may settle the node.
        let mut max_score = INFINITY;
        let mut tb_floor = -INFINITY;
        if !root
            && excluded == Move::NONE
            && let Some(wdl) = self.probe_wdl(depth)
        {
            let (score, bound) = tablebase_score(wdl, ply);
            let settled = match bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if settled {
                let depth = (depth + 6).min(MAX_PLY as i32 - 1);
                self.store(Move::NONE, score, NO_EVAL, depth, bound, ply, tt_pv);
                return score;
            }
            if pv_node {
                if bound == Bound::Lower {
                    tb_floor = score;
                    alpha = alpha.max(score);
                } else {
                    max_score = score;
                }
            }
        }

        let table_move = entry.map_or(Move::NONE, |e| e.mv);
        let continuations = self.continuations(ply);
        // Three evaluations: the raw one (what the table keeps), the static one (corrected by
        // what searches of similar positions found), and `eval`, the static one sharpened by
        // the table's score where its bound says that score is closer to the truth.
        let (raw_eval, static_eval, eval) = if in_check {
            (NO_EVAL, NO_EVAL, NO_EVAL)
        } else if excluded != Move::NONE {
            let static_eval = self.stack[ply].static_eval;
            (self.stack[ply].raw_eval, static_eval, static_eval)
        } else {
            let raw_eval = self.raw_eval(entry);
            let static_eval = self.corrected(raw_eval, continuations);
            let eval = match (entry, tt_score) {
                (Some(e), Some(score)) if score.abs() < TB_WIN_BOUND => sharpened(static_eval, e.bound, score),
                _ => static_eval,
            };
            (raw_eval, static_eval, eval)
        };
        self.stack[ply].raw_eval = raw_eval;
        self.stack[ply].static_eval = static_eval;
        // Whether our position is better than on our previous move (or the one before, when
        // we were in check then): if not, prune harder.
        let mut earlier = [2, 4].into_iter().filter(|&back| ply >= back).map(|back| self.stack[ply - back].static_eval);
        let improving = !in_check && earlier.find(|&e| e != NO_EVAL).is_none_or(|e| static_eval > e);
        if ply + 2 <= MAX_PLY {
            self.stack[ply + 2].killers = [Move::NONE; 2];
        }
        // Hindsight: the move into this node was reduced on a guess that it was poor. The
        // evaluations either side of it check the guess: a move that did the mover good is
        // searched a ply deeper, one that clearly cost it a ply shallower (off the principal
        // variation, where a wrong guess costs the most).
        if ply > 0 && !in_check && excluded == Move::NONE {
            let (reduction, before) = (self.stack[ply - 1].reduction, self.stack[ply - 1].static_eval);
            if before != NO_EVAL {
                // The mover's gain by the evaluations: its score before, ours after, negated.
                let cost = static_eval + before;
                if reduction >= self.params.hindsight_min_reduction() && cost < 0 {
                    depth += 1;
                } else if !tt_pv && reduction >= 1 && depth >= 2 && cost > self.params.hindsight_margin() {
                    depth -= 1;
                }
            }
        }

        if !pv_node && !in_check && excluded == Move::NONE {
            // Reverse futility pruning: far enough above beta that a shallow search will not
            // bring the score back down.
            if depth <= self.params.rfp_max_depth()
                && eval - self.params.rfp_margin() * (depth - improving as i32) >= beta
                && eval.abs() < TB_WIN_BOUND
                && beta.abs() < TB_WIN_BOUND
            {
                return (eval + beta) / 2;
            }
            // Null-move pruning: if passing the turn still leaves us above beta after a
            // reduced search, a real move will too. Unsound in zugzwang, so never without
            // pieces (pawn endings), and never twice in a row.
            if depth >= self.params.nmp_min_depth()
                && eval >= beta
                && static_eval >= beta
                && beta.abs() < TB_WIN_BOUND
                && (ply == 0 || self.stack[ply - 1].current_move != Move::NONE)
                && self.board.has_non_pawn_material(self.board.side_to_move())
            {
                let reduction = self.params.nmp_base_reduction()
                    + depth / self.params.nmp_depth_divisor()
                    + ((eval - beta) / self.params.nmp_eval_divisor()).min(self.params.nmp_eval_max());
                self.make_null_move(ply);
                let score = -self.negamax(-beta, -beta + 1, depth - reduction, ply + 1, !cut_node);
                self.unmake_null_move();
                if self.stopped {
                    return DRAW;
                }
                if score >= beta {
                    // A mate (or tablebase win) found after passing is not one we can claim.
                    return if score > TB_WIN_BOUND { beta } else { score };
                }
            }
            // ProbCut: a capture that a shallow search shows to beat beta by a margin will
            // almost surely beat beta at full depth too.
            let probcut_beta = beta + self.params.probcut_margin();
            if depth >= self.params.probcut_min_depth()
                && beta.abs() < TB_WIN_BOUND
                && !entry.is_some_and(|e| e.depth >= depth - 3 && tt_score.is_some_and(|s| s < probcut_beta))
                && let Some(score) = self.probcut(probcut_beta, depth, ply, table_move, raw_eval, static_eval, cut_node)
            {
                return score;
            }
            if self.stopped {
                return DRAW;
            }
        }

        // The depth a root move's `currmove` report names: the iteration's, before the
        // adjustments below.
        let iteration_depth = depth;
        // A check is answered one ply deeper, so that the search never ends its line on a
        // position where the reply is forced and may be disastrous.
        if in_check {
            depth += 1;
        }
        // Internal iterative reduction: with no move from the table this node was not searched
        // before, probably matters less than it seems, and ordering is poor; search it shallower.
        if depth >= self.params.iir_min_depth() && table_move == Move::NONE {
            depth -= 1;
        }

        let mut picker = MovePicker::new(
            &self.board,
            table_move,
            &self.state.history,
            self.stack[ply].killers,
            continuations,
            self.params,
        );
        let mut best_score = tb_floor;
        let mut best_move = Move::NONE;
        let mut moves_searched = 0;
        let mut quiets_tried = [Move::NONE; 64];
        let mut quiet_count = 0;
        let mut captures_tried = [Move::NONE; 32];
        let mut capture_count = 0;
        let mut legal_moves_seen = 0;
        let line_doubles = if ply > 0 { self.stack[ply - 1].double_extensions } else { 0 };
        if let Some(grandchildren) = self.stack.get_mut(ply + 2) {
            grandchildren.cutoffs = 0;
        }
        while let Some(mv) = picker.next(&self.board, &self.state.history) {
            if root && !self.is_root_move(mv) {
                continue;
            }
            legal_moves_seen += 1;
            if mv == excluded {
                continue;
            }
            if root && self.id == 0 && self.time.elapsed() >= CURRMOVE_AFTER {
                let number = legal_moves_seen + self.pv_index;
                (self.reporter)(Report::CurrMove { depth: iteration_depth, mv, number });
            }
            let quiet = !mv.is_noisy();
            let history = if quiet {
                self.state.history.quiet_score(&self.board, mv, continuations)
            } else {
                self.state.history.capture_score(&self.board, mv)
            };
            // Shallow pruning of moves unlikely to matter, once a move has been found that
            // does not lose to mate (so pruning never turns a position into a false mate).
            if !root && best_score > -TB_WIN_BOUND {
                if quiet && !in_check {
                    // Late move pruning: after this many quiet moves, the rest are not worth a
                    // look.
                    if !pv_node
                        && quiet_count >= (self.params.lmp_base() + depth * depth) as usize / (2 - improving as usize)
                    {
                        picker.skip_quiets();
                        continue;
                    }
                    // Futility pruning: a quiet move cannot raise a hopeless static score to
                    // alpha. Not for a check, which the static score knows nothing of: it is
                    // what mating attacks are made of, and pruning it hides the mate.
                    let futile = depth <= self.params.futility_max_depth()
                        && static_eval + self.params.futility_base() + self.params.futility_per_depth() * depth
                            <= alpha;
                    if futile && !self.board.gives_check(mv) {
                        continue;
                    }
                }
                // Moves that lose material by exchange, more readily the shallower the search.
                if depth <= self.params.pruning_max_depth() {
                    let margin = if quiet {
                        self.params.see_quiet_margin() * depth
                    } else {
                        self.params.see_noisy_margin() * depth * depth - history / self.params.see_history_divisor()
                    };
                    if !see_ge(&self.board, mv, margin) {
                        continue;
                    }
                }
            }
            // Singular extension: if every other move falls well short of what the table
            // says this one scores, this move is forced in all but name; search it a ply
            // deeper.
            let mut extension = 0;
            if mv == table_move && !root && excluded == Move::NONE && depth >= self.params.se_min_depth() {
                match self.singularity(entry, depth, beta, ply, cut_node) {
                    Singularity::Extend { short_by } => {
                        extension = if !pv_node
                            && short_by > self.params.double_extension_margin()
                            && line_doubles < self.params.double_extensions_max() as u32
                        {
                            2
                        } else {
                            1
                        };
                    }
                    Singularity::Plain => {}
                    Singularity::MultiCut(score) => return score,
                }
                if self.stopped {
                    return DRAW;
                }
            }
            self.stack[ply].double_extensions = line_doubles + (extension == 2) as u32;
            let nodes_before = self.nodes;
            self.make_move(mv, ply);
            let new_depth = depth - 1 + extension;
            let score = if moves_searched == 0 {
                -self.negamax(-beta, -alpha, new_depth, ply + 1, !pv_node && !cut_node)
            } else {
                // Late move reductions: with good ordering, late quiet moves rarely matter, so
                // they get a shallower search first, and the full depth only if it surprises.
                let mut reduction = 0;
                if depth >= self.params.lmr_min_depth() && quiet && moves_searched > pv_node as usize {
                    reduction = self.params.late_move_reduction(depth, moves_searched);
                    reduction -= pv_node as i32;
                    reduction -= tt_pv as i32;
                    reduction -= picker.is_refutation(mv) as i32;
                    reduction -= self.board.in_check() as i32;
                    reduction -= history / self.params.lmr_history_divisor();
                    reduction += !improving as i32;
                    reduction += (self.stack[ply + 1].cutoffs > self.params.lmr_cutoffs() as u32) as i32;
                    reduction = reduction.clamp(0, (new_depth - 1).max(0));
                }
                // Later moves are expected to be worse: prove it with a null window, and search
                // with the full window only if that fails.
                self.stack[ply].reduction = reduction;
                let mut score = -self.negamax(-alpha - 1, -alpha, new_depth - reduction, ply + 1, true);
                self.stack[ply].reduction = 0;
                if score > alpha && reduction > 0 {
                    score = -self.negamax(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
                }
                if pv_node && score > alpha && score < beta {
                    -self.negamax(-beta, -alpha, new_depth, ply + 1, false)
                } else {
                    score
                }
            };
            self.unmake_move();
            moves_searched += 1;
            if self.stopped && !(root && depth == 1) {
                return DRAW;
            }
            if root {
                self.note_root_score(mv, score, alpha, moves_searched == 1, self.nodes - nodes_before);
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = mv;
                    self.pv.update(ply, mv);
                    if alpha >= beta {
                        self.stack[ply].cutoffs += 1;
                        let tried = (&quiets_tried[..quiet_count], &captures_tried[..capture_count]);
                        self.state.history.reward(&self.board, mv, tried, continuations, depth, self.params);
                        if quiet {
                            let killers = &mut self.stack[ply].killers;
                            if killers[0] != mv {
                                *killers = [mv, killers[0]];
                            }
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = mv;
                quiet_count += 1;
            } else if !quiet && capture_count < captures_tried.len() {
                captures_tried[capture_count] = mv;
                capture_count += 1;
            }
        }

        if legal_moves_seen == 0 {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        if excluded != Move::NONE {
            // A singular-extension search leaves the table alone. If the excluded move was
            // the only legal one, nothing was searched, and the alternatives "fail low". The
            // score fails soft: how far the alternatives fall short decides a double extension.
            return if moves_searched == 0 { alpha } else { best_score };
        }
        // A tablebase loss bounds what the moves can score, however well they seemed to do.
        best_score = best_score.min(max_score);
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_move != Move::NONE {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // What the search found teaches the evaluation's correction, unless the bound says
        // nothing about the direction (a fail high above the evaluation, or a fail low below
        // it) or the best move was a capture, whose gain the static evaluation cannot know.
        // (No best move, `Move::NONE`, counts as quiet.)
        let uninformative = match bound {
            Bound::Lower => best_score <= static_eval,
            Bound::Upper => best_score >= static_eval,
            Bound::Exact => false,
        };
        if !in_check && !best_move.is_noisy() && !uninformative && best_score.abs() < TB_WIN_BOUND {
            self.state.history.update_correction(
                &self.board,
                continuations,
                static_eval,
                best_score,
                depth,
                self.params,
            );
        }
        self.store(best_move, best_score, raw_eval, depth, bound, ply, tt_pv);
        best_score
    }

    /// ProbCut's search: the captures that win enough material by exchange, each checked by
    /// quiescence and then by a search four plies shallower, against `probcut_beta`. The score
    /// of one that holds, or `None`.
    #[allow(clippy::too_many_arguments)]
    fn probcut(
        &mut self,
        probcut_beta: i32,
        depth: i32,
        ply: usize,
        table_move: Move,
        raw_eval: i32,
        static_eval: i32,
        cut_node: bool,
    ) -> Option<i32> {
        let mut picker = MovePicker::noisy(table_move, self.params);
        while let Some(mv) = picker.next(&self.board, &self.state.history) {
            if !see_ge(&self.board, mv, probcut_beta - static_eval) {
                continue;
            }
            self.make_move(mv, ply);
            let mut score = -self.quiescence(-probcut_beta, -probcut_beta + 1, ply + 1);
            if score >= probcut_beta {
                score = -self.negamax(-probcut_beta, -probcut_beta + 1, depth - 4, ply + 1, !cut_node);
            }
            self.unmake_move();
            if self.stopped {
                return None;
            }
            if score >= probcut_beta {
                self.store(mv, score, raw_eval, depth - 3, Bound::Lower, ply, self.stack[ply].tt_pv);
                return Some(score);
            }
        }
        None
    }

    /// Whether the table move is singular: a reduced search of every other move, with a
    /// window just below the table's score, must fail low. If even that search reaches beta,
    /// several moves beat beta and the node is cut at once ("multi-cut").
    fn singularity(
        &mut self,
        entry: Option<TtEntry>,
        depth: i32,
        beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> Singularity {
        let Some(e) = entry else { return Singularity::Plain };
        let score = score_from_tt(e.score, ply);
        if e.depth < depth - self.params.se_tt_depth_margin() || e.bound == Bound::Upper || score.abs() >= TB_WIN_BOUND
        {
            return Singularity::Plain;
        }
        let singular_beta = score - self.params.se_beta_margin() * depth;
        self.stack[ply].excluded = e.mv;
        let value = self.negamax(singular_beta - 1, singular_beta, (depth - 1) / 2, ply, cut_node);
        self.stack[ply].excluded = Move::NONE;
        if value < singular_beta {
            Singularity::Extend { short_by: singular_beta - value }
        } else if singular_beta >= beta {
            Singularity::MultiCut(singular_beta)
        } else {
            Singularity::Plain
        }
    }

    /// Searches captures (all moves when in check) until the position is quiet. The side to
    /// move may also "stand pat" on the static evaluation, since it is never forced to capture.
    fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.check_limits();
        self.seldepth = self.seldepth.max(ply);
        if self.stopped {
            return DRAW;
        }
        let in_check = self.board.in_check();
        if ply >= MAX_PLY {
            return if in_check { DRAW } else { self.evaluate() };
        }
        let entry = self.tt.probe(self.board.key());
        let tt_pv = entry.is_some_and(|e| e.tt_pv);
        if let Some(e) = entry {
            let score = score_from_tt(e.score, ply);
            if cutoff_allowed(e.bound, score, alpha, beta) {
                return score;
            }
        }

        let mut raw_eval = NO_EVAL;
        let mut best_score = -INFINITY;
        let mut futility_base = -INFINITY;
        if !in_check {
            raw_eval = self.raw_eval(entry);
            let static_eval = self.corrected(raw_eval, self.continuations(ply));
            // Stand pat on the evaluation, or on the table's score where its bound says it is
            // the better guess.
            best_score = match entry {
                Some(e) if e.score.abs() < TB_WIN_BOUND => sharpened(static_eval, e.bound, score_from_tt(e.score, ply)),
                _ => static_eval,
            };
            if best_score >= beta {
                return best_score;
            }
            alpha = alpha.max(best_score);
            futility_base = static_eval + self.params.qs_futility_margin();
        }

        let table_move = entry.map_or(Move::NONE, |e| e.mv);
        let mut picker = if in_check {
            let none = Continuations([PieceTo::NONE; 2]);
            MovePicker::new(&self.board, table_move, &self.state.history, self.stack[ply].killers, none, self.params)
        } else {
            MovePicker::noisy(table_move, self.params)
        };
        let mut best_move = Move::NONE;
        let mut moves_searched = 0;
        while let Some(mv) = picker.next(&self.board, &self.state.history) {
            // Futility: a capture that, with a margin, still leaves us short of alpha is not
            // worth a search (promotions excepted: their gain is more than the victim).
            if !in_check && mv.promoted().is_none() && futility_base > -INFINITY {
                let gain = futility_base + self.board.captured(mv).map_or(0, PieceKind::value);
                if gain <= alpha {
                    best_score = best_score.max(gain);
                    continue;
                }
            }
            self.make_move(mv, ply);
            let score = -self.quiescence(-beta, -alpha, ply + 1);
            self.unmake_move();
            moves_searched += 1;
            if self.stopped {
                return DRAW;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = mv;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && moves_searched == 0 {
            return -MATE + ply as i32;
        }
        let bound = if best_score >= beta { Bound::Lower } else { Bound::Upper };
        self.store(best_move, best_score, raw_eval, 0, bound, ply, tt_pv);
        best_score
    }

    /// Every move the search makes goes through here, so that what follows a move (the board,
    /// the evaluation, the stack's record of the line) is kept in one place.
    #[inline(always)]
    fn make_move(&mut self, mv: Move, ply: usize) {
        // First, so that the fetch overlaps the work below: the child probes the table at once.
        self.tt.prefetch(self.board.key_after(mv));
        self.stack[ply].current_move = mv;
        self.stack[ply].piece_to = PieceTo::of(&self.board, mv);
        self.state.evaluator.push(&self.board, mv);
        self.board.make_move(mv);
        // Here, where the child's keys are first known: the child corrects its evaluation
        // soon after its table probe, and the fetch overlaps the work between.
        self.state.history.prefetch_correction(&self.board, self.continuations(ply + 1));
    }

    #[inline(always)]
    fn unmake_move(&mut self) {
        self.board.unmake_move();
        self.state.evaluator.pop();
    }

    fn make_null_move(&mut self, ply: usize) {
        self.stack[ply].current_move = Move::NONE;
        self.stack[ply].piece_to = PieceTo::NONE;
        self.board.make_null_move();
        self.tt.prefetch(self.board.key());
        self.state.history.prefetch_correction(&self.board, self.continuations(ply + 1));
        self.state.evaluator.push_null();
    }

    fn unmake_null_move(&mut self) {
        self.board.unmake_null_move();
        self.state.evaluator.pop();
    }

    /// Records what the search of root move `mv` found: its score and line when it is the
    /// first move searched or raised alpha (the best so far), otherwise that it is no better
    /// than alpha; and the nodes it took.
    fn note_root_score(&mut self, mv: Move, score: i32, alpha: i32, first: bool, nodes: u64) {
        let child_line = &self.pv.moves[1][..self.pv.len[1]];
        let Some(root_move) = self.root_moves.iter_mut().find(|r| r.mv == mv) else {
            return;
        };
        root_move.nodes += nodes;
        if first || score > alpha {
            root_move.score = score;
            root_move.pv.clear();
            root_move.pv.push(mv);
            root_move.pv.extend_from_slice(child_line);
        } else {
            root_move.score = -INFINITY;
        }
    }

    /// The evaluation before correction, from the table when an earlier visit saved it.
    fn raw_eval(&mut self, entry: Option<TtEntry>) -> i32 {
        match entry {
            Some(e) if e.eval != NO_EVAL => e.eval,
            _ => self.evaluate(),
        }
    }

    /// `raw_eval`, reached by the moves `continuations`, corrected by what searches of similar
    /// positions found, kept clear of the scores that mean won or lost.
    fn corrected(&self, raw_eval: i32, continuations: Continuations) -> i32 {
        let corrected = self.state.history.corrected(&self.board, continuations, raw_eval, self.params);
        corrected.clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// The continuation keys of the moves one and two plies before `ply`'s.
    fn continuations(&self, ply: usize) -> Continuations {
        let back = |n: usize| if ply >= n { self.stack[ply - n].piece_to } else { PieceTo::NONE };
        Continuations([back(1), back(2)])
    }

    /// The position's evaluation for the side to move.
    fn evaluate(&mut self) -> i32 {
        self.state.evaluator.evaluate(&self.board)
    }

    #[allow(clippy::too_many_arguments)]
    fn store(&self, mv: Move, score: i32, eval: i32, depth: i32, bound: Bound, ply: usize, tt_pv: bool) {
        let entry = TtEntry { mv, score: score_to_tt(score, ply), eval, depth, bound, tt_pv };
        self.tt.store(self.board.key(), entry);
    }
}

/// How much of the optimum time this move deserves, given how the search is going: more
/// while the best move keeps changing, the score falls or the other moves take most of the
/// work (`effort`: the best move's share of the nodes searched; the position is not understood
/// yet), less once the best move has held for several iterations and took most of the work,
/// and hardly any when there is only one legal move. Scaled to the share of it before which
/// another iteration may start, since the next one takes longer than all before it.
fn time_share(forced: bool, stable_iterations: u32, score_drop: i32, effort: f64, params: &Params) -> f64 {
    if forced {
        return 0.05;
    }
    let hundredths = |v: i32| v as f64 / 100.0;
    let stability = hundredths(params.stability_base() - params.stability_step() * stable_iterations.min(6) as i32);
    let trouble = 1.0 + hundredths(params.score_drop_percent()) * score_drop.clamp(0, 100) as f64 / 100.0;
    let contest = (hundredths(params.effort_base()) - effort.clamp(0.0, 1.0)) * hundredths(params.effort_scale());
    stability * trouble * contest * hundredths(params.iteration_start_percent())
}

/// What the singularity search says of the table move: search it a ply deeper, search it as
/// any other move, or cut the node with this score.
enum Singularity {
    /// The other moves fall short of the singular beta, by this much at least (the singular
    /// search fails soft).
    Extend {
        short_by: i32,
    },
    Plain,
    MultiCut(i32),
}

/// The table's `score` where its `bound` says it lies closer to the truth than `static_eval`
/// (an exact score, a lower bound above it, an upper bound below it), else `static_eval`.
fn sharpened(static_eval: i32, bound: Bound, score: i32) -> i32 {
    let closer = match bound {
        Bound::Exact => true,
        Bound::Lower => score > static_eval,
        Bound::Upper => score < static_eval,
    };
    if closer { score } else { static_eval }
}

/// Whether a stored score with this bound settles the node for the window alpha..beta.
fn cutoff_allowed(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// Mate and tablebase scores count plies from the root; the table stores them counted from the
/// position itself, so that an entry stays right when the position is reached at another ply.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score > TB_WIN_BOUND {
        score + ply as i32
    } else if score < -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score > TB_WIN_BOUND {
        score - ply as i32
    } else if score < -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score of a tablebase result `ply` plies from the root, and what kind of bound it is: a
/// win is at least as good as TB_WIN - ply (a mate may be better), a loss at most as good;
/// draws, and the wins and losses the 50-move rule turns into draws, are exact (a cursed win
/// just above a draw, so the search still prefers it).
fn tablebase_score(wdl: Wdl, ply: usize) -> (i32, Bound) {
    match wdl {
        Wdl::Win => (TB_WIN - ply as i32, Bound::Lower),
        Wdl::Loss => (-TB_WIN + ply as i32, Bound::Upper),
        Wdl::CursedWin => (DRAW + 2, Bound::Exact),
        Wdl::BlessedLoss => (DRAW - 2, Bound::Exact),
        Wdl::Draw => (DRAW, Bound::Exact),
    }
}

/// Converts an internal score to what the GUI is told (mates in moves, not plies), on the
/// search's scale and as reported: only an evaluation is normalised, not a tablebase result.
fn reported_scores(score: i32) -> (Score, Score) {
    let same = |score| (score, score);
    if score > MATE_BOUND {
        same(Score::Mate((MATE - score + 1) / 2))
    } else if score < -MATE_BOUND {
        same(Score::Mate(-(MATE + score) / 2))
    } else if score.abs() > TB_WIN_BOUND {
        // Tablebase wins and losses: 200 pawns, less a centipawn per ply to the position the
        // tables judged, as Stockfish shows them.
        same(Score::Centipawns(score.signum() * (TB_WIN_REPORTED - (TB_WIN - score.abs()))))
    } else {
        (Score::Centipawns(score), Score::Centipawns(win_rate::normalize(score)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn search(fen: &str, limits: Limits) -> (Vec<Info>, Option<Move>) {
        search_with_threads(fen, limits, 1)
    }

    fn search_with_threads(fen: &str, limits: Limits, threads: usize) -> (Vec<Info>, Option<Move>) {
        let mut searcher = Searcher::new(16);
        searcher.set_threads(threads);
        run(&mut searcher, fen, limits)
    }

    /// One search by `searcher`: what it reported and the move it chose.
    fn run(searcher: &mut Searcher, fen: &str, limits: Limits) -> (Vec<Info>, Option<Move>) {
        let (tx, rx) = mpsc::channel();
        searcher.start(Board::from_fen(fen).unwrap(), limits, Box::new(move |r| tx.send(r).unwrap()));
        searcher.wait();
        let mut infos = Vec::new();
        let mut best = None;
        for report in rx.try_iter() {
            match report {
                Report::Info(info) => infos.push(info),
                Report::CurrMove { .. } => {}
                Report::BestMove { best: mv, .. } => best = mv,
            }
        }
        (infos, best)
    }

    fn depth(d: i32) -> Limits {
        Limits { depth: Some(d), ..Limits::default() }
    }

    /// Two random networks of the built-in network's shape.
    fn random_networks(seed: u64) -> impl Iterator<Item = Evaluation> {
        [seed, seed + 1].map(|seed| Evaluation::Network(crate::eval::nnue::random_network(seed))).into_iter()
    }

    /// With either network, every move and null move of the search updates the
    /// accumulators; the search checks them against fresh ones as it goes (debug assertions,
    /// on in tests) over positions with castling, en passant and promotions.
    #[test]
    fn network_accumulators_follow_the_search() {
        for network in random_networks(7) {
            for fen in &crate::bench::POSITIONS[8..12] {
                let mut searcher = Searcher::new(4);
                searcher.set_evaluation(network.clone());
                let (infos, best) = run(&mut searcher, fen, depth(6));
                assert!(best.is_some() && !infos.is_empty(), "{fen}");
            }
        }
    }

    /// The same search threads serve every evaluation in turn: switching to the hand-crafted
    /// evaluation and to another network, and back, gives the search a fresh
    /// network's search gives, node for node, and the three evaluations search differently.
    #[test]
    fn one_evaluator_serves_every_evaluation() {
        let [other, network] = random_networks(3).collect::<Vec<_>>().try_into().unwrap();
        let fen = crate::bench::POSITIONS[3];
        let summary = |(infos, best): (Vec<Info>, Option<Move>)| {
            let last = infos.last().unwrap();
            (last.nodes, last.score, best)
        };
        let mut fresh = Searcher::new(4);
        fresh.set_evaluation(network.clone());
        let expected = summary(run(&mut fresh, fen, depth(7)));

        let mut switched = Searcher::new(4);
        switched.set_evaluation(network.clone());
        run(&mut switched, crate::bench::POSITIONS[5], depth(5));
        switched.set_evaluation(Evaluation::HandCrafted);
        let hand_crafted = summary(run(&mut switched, fen, depth(7)));
        switched.set_evaluation(other);
        let second = summary(run(&mut switched, fen, depth(7)));
        switched.set_evaluation(network);
        assert_eq!(summary(run(&mut switched, fen, depth(7))), expected);
        assert_ne!(hand_crafted, expected);
        assert_ne!(second, expected);
        assert_ne!(second, hand_crafted);
    }

    /// The time a move deserves grows while the search struggles: a best move that keeps
    /// changing, a falling score, and rivals that take most of the nodes; and shrinks once the
    /// best move holds and takes the nodes.
    #[test]
    fn time_share_reacts_to_how_the_search_goes() {
        let params = Params::default();
        let share = |forced, stable, drop, effort| time_share(forced, stable, drop, effort, &params);
        let settled = share(false, 6, 0, 0.95);
        let contested = share(false, 6, 0, 0.3);
        assert!(contested > 1.5 * settled, "{contested} {settled}");
        assert!(share(false, 0, 0, 0.95) > settled);
        assert!(share(false, 6, 60, 0.95) > settled);
        assert!(share(true, 0, 100, 0.0) < settled / 5.0);
    }

    #[test]
    fn finds_mate_in_two() {
        let (infos, best) = search("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 0", depth(5));
        assert_eq!(infos.last().unwrap().score, Score::Mate(2));
        assert_eq!(best.unwrap().to_string(), "d5f6");
    }

    #[test]
    fn helper_threads_search_alongside() {
        let fen = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 0";
        let (infos, best) = search_with_threads(fen, depth(6), 3);
        assert_eq!(infos.last().unwrap().score, Score::Mate(2));
        assert_eq!(best.unwrap().to_string(), "d5f6");
    }

    #[test]
    fn reports_being_mated() {
        // Kg8 is forced and Qb8 mates.
        let (infos, _) = search("7k/8/6K1/8/8/8/8/1Q6 b - - 0 1", depth(4));
        assert!(matches!(infos.last().unwrap().score, Score::Mate(-1)), "{:?}", infos.last());
    }

    #[test]
    fn checkmated_or_stalemated_side_has_no_move() {
        assert_eq!(search("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", depth(3)).1, None);
        assert_eq!(search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", depth(3)).1, None);
    }

    #[test]
    fn avoids_stalemating_when_winning() {
        // Qf7 would stalemate; a queen up, White must find something else.
        let (infos, best) = search("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", depth(6));
        assert_ne!(best.unwrap().to_string(), "f1f7");
        assert!(matches!(infos.last().unwrap().score, Score::Mate(_) | Score::Centipawns(500..)));
    }

    #[test]
    fn a_queen_down_takes_the_perpetual_check() {
        let (infos, best) = search("1q3rk1/5p1p/8/8/8/8/3Q1PPP/6K1 w - - 0 1", depth(8));
        assert_eq!(infos.last().unwrap().score, Score::Centipawns(0));
        assert_eq!(best.unwrap().to_string(), "d2g5");
    }
}
