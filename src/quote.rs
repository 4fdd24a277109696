//! Quoting what a user, a GUI or a file sent, in the messages that complain about it: only its
//! start, so that an error about a huge line is not itself huge. The protocols, the command
//! line and the perft suite reader all quote bad input, so this sits below all of them.

/// How much of a line or value an error message quotes, and how long a whole error message
/// may be (it may quote several things).
pub const QUOTE_LIMIT: usize = 80;
pub const MESSAGE_LIMIT: usize = 400;

/// The start of `text`, at most `limit` characters, marked when cut.
pub fn excerpt(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}... ({} bytes)", &text[..end], text.len()),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_at_a_character_with_its_length() {
        assert_eq!(excerpt("e2e4", 4), "e2e4");
        assert_eq!(excerpt("e2e4e5", 4), "e2e4... (6 bytes)");
        assert_eq!(excerpt("ééé", 2), "éé... (6 bytes)");
    }
}
