//! Tests of [`super`] (rust/jsonl/mod.rs).
use super::*;

/// [`scan`] into a fresh buffer: the scan and its texts.
#[allow(clippy::too_many_arguments)]
fn scan(
    block: &[u8],
    last: bool,
    text_field: &str,
    id_field: Option<&str>,
    id_required: bool,
    max_rows: usize,
    threads: usize,
) -> crate::error::Result<(Scan, Vec<u8>)> {
    let mut text = vec![0xffu8; block.len()];
    let s = super::scan(
        block,
        &mut text,
        last,
        text_field,
        id_field,
        id_required,
        max_rows,
        threads,
    )?;
    text.truncate(s.text_len);
    Ok((s, text))
}

fn one(line: &str) -> Option<(String, Option<String>)> {
    let mut text = vec![0; line.len()];
    read_line(line.as_bytes(), "text", Some("id"), &mut text).map(|(n, id)| {
        let text = String::from_utf8(text[..n].to_vec()).unwrap();
        (text, id.map(|(a, b)| line[a..b].to_owned()))
    })
}

#[test]
fn reads_text_and_raw_id() {
    assert_eq!(
        one(r#"{"id": 7, "text": "a b", "x": [1, {"y": null}]}"#),
        Some(("a b".into(), Some("7".into())))
    );
    assert_eq!(
        one(r#"{"text": "a", "id": {"k": "v"}}"#),
        Some(("a".into(), Some(r#"{"k": "v"}"#.into())))
    );
    assert_eq!(one(r#"{"text": "a"}"#), Some(("a".into(), None)));
}

#[test]
fn decodes_escapes_and_surrogate_pairs() {
    let (text, _) = one(r#"{"text": "a\"\\\n\u00e9\ud83d\ude00"}"#).unwrap();
    assert_eq!(text, "a\"\\\n\u{e9}\u{1f600}");
}

#[test]
fn last_duplicate_key_wins() {
    assert_eq!(one(r#"{"text": "a", "text": "b"}"#).unwrap().0, "b");
    assert_eq!(one(r#"{"text": "lo\nng", "text": "b"}"#).unwrap().0, "b");
    assert_eq!(
        one(r#"{"text": "b", "text": "lo\nng"}"#).unwrap().0,
        "lo\nng"
    );
    assert_eq!(
        one(r#"{"text": "a", "id": 1, "id": 2}"#).unwrap().1,
        Some("2".into())
    );
}

#[test]
fn leaves_what_python_must_judge_to_python() {
    for line in [
        r#"{"text": "\ud800"}"#,            // lone leading surrogate
        r#"{"text": "\udc00 x"}"#,          // lone trailing surrogate
        r#"{"text": 5}"#,                   // not a string
        r#"{"text": null}"#,                // null
        r#"{"body": "x"}"#,                 // missing
        r#"["text", "x"]"#,                 // not an object
        r#"{"text": "x", "v": NaN}"#,       // Python accepts NaN; serde_json does not
        r#"{"text": "x"} {}"#,              // trailing data
        "{\"text\": \"a\tb\"}",             // raw control character in a string
        "{\"text\": \"x\", \"o\": \"\t\"}", // also in another field
        r#"{"text": "x", "n": 01}"#,        // leading zero
        "\u{feff}{\"text\": \"x\"}",        // byte order mark
    ] {
        assert_eq!(one(line), None, "{line}");
    }
    let deep = format!(
        "{{\"text\": \"x\", \"d\": {}{}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    assert_eq!(one(&deep).unwrap().0, "x"); // json.loads reads this depth too
    let mut buf = [0; 64];
    assert_eq!(
        read_line(b"{\"text\": \"\xff\"}", "text", None, &mut buf),
        None
    );
    // A buffer too short (never so in a scan) leaves the line to Python, no panic.
    assert_eq!(
        read_line(b"{\"text\": \"abc\"}", "text", None, &mut buf[..2]),
        None
    );
    assert_eq!(
        read_line(
            b"{\"text\": \"x\", \"o\": \"\xc3\"}",
            "text",
            None,
            &mut buf
        ),
        None
    );
}

#[test]
fn utf8_accepts_exactly_what_std_accepts() {
    // Edge cases (overlong forms, surrogates, past U+10FFFF, truncated sequences) at
    // every position of blocks longer than a SIMD register, then mutated valid text.
    let edges: [&[u8]; 14] = [
        b"\xc0\x80",
        b"\xc2\x80",
        b"\xdf\xbf",
        b"\xe0\x9f\xbf",
        b"\xe0\xa0\x80",
        b"\xed\x9f\xbf",
        b"\xed\xa0\x80",
        b"\xef\xbf\xbf",
        b"\xf0\x8f\xbf\xbf",
        b"\xf4\x8f\xbf\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf5\x80\x80\x80",
        b"\xe2\x82",
        b"\x80",
    ];
    let mut checked = 0;
    for edge in edges {
        for at in 0..140 {
            let mut v = vec![b'a'; at];
            v.extend_from_slice(edge);
            for tail in [0, 1, 70] {
                let mut w = v.clone();
                w.resize(v.len() + tail, b'z');
                assert_eq!(utf8(&w).is_some(), std::str::from_utf8(&w).is_ok(), "{w:?}");
                checked += 1;
            }
        }
    }
    let text = "caf\u{e9} \u{1f600} \u{4e2d}\u{6587} plain ascii text, ".repeat(8);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut v = text.as_bytes().to_vec();
        let len = (state as usize >> 8) % v.len();
        v.truncate(len);
        if len > 0 {
            v[(state as usize >> 24) % len] = (state >> 56) as u8;
        }
        let (ours, std) = (utf8(&v), std::str::from_utf8(&v).ok());
        assert_eq!(ours, std, "{v:?}");
        checked += usize::from(std.is_none());
    }
    assert!(checked > 6_000);
}

#[test]
fn scans_lines_rows_and_partial_tail() {
    let block = b"{\"text\": \"a\", \"id\": 1}\n \r\n{\"text\": 3}\n{\"text\": \"b\"}\n{\"te";
    let (s, text) = scan(block, false, "text", Some("id"), false, 100, 1).unwrap();
    assert_eq!(s.rows(), 3);
    assert_eq!(s.lines, 4);
    assert_eq!(s.fallback, vec![1, 26, 38, 2]);
    assert_eq!(text, b"ab");
    assert_eq!(s.text_offsets, vec![0, 1, 1, 2]);
    assert_eq!(s.ids, b"1,");
    assert_eq!(s.id_offsets, vec![0, 2, 2, 2]);
    assert_eq!(&block[s.consumed..], b"{\"te");
    let (tail, text) = scan(b"{\"text\": \"z\"}", true, "text", None, false, 100, 2).unwrap();
    assert_eq!((tail.rows(), text.as_slice()), (1, b"z".as_slice()));
    let (capped, _) = scan(block, false, "text", Some("id"), false, 1, 1).unwrap();
    assert_eq!((capped.rows(), capped.consumed, capped.lines), (1, 23, 1));
    let (required, _) = scan(block, false, "text", Some("id"), true, 100, 1).unwrap();
    let mut short = vec![0u8; block.len() - 1];
    let err = super::scan(block, &mut short, false, "text", None, false, 9, 1).unwrap_err();
    assert!(err.to_string().contains("shorter than the block"), "{err}");
    assert_eq!(required.fallback, vec![1, 26, 38, 2, 2, 38, 52, 3]);
}

#[test]
fn scans_the_same_on_every_thread_count() {
    // 9,001 rows (several runs per thread) with blank lines, fallbacks, ids and escapes.
    let mut block = Vec::new();
    for i in 0..9001 {
        let line = match i % 7 {
            0 => format!("{{\"id\": {i}, \"text\": \"doc {i} caf\\u00e9\"}}\n"),
            1 => "  \n".to_string(),
            2 => format!("{{\"text\": {i}}}\n"),
            3 => format!("{{\"text\": \"only text {i}\"}}\n"),
            _ => format!("{{\"text\": \"row {i}\", \"id\": \"r{i}\", \"x\": [1]}}\n"),
        };
        block.extend_from_slice(line.as_bytes());
    }
    block.extend_from_slice(b"{\"text\": \"partial");
    for (last, max_rows, id_required) in [(false, usize::MAX, false), (true, 5000, true)] {
        let one = scan(&block, last, "text", Some("id"), id_required, max_rows, 1).unwrap();
        assert!(one.0.rows() > 4000 && !one.0.fallback.is_empty());
        for threads in [2, 3] {
            let many = scan(
                &block,
                last,
                "text",
                Some("id"),
                id_required,
                max_rows,
                threads,
            );
            assert_eq!(many.unwrap(), one, "threads={threads}");
        }
    }
    assert!(scan(&block, true, "text", None, false, 10, 0).is_err());
}

#[test]
fn copies_kept_lines() {
    fn kept(block: &[u8], last: bool, keep: &[bool]) -> (Vec<u8>, Kept) {
        let mut b = block.to_vec();
        let k = kept_lines(&mut b, last, keep);
        assert_eq!(b[k.consumed..], block[k.consumed..]); // the rest untouched
        let mut out = b[..k.len].to_vec();
        if k.newline {
            out.push(b'\n');
        }
        (out, k)
    }
    let block = b"a\n\nb\r\n  \nc";
    let (out, k) = kept(block, true, &[true, false, true]);
    assert_eq!((out.as_slice(), k.rows), (b"a\nc\n".as_slice(), 3));
    assert_eq!((k.consumed, k.lines), (block.len(), 5));
    let (out, k) = kept(block, true, &[false]);
    assert_eq!(
        (out.as_slice(), k.rows, k.newline),
        (b"".as_slice(), 3, false)
    );
    let (out, k) = kept(block, false, &[true, true]);
    assert_eq!(
        (out.as_slice(), k.rows, k.consumed),
        (b"a\nb\r\n".as_slice(), 2, 9)
    );
    let (out, k) = kept(b"x\ny", true, &[true, true]);
    assert_eq!(
        (out.as_slice(), k.len, k.newline),
        (b"x\ny\n".as_slice(), 3, true)
    );
    // Every pattern of 10 lines (blank ones between) against the line-by-line copy.
    let lines: Vec<Vec<u8>> = (0..10)
        .map(|i| format!("{{\"i\": {i}}}\n").into_bytes())
        .collect();
    for mask in 0..1u32 << 10 {
        let mut block = Vec::new();
        let mut expected = Vec::new();
        let mut keep = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if mask >> ((i * 7) % 10) & 1 == 1 && i % 4 == 0 {
                block.extend_from_slice(b" \n");
            }
            block.extend_from_slice(line);
            keep.push(mask >> i & 1 == 1);
            if mask >> i & 1 == 1 {
                expected.extend_from_slice(line);
            }
        }
        block.extend_from_slice(b"{\"partial");
        let (out, k) = kept(&block, false, &keep);
        assert_eq!((out, k.rows), (expected, 10), "{mask}");
    }
}
