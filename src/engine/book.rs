//! Polyglot opening books: the engine plays its first moves from a book file (the `OwnBook`,
//! `BookFile` and `BookDepth` options, XBoard's `bk`) instead of searching, for variety and to
//! save time where theory already knows the answer.

#[cfg_attr(not(test), expect(dead_code, reason = "the book reader and the OwnBook option will use the keys"))]
mod key;

pub use key::polyglot_key;
