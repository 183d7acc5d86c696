//! Reading JSONL without building an object per row: the text field of each line is decoded
//! straight into one UTF-8 buffer (text bytes + offsets, what the stages borrow), the id field
//! kept as its raw JSON, and every other field only checked for syntax.
//!
//! This is a fast path, not a second definition of JSONL: a line it cannot read exactly as
//! Python's `json.loads` would (invalid UTF-8 or JSON, a non-string text, a lone surrogate, a
//! number out of range, `NaN`, deep nesting, a missing field...) is listed in
//! [`Scan::fallback`] and read by the Python reader, which gives the value or the documented
//! error naming file and line. A line it does read gives the text `json.loads` gives: the line
//! is valid UTF-8, parses as one JSON object, and its text (the last occurrence of the key,
//! as in Python) is a string, whose escapes serde_json decodes.
//!
//! Blank lines (only ASCII whitespace, as `bytes.isspace`) are skipped; lines end at `\n`.

use crate::parallel::{self, check_threads};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// What [`scan`] read from a block of whole lines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Scan {
    /// Bytes of texts written to the front of the caller's buffer: UTF-8, one after another
    /// (a fallback row contributes nothing).
    pub text_len: usize,
    /// `rows + 1` offsets into the texts.
    pub text_offsets: Vec<i64>,
    /// The raw JSON of each row's id value, each followed by a comma (so the whole buffer,
    /// less its last comma, in brackets is a JSON array of the ids: one `json.loads`).
    pub ids: Vec<u8>,
    /// `rows + 1` offsets into `ids` (a span includes its comma); an empty span is a row
    /// without the id field, or a fallback row.
    pub id_offsets: Vec<i64>,
    /// (row, start, end, line) of each line left to the Python reader: its row in this scan,
    /// its bytes in the block, its line number in the scan (0 for the first line), flattened.
    pub fallback: Vec<i64>,
    /// Bytes of the block consumed: the end of the last line read.
    pub consumed: usize,
    /// Lines consumed, blank ones included (for line numbers).
    pub lines: usize,
}

impl Scan {
    /// Rows read (fallback rows included).
    pub fn rows(&self) -> usize {
        self.text_offsets.len() - 1
    }
}

/// Whether a line is blank the way Python's `bytes.isspace` says (the `\n` included).
fn is_blank(line: &[u8]) -> bool {
    line.iter()
        .all(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// The next line of `block` from `pos`: (its end, exclusive of nothing: the `\n` included),
/// or None when no `\n` is left and the block is not the last.
fn line_end(block: &[u8], pos: usize, last: bool) -> Option<usize> {
    match memchr::memchr(b'\n', &block[pos..]) {
        Some(i) => Some(pos + i + 1),
        None if last && pos < block.len() => Some(block.len()),
        None => None,
    }
}

/// Reads up to `max_rows` non-blank lines of `block` from its start, their texts written to
/// the front of `text` (the caller's buffer, reused across blocks: no fresh pages to fault in;
/// at least `block.len()` bytes, as a decoded text is never longer than its line). `last`: the block ends the
/// input, so a final line without `\n` counts; otherwise that partial line is left unconsumed.
/// `id_field` None: no ids are taken; `id_required`: a row without one goes to the fallback
/// (where Python names it).
///
/// The lines are found first (one `memchr` pass), then parsed on `threads` threads, each a run
/// of consecutive rows into a scan of its own, and the runs joined in order: the same scan
/// whatever the thread count.
#[allow(clippy::too_many_arguments)]
pub fn scan(
    block: &[u8],
    text: &mut [u8],
    last: bool,
    text_field: &str,
    id_field: Option<&str>,
    id_required: bool,
    max_rows: usize,
    threads: usize,
) -> crate::error::Result<Scan> {
    check_threads(threads)?;
    if text.len() < block.len() {
        return Err(crate::error::Error::new(format!(
            "the text buffer ({} bytes) is shorter than the block ({} bytes)",
            text.len(),
            block.len()
        )));
    }
    // (start, end, line number) of every non-blank line to read.
    let mut rows: Vec<(usize, usize, usize)> = Vec::new();
    let mut pos = 0;
    let mut lines = 0;
    while rows.len() < max_rows {
        let Some(end) = line_end(block, pos, last) else {
            break;
        };
        lines += 1;
        if !is_blank(&block[pos..end]) {
            rows.push((pos, end, lines - 1));
        }
        pos = end;
    }
    let fields = Fields {
        text: text_field,
        id: id_field,
        id_required,
    };
    // One thread: one run, written straight into its output (no part to join). More: runs of
    // about 2,000 rows, a few per thread, each worth a thread's start.
    let tasks = if threads == 1 {
        1
    } else {
        (rows.len() / 2048).clamp(1, threads * 4)
    };
    let runs = parallel::split(rows.len(), tasks);
    // Each run decodes into its own part of `text`, from its first line's place in the block
    // on (its texts fit in its lines' bytes); the parts are then moved together.
    let base = rows.first().map_or(0, |r| r.0);
    let mut places = Vec::with_capacity(runs.len());
    let mut slices = Vec::with_capacity(runs.len());
    let mut rest = &mut text[..];
    let mut taken = 0;
    for run in &runs {
        let end = rows.get(run.end).map_or(block.len() - base, |r| r.0 - base);
        let (mine, tail) = std::mem::take(&mut rest).split_at_mut(end - taken);
        rest = tail;
        places.push(taken);
        taken = end;
        slices.push(std::sync::Mutex::new(Some(mine)));
    }
    let mut parts = parallel::map_tasks(runs.len(), threads, |run| {
        let out = slices[run].lock().ok().and_then(|mut s| s.take());
        fields.scan_rows(
            block,
            &rows[runs[run].clone()],
            runs[run].start,
            out.unwrap_or_default(),
        )
    })?;
    drop(slices);
    let mut out = if parts.is_empty() {
        fields.scan_rows(block, &[], 0, &mut [])
    } else {
        parts.remove(0)
    };
    for (part, place) in parts.into_iter().zip(places.into_iter().skip(1)) {
        text.copy_within(place..place + part.text_len, out.text_len);
        out.append(part);
    }
    out.consumed = pos;
    out.lines = lines;
    Ok(out)
}

/// The fields a scan reads.
struct Fields<'a> {
    text: &'a str,
    id: Option<&'a str>,
    id_required: bool,
}

impl Fields<'_> {
    /// The scan of some rows of `block`, given as (start, end, line number); `first` is the
    /// row number of the first (for the fallback list).
    /// `text`: at least the rows' bytes (a text decodes to at most its line's bytes).
    fn scan_rows(
        &self,
        block: &[u8],
        rows: &[(usize, usize, usize)],
        first: usize,
        text: &mut [u8],
    ) -> Scan {
        let mut out = Scan {
            text_offsets: Vec::with_capacity(rows.len() + 1),
            id_offsets: Vec::with_capacity(rows.len() + 1),
            ..Scan::default()
        };
        out.text_offsets.push(0);
        out.id_offsets.push(0);
        for (k, &(pos, end, line_number)) in rows.iter().enumerate() {
            let line = &block[pos..end];
            match read_line(line, self.text, self.id, &mut text[out.text_len..]) {
                Some((len, id)) if id.is_some() || !self.id_required => {
                    out.text_len += len;
                    if let Some((a, b)) = id {
                        out.ids.extend_from_slice(&line[a..b]);
                        out.ids.push(b',');
                    }
                }
                _ => out.fallback.extend([
                    (first + k) as i64,
                    pos as i64,
                    end as i64,
                    line_number as i64,
                ]),
            }
            out.text_offsets.push(out.text_len as i64);
            out.id_offsets.push(out.ids.len() as i64);
        }
        out
    }
}

impl Scan {
    /// Appends the scan of the rows that follow this one's (their texts already moved to
    /// follow this one's).
    fn append(&mut self, next: Scan) {
        let (text, ids) = (self.text_len as i64, self.ids.len() as i64);
        self.text_len += next.text_len;
        self.ids.extend_from_slice(&next.ids);
        self.text_offsets
            .extend(next.text_offsets[1..].iter().map(|&o| o + text));
        self.id_offsets
            .extend(next.id_offsets[1..].iter().map(|&o| o + ids));
        self.fallback.extend_from_slice(&next.fallback);
    }
}

/// What [`kept_lines`] gathered.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The kept lines are `block[..len]` (a last line without `\n` included as it is).
    pub len: usize,
    /// The last kept line is the input's last and has no `\n`: the writer adds one.
    pub newline: bool,
    /// Non-blank lines seen.
    pub rows: usize,
    /// Bytes of the block consumed.
    pub consumed: usize,
    /// Lines consumed, blank ones included.
    pub lines: usize,
}

/// The write pass: the kept lines of `block` (`last` as in [`scan`]) moved, in order, to its
/// front, in place: no buffer allocated, and a run of consecutive kept lines is one
/// `copy_within` (nothing at all while every line so far is kept). The bytes past the consumed
/// end are untouched (the caller's next block starts there). `keep[i]` is for the i-th
/// non-blank line; lines past the end of `keep` are counted but not kept (the caller reports
/// the input as changed).
pub fn kept_lines(block: &mut [u8], last: bool, keep: &[bool]) -> Kept {
    let mut len = 0; // bytes of kept lines at the front
    let (mut run, mut run_end) = (0, 0); // the kept lines not yet moved: block[run..run_end]
    let mut rows = 0;
    let mut pos = 0;
    let mut lines = 0;
    let mut newline = false;
    while let Some(end) = line_end(block, pos, last) {
        lines += 1;
        if !is_blank(&block[pos..end]) {
            if keep.get(rows).copied().unwrap_or(false) {
                if pos != run_end {
                    block.copy_within(run..run_end, len);
                    len += run_end - run;
                    run = pos;
                }
                run_end = end;
                newline = block[end - 1] != b'\n';
            }
            rows += 1;
        }
        pos = end;
    }
    block.copy_within(run..run_end, len);
    len += run_end - run;
    Kept {
        len,
        newline,
        rows,
        consumed: pos,
        lines,
    }
}

/// `line` as a `str` when it is valid UTF-8: the same bytes `std::str::from_utf8` accepts
/// (tested below), checked with SIMD.
fn utf8(line: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(line).ok()
}

/// The bytes of a line's text (written to the front of the caller's buffer) and the byte span
/// of its id's raw JSON in the line.
type Read = (usize, Option<(usize, usize)>);

/// What the fast path reads of a line, its text decoded straight into `text` (at least the
/// line's bytes: a text decodes to at most those), or None when the line is left to Python.
fn read_line(
    line: &[u8],
    text_field: &str,
    id_field: Option<&str>,
    text: &mut [u8],
) -> Option<Read> {
    let json = utf8(line)?;
    let mut de = serde_json::Deserializer::from_str(json);
    let row = RowSeed {
        keys: KeySeed {
            text: text_field,
            id: id_field,
        },
        text,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    let text = row.text?;
    let id = row.id.map(|raw| {
        let start = raw.get().as_ptr() as usize - json.as_ptr() as usize;
        (start, start + raw.get().len())
    });
    Some((text, id))
}

struct Row<'a> {
    text: Option<usize>,
    id: Option<&'a RawValue>,
}

struct RowSeed<'f, 'o> {
    keys: KeySeed<'f>,
    text: &'o mut [u8],
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_> {
    type Value = Row<'de>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Row<'de>, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, '_> {
    type Value = Row<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Row<'de>, A::Error> {
        let mut row = Row {
            text: None,
            id: None,
        };
        while let Some(key) = map.next_key_seed(self.keys)? {
            match key {
                // A later text key writes over an earlier one (the last wins, as in Python).
                Key::Text => row.text = Some(map.next_value_seed(TextSeed(&mut *self.text))?),
                Key::Id => row.id = Some(map.next_value::<&RawValue>()?),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(row)
    }
}

enum Key {
    Text,
    Id,
    Other,
}

/// The names of the fields a row is read for.
#[derive(Clone, Copy)]
struct KeySeed<'f> {
    text: &'f str,
    id: Option<&'f str>,
}

impl KeySeed<'_> {
    fn key(&self, name: &str) -> Key {
        if name == self.text {
            Key::Text
        } else if Some(name) == self.id {
            Key::Id
        } else {
            Key::Other
        }
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Key, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Key, E> {
        Ok(self.key(name))
    }
}

/// A string value, copied to the front of the buffer (from the line when it has no escapes,
/// else from serde_json's decoding: no `String` per row); its length in bytes. Anything else
/// is an error (the row goes to the Python reader, which says what is wrong).
struct TextSeed<'o>(&'o mut [u8]);

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<usize, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TextSeed<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<usize, E> {
        // Never short (a text decodes to at most its line's bytes); an error, not a panic.
        let room = self
            .0
            .get_mut(..s.len())
            .ok_or_else(|| E::custom("text buffer full"))?;
        room.copy_from_slice(s.as_bytes());
        Ok(s.len())
    }
}

#[cfg(test)]
mod tests;
