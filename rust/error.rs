//! The one error type of the core, with a kind per cause. The Python binding maps each kind to
//! a class of `neardup.errors` in one place (`impl From<Error> for PyErr` in `bindings/mod.rs`).

use std::collections::TryReserveError;
use std::fmt;

/// Why a call failed. Every message is one line that names the argument or the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An argument is out of range or inconsistent with another (`InvalidArgumentError`).
    InvalidArgument(String),
    /// Document `document` of the input cannot be used as given (`InputError`).
    InvalidInput { document: usize, message: String },
    /// The input (or one of its items) has the wrong type (`InputTypeError`).
    InputType(String),
    /// An allocation sized by the arguments cannot be made (`ResourceError`, a `MemoryError`);
    /// nothing was changed.
    Resource(String),
    /// Stored bits that cannot be what neardup wrote (`IndexCorruptError`).
    Corrupt(String),
    /// A file operation failed (the spill file: a full disk, a missing directory): Python's
    /// builtin `OSError(errno, message)`, as neardup's other file writes raise. `errno` is the
    /// OS's error number when there is one; the message says what failed and why.
    Os { errno: Option<i32>, message: String },
    /// The caller asked the work to stop (the interrupt flag of `parallel.rs`: Ctrl-C while a long
    /// call runs); the binding raises the signal's own exception instead.
    Interrupted,
}

impl Error {
    /// An invalid argument; the message names it.
    pub fn new(message: impl Into<String>) -> Self {
        Error::InvalidArgument(message.into())
    }

    /// Document `document` of the input is unusable; the message names it.
    pub fn input(document: usize, message: impl Into<String>) -> Self {
        Error::InvalidInput {
            document,
            message: message.into(),
        }
    }

    /// The input (or an item of it) has the wrong type.
    pub fn input_type(message: impl Into<String>) -> Self {
        Error::InputType(message.into())
    }

    /// An allocation of `count` items of `item_bytes` bytes for `what` failed or overflowed.
    pub fn resource(what: &str, count: usize, item_bytes: usize) -> Self {
        let bytes = count as f64 * item_bytes as f64;
        Error::Resource(format!(
            "cannot allocate {what}: {count} items of {item_bytes} bytes ({:.3} GiB)",
            bytes / (1u64 << 30) as f64
        ))
    }

    /// Stored data that is damaged.
    pub fn corrupt(message: impl Into<String>) -> Self {
        Error::Corrupt(message.into())
    }

    /// `what` failed with the OS error `error`: "cannot write the spill file …: No space left
    /// on device", its error number kept apart.
    pub fn os(what: impl fmt::Display, error: &std::io::Error) -> Self {
        let errno = error.raw_os_error();
        let reason = error.to_string();
        // std appends " (os error N)" to the OS's text; the number is kept in `errno` instead
        let reason = match errno {
            Some(code) => match reason.strip_suffix(&format!(" (os error {code})")) {
                Some(text) => text.to_owned(),
                None => reason,
            },
            None => reason,
        };
        Error::Os {
            errno,
            message: format!("{what}: {reason}"),
        }
    }

    /// The one-line message, without the kind.
    pub fn message(&self) -> &str {
        match self {
            Error::InvalidArgument(m)
            | Error::InputType(m)
            | Error::Resource(m)
            | Error::Corrupt(m) => m,
            Error::InvalidInput { message, .. } | Error::Os { message, .. } => message,
            Error::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// `len` copies of `value` in a new vector, or a [`Error::Resource`] naming `what` when the
/// memory cannot be had (instead of the abort of `vec![value; len]`).
pub fn filled_vec<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut out = Vec::new();
    reserve(&mut out, len, what)?;
    out.resize(len, value);
    Ok(out)
}

/// Reserves room for `additional` more items in `vec`, or a [`Error::Resource`] naming `what`.
pub fn reserve<T>(vec: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    vec.try_reserve_exact(additional)
        .map_err(|_: TryReserveError| Error::resource(what, additional, std::mem::size_of::<T>()))
}

/// Reserves room for `additional` more items in `vec` with amortised growth (for a vector
/// grown batch after batch; a large block is realloc'ed by moving its pages, not copying
/// them), or a [`Error::Resource`] naming `what`.
pub fn reserve_amortized<T>(vec: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    vec.try_reserve(additional).map_err(|_: TryReserveError| {
        Error::resource(what, vec.len() + additional, std::mem::size_of::<T>())
    })
}

/// Appends `value`, growing `vec` fallibly (doubling) when it is full: for outputs whose size
/// the input decides (pairs found), which must not abort the process when they outgrow memory.
#[inline]
pub fn push<T>(vec: &mut Vec<T>, value: T, what: &str) -> Result<()> {
    if vec.len() == vec.capacity() {
        let grow = vec.capacity().max(16);
        vec.try_reserve(grow)
            .map_err(|_| Error::resource(what, vec.len() + grow, std::mem::size_of::<T>()))?;
    }
    vec.push(value);
    Ok(())
}

/// Checks that `count` items of `item_bytes` bytes could be allocated now (the memory is
/// reserved and given back at once): for sizes a constructor outside this crate's control
/// allocates infallibly, so a hopeless size is an error instead of an abort.
pub fn probe_allocation(count: usize, item_bytes: usize, what: &str) -> Result<()> {
    let bytes = count
        .checked_mul(item_bytes)
        .ok_or_else(|| Error::resource(what, count, item_bytes))?;
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(bytes)
        .map_err(|_| Error::resource(what, count, item_bytes))
}

/// `rows * width`, or a [`Error::Resource`] when the product overflows (the size of a matrix
/// that could never be allocated).
pub fn matrix_len(rows: usize, width: usize, what: &str) -> Result<usize> {
    rows.checked_mul(width)
        .ok_or_else(|| Error::Resource(format!("cannot allocate {what}: {rows} rows of {width}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_allocations_are_resource_errors() {
        let huge = usize::MAX / 4;
        assert!(matches!(
            filled_vec(huge, 0u64, "signatures"),
            Err(Error::Resource(_))
        ));
        assert!(matches!(
            matrix_len(usize::MAX, 2, "x"),
            Err(Error::Resource(_))
        ));
        let mut v: Vec<u32> = Vec::new();
        assert!(reserve(&mut v, huge, "x").is_err());
        assert!(filled_vec(3, 7u8, "x").unwrap() == vec![7, 7, 7]);
    }

    #[test]
    fn push_grows_like_a_vec() {
        let mut v = Vec::new();
        for i in 0..1000 {
            push(&mut v, i, "x").unwrap();
        }
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn new_is_an_invalid_argument() {
        assert_eq!(Error::new("k"), Error::InvalidArgument("k".into()));
        assert_eq!(Error::input(3, "texts[3] x").to_string(), "texts[3] x");
    }

    #[test]
    fn os_errors_keep_the_number_apart_from_the_message() {
        let full = std::io::Error::from_raw_os_error(28);
        let e = Error::os("cannot write x", &full);
        let Error::Os { errno, message } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(*errno, Some(28));
        assert!(message.starts_with("cannot write x: ") && !message.contains("os error"));
        let other = Error::os("cannot read y", &std::io::Error::other("short"));
        assert_eq!(
            other,
            Error::Os {
                errno: None,
                message: "cannot read y: short".into()
            }
        );
    }
}
