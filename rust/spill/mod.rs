//! The unique documents' shingle sets on disk, for exact verification once the sign pass
//! cannot hold them (`neardup.engine.HOLD_SETS_BUDGET`): one temporary file written
//! sequentially, batch after batch ([`SetSpill::add`]), only the set sizes in memory, then read
//! back with positioned reads of runs of consecutive documents ([`SetSpill::read`]), so only the
//! sets read count in the process's memory (the file's pages are the page cache's).
//!
//! The file lives in a fresh directory (made at the first [`SetSpill::add`] that writes
//! anything, under the given base directory or the system's temporary one) that
//! [`SetSpill::close`] removes, as does dropping the spill. Failed writes and reads are
//! [`Error::Os`] errors that name the file and keep the OS error number.

use crate::error::{filled_vec, probe_allocation, reserve, Error, Result};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The file's name in its directory.
const FILE_NAME: &str = "sets.u64";

/// Bytes buffered before a write reaches the file (larger runs go straight through).
const WRITE_BUFFER: usize = 1 << 20;

/// Bytes per hash in the file (native byte order: the file never outlives the process).
const HASH_BYTES: usize = std::mem::size_of::<u64>();

/// Spill directories made by this process (part of each one's unique name).
static MADE: AtomicU64 = AtomicU64::new(0);

/// The sets of unique documents `0, 1, ...` (added in increasing order, any missing one empty)
/// in one temporary file.
#[derive(Debug)]
pub struct SetSpill {
    /// Where the directory is made (None: `std::env::temp_dir()`).
    base: Option<PathBuf>,
    /// The directory holding the file, once made (None before the first write and after close).
    dir: Option<PathBuf>,
    writer: Option<BufWriter<File>>,
    reader: Option<File>,
    /// Held by each [`SetSpill::read`]: `read` takes `&self`, and the non-Unix fallback moves
    /// the file's one position (seek, then read), so two reads must not interleave there.
    reading: Mutex<()>,
    /// The set size of every document below `next`, while adding.
    sizes: Vec<i64>,
    /// Documents below it were added (or are empty).
    next: usize,
    /// The offsets (in hashes) of the `n + 1` document boundaries, after [`SetSpill::finish`].
    offsets: Option<Vec<i64>>,
    hashes: u64,
    writes: u64,
    /// Reads made so far ([`SetSpill::read_into`] calls; `read` takes `&self`, so atomic).
    reads: AtomicU64,
    fail_write_at: Option<u64>,
    /// A write failed: the file and the sizes may disagree, nothing more is written or read.
    failed: bool,
    closed: bool,
}

impl SetSpill {
    /// An empty spill; its directory will be made under `directory` (None: the system's
    /// temporary directory, `TMPDIR` on Unix).
    pub fn new(directory: Option<PathBuf>) -> Self {
        SetSpill {
            base: directory,
            dir: None,
            writer: None,
            reader: None,
            reading: Mutex::new(()),
            sizes: Vec::new(),
            next: 0,
            offsets: None,
            hashes: 0,
            writes: 0,
            reads: AtomicU64::new(0),
            fail_write_at: None,
            failed: false,
            closed: false,
        }
    }

    /// Whether anything was written (the file exists) and the spill is not closed.
    pub fn active(&self) -> bool {
        self.dir.is_some()
    }

    /// Hashes written so far.
    pub fn hashes_written(&self) -> u64 {
        self.hashes
    }

    /// Writes made so far: one per run of consecutive rows with a hash (a test counts them).
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// Reads made so far: one per [`SetSpill::read`] or [`SetSpill::read_into`] (a test counts
    /// them: chunked verification reads once per chunk).
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// The directory holding the file, while it exists.
    pub fn directory(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Fault injection for tests: the `n`th write (1-based, counted from the first write of
    /// this spill, [`SetSpill::writes`]) fails as a full disk would (`ENOSPC`); None: none.
    pub fn set_fail_write_at(&mut self, n: Option<u64>) {
        self.fail_write_at = n;
    }

    fn usable(&self, what: &str) -> Result<()> {
        if self.closed {
            return Err(Error::new(format!("cannot {what}: the spill is closed")));
        }
        if self.failed {
            return Err(Error::new(format!(
                "cannot {what}: a write to the spill file failed before"
            )));
        }
        Ok(())
    }

    /// Appends the sets of `rows` (strictly increasing) of a batch (CSR: `offsets` of length
    /// n + 1 into `hashes`) as unique documents `at` (strictly increasing, all past those added
    /// before). Each run of consecutive rows is written as one slice of `hashes`.
    pub fn add(&mut self, offsets: &[i64], hashes: &[u64], rows: &[i64], at: &[i64]) -> Result<()> {
        self.usable("add to the spill")?;
        if self.offsets.is_some() {
            return Err(Error::new("cannot add to the spill after finish()"));
        }
        if rows.len() != at.len() {
            return Err(Error::new(format!(
                "rows and at must have the same length, got {} and {}",
                rows.len(),
                at.len()
            )));
        }
        let Some(&first_at) = at.first() else {
            return Ok(());
        };
        if first_at < 0 {
            return Err(Error::new(format!(
                "at must be non-negative, got {first_at}"
            )));
        }
        if (first_at as u64) < self.next as u64 {
            return Err(Error::new(format!(
                "document {first_at} added after {}",
                self.next as i64 - 1
            )));
        }
        if let Some(i) = at.windows(2).position(|w| w[1] <= w[0]) {
            return Err(Error::new(format!(
                "at must be strictly increasing: at[{}] = {} follows {}",
                i + 1,
                at[i + 1],
                at[i]
            )));
        }
        let n = offsets.len().saturating_sub(1);
        if offsets.is_empty() {
            return Err(Error::new("offsets must hold n + 1 boundaries, got none"));
        }
        let mut previous = -1i64;
        for (i, &row) in rows.iter().enumerate() {
            if row <= previous || row < 0 || row as u64 >= n as u64 {
                return Err(Error::new(format!(
                    "rows must be strictly increasing rows of the {n} sets: rows[{i}] = {row}"
                )));
            }
            previous = row;
            let (a, b) = (offsets[row as usize], offsets[row as usize + 1]);
            if a < 0 || b < a || b as u64 > hashes.len() as u64 {
                return Err(Error::new(format!(
                    "offsets of set {row} ({a}..{b}) are not within the {} hashes",
                    hashes.len()
                )));
            }
        }
        let last_at = at[at.len() - 1];
        let end = usize::try_from(last_at)
            .ok()
            .and_then(|last| last.checked_add(1))
            .ok_or_else(|| Error::new(format!("document {last_at} is out of range")))?;
        // the sizes of the documents skipped (empty) and added: reserved before any write
        let more = end - self.sizes.len();
        reserve(&mut self.sizes, more, "the spilled set sizes")?;
        // runs of consecutive rows, each written as one slice
        let mut start = 0;
        let mut written = 0u64;
        while start < rows.len() {
            let mut stop = start + 1;
            while stop < rows.len() && rows[stop] == rows[stop - 1] + 1 {
                stop += 1;
            }
            let a = offsets[rows[start] as usize] as usize;
            let b = offsets[rows[stop - 1] as usize + 1] as usize;
            if b > a {
                self.write(&hashes[a..b])?;
                written += (b - a) as u64;
            }
            start = stop;
        }
        for (&row, &doc) in rows.iter().zip(at) {
            self.sizes.resize(doc as usize, 0);
            self.sizes
                .push(offsets[row as usize + 1] - offsets[row as usize]);
        }
        self.next = end;
        self.hashes += written;
        Ok(())
    }

    /// Makes the directory and the file (at the first write).
    fn open(&mut self) -> Result<&mut BufWriter<File>> {
        if self.writer.is_none() {
            let base = self.base.clone().unwrap_or_else(std::env::temp_dir);
            let dir = make_directory(&base)?;
            let path = dir.join(FILE_NAME);
            self.dir = Some(dir);
            let file = File::options()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| {
                    Error::os(
                        format!("cannot create the spill file {}", path.display()),
                        &e,
                    )
                })?;
            self.writer = Some(BufWriter::with_capacity(WRITE_BUFFER, file));
        }
        Ok(self.writer.as_mut().expect("opened above"))
    }

    fn write(&mut self, hashes: &[u64]) -> Result<()> {
        self.writes += 1;
        let fail = self.fail_write_at == Some(self.writes);
        let writer = self.open()?;
        let outcome = if fail {
            Err(full_disk())
        } else {
            writer.write_all(as_bytes(hashes))
        };
        outcome.map_err(|e| {
            self.failed = true;
            Error::os(
                format!("cannot write the spill file {}", self.file_name()),
                &e,
            )
        })
    }

    fn file_name(&self) -> String {
        match &self.dir {
            Some(dir) => dir.join(FILE_NAME).display().to_string(),
            None => FILE_NAME.to_owned(),
        }
    }

    /// Ends the writing: the offsets of `n` documents (those never added are empty), the file
    /// flushed, closed and opened again for [`SetSpill::read`].
    pub fn finish(&mut self, n: usize) -> Result<()> {
        self.usable("finish the spill")?;
        if self.offsets.is_some() {
            return Err(Error::new("finish() was called already"));
        }
        if self.next > n {
            return Err(Error::new(format!(
                "finish({n}): documents up to {} were added",
                self.next - 1
            )));
        }
        let mut offsets = filled_vec(n + 1, 0i64, "the spill's offsets")?;
        let mut total = 0i64;
        for (doc, &size) in self.sizes.iter().enumerate() {
            total += size;
            offsets[doc + 1] = total;
        }
        for slot in &mut offsets[self.sizes.len() + 1..] {
            *slot = total;
        }
        self.sizes = Vec::new();
        if let Some(writer) = self.writer.take() {
            let name = self.file_name();
            let file = writer.into_inner().map_err(|e| {
                self.failed = true;
                Error::os(format!("cannot write the spill file {name}"), e.error())
            })?;
            drop(file);
            let reader = File::open(self.dir.as_ref().expect("written").join(FILE_NAME))
                .map_err(|e| Error::os(format!("cannot open the spill file {name}"), &e))?;
            self.reader = Some(reader);
        }
        self.offsets = Some(offsets);
        Ok(())
    }

    fn finished(&self) -> Result<&[i64]> {
        if self.closed {
            return Err(Error::new("the spill is closed"));
        }
        self.offsets
            .as_deref()
            .ok_or_else(|| Error::new("the spill is read after finish() only"))
    }

    /// The documents [`SetSpill::finish`] closed the file over.
    pub fn documents(&self) -> Result<usize> {
        Ok(self.finished()?.len() - 1)
    }

    /// int64[n]: the set size of each document (after [`SetSpill::finish`]).
    pub fn sizes(&self) -> Result<Vec<i64>> {
        let offsets = self.finished()?;
        let mut out = Vec::new();
        reserve(&mut out, offsets.len() - 1, "the spilled set sizes")?;
        out.extend(offsets.windows(2).map(|w| w[1] - w[0]));
        Ok(out)
    }

    /// (offsets int64[m + 1], hashes): the sets of `docs` (strictly increasing), one row each,
    /// with one positioned read per run of documents whose sets follow each other in the file.
    pub fn read(&self, docs: &[i64]) -> Result<(Vec<i64>, Vec<u64>)> {
        let total = *self.read_offsets(docs)?.last().expect("m + 1 offsets") as usize;
        // zeroed by the allocator (fresh pages from the OS for a large read: no pass writing
        // zeros before the read fills them), after a check that the memory can be had
        probe_allocation(total, HASH_BYTES, "the sets read from the spill")?;
        let mut hashes = vec![0u64; total];
        let own = self.read_into(docs, &mut hashes)?;
        Ok((own, hashes))
    }

    /// int64[m + 1]: where the sets of `docs` (strictly increasing) start and end in what
    /// [`SetSpill::read`] returns (the last one: the hashes `out` of [`SetSpill::read_into`]
    /// must hold).
    pub fn read_offsets(&self, docs: &[i64]) -> Result<Vec<i64>> {
        let offsets = self.finished()?;
        let n = offsets.len() - 1;
        let mut own = Vec::new();
        reserve(&mut own, docs.len() + 1, "the offsets of the sets read")?;
        own.push(0i64);
        let mut previous = -1i64;
        for (i, &doc) in docs.iter().enumerate() {
            if doc <= previous || doc < 0 || doc as u64 >= n as u64 {
                return Err(Error::new(format!(
                    "docs must be strictly increasing documents of the {n} spilled: \
                     docs[{i}] = {doc}"
                )));
            }
            previous = doc;
            let size = offsets[doc as usize + 1] - offsets[doc as usize];
            own.push(own[i] + size);
        }
        Ok(own)
    }

    /// [`SetSpill::read`] into `out` (exactly the hashes of the sets, as
    /// [`SetSpill::read_offsets`] says; the caller's memory, e.g. a numpy array, whose large
    /// allocations use huge pages); returns the offsets.
    pub fn read_into(&self, docs: &[i64], out: &mut [u64]) -> Result<Vec<i64>> {
        let own = self.read_offsets(docs)?;
        self.reads.fetch_add(1, Ordering::Relaxed);
        let total = own[docs.len()] as usize;
        if out.len() != total {
            return Err(Error::new(format!(
                "out must hold the {total} hashes of the sets read, got {}",
                out.len()
            )));
        }
        if total == 0 {
            return Ok(own);
        }
        let offsets = self.finished()?;
        let reader = self
            .reader
            .as_ref()
            .ok_or_else(|| Error::new("the spill file is not open"))?;
        // (a panic of another read cannot have left the file in a state this one relies on)
        let _reading = self.reading.lock().unwrap_or_else(|e| e.into_inner());
        let mut first = 0;
        while first < docs.len() {
            // a run: documents whose sets follow each other in the file
            let mut last = first + 1;
            while last < docs.len()
                && offsets[docs[last] as usize] == offsets[docs[last - 1] as usize + 1]
            {
                last += 1;
            }
            let (put_a, put_b) = (own[first] as usize, own[last] as usize);
            if put_b > put_a {
                let at = offsets[docs[first] as usize] as u64 * HASH_BYTES as u64;
                read_at(reader, as_bytes_mut(&mut out[put_a..put_b]), at).map_err(|e| {
                    Error::os(
                        format!("cannot read the spill file {}", self.file_name()),
                        &e,
                    )
                })?;
            }
            first = last;
        }
        Ok(own)
    }

    /// Closes and removes the file and its directory (also after an error; again: nothing).
    /// Nothing can be added or read afterwards.
    pub fn close(&mut self) {
        self.closed = true;
        if let Some(writer) = self.writer.take() {
            // what is still buffered is thrown away with the file (no flush to a full disk)
            drop(writer.into_parts());
        }
        self.reader = None;
        self.sizes = Vec::new();
        self.offsets = None;
        if let Some(dir) = self.dir.take() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

impl Drop for SetSpill {
    fn drop(&mut self) {
        self.close();
    }
}

/// A fresh directory under `base` (only this user may enter it on Unix).
fn make_directory(base: &Path) -> Result<PathBuf> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut attempt = 0;
    loop {
        let made = MADE.fetch_add(1, Ordering::Relaxed);
        let name = format!(
            "neardup-spill-{}-{:x}-{made}",
            std::process::id(),
            stamp.wrapping_add(attempt)
        );
        let dir = base.join(name);
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => {
                return Err(Error::os(
                    format!("cannot make the spill directory in {}", base.display()),
                    &e,
                ))
            }
        }
    }
}

/// The error a full disk gives (`ENOSPC`), for the fault injection of tests.
fn full_disk() -> io::Error {
    #[cfg(unix)]
    {
        // ENOSPC is 28 on Linux, macOS and the BSDs
        io::Error::from_raw_os_error(28)
    }
    #[cfg(not(unix))]
    {
        io::Error::other("No space left on device")
    }
}

fn as_bytes(hashes: &[u64]) -> &[u8] {
    // SAFETY: u64 has no padding and u8 no alignment requirement; the length is the slice's
    // own size in bytes, and the borrow keeps the slice alive.
    unsafe {
        std::slice::from_raw_parts(hashes.as_ptr() as *const u8, std::mem::size_of_val(hashes))
    }
}

fn as_bytes_mut(hashes: &mut [u64]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; every byte pattern is a valid u64, so any bytes written
    // through the view leave valid values.
    unsafe {
        std::slice::from_raw_parts_mut(
            hashes.as_mut_ptr() as *mut u8,
            std::mem::size_of_val(hashes),
        )
    }
}

/// Fills `out` from byte `at` of `file` (a short read continues where it stopped).
#[cfg(unix)]
fn read_at(file: &File, out: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, at)
}

/// Fills `out` from byte `at` of `file` (seek, then read: the file's position is shared state,
/// so [`SetSpill::read`] holds its `reading` lock around the calls).
#[cfg(not(unix))]
fn read_at(mut file: &File, out: &mut [u8], at: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(out)
}

#[cfg(test)]
mod tests;
