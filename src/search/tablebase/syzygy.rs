//! The Syzygy prober proper, on `shakmaty-syzygy`: opening the tables, converting our board to
//! the crate's position, and judging root moves by DTZ.

use super::{PATH_SEPARATOR, RootMove, RootProbe, Wdl};
use crate::board::{Board, Color, PieceKind};
use crate::movegen::legal_moves;
use shakmaty::{Bitboard, ByColor, ByRole, CastlingMode, Chess, FromSetup, PositionError, Setup};
use shakmaty_syzygy::{MaybeRounded, ProbeError, Syzygy, SyzygyError, Tablebase};
use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Our result from the crate's.
fn wdl_from_table(wdl: shakmaty_syzygy::Wdl) -> Wdl {
    match wdl {
        shakmaty_syzygy::Wdl::Loss => Wdl::Loss,
        shakmaty_syzygy::Wdl::BlessedLoss => Wdl::BlessedLoss,
        shakmaty_syzygy::Wdl::Draw => Wdl::Draw,
        shakmaty_syzygy::Wdl::CursedWin => Wdl::CursedWin,
        shakmaty_syzygy::Wdl::Win => Wdl::Win,
    }
}

/// Opened tables, shared by the search threads (probing takes `&self`; the crate opens each
/// file the first time a probe needs it, under its own lock).
pub struct Tablebases {
    tables: Tablebase<Chess>,
    wdl_files: usize,
    dtz_files: usize,
    warnings: Vec<String>,
    /// Probe failures already logged, so a broken table is reported once and not at every node.
    reported: Mutex<HashSet<String>>,
}

impl Tablebases {
    /// Opens the tables in the folders of `path_list` (separated by `PATH_SEPARATOR`). An
    /// empty list or `<empty>` (the UCI default) opens none. Table files that cannot be used
    /// (wrong size or header, unreadable) and folders that cannot be read are skipped and
    /// listed in `warnings`; finding no table at all in a non-empty list is an error.
    pub fn open(path_list: &str) -> Result<Tablebases, String> {
        let mut tablebases = Tablebases {
            tables: Tablebase::new(),
            wdl_files: 0,
            dtz_files: 0,
            warnings: Vec::new(),
            reported: Mutex::new(HashSet::new()),
        };
        let path_list = path_list.trim();
        if path_list.is_empty() || path_list == "<empty>" {
            return Ok(tablebases);
        }
        let mut seen = HashSet::new();
        for folder in path_list.split(PATH_SEPARATOR).map(str::trim).filter(|f| !f.is_empty()) {
            match table_files(Path::new(folder)) {
                Ok(files) => {
                    for file in files {
                        // The first folder with a usable copy of a table wins, as in Stockfish.
                        let name = file.file_name().map(|n| n.to_os_string());
                        if !seen.contains(&name) && tablebases.add(&file) {
                            seen.insert(name);
                        }
                    }
                }
                Err(e) => tablebases.warnings.push(format!("cannot read Syzygy folder {folder}: {e}")),
            }
        }
        if tablebases.wdl_files + tablebases.dtz_files == 0 {
            let mut message = format!("no Syzygy tables found in {path_list}");
            for warning in &tablebases.warnings {
                message.push_str("; ");
                message.push_str(warning);
            }
            return Err(message);
        }
        Ok(tablebases)
    }

    /// Adds one table file, or records why not; true if added.
    fn add(&mut self, file: &Path) -> bool {
        let is_wdl = file.extension().is_some_and(|e| e == Chess::TBW.ext);
        let magic = if is_wdl { Chess::TBW.magic } else { Chess::TBZ.magic };
        let checked = check_header(file, magic).and_then(|()| {
            self.tables.add_file(file).map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidInput => "not a Syzygy table name".to_string(),
                std::io::ErrorKind::InvalidData => "wrong size for a Syzygy table (truncated?)".to_string(),
                _ => e.to_string(),
            })
        });
        match checked {
            Ok(()) if is_wdl => self.wdl_files += 1,
            Ok(()) => self.dtz_files += 1,
            Err(e) => {
                self.warnings.push(format!("skipped {}: {e}", file.display()));
                return false;
            }
        }
        true
    }

    /// Pieces, kings included, of the largest table found; 0 when none is open.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    #[cfg(test)]
    pub fn wdl_files(&self) -> usize {
        self.wdl_files
    }

    #[cfg(test)]
    pub fn dtz_files(&self) -> usize {
        self.dtz_files
    }

    /// What `open` skipped, one line each, for the GUI to show.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// One line for the GUI: what was found.
    pub fn summary(&self) -> String {
        format!(
            "found {} WDL and {} DTZ Syzygy tables, up to {} pieces",
            self.wdl_files,
            self.dtz_files,
            self.max_pieces()
        )
    }

    /// The result of the position for the side to move, if the tables know it exactly: the
    /// halfmove clock must be 0 (a WDL table assumes the 50-move count starts afresh), no
    /// castling rights, at most `max_pieces` pieces, and the table must be there and sound.
    pub fn probe_wdl(&self, board: &Board) -> Option<Wdl> {
        if board.halfmove_clock() != 0 {
            return None;
        }
        let position = self.position(board)?;
        self.answer(self.tables.probe_wdl_after_zeroing(&position)).map(wdl_from_table)
    }

    /// Judges every legal root move with the DTZ tables (the WDL tables for captures and pawn
    /// moves), counting the root's halfmove clock. With `fifty_move_rule` false a cursed win
    /// counts as a win and a blessed loss as a loss. None when the position cannot be probed,
    /// has no legal move, or a table it needs is missing.
    pub fn probe_root(&self, board: &Board, fifty_move_rule: bool) -> Option<RootProbe> {
        self.position(board)?;
        let clock = i32::from(board.halfmove_clock());
        let mut moves = Vec::new();
        let mut child = board.clone();
        for mv in legal_moves(board).iter() {
            child.make_move(mv);
            let judged = self.judge_move(&child, clock, fifty_move_rule);
            child.unmake_move();
            let (wdl, dtz, mate) = judged?;
            moves.push(RootMove { mv, wdl, dtz, rank: rank(wdl, dtz, mate) });
        }
        if moves.is_empty() {
            return None;
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.rank));
        Some(RootProbe { moves })
    }

    /// The result, distance to zeroing and mate flag of the move that led to `child`, from the
    /// mover's view; `clock` is the halfmove clock before the move.
    fn judge_move(&self, child: &Board, clock: i32, fifty_move_rule: bool) -> Option<(Wdl, i32, bool)> {
        if legal_moves(child).is_empty() {
            return Some(if child.in_check() { (Wdl::Win, 1, true) } else { (Wdl::Draw, 0, false) });
        }
        let position = self.position(child)?;
        if child.halfmove_clock() == 0 {
            // A capture or pawn move: the count starts afresh, so the WDL table is exact.
            let wdl = wdl_from_table(self.answer(self.tables.probe_wdl_after_zeroing(&position))?).flip();
            let dtz = match wdl {
                Wdl::Win => 1,
                Wdl::CursedWin => 101,
                Wdl::Draw => 0,
                Wdl::BlessedLoss => -101,
                Wdl::Loss => -1,
            };
            let wdl = if fifty_move_rule { wdl } else { wdl.without_fifty_move_rule() };
            return Some((wdl, dtz, false));
        }
        let (reply_dtz, rounded) = match self.answer(self.tables.probe_dtz(&position))? {
            MaybeRounded::Precise(d) => (d.0, false),
            MaybeRounded::Rounded(d) => (d.0, true),
        };
        // The reply's distance is counted from the child; ours is one ply more.
        let dtz = -reply_dtz + (-reply_dtz).signum();
        let wdl = match dtz.signum() {
            0 => Wdl::Draw,
            _ if !fifty_move_rule => {
                if dtz > 0 {
                    Wdl::Win
                } else {
                    Wdl::Loss
                }
            }
            // The zeroing move must come before the clock reaches 100. A rounded distance may be
            // one ply short, so a win counts as certain only with that ply to spare, and a loss
            // as saved only without it.
            1 if clock + dtz + i32::from(rounded) <= 100 => Wdl::Win,
            1 => Wdl::CursedWin,
            _ if clock - dtz <= 100 => Wdl::Loss,
            _ => Wdl::BlessedLoss,
        };
        Some((wdl, dtz, false))
    }

    /// The board as the prober's position, or None when the tables cannot hold it.
    fn position(&self, board: &Board) -> Option<Chess> {
        if board.castling_rights() != 0 {
            return None;
        }
        let mut by_role = ByRole::<Bitboard>::default();
        let mut by_color = ByColor::<Bitboard>::default();
        let mut pieces = 0;
        for color in Color::BOTH {
            for kind in PieceKind::ALL {
                for &sq in board.pieces(color, kind) {
                    let bit = Bitboard::from_square(square(sq));
                    *by_role.get_mut(role(kind)) |= bit;
                    *by_color.get_mut(shakmaty_color(color)) |= bit;
                    pieces += 1;
                }
            }
        }
        if pieces > self.max_pieces() {
            return None;
        }
        let setup = Setup {
            board: shakmaty::Board::try_from_bitboards(by_role, by_color).ok()?,
            turn: shakmaty_color(board.side_to_move()),
            ep_square: board.en_passant().map(square),
            halfmoves: u32::from(board.halfmove_clock()),
            ..Setup::empty()
        };
        // Our board keeps the square a pawn passed over even when no capture is possible; the
        // prober may call that square invalid, and ignoring it changes nothing.
        Chess::from_setup(setup, CastlingMode::Standard).or_else(PositionError::ignore_invalid_ep_square).ok()
    }

    /// The probe's value, or None after logging (once per table) why there is none. Castling
    /// rights and piece counts are screened before probing, so what is left is a table that
    /// is missing or broken.
    fn answer<T>(&self, probed: Result<T, SyzygyError>) -> Option<T> {
        let error = match probed {
            Ok(value) => return Some(value),
            Err(error) => error,
        };
        let message = match error {
            SyzygyError::Castling | SyzygyError::TooManyPieces => return None,
            SyzygyError::MissingTable { metric, material } => format!("missing Syzygy {metric} table {material}"),
            SyzygyError::ProbeFailed { metric, material, error } => {
                let why = match *error {
                    ProbeError::Read { error } => format!("cannot read it: {error}"),
                    ProbeError::Magic { .. } => "not a Syzygy table".to_string(),
                    ProbeError::CorruptedTable { .. } => "the table is corrupt".to_string(),
                };
                format!("Syzygy {metric} table {material} failed: {why}")
            }
        };
        if let Ok(mut reported) = self.reported.lock()
            && reported.insert(message.clone())
        {
            log::warn!("{message}");
        }
        None
    }
}

/// The `.rtbw` and `.rtbz` files in `folder`, sorted so that what is found does not depend on
/// the order the file system lists them in.
fn table_files(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == Chess::TBW.ext || e == Chess::TBZ.ext))
        .collect();
    files.sort();
    Ok(files)
}

/// Checks a table's first four bytes, so that a file that is no table is reported when the
/// tables are opened rather than at the first probe deep in a search.
fn check_header(file: &Path, magic: [u8; 4]) -> Result<(), String> {
    let mut header = [0; 4];
    File::open(file).and_then(|mut f| f.read_exact(&mut header)).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => "too short for a Syzygy table".to_string(),
        _ => e.to_string(),
    })?;
    if header == magic { Ok(()) } else { Err("not a Syzygy table (wrong header)".to_string()) }
}

fn square(sq: crate::board::Square) -> shakmaty::Square {
    shakmaty::Square::new(sq.index64() as u32)
}

fn shakmaty_color(color: Color) -> shakmaty::Color {
    match color {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    }
}

fn role(kind: PieceKind) -> shakmaty::Role {
    match kind {
        PieceKind::Pawn => shakmaty::Role::Pawn,
        PieceKind::Knight => shakmaty::Role::Knight,
        PieceKind::Bishop => shakmaty::Role::Bishop,
        PieceKind::Rook => shakmaty::Role::Rook,
        PieceKind::Queen => shakmaty::Role::Queen,
        PieceKind::King => shakmaty::Role::King,
    }
}

/// See `RootMove::rank`: a thousand per step of result, then the distance.
fn rank(wdl: Wdl, dtz: i32, mate: bool) -> i32 {
    let within = match wdl {
        _ if mate => 999,
        Wdl::Win | Wdl::CursedWin => 998 - dtz.clamp(0, 998),
        Wdl::Draw => 0,
        Wdl::BlessedLoss | Wdl::Loss => (-dtz).clamp(0, 999),
    };
    wdl as i32 * 1000 + within
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::placement;
    use crate::movegen::parse_move;

    fn tables() -> Tablebases {
        Tablebases::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy")).unwrap()
    }

    fn board(fen: &str) -> Board {
        Board::from_fen(fen).unwrap()
    }

    /// A folder of its own under the system's temporary folder, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let path = std::env::temp_dir().join(format!("sentinel-syzygy-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }

        fn write(&self, name: &str, bytes: &[u8]) {
            std::fs::write(self.0.join(name), bytes).unwrap();
        }

        fn copy(&self, table: &str) {
            let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/syzygy").join(table);
            std::fs::copy(from, self.0.join(table)).unwrap();
        }

        fn path(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn opening_counts_the_tables() {
        let tb = tables();
        assert_eq!((tb.wdl_files(), tb.dtz_files(), tb.max_pieces()), (7, 7, 4));
        assert!(tb.warnings().is_empty(), "{:?}", tb.warnings());
        assert_eq!(tb.summary(), "found 7 WDL and 7 DTZ Syzygy tables, up to 4 pieces");
        // The same folder twice, and empty entries, add nothing.
        let twice = format!("{0}{PATH_SEPARATOR}{PATH_SEPARATOR}{0}", tables_dir());
        let tb = Tablebases::open(&twice).unwrap();
        assert_eq!((tb.wdl_files(), tb.dtz_files()), (7, 7));
    }

    fn tables_dir() -> &'static str {
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy")
    }

    #[test]
    fn an_empty_path_opens_nothing() {
        for path in ["", "<empty>", "  "] {
            let tb = Tablebases::open(path).unwrap();
            assert_eq!(tb.max_pieces(), 0);
            assert_eq!(tb.probe_wdl(&board("8/8/8/8/8/2k5/3r4/KQ6 w - - 0 1")), None);
        }
    }

    #[test]
    fn bad_folders_and_files_are_reported() {
        let missing = "/nonexistent/sentinel-syzygy";
        let error = Tablebases::open(missing).err().unwrap();
        assert!(error.contains("no Syzygy tables found") && error.contains(missing), "{error}");

        // A missing folder beside a good one is skipped with a warning.
        let tb = Tablebases::open(&format!("{missing}{PATH_SEPARATOR}{}", tables_dir())).unwrap();
        assert_eq!(tb.wdl_files(), 7);
        assert!(tb.warnings().len() == 1 && tb.warnings()[0].contains(missing), "{:?}", tb.warnings());

        let dir = TempDir::new("bad-files");
        // The right size for a table (16 past a multiple of 64) but not a table.
        dir.write("KQvK.rtbw", &[0x42; 80]);
        // A table's header, but the wrong size.
        let mut truncated = std::fs::read(Path::new(tables_dir()).join("KRvK.rtbw")).unwrap();
        truncated.truncate(100);
        dir.write("KRvK.rtbw", &truncated);
        dir.write("KQvK.rtbz", &[]);
        dir.write("notes.rtbw", &Chess::TBW.magic);
        dir.write("README.txt", b"not looked at");
        let error = Tablebases::open(dir.path()).err().unwrap();
        for expected in [
            "KQvK.rtbw: not a Syzygy table (wrong header)",
            "KRvK.rtbw: wrong size for a Syzygy table",
            "KQvK.rtbz: too short for a Syzygy table",
            "notes.rtbw: not a Syzygy table name",
        ] {
            assert!(error.contains(expected), "{expected} not in {error}");
        }
        assert!(!error.contains("README"), "{error}");

        // A broken copy in the first folder does not hide the good one in the next.
        let tb = Tablebases::open(&format!("{}{PATH_SEPARATOR}{}", dir.path(), tables_dir())).unwrap();
        assert_eq!((tb.wdl_files(), tb.dtz_files(), tb.warnings().len()), (7, 7, 4));
        assert_eq!(tb.probe_wdl(&board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")), Some(Wdl::Win));
    }

    #[test]
    fn a_corrupt_table_fails_the_probe_without_a_crash() {
        // A table cut short at a length a whole table could have, header intact: only probing
        // it finds the damage.
        let dir = TempDir::new("corrupt");
        let mut cut = std::fs::read(Path::new(tables_dir()).join("KQvKR.rtbw")).unwrap();
        cut.truncate(32 * 64 + 16);
        dir.write("KQvKR.rtbw", &cut);
        dir.copy("KQvK.rtbw");
        dir.copy("KRvK.rtbw");
        let tb = Tablebases::open(dir.path()).unwrap();
        let position = board("8/8/8/8/8/2k5/3r4/KQ6 w - - 0 1");
        assert_eq!(tb.probe_wdl(&position), None);
        assert_eq!(tb.probe_wdl(&position), None);
        // Positions its captures lead to are still known.
        assert_eq!(tb.probe_wdl(&board("8/8/8/8/8/2k5/8/KQ6 b - - 0 1")), Some(Wdl::Loss));
    }

    // Known values below were checked against python-chess's Syzygy prober.

    #[test]
    fn wdl_of_known_positions() {
        let tb = tables();
        let cases = [
            // KQvKR: the queen wins, whoever is to move, unless the rook can take it.
            ("8/8/8/8/8/2k5/3r4/KQ6 w - - 0 1", Wdl::Win),
            ("8/8/3k4/8/8/3r4/8/1Q2K3 b - - 0 1", Wdl::Loss),
            ("8/8/8/8/3r4/2k5/8/KQ6 b - - 0 1", Wdl::Draw),
            // KRvKR: a draw, unless a rook falls at once.
            ("4k3/8/8/8/8/8/r7/4K2R w - - 0 1", Wdl::Draw),
            ("8/8/8/3k4/8/3r4/8/3RK3 w - - 0 1", Wdl::Win),
            // KPvK: the king on the sixth rank in front of its pawn wins; opposition and the
            // rook pawn draw.
            ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", Wdl::Win),
            ("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1", Wdl::Loss),
            ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", Wdl::Win),
            ("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", Wdl::Draw),
            ("8/8/8/8/8/4k3/4P3/4K3 w - - 0 1", Wdl::Draw),
            ("k7/8/8/8/8/8/P7/K7 w - - 0 1", Wdl::Draw),
            ("7k/8/8/8/8/8/P7/K7 w - - 0 1", Wdl::Win),
            // Black's pawn: colours are flipped into the table.
            ("8/8/8/8/4p3/4k3/8/4K3 b - - 0 1", Wdl::Win),
        ];
        for (fen, expected) in cases {
            assert_eq!(tb.probe_wdl(&board(fen)), Some(expected), "{fen}");
        }
    }

    #[test]
    fn unprobeable_positions_give_none() {
        let tb = tables();
        let cases = [
            // Castling rights: the tables hold no such positions.
            "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
            // Five pieces, more than the largest table.
            "8/8/8/8/8/2k5/3r4/KQ5R w - - 0 1",
            // No KBvKN table.
            "8/8/8/8/8/2k5/3n4/KB6 w - - 0 1",
        ];
        for fen in cases {
            assert_eq!(tb.probe_wdl(&board(fen)), None, "{fen}");
            assert!(tb.probe_root(&board(fen), true).is_none(), "{fen}");
        }
        // The halfmove clock is not 0, so the WDL table could be wrong about the 50-move rule;
        // the root probe reads DTZ and counts the clock.
        let late = board("8/8/8/8/8/2k5/3r4/KQ6 w - - 5 1");
        assert_eq!(tb.probe_wdl(&late), None);
        assert!(tb.probe_root(&late, true).is_some());
    }

    /// Random legal positions of `white` and `black` pieces (kings added) with `side` to move.
    fn random_positions(white: &[char], black: &[char], side: Color, count: usize) -> Vec<Board> {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 64) as usize
        };
        let mut boards = Vec::new();
        for _ in 0..count * 100 {
            if boards.len() == count {
                break;
            }
            let mut squares = ['.'; 64];
            let pieces = white.iter().chain(&['K']).copied().chain(black.iter().chain(&['k']).copied());
            for piece in pieces {
                loop {
                    let sq = next();
                    let back_rank = !(8..56).contains(&sq);
                    if squares[sq] == '.' && !(back_rank && piece.eq_ignore_ascii_case(&'p')) {
                        squares[sq] = piece;
                        break;
                    }
                }
            }
            let placement = placement(|sq| Some(squares[sq.index64()]).filter(|&c| c != '.'));
            let to_move = if side == Color::White { 'w' } else { 'b' };
            let Ok(board) = Board::from_fen(&format!("{placement} {to_move} - - 0 1")) else { continue };
            let kings_apart = !board.is_attacked_by(board.king_square(!side), side);
            if kings_apart {
                boards.push(board);
            }
        }
        assert_eq!(boards.len(), count, "too few legal positions drawn");
        boards
    }

    /// Whether the side to move can capture a piece of `kind`.
    fn can_capture(board: &Board, kind: PieceKind) -> bool {
        legal_moves(board).iter().any(|mv| board.piece_at(mv.to()).is_kind(kind))
    }

    #[test]
    fn lone_queen_and_rook_agree_with_the_rules() {
        // With the strong side to move KQvK and KRvK are won. With the lone king to move they
        // are won unless it is stalemated or can take the piece, which leaves bare kings.
        let tb = tables();
        for (piece, kind) in [('Q', PieceKind::Queen), ('R', PieceKind::Rook)] {
            for board in random_positions(&[piece], &[], Color::White, 40) {
                assert_eq!(tb.probe_wdl(&board), Some(Wdl::Win), "{}", board.to_fen());
            }
            for board in random_positions(&[piece], &[], Color::Black, 40) {
                let stalemate = legal_moves(&board).is_empty() && !board.in_check();
                let expected = if stalemate || can_capture(&board, kind) { Wdl::Draw } else { Wdl::Loss };
                assert_eq!(tb.probe_wdl(&board), Some(expected), "{}", board.to_fen());
            }
        }
    }

    #[test]
    fn probes_agree_across_threads() {
        fn shared<T: Send + Sync>(_: &T) {}
        let tb = tables();
        shared(&tb);
        let boards = random_positions(&['Q'], &['r'], Color::Black, 200);
        let alone: Vec<_> = boards.iter().map(|b| tb.probe_wdl(b)).collect();
        assert!(alone.iter().all(Option::is_some));
        std::thread::scope(|scope| {
            let handles: Vec<_> =
                (0..4).map(|_| scope.spawn(|| boards.iter().map(|b| tb.probe_wdl(b)).collect::<Vec<_>>())).collect();
            for handle in handles {
                assert_eq!(handle.join().unwrap(), alone);
            }
        });
    }

    #[test]
    fn root_probe_keeps_the_win_and_ranks_the_fastest_first() {
        let tb = tables();
        let position = board("8/8/8/8/8/2k5/3r4/KQ6 w - - 0 1");
        let root = tb.probe_root(&position, true).unwrap();
        assert_eq!(root.wdl(), Wdl::Win);
        assert_eq!(root.moves.len(), legal_moves(&position).len());
        let kept: Vec<String> = root.best_moves().map(|m| m.to_string()).collect();
        // Every move that does not lose the queen wins; python-chess gives DTZ 57 at the root
        // and Qe1 as the only move that keeps it.
        assert_eq!(kept.len(), 13, "{kept:?}");
        for lost in ["b1b4", "b1d3", "b1b3", "b1c2", "b1d1", "b1b2", "b1a2"] {
            assert!(!kept.contains(&lost.to_string()), "{lost} kept");
        }
        assert_eq!(root.moves[0].mv, parse_move(&position, "b1e1").unwrap());
        assert_eq!(root.moves[0].dtz, 57);
        let by_move = |text: &str| *root.moves.iter().find(|m| m.mv.to_string() == text).unwrap();
        assert_eq!((by_move("b1b8").wdl, by_move("b1b8").dtz), (Wdl::Win, 61));
        assert_eq!((by_move("b1b2").wdl, by_move("b1b2").dtz), (Wdl::Draw, 0));
        assert_eq!((by_move("b1b3").wdl, by_move("b1b3").dtz), (Wdl::Loss, -2));
        assert!(root.moves.windows(2).all(|w| w[0].rank >= w[1].rank));
    }

    #[test]
    fn root_probe_counts_the_fifty_move_rule() {
        let tb = tables();
        // The same position 90 plies after the last capture: 57 more is too many, so the win is
        // cursed, unless the 50-move rule is not played.
        let late = board("8/8/8/8/8/2k5/3r4/KQ6 w - - 90 1");
        let root = tb.probe_root(&late, true).unwrap();
        assert_eq!(root.wdl(), Wdl::CursedWin);
        assert_eq!(root.best_moves().count(), 13);
        assert_eq!(root.moves[0].mv, parse_move(&late, "b1e1").unwrap());
        let root = tb.probe_root(&late, false).unwrap();
        assert_eq!(root.wdl(), Wdl::Win);
        assert_eq!(root.best_moves().count(), 13);
        // At 42 only Qe1 (57 plies to the next capture) still wins, with a ply to spare for
        // the rounding of KQvKR's stored distances; at 43 that ply is gone and no move is a
        // sure win.
        let position = board("8/8/8/8/8/2k5/3r4/KQ6 w - - 42 1");
        let root = tb.probe_root(&position, true).unwrap();
        assert_eq!(root.wdl(), Wdl::Win);
        assert_eq!(root.best_moves().collect::<Vec<_>>(), [parse_move(&position, "b1e1").unwrap()]);
        let root = tb.probe_root(&board("8/8/8/8/8/2k5/3r4/KQ6 w - - 43 1"), true).unwrap();
        assert_eq!(root.wdl(), Wdl::CursedWin);
    }

    #[test]
    fn root_probe_prefers_mate_and_zeroing() {
        let tb = tables();
        let top = |fen: &str| tb.probe_root(&board(fen), true).unwrap().moves[0];
        // Qh8 and Qa8 both mate; either comes first.
        let mate = top("3k4/8/3K4/8/8/8/8/7Q w - - 0 1");
        assert!(["h1h8", "h1a8"].contains(&mate.mv.to_string().as_str()) && mate.dtz == 1, "{mate:?}");
        // Taking the rook zeroes the count at once.
        let capture = top("8/8/8/3k4/8/3r4/8/3RK3 w - - 0 1");
        assert_eq!((capture.mv.to_string().as_str(), capture.dtz), ("d1d3", 1));
        // So does e3, the pawn move that keeps the win; e4 only draws.
        let position = board("8/8/8/8/8/k7/4P3/4K3 w - - 0 1");
        let root = tb.probe_root(&position, true).unwrap();
        assert_eq!((root.moves[0].mv.to_string().as_str(), root.moves[0].dtz), ("e2e3", 1));
        let e4 = root.moves.iter().find(|m| m.mv.to_string() == "e2e4").unwrap();
        assert_eq!(e4.wdl, Wdl::Draw);
        assert_eq!(root.best_moves().count(), 5);
    }
}
