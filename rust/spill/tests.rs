//! Unit tests of the spill file (`rust/spill/mod.rs`).

use super::*;

/// A fresh directory for one test under the system's temporary one.
fn base(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("neardup-spill-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    dir
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

/// The sets of a batch: set i holds i + 1 hashes (set 1 empty).
fn batch(n: usize) -> (Vec<i64>, Vec<u64>) {
    let mut offsets = vec![0i64];
    let mut hashes = Vec::new();
    for i in 0..n {
        let size = if i == 1 { 0 } else { i + 1 };
        hashes.extend((0..size).map(|j| (i * 1000 + j) as u64));
        offsets.push(hashes.len() as i64);
    }
    (offsets, hashes)
}

fn set(offsets: &[i64], hashes: &[u64], row: usize) -> Vec<u64> {
    hashes[offsets[row] as usize..offsets[row + 1] as usize].to_vec()
}

#[test]
fn any_increasing_documents_read_back_what_was_added() {
    let dir = base("round-trip");
    let (offsets, hashes) = batch(8);
    let mut spill = SetSpill::new(Some(dir.clone()));
    assert!(!spill.active());
    // rows 0..3 (a run) as documents 0..3, then rows 4 and 6..8 (a run) as 5, 7, 8
    spill
        .add(&offsets, &hashes, &[0, 1, 2], &[0, 1, 2])
        .unwrap();
    spill
        .add(&offsets, &hashes, &[4, 6, 7], &[5, 7, 8])
        .unwrap();
    assert!(spill.active());
    assert_eq!(entries(&dir), 1);
    assert_eq!(spill.writes(), 3); // rows 0..3, row 4, rows 6..8
    spill.finish(10).unwrap();
    let source: [Option<usize>; 10] = [
        Some(0),
        Some(1),
        Some(2),
        None,
        None,
        Some(4),
        None,
        Some(6),
        Some(7),
        None,
    ];
    let sizes = spill.sizes().unwrap();
    let expect: Vec<i64> = source
        .iter()
        .map(|s| s.map_or(0, |r| offsets[r + 1] - offsets[r]))
        .collect();
    assert_eq!(sizes, expect);
    assert_eq!(spill.hashes_written(), expect.iter().sum::<i64>() as u64);
    // every increasing subset of the 10 documents
    for mask in 0u32..(1 << 10) {
        let docs: Vec<i64> = (0..10).filter(|d| mask & (1 << d) != 0).collect();
        let (own, got) = spill.read(&docs).unwrap();
        assert_eq!(own.len(), docs.len() + 1);
        for (row, &doc) in docs.iter().enumerate() {
            let want = source[doc as usize].map_or(Vec::new(), |r| set(&offsets, &hashes, r));
            assert_eq!(got[own[row] as usize..own[row + 1] as usize], want[..]);
        }
    }
    spill.close();
    assert_eq!(entries(&dir), 0);
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn empty_documents_need_no_file() {
    let dir = base("empty");
    let offsets = vec![0i64, 0, 0];
    let mut spill = SetSpill::new(Some(dir.clone()));
    spill.add(&offsets, &[], &[0, 1], &[0, 3]).unwrap();
    spill.add(&offsets, &[], &[], &[]).unwrap();
    assert!(!spill.active() && spill.writes() == 0);
    assert_eq!(entries(&dir), 0);
    spill.finish(5).unwrap();
    assert_eq!(spill.sizes().unwrap(), vec![0; 5]);
    assert_eq!(spill.read(&[0, 2, 4]).unwrap(), (vec![0, 0, 0, 0], vec![]));
    assert_eq!(spill.read(&[]).unwrap(), (vec![0], vec![]));
    drop(spill);
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn documents_out_of_order_and_bad_indices_are_refused() {
    let dir = base("order");
    let (offsets, hashes) = batch(4);
    let mut spill = SetSpill::new(Some(dir.clone()));
    spill.add(&offsets, &hashes, &[0, 2], &[2, 3]).unwrap();
    let refused = |e: Error| matches!(e, Error::InvalidArgument(_));
    let e = spill.add(&offsets, &hashes, &[0], &[3]).unwrap_err();
    assert_eq!(e.message(), "document 3 added after 3");
    assert!(refused(
        spill.add(&offsets, &hashes, &[0, 1], &[5, 5]).unwrap_err()
    ));
    assert!(refused(
        spill.add(&offsets, &hashes, &[1, 0], &[5, 6]).unwrap_err()
    ));
    assert!(refused(
        spill.add(&offsets, &hashes, &[4], &[5]).unwrap_err()
    ));
    assert!(refused(
        spill.add(&offsets, &hashes, &[-1], &[5]).unwrap_err()
    ));
    assert!(refused(
        spill.add(&offsets, &hashes, &[0], &[-5]).unwrap_err()
    ));
    assert!(refused(
        spill.add(&offsets, &hashes, &[0, 1], &[5]).unwrap_err()
    ));
    assert!(refused(
        spill.add(&offsets, &hashes[..3], &[3], &[5]).unwrap_err()
    ));
    assert!(refused(
        spill.add(&[0, 5, 2], &hashes, &[1], &[5]).unwrap_err()
    ));
    assert!(refused(spill.add(&[], &hashes, &[0], &[5]).unwrap_err()));
    assert!(refused(spill.read(&[0]).unwrap_err())); // before finish
    assert!(refused(spill.finish(3).unwrap_err())); // document 3 was added
    spill.finish(4).unwrap();
    assert!(refused(spill.finish(4).unwrap_err()));
    assert!(refused(
        spill.add(&offsets, &hashes, &[3], &[9]).unwrap_err()
    ));
    assert!(refused(spill.read(&[1, 1]).unwrap_err()));
    assert!(refused(spill.read(&[2, 1]).unwrap_err()));
    assert!(refused(spill.read(&[4]).unwrap_err()));
    assert!(refused(spill.read(&[-1]).unwrap_err()));
    assert_eq!(spill.read(&[2, 3]).unwrap().1, [0, 2000, 2001, 2002]);
    assert_eq!(spill.read_offsets(&[2, 3]).unwrap(), [0, 1, 4]);
    let mut out = [9u64; 4];
    assert_eq!(spill.read_into(&[2, 3], &mut out).unwrap(), [0, 1, 4]);
    assert_eq!(out, [0, 2000, 2001, 2002]);
    assert!(refused(
        spill.read_into(&[2, 3], &mut [0u64; 5]).unwrap_err()
    ));
    spill.close();
    assert!(refused(spill.read(&[2]).unwrap_err()));
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn close_and_drop_remove_the_directory() {
    let dir = base("close");
    let (offsets, hashes) = batch(3);
    let mut spill = SetSpill::new(Some(dir.clone()));
    spill.add(&offsets, &hashes, &[0, 2], &[0, 1]).unwrap();
    let made = spill.directory().unwrap().to_owned();
    assert!(made.starts_with(&dir) && made.join(FILE_NAME).is_file());
    spill.close();
    assert!(!made.exists() && !spill.active());
    spill.close(); // again: nothing
    let mut dropped = SetSpill::new(Some(dir.clone()));
    dropped.add(&offsets, &hashes, &[2], &[0]).unwrap();
    dropped.finish(1).unwrap();
    assert_eq!(entries(&dir), 1);
    drop(dropped);
    assert_eq!(entries(&dir), 0);
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn an_injected_full_disk_is_an_os_error_and_leaves_the_spill_closeable() {
    let dir = base("full");
    let (offsets, hashes) = batch(6);
    let mut spill = SetSpill::new(Some(dir.clone()));
    spill.set_fail_write_at(Some(3));
    spill.add(&offsets, &hashes, &[0], &[0]).unwrap();
    spill.add(&offsets, &hashes, &[2], &[1]).unwrap();
    let e = spill.add(&offsets, &hashes, &[3, 5], &[2, 3]).unwrap_err();
    assert_eq!(spill.writes(), 3);
    match &e {
        Error::Os { errno, message } => {
            #[cfg(unix)]
            assert_eq!(*errno, Some(28));
            let _ = errno;
            assert!(
                message.starts_with("cannot write the spill file "),
                "{message}"
            );
            assert!(message.contains(&dir.display().to_string()), "{message}");
            assert!(message.ends_with("No space left on device"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // nothing more is written or read, and close still removes everything
    assert!(spill.add(&offsets, &hashes, &[4], &[7]).is_err());
    assert!(spill.finish(8).is_err());
    assert_eq!(spill.writes(), 3);
    assert_eq!(entries(&dir), 1);
    spill.close();
    assert_eq!(entries(&dir), 0);
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn a_missing_base_directory_is_an_os_error() {
    let dir = base("missing").join("not-there");
    let (offsets, hashes) = batch(1);
    let mut spill = SetSpill::new(Some(dir.clone()));
    let e = spill.add(&offsets, &hashes, &[0], &[0]).unwrap_err();
    assert!(matches!(e, Error::Os { errno: Some(_), .. }), "{e:?}");
    assert!(e
        .message()
        .starts_with("cannot make the spill directory in "));
    spill.close();
    std::fs::remove_dir(dir.parent().unwrap()).unwrap();
}
