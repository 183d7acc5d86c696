//! Tests of [`super`] (rust/normalize/tokens/mod.rs).
use crate::hashing::HashVersion;
use crate::normalize::casefold::nfkc_casefold;
use crate::normalize::{normalize, Words};

fn tokens(source: &str) -> Vec<String> {
    let mut words = Words::new(HashVersion::V2);
    words.fill(source);
    words
        .spans
        .iter()
        .map(|&(s, e)| words.text[s..e].to_string())
        .collect()
}

#[test]
fn canonically_equal_text_normalises_the_same() {
    let nfc = "L'été où Nguyễn Văn đã đến";
    let nfd: String = unicode_normalization::UnicodeNormalization::nfd(nfc).collect();
    assert_ne!(nfc, nfd);
    assert_eq!(
        normalize(&nfd, HashVersion::V2),
        normalize(nfc, HashVersion::V2)
    );
    assert_eq!(
        normalize(nfc, HashVersion::V2),
        "l été où nguyễn văn đã đến"
    );
    // Version 1 splits the decomposed accents off their words.
    assert_ne!(
        normalize(&nfd, HashVersion::V1),
        normalize(nfc, HashVersion::V1)
    );
}

#[test]
fn compatibility_forms_fold() {
    assert_eq!(
        normalize("ＡＢＣ１２３ ﬁne", HashVersion::V2),
        "abc123 fine"
    );
    assert_eq!(normalize("ｶﾀｶﾅ", HashVersion::V2), "カタカナ");
}

#[test]
fn characters_of_spaceless_scripts_are_tokens() {
    assert_eq!(
        tokens("東京タワーは333mです。Hello, 世界!"),
        ["東", "京", "タ", "ワ", "ー", "は", "333m", "で", "す", "hello", "世", "界"]
    );
    assert_eq!(
        normalize("東京タワーは333mです。Hello, 世界!", HashVersion::V2),
        "東京タワーは333mです hello 世界"
    );
    // Thai vowel signs and tone marks stay with the consonant before them.
    assert_eq!(tokens("ที่นี่"), ["ที่", "นี่"]);
    // A mark with no base character starts a token of its own kind.
    assert_eq!(tokens("\u{301}ab"), ["\u{301}ab"]);
}

#[test]
fn devanagari_and_other_spaced_scripts_keep_whole_words() {
    assert_eq!(tokens("हिंदी भाषा"), ["हिंदी", "भाषा"]);
    assert_eq!(tokens("Straße ΟΔΥΣΣΕΥΣ"), ["strasse", "οδυσσευσ"]);
}

#[test]
fn case_folds_and_default_ignorables_vanish() {
    let v2 = |text: &str| normalize(text, HashVersion::V2);
    assert_eq!(v2("STRASSE"), v2("straße"));
    assert_eq!(v2("Straße ẞ"), "strasse ss");
    assert_eq!(v2("ΟΔΟΣ οδος"), "οδοσ οδοσ");
    assert_eq!(v2("İstanbul ǅ ﬃ"), "i\u{307}stanbul dž ffi");
    // Soft hyphen, zero width space, joiners, word joiner, variation selector, BOM and a
    // combining grapheme joiner between letters: one word (only the separators split).
    for joiner in [
        "\u{AD}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FE0F}", "\u{FEFF}", "\u{34F}",
    ] {
        let text = ["Wo", "rd", "s é", "té"].join(joiner);
        assert_eq!(tokens(&text), ["words", "été"], "{joiner:?}");
    }
    // A removed character between a letter and a combining mark lets them compose.
    assert_eq!(v2("e\u{AD}\u{301}"), "é");
    // Between characters of a spaceless script, tokens stay one character each.
    assert_eq!(tokens("東\u{200B}京"), ["東", "京"]);
}

/// Characters that may compose with, reorder past or fold together with what follows them.
const CONTEXTS: &[&str] = &[
    "", "a", "A", "e", "<", "=", "α", "Σ", "ᄀ", "가", "\u{B47}", "\u{CC6}", "\u{DD9}", "\u{301}",
    "\u{345}", "\u{AD}", "\u{3099}", "ｶ", "ß", "\u{1161}",
];

#[test]
fn the_table_agrees_with_the_definition() {
    let table = super::Table::get();
    for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
        let flags = table.flags(c as u32);
        let value = nfkc_casefold(&c.to_string());
        let mut got = String::new();
        table.push_value(c, &mut got);
        assert_eq!(got, value, "{c:?}");
        assert_eq!(flags & super::SELF != 0, value == c.to_string(), "{c:?}");
        if flags & super::MULTI != 0 {
            assert_eq!(table.value(c), value, "{c:?}");
            assert_ne!(value.chars().count(), 1, "{c:?}");
        } else {
            let one = value.chars().next().unwrap();
            if flags & super::SELF == 0 {
                assert_eq!(table.single(c as u32), one, "{c:?}");
            }
            let classes = flags & (super::WORD | super::MARK | super::SPACELESS);
            assert_eq!(classes, super::class_of(one), "{c:?}");
        }
    }
}

#[test]
fn text_cut_before_a_cut_character_maps_piece_by_piece() {
    use unicode_normalization::UnicodeNormalization;
    let table = super::Table::get();
    for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
        let entry = table.flags(c as u32);
        // A third of the characters that are not their own value or decompose, and a sample
        // of the others (all of them passed when this was written: a minute unoptimised).
        let hangul = ('\u{AC00}'..='\u{D7A3}').contains(&c);
        let plain = entry & super::SELF != 0 && (hangul || c.to_string().nfd().eq([c]));
        if entry & super::FAST == 0 || c as u32 % if plain { 97 } else { 3 } != 0 {
            continue;
        }
        for x in CONTEXTS {
            let before = nfkc_casefold(x);
            if entry & super::CUT != 0 {
                for after in ["\u{301}", "\u{345}", "\u{316}\u{301}", "\u{11A8}b"] {
                    let whole = nfkc_casefold(&format!("{x}{c}{after}"));
                    let pieces = before.clone() + &nfkc_casefold(&format!("{c}{after}"));
                    assert_eq!(whole, pieces, "{x:?} {c:?} {after:?}");
                }
            } else if entry & super::MULTI != 0 {
                // Default ignorable: gone, and nothing composes across it before a cut.
                assert_eq!(
                    nfkc_casefold(&format!("{x}{c}b")),
                    before + "b",
                    "{x:?} {c:?}"
                );
            }
        }
    }
}

#[test]
fn fast_marks_in_canonical_order_need_no_normalisation() {
    // Every combining mark the first pass takes, after bases of several kinds (ending in a
    // starter or in a mark) and before marks of other classes, in and out of order.
    let table = super::Table::get();
    let mut words = Words::new(HashVersion::V2);
    let fast_mark = super::FAST | super::ORDER;
    for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
        if table.flags(c as u32) & (fast_mark | super::CUT) != fast_mark {
            continue;
        }
        for base in ["a", "क", "ก", "é", "İ", "ß", "东", "\u{AD}", ""] {
            for next in [
                "",
                "\u{E48}",
                "\u{94D}",
                "\u{316}",
                "\u{301}",
                "\u{AD}\u{5B0}",
            ] {
                let text = format!("{base}{c}{next}{c}b");
                words.fill(&text);
                let (out, spans) = reference_fill(&text);
                assert_eq!((&words.text, &words.spans), (&out, &spans), "{text:?}");
            }
        }
    }
}

#[test]
fn folding_the_unstable_runs_equals_the_definition() {
    // Starters, combining marks of several classes, Hangul jamo, compatibility forms,
    // singletons, composites whose parts compose with what follows, capitals, default
    // ignorables and the iota subscript (a mark that folds to a letter).
    let alphabet: Vec<char> =
        "ae AEo\u{301}\u{300}\u{327}\u{323}\u{308}\u{345}\u{1100}\u{1161}\u{11A8}\
        \u{AC00}\u{FF76}\u{FF9E}\u{FB01}\u{212B}\u{1E9B}\u{3099}\u{304B}\u{0F73}\u{0FB2}\u{0F80}\
        \u{2460}\u{FF21}\u{00E9}\u{1FBE}\u{0344}\u{05B0}\u{0591}.\u{2126}ßẞΣςİ\u{AD}\u{200D}\
        \u{FE0F}\u{1FB3}\u{390}ǅ\u{E48}\u{E38}\u{94D}\u{316}\u{93C}ก"
            .chars()
            .collect();
    let table = super::Table::get();
    let (mut out, mut scratch) = (String::new(), String::new());
    let mut state = 3u64;
    for len in 0..40 {
        for _ in 0..200 {
            let text: String = (0..len)
                .map(|_| {
                    state = crate::hashing::mix64(state);
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            super::fold_unstable_runs(table, &text, &mut out, &mut scratch);
            assert_eq!(out, nfkc_casefold(&text), "{text:?}");
        }
    }
}

/// The tokeniser from its definition: toNFKC_Casefold of the text, then one `chars()` pass
/// classifying and pushing each character on its own: what `tokenize` must equal.
fn reference_fill(source: &str) -> (String, Vec<(usize, usize)>) {
    use super::*;
    let text = nfkc_casefold(source);
    let (mut out, mut spans) = (String::new(), Vec::new());
    let mut token = Token::None;
    let mut start = 0;
    for c in text.chars() {
        let f = class_of(c);
        let (is_word, is_mark, spaceless) = (f & WORD != 0, f & MARK != 0, f & SPACELESS != 0);
        if !is_word {
            if token != Token::None {
                spans.push((start, out.len()));
                token = Token::None;
            }
            continue;
        }
        let new_token = match token {
            Token::None => true,
            Token::Run => spaceless,
            Token::Spaceless => !is_mark,
        };
        if new_token {
            if token == Token::None {
                if !out.is_empty() {
                    out.push(' ');
                }
            } else {
                spans.push((start, out.len()));
            }
            start = out.len();
            token = if spaceless {
                Token::Spaceless
            } else {
                Token::Run
            };
        }
        out.push(c);
    }
    if token != Token::None {
        spans.push((start, out.len()));
    }
    (out, spans)
}

#[test]
fn the_tokeniser_equals_its_reference() {
    // ASCII of every class, Latin with precomposed and combining accents, Turkish İ (two
    // characters in lowercase), Greek, Cyrillic, Hangul (syllables and jamo), kana in full
    // and half width, CJK (BMP and the supplementary planes), Thai with marks, full-width
    // Latin, ligatures, Devanagari, punctuation and spaces of several kinds; letters whose
    // folding is not their lowercase, default ignorables, and combining marks of several
    // classes (Thai, viramas, Hebrew, musical symbols) in and out of canonical order.
    let alphabet: Vec<char> = "aZz09 \t\n.,-'_éÉ\u{301}\u{308}İıΣσςЖж한\u{1100}\u{1161}カｶﾞ\
        東京\u{20000}\u{2A6D6}ที่\u{E48}ＡＢ１ﬁ\u{212B}हिंदी\u{3000}、。！\u{A0}\u{2028}©’\
        ßẞǅ\u{AD}\u{200B}\u{200D}\u{FE0F}\u{E0100}\u{345}\u{1FB3}\u{390}\u{1D400}\u{10400}\
        \u{E38}\u{94D}\u{BCD}\u{316}\u{5B0}\u{591}\u{1DCE}\u{F71}\u{9DF}\u{1E0A}\u{1D165}\u{1D16D}"
        .chars()
        .collect();
    let mut words = Words::new(HashVersion::V2);
    let mut state = 11u64;
    for len in 1..60 {
        for _ in 0..300 {
            let text: String = (0..len)
                .map(|_| {
                    state = crate::hashing::mix64(state);
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            words.fill(&text);
            let (out, spans) = reference_fill(&text);
            if text.is_ascii() {
                continue; // the ASCII path of normalize/mod.rs, tested there
            }
            assert_eq!(words.text, out, "{text:?}");
            assert_eq!(words.spans, spans, "{text:?}");
        }
    }
}

#[test]
fn non_ascii_bytes_are_counted() {
    for text in [
        "",
        "abc",
        "é",
        "aaaaaaaé東京bbbbbbbbbbbbbbbbbb",
        "ＡＢＣＤＥＦＧＨ",
    ] {
        let want = text.bytes().filter(|&b| b >= 0x80).count();
        assert_eq!(super::non_ascii_bytes(text.as_bytes()), want, "{text:?}");
    }
}

#[test]
fn the_pieces_tokens_are_the_texts_tokens() {
    // Long ASCII stretches (words, separators of every kind) with non-ASCII characters
    // dropped in: accents precomposed and combining (after letters and after
    // separators), `<` and `=` before U+0338 (they compose), full-width forms, CJK, marks.
    let ascii = "The quick brown fox, (c) 2024 -- <a href=x> 12.5% \t\n";
    let other: Vec<&str> = vec![
        "é", "\u{301}", "\u{338}", "ＡＢ", "東京", "ﬁ", "’", "©", "\u{E48}", "İ", "\u{1161}",
        "\u{AD}", "\u{200D}", "ß", "ẞ", "Σ",
    ];
    let mut state = 17u64;
    let mut next = |m: usize| {
        state = crate::hashing::mix64(state);
        (state % m as u64) as usize
    };
    let mut whole = Words::new(HashVersion::V2);
    let mut part = Words::new(HashVersion::V2);
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..next(12) {
            let at = next(ascii.len());
            let len = next(120);
            text.extend(ascii.chars().cycle().skip(at).take(len));
            text.push_str(other[next(other.len())]);
        }
        whole.fill(&text);
        let want: Vec<&str> = whole
            .spans
            .iter()
            .map(|&(s, e)| &whole.text[s..e])
            .collect();
        let mut got: Vec<String> = Vec::new();
        let mut joined = String::new();
        super::for_each_piece(&text, |piece, all_ascii| {
            assert_eq!(all_ascii, piece.is_ascii(), "{piece:?}");
            joined.push_str(piece);
            part.fill(piece);
            got.extend(part.spans.iter().map(|&(s, e)| part.text[s..e].to_string()));
        });
        assert_eq!(joined, text);
        assert_eq!(got, want, "{text:?}");
    }
}

#[test]
fn spaceless_blocks_are_sorted_and_disjoint() {
    let blocks = super::SPACELESS_BLOCKS;
    assert!(blocks.iter().all(|&(s, e)| s <= e));
    assert!(blocks.windows(2).all(|w| w[0].1 < w[1].0));
    assert!(super::is_spaceless('中') && super::is_spaceless('\u{3FFFF}'));
    assert!(!super::is_spaceless('a') && !super::is_spaceless('한'));
}

#[test]
fn ascii_text_through_the_unicode_tokeniser_equals_the_ascii_path() {
    // ASCII is its own NFKC_Casefold but for capitals, which fold to lowercase: the ASCII
    // paths (rust/normalize/mod.rs, rust/wordhash/mod.rs) stay valid under version 2.
    let all: Vec<char> = (0u8..128).map(char::from).collect();
    let letters: Vec<char> = "abcXYZ09 ".chars().collect();
    let (mut fast, mut general) = (Words::new(HashVersion::V2), Words::new(HashVersion::V2));
    let mut state = 23u64;
    for len in 0..300 {
        let text: String = (0..len)
            .map(|_| {
                state = crate::hashing::mix64(state);
                let pool = if state % 3 == 0 { &all } else { &letters };
                pool[(state >> 8) as usize % pool.len()]
            })
            .collect();
        fast.fill(&text);
        general.text.clear();
        general.spans.clear();
        super::fill_unicode_v2(
            &text,
            &mut general.text,
            &mut general.spans,
            &mut String::new(),
            &mut String::new(),
        );
        assert_eq!(general.text, fast.text, "{text:?}");
        assert_eq!(general.spans, fast.spans, "{text:?}");
    }
}
