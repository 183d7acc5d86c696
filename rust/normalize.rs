//! Normalisation: the text a shingle sees.
//!
//! Rule: a word is a maximal run of characters that are Unicode alphanumeric (Alphabetic or
//! Numeric, Rust's `char::is_alphanumeric`); every other character separates words. Each word
//! character is lowercased on its own with the full Unicode mapping (`char::to_lowercase`, no
//! context rules such as the Greek final sigma). The normalised text is the words joined by
//! single spaces. For ASCII input this equals the article's
//! `toLowerCase().replace(/[^a-z0-9 ]+/g, ' ')` followed by a split on whitespace.

/// Reusable buffers holding one document's normalised words.
#[derive(Debug, Default, Clone)]
pub struct Words {
    /// The words joined by single spaces.
    pub text: String,
    /// Byte range of each word in `text`.
    pub spans: Vec<(usize, usize)>,
}

impl Words {
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the content with the normalised words of `source`.
    pub fn fill(&mut self, source: &str) {
        self.text.clear();
        self.spans.clear();
        if source.is_ascii() {
            self.fill_ascii(source.as_bytes());
            return;
        }
        let bytes = source.as_bytes();
        let mut word_start: Option<usize> = None;
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            // ASCII fast path: one table lookup per byte, no char decoding.
            let (is_word, width) = if byte < 0x80 {
                (byte.is_ascii_alphanumeric(), 1)
            } else {
                let c = source[i..].chars().next().expect("index is on a char boundary");
                (c.is_alphanumeric(), c.len_utf8())
            };
            if is_word {
                if word_start.is_none() {
                    if !self.text.is_empty() {
                        self.text.push(' ');
                    }
                    word_start = Some(self.text.len());
                }
                if width == 1 {
                    self.text.push(byte.to_ascii_lowercase() as char);
                } else {
                    let c = source[i..].chars().next().expect("index is on a char boundary");
                    self.text.extend(c.to_lowercase());
                }
            } else if let Some(start) = word_start.take() {
                self.spans.push((start, self.text.len()));
            }
            i += width;
        }
        if let Some(start) = word_start {
            self.spans.push((start, self.text.len()));
        }
    }

    /// The ASCII-only fast path of [`Words::fill`]: one table lookup per byte, output written by
    /// index into a buffer the size of the input (the normalised text is never longer: every
    /// space written stands for at least one separator byte read).
    fn fill_ascii(&mut self, bytes: &[u8]) {
        let mut out = std::mem::take(&mut self.text).into_bytes();
        out.clear();
        out.resize(bytes.len(), 0);
        let n = bytes.len();
        let mut i = 0;
        let mut j = 0;
        loop {
            while i < n && ASCII_WORD[bytes[i] as usize] == 0 {
                i += 1;
            }
            if i == n {
                break;
            }
            if j > 0 {
                out[j] = b' ';
                j += 1;
            }
            let start = j;
            while i < n {
                let c = ASCII_WORD[bytes[i] as usize];
                if c == 0 {
                    break;
                }
                out[j] = c;
                i += 1;
                j += 1;
            }
            self.spans.push((start, j));
        }
        out.truncate(j);
        // Every byte written is ASCII (a lowercased letter, a digit or a space).
        self.text = String::from_utf8(out).unwrap_or_default();
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// For each ASCII byte: its lowercase form if it is alphanumeric, else 0 (a separator).
static ASCII_WORD: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    t
};

/// The normalised text of `source`: its words, lowercased, joined by single spaces.
pub fn normalize(source: &str) -> String {
    let mut words = Words::new();
    words.fill(source);
    words.text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_punctuation_and_case_split_words() {
        assert_eq!(normalize("  Hello,  World!\n\nIt's 2024."), "hello world it s 2024");
    }

    #[test]
    fn empty_and_separator_only_inputs_have_no_words() {
        let mut w = Words::new();
        w.fill("  \t\n ... ");
        assert!(w.is_empty());
        assert_eq!(w.text, "");
    }

    #[test]
    fn unicode_letters_and_marks_stay_in_words() {
        assert_eq!(normalize("Ünïcödé ÉTÉ—Straße"), "ünïcödé été straße");
        // Devanagari vowel signs are combining marks with the Alphabetic property.
        assert_eq!(normalize("हिंदी भाषा"), "हिंदी भाषा");
        // Dotted capital I lowercases to two chars, both kept in the word.
        assert_eq!(normalize("İstanbul"), "i\u{307}stanbul");
    }

    /// The general (char-decoding) path, for comparison with the ASCII fast path.
    fn slow(source: &str) -> Words {
        let mut w = Words::new();
        // A non-ASCII prefix word forces the general path; drop it from the result.
        w.fill(&format!("é {source}"));
        let shift = 3; // "é " is 3 bytes
        Words {
            text: w.text.get(shift..).unwrap_or("").to_string(),
            spans: w.spans[1..].iter().map(|&(s, e)| (s - shift, e - shift)).collect(),
        }
    }

    #[test]
    fn ascii_fast_path_matches_the_general_path() {
        let cases = [
            "",
            " ",
            "a",
            "  Hello,  World!\n\nIt's 2024.  ",
            "x_y-z\tA1b2C3...end",
            "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./",
            "ALL CAPS 99 bottles\u{7f}of\u{0}beer",
        ];
        for case in cases {
            let mut fast = Words::new();
            fast.fill(case);
            let slow = slow(case);
            assert_eq!(fast.text, slow.text, "{case:?}");
            assert_eq!(fast.spans, slow.spans, "{case:?}");
        }
        let all: String = (0u8..128).map(|b| b as char).collect();
        let mut fast = Words::new();
        fast.fill(&all);
        assert_eq!(fast.text, slow(&all).text);
    }

    #[test]
    fn spans_point_at_words() {
        let mut w = Words::new();
        w.fill("ab, CD éf");
        let words: Vec<&str> = w.spans.iter().map(|&(s, e)| &w.text[s..e]).collect();
        assert_eq!(words, ["ab", "cd", "éf"]);
    }
}
