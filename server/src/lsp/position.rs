//! Positions at the edge: LSP counts columns in the negotiated encoding (UTF-8 bytes if the
//! client offers it, else UTF-16 code units); everything inside the server works on byte offsets.

use ropey::Rope;
use tower_lsp_server::ls_types::{Position, PositionEncodingKind, Range};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// UTF-8 when the client offers it (no conversion needed), else the protocol's default UTF-16.
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Self {
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// Byte offset of an LSP position; positions past a line's end clamp to it, lines past the end
/// clamp to the end of the text (clients send such positions after racing edits).
pub fn to_byte(rope: &Rope, pos: Position, enc: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let line_start = rope.line_to_byte(line);
    let slice = rope.line(line);
    let content_bytes = line_content_len_bytes(&slice);
    match enc {
        Encoding::Utf8 => {
            let col = (pos.character as usize).min(content_bytes);
            // Never land inside a UTF-8 sequence.
            let char_idx = rope.byte_to_char(line_start + col);
            rope.char_to_byte(char_idx)
        }
        Encoding::Utf16 => {
            let units = (pos.character as usize).min(slice.len_utf16_cu());
            let char_in_line = slice.utf16_cu_to_char(units);
            let byte = line_start + slice.char_to_byte(char_in_line);
            byte.min(line_start + content_bytes)
        }
    }
}

/// LSP position of a byte offset.
pub fn to_position(rope: &Rope, byte: usize, enc: Encoding) -> Position {
    let byte = byte.min(rope.len_bytes());
    let line = rope.byte_to_line(byte);
    let line_start = rope.line_to_byte(line);
    let character = match enc {
        Encoding::Utf8 => byte - line_start,
        Encoding::Utf16 => {
            let chars = rope.byte_to_char(byte) - rope.line_to_char(line);
            rope.line(line).char_to_utf16_cu(chars)
        }
    };
    Position {
        line: line as u32,
        character: character as u32,
    }
}

pub fn to_range(rope: &Rope, start: usize, end: usize, enc: Encoding) -> Range {
    Range {
        start: to_position(rope, start, enc),
        end: to_position(rope, end, enc),
    }
}

/// Bytes of a line without its terminator (`\n` or `\r\n`).
fn line_content_len_bytes(slice: &ropey::RopeSlice) -> usize {
    let mut len = slice.len_bytes();
    if len > 0 && slice.byte(len - 1) == b'\n' {
        len -= 1;
        if len > 0 && slice.byte(len - 1) == b'\r' {
            len -= 1;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn round_trips_non_ascii_in_both_encodings() {
        // "é" is 2 bytes / 1 UTF-16 unit; "😀" is 4 bytes / 2 UTF-16 units.
        let text = "int é = 1; // 😀 x\r\nfor (;;) {}\n";
        let rope = Rope::from_str(text);
        let x = text.find(" x").unwrap() + 1;
        assert_eq!(to_position(&rope, x, Encoding::Utf8), pos(0, x as u32));
        assert_eq!(to_position(&rope, x, Encoding::Utf16), pos(0, 17));
        assert_eq!(to_byte(&rope, pos(0, 17), Encoding::Utf16), x);
        assert_eq!(to_byte(&rope, pos(0, x as u32), Encoding::Utf8), x);
        let for_kw = text.find("for").unwrap();
        assert_eq!(to_position(&rope, for_kw, Encoding::Utf16), pos(1, 0));
    }

    #[test]
    fn clamps_out_of_range_positions() {
        let rope = Rope::from_str("ab\r\ncd\n");
        assert_eq!(
            to_byte(&rope, pos(0, 99), Encoding::Utf16),
            2,
            "end of line 0, before \\r\\n"
        );
        assert_eq!(to_byte(&rope, pos(0, 99), Encoding::Utf8), 2);
        assert_eq!(to_byte(&rope, pos(9, 0), Encoding::Utf8), 7);
    }

    #[test]
    fn utf8_columns_inside_a_character_snap_to_its_start() {
        let rope = Rope::from_str("é!");
        assert_eq!(to_byte(&rope, pos(0, 1), Encoding::Utf8), 0);
    }

    #[test]
    fn negotiation_prefers_utf8_when_offered() {
        let both = [PositionEncodingKind::UTF16, PositionEncodingKind::UTF8];
        assert_eq!(Encoding::negotiate(Some(&both)), Encoding::Utf8);
        assert_eq!(
            Encoding::negotiate(Some(&[PositionEncodingKind::UTF16])),
            Encoding::Utf16
        );
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
    }
}
