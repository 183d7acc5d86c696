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

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

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

    #[test]
    fn spans_point_at_words() {
        let mut w = Words::new();
        w.fill("ab, CD éf");
        let words: Vec<&str> = w.spans.iter().map(|&(s, e)| &w.text[s..e]).collect();
        assert_eq!(words, ["ab", "cd", "éf"]);
    }
}
