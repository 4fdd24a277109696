//! The server's database: players, their sessions, their games and the games' moves, in one
//! SQLite file (`--db FILE`), or in memory without one. The schema is versioned with
//! `PRAGMA user_version`: each entry of `MIGRATIONS` takes a database from one version to the
//! next, and opening a database applies those it has not had, in one transaction each, so a
//! file written by an older Sentinel is read by this one and a failed upgrade leaves it as it
//! was. A file of a newer version than this Sentinel knows is refused rather than guessed at.
//!
//! Every write is committed before the request that made it is answered, in WAL mode with
//! `synchronous = FULL`, so a move the page shows survives the process being killed (and the
//! machine losing power). The connection is shared behind a mutex and used on tokio's
//! blocking threads (`Db::run`), so a slow disk never stalls the threads that serve requests.

use rusqlite::Connection;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The schema, one step per version: `MIGRATIONS[i]` takes version `i` to `i + 1`.
///
/// 1: accounts, sessions and games against the engine. 2: games between two people (an
/// invite code, a draw offer) and clocks for every game. 3: sessions keyed by their cookie's
/// hash.
pub const MIGRATIONS: &[&str] = &[
    // Version 1.
    "CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password TEXT NOT NULL,
        created INTEGER NOT NULL
    );
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        player INTEGER REFERENCES players(id) ON DELETE CASCADE,
        csrf TEXT NOT NULL,
        created INTEGER NOT NULL,
        expires INTEGER NOT NULL
    );
    CREATE INDEX sessions_expires ON sessions(expires);
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        mode TEXT NOT NULL,
        white_player INTEGER REFERENCES players(id) ON DELETE SET NULL,
        black_player INTEGER REFERENCES players(id) ON DELETE SET NULL,
        white_session TEXT,
        black_session TEXT,
        engine_colour TEXT,
        level_kind TEXT,
        level INTEGER,
        start_fen TEXT NOT NULL,
        result TEXT NOT NULL DEFAULT '*',
        termination TEXT,
        created INTEGER NOT NULL,
        updated INTEGER NOT NULL
    );
    CREATE INDEX games_white_player ON games(white_player);
    CREATE INDEX games_black_player ON games(black_player);
    CREATE TABLE moves (
        game TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        uci TEXT NOT NULL,
        played INTEGER NOT NULL,
        PRIMARY KEY (game, ply)
    );",
    // Version 2.
    "ALTER TABLE games ADD COLUMN invite_code TEXT;
    ALTER TABLE games ADD COLUMN draw_offer TEXT;
    ALTER TABLE games ADD COLUMN initial_ms INTEGER;
    ALTER TABLE games ADD COLUMN increment_ms INTEGER;
    ALTER TABLE games ADD COLUMN white_ms INTEGER;
    ALTER TABLE games ADD COLUMN black_ms INTEGER;
    ALTER TABLE games ADD COLUMN clock_at INTEGER;
    CREATE UNIQUE INDEX games_invite_code ON games(invite_code);",
    // Version 3: sessions are stored under the hash of their cookie, not the cookie; the
    // sessions of version 2 cannot be carried over (their cookies are not known), so their
    // players sign in again, and guests' games, which only a session could reach, go with the
    // next sweep.
    "DELETE FROM sessions;",
];

/// The version this Sentinel writes.
pub const VERSION: usize = MIGRATIONS.len();

/// Why the database could not be used.
#[derive(Debug)]
pub enum DbError {
    Sqlite(rusqlite::Error),
    /// The file was written by a newer Sentinel.
    TooNew(i64),
    /// The blocking thread a query ran on went away (the runtime is shutting down).
    Gone,
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            DbError::Sqlite(e) => write!(f, "database: {e}"),
            DbError::TooNew(version) => write!(
                f,
                "the database is of schema version {version}, newer than this Sentinel's {VERSION}: use a newer Sentinel"
            ),
            DbError::Gone => write!(f, "the database's thread stopped"),
        }
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> DbError {
        DbError::Sqlite(e)
    }
}

/// The database, shared by every handler.
#[derive(Clone)]
pub struct Db {
    connection: Arc<Mutex<Connection>>,
}

impl Db {
    /// Opens (creating it if need be) the database in `path`, or one in memory without a path,
    /// and brings its schema up to `VERSION`.
    pub fn open(path: Option<&Path>) -> Result<Db, DbError> {
        let mut connection = match path {
            Some(path) => Connection::open(path)?,
            None => Connection::open_in_memory()?,
        };
        // Another process (a backup, `sqlite3`) may hold the file for a moment.
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        if path.is_some() {
            connection.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
        }
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", true)?;
        migrate(&mut connection)?;
        Ok(Db { connection: Arc::new(Mutex::new(connection)) })
    }

    /// Runs `work` on the connection on one of tokio's blocking threads.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, rusqlite::Error> + Send + 'static,
    ) -> Result<T, DbError> {
        let connection = Arc::clone(&self.connection);
        tokio::task::spawn_blocking(move || {
            // A panic while the lock was held cannot leave SQLite's own state broken: each
            // change is a transaction that either committed or did not.
            let mut connection = connection.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            work(&mut connection).map_err(DbError::from)
        })
        .await
        .map_err(|_| DbError::Gone)?
    }
}

/// The schema version a database has.
pub fn version(connection: &Connection) -> Result<i64, rusqlite::Error> {
    connection.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Applies the migrations a database has not had, each in its own transaction with the
/// version it reaches.
pub fn migrate(connection: &mut Connection) -> Result<(), DbError> {
    let from = version(connection)?;
    if from > VERSION as i64 {
        return Err(DbError::TooNew(from));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(from.max(0) as usize) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(sql)?;
        transaction.pragma_update(None, "user_version", (index + 1) as i64)?;
        transaction.commit()?;
        if from > 0 {
            log::info!("database: migrated the schema to version {}", index + 1);
        }
    }
    Ok(())
}

/// Milliseconds since 1970, the database's time.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A random identifier: `bytes` random bytes from the operating system's generator (through
/// rand's thread generator, a CSPRNG seeded from it), as lower-case hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::fill(&mut buffer[..]);
    buffer.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_has_the_latest_schema_and_a_second_open_changes_nothing() {
        let db = Db::open(None).unwrap();
        let connection = db.connection.lock().unwrap();
        assert_eq!(version(&connection).unwrap(), VERSION as i64);
        let columns: i64 = connection
            .query_row("SELECT count(*) FROM pragma_table_info('games') WHERE name = 'invite_code'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(columns, 1);
    }

    #[test]
    fn each_version_migrates_to_the_next_keeping_the_rows() {
        let mut connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(MIGRATIONS[0]).unwrap();
        connection.pragma_update(None, "user_version", 1).unwrap();
        connection
            .execute(
                "INSERT INTO games (id, mode, start_fen, created, updated) VALUES ('g1', 'engine', 'startpos', 1, 2)",
                [],
            )
            .unwrap();
        migrate(&mut connection).unwrap();
        assert_eq!(version(&connection).unwrap(), VERSION as i64);
        let (id, code): (String, Option<String>) =
            connection.query_row("SELECT id, invite_code FROM games", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!((id.as_str(), code), ("g1", None));
        // Migrating again does nothing.
        migrate(&mut connection).unwrap();
        assert_eq!(version(&connection).unwrap(), VERSION as i64);
    }

    #[test]
    fn a_newer_database_is_refused() {
        let mut connection = Connection::open_in_memory().unwrap();
        connection.pragma_update(None, "user_version", VERSION as i64 + 1).unwrap();
        assert!(matches!(migrate(&mut connection), Err(DbError::TooNew(_))));
    }

    /// Writes `tests/data/serve-v1.db`, the stored database of schema version 1 that the
    /// migration test (tests/serve_games.rs) opens with the current code: a player `veteran`
    /// (password `password one`) with a game against the engine four moves in. Run with
    /// `cargo test --features serve --bin sentinel write_version_1_database -- --ignored`.
    #[test]
    #[ignore]
    fn write_version_1_database() {
        use argon2::password_hash::PasswordHasher;
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/serve-v1.db");
        let _ = std::fs::remove_file(path);
        let c = Connection::open(path).unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
        let hash = argon2::Argon2::default().hash_password(b"password one").unwrap().to_string();
        let created = 1_767_225_600_000i64;
        c.execute(
            "INSERT INTO players (id, name, password, created) VALUES (1, 'veteran', ?1, ?2)",
            rusqlite::params![hash, created],
        )
        .unwrap();
        c.execute(
            "INSERT INTO games (id, mode, white_player, engine_colour, level_kind, level, start_fen, created, updated)
             VALUES ('gversion1game', 'engine', 1, 'black', 'skill', 3, ?1, ?2, ?2)",
            rusqlite::params![crate::board::START_FEN, created],
        )
        .unwrap();
        for (ply, uci) in ["e2e4", "e7e5", "g1f3", "b8c6"].iter().enumerate() {
            c.execute(
                "INSERT INTO moves (game, ply, uci, played) VALUES ('gversion1game', ?1, ?2, ?3)",
                rusqlite::params![ply as i64, uci, created],
            )
            .unwrap();
        }
    }

    #[test]
    fn random_identifiers_differ() {
        let (a, b) = (random_hex(16), random_hex(16));
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
