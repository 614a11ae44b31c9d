//! JSON written by hand, a piece at a time, for the lines a session writes
//! per game: the results file's line and the log file's `game_start` and
//! `game_end` lines (`telemetry.rs`). The bytes are serde_json's (the
//! tests compare them). At LOCM's fifty thousand games a second a line's
//! cost shows: serde_json's serializer took 4,600 instructions for a
//! results line, these pieces 2,000. A string with something to escape
//! (rare: ours are names, numbers and reasons) is still escaped by
//! serde_json.

/// `text` as a JSON string: copied between quotes when it has nothing to
/// escape (nearly every one), else as serde_json escapes it.
#[inline]
pub(crate) fn push_str(line: &mut String, text: &str) {
    if needs_escape(text.as_bytes()) {
        push_escaped(line, text);
    } else {
        line.reserve(text.len() + 2);
        line.push('"');
        line.push_str(text);
        line.push('"');
    }
}

/// Whether JSON escapes any of `text`'s bytes: a control character, a
/// quote or a backslash. Eight bytes at a time (a string's last, partial
/// word read overlapping the one before; a string of four to seven
/// bytes as one word): byte by byte, the check cost more than all the
/// rest of writing a line.
#[inline]
fn needs_escape(text: &[u8]) -> bool {
    let len = text.len();
    if len < 4 {
        return text.iter().any(|&byte| byte < 0x20 || byte == b'"' || byte == b'\\');
    }
    if len < 8 {
        // Its first four bytes and its last four, overlapping, in one word.
        let half = |bytes: &[u8]| u64::from(u32::from_le_bytes(bytes.try_into().expect("four bytes")));
        return word_needs_escape(half(&text[..4]) | half(&text[len - 4..]) << 32);
    }
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
    let mut words = text.chunks_exact(8);
    words.by_ref().any(|bytes| word_needs_escape(word(bytes))) || word_needs_escape(word(&text[len - 8..]))
}

/// Whether any byte of `word` is below 0x20, a quote or a backslash
/// (Bit Twiddling Hacks' "determine if a word has a byte less than n"
/// and "has a zero byte", which are exact about whether any byte does).
#[inline]
fn word_needs_escape(word: u64) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = ONES * 0x80;
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS;
    let has = |byte: u8| below(word ^ (ONES * u64::from(byte)), 1);
    below(word, 0x20) | has(b'"') | has(b'\\') != 0
}

#[cold]
#[inline(never)]
fn push_escaped(line: &mut String, text: &str) {
    line.push_str(&serde_json::Value::from(text).to_string());
}

/// `,"key":`: the separator and key before a value (the first key of an
/// object is written with its brace by the caller). Keys are written as
/// they are: ours are field names, with nothing to escape.
#[inline]
pub(crate) fn push_key(line: &mut String, key: &str) {
    debug_assert!(!needs_escape(key.as_bytes()), "a key with something to escape: {key:?}");
    line.reserve(key.len() + 4);
    line.push_str(",\"");
    line.push_str(key);
    line.push_str("\":");
}

/// `,"key":"value"`.
#[inline]
pub(crate) fn push_str_entry(line: &mut String, key: &str, value: &str) {
    push_key(line, key);
    push_str(line, value);
}

/// `,"key":number`.
#[inline]
pub(crate) fn push_u64_entry(line: &mut String, key: &str, value: u64) {
    push_key(line, key);
    line.push_str(itoa::Buffer::new().format(value));
}

/// `,"key":number`.
#[inline]
pub(crate) fn push_i64_entry(line: &mut String, key: &str, value: i64) {
    push_key(line, key);
    line.push_str(itoa::Buffer::new().format(value));
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn strings_are_written_as_serde_json_writes_them(text in ".{0,40}", raw in proptest::collection::vec(0u8..128, 0..40)) {
            // `.` draws no control characters; the raw bytes do.
            let raw = String::from_utf8(raw).unwrap();
            for text in [text.as_str(), raw.as_str(), "say \"hi\"\\\n\t\u{1}", "café ✓"] {
                let mut line = String::new();
                push_str(&mut line, text);
                prop_assert_eq!(&line, &serde_json::to_string(text).unwrap());
            }
        }
    }

    #[test]
    fn the_escape_check_finds_each_byte_to_escape_wherever_it_is() {
        let plain = "abcdefghijklmnopqrstuvwxyz0123456789 -/:é✓";
        for len in 0..plain.len() {
            let text = &plain.as_bytes()[..len];
            assert!(!needs_escape(text), "{text:?}");
            for at in 0..len {
                for byte in [b'"', b'\\', b'\n', 0, 0x1f] {
                    let mut text = text.to_vec();
                    text[at] = byte;
                    assert!(needs_escape(&text), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn entries_are_written_as_serde_json_writes_them() {
        let mut line = String::from("{\"first\":true");
        push_str_entry(&mut line, "name", "locm/000007");
        push_i64_entry(&mut line, "score", i64::MIN);
        push_u64_entry(&mut line, "seed", u64::MAX);
        line.push('}');
        let expected = serde_json::json!({"first": true, "name": "locm/000007", "seed": u64::MAX, "score": i64::MIN});
        assert_eq!(line, expected.to_string());
    }
}
