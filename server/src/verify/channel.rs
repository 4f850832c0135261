//! The verifier's end of the harness's channel (a pipe, fd 3 in the harness): every output and
//! timing arrives here, in order, and only what arrived before the end record counts. Files the
//! candidate's process could write are never read back.
//!
//! Frames: `B <tag> <name> <f|i|u> <bytes per element> <count>\n` then the raw elements;
//! `T <sample> <kernel ms> <end-to-end ms> <host wall ms>\n`; `E\n` at the end.
//!
//! Outputs of the correctness cases are kept; of the timed samples, the ones chosen beforehand
//! (the harness is not told which) and the last one (nobody knew which that would be).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

/// One timed sample: (index, kernel ms, end-to-end ms, host wall ms).
pub type Sample = (usize, f64, f64, f64);

/// A timed sample's outputs held in memory: its index and (output name, kind, element size, raw
/// bytes), widened only if it turns out to be the last.
type Held = (usize, Vec<(String, char, usize, Vec<u8>)>);

#[derive(Debug, Default)]
pub struct Received {
    pub samples: Vec<Sample>,
    /// Index of the last timed sample whose outputs arrived (kept on disk as `t<i>_*`).
    pub last_sample: Option<usize>,
    /// Tags whose outputs were written to the output directory.
    pub kept: BTreeSet<String>,
    /// The end record arrived.
    pub ended: bool,
    /// The stream broke the format (nothing after it is read).
    pub malformed: Option<String>,
}

/// Reads the channel to its end, writing kept outputs as `<tag>_<name>.bin` (float64 or int64,
/// little endian, as the reference writes them) into `out`.
pub fn consume(stream: impl Read, out: PathBuf, chosen: BTreeSet<usize>) -> Received {
    let mut r = BufReader::with_capacity(1 << 20, stream);
    let mut got = Received::default();
    // The newest timed sample's outputs, held until the next sample shows it was not the last.
    let mut held: Option<Held> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        match r.by_ref().take(512).read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) if line.last() == Some(&b'\n') => {}
            Ok(_) => {
                got.malformed = Some("a record without its end of line".into());
                break;
            }
            Err(e) => {
                got.malformed = Some(format!("channel read failed: {e}"));
                break;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let f: Vec<&str> = text.split_whitespace().collect();
        match f.as_slice() {
            ["E"] => {
                got.ended = true;
                break;
            }
            ["T", i, k, e, w] => match (i.parse(), k.parse(), e.parse(), w.parse()) {
                (Ok(i), Ok(k), Ok(e), Ok(w)) => got.samples.push((i, k, e, w)),
                _ => {
                    got.malformed = Some(format!("bad timing record `{}`", text.trim()));
                    break;
                }
            },
            ["B", tag, name, kind, size, count] => {
                let (Ok(size), Ok(count)) = (size.parse::<usize>(), count.parse::<usize>()) else {
                    got.malformed = Some(format!("bad output record `{}`", text.trim()));
                    break;
                };
                let ok_name = |s: &str| {
                    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                };
                let kind = kind.chars().next().unwrap_or('?');
                if !ok_name(tag)
                    || !ok_name(name)
                    || !matches!((kind, size), ('f', 4 | 8) | ('i' | 'u', 1 | 2 | 4 | 8))
                {
                    got.malformed = Some(format!("bad output record `{}`", text.trim()));
                    break;
                }
                // Outputs are bounded by the sandbox's memory cap; a larger claim is corruption.
                let Some(bytes) = size.checked_mul(count).filter(|b| *b <= 1 << 36) else {
                    got.malformed = Some(format!("output record too large `{}`", text.trim()));
                    break;
                };
                let mut raw = vec![0u8; bytes];
                if let Err(e) = r.read_exact(&mut raw) {
                    got.malformed = Some(format!("output `{name}` of {tag} cut short: {e}"));
                    break;
                }
                let sample = tag.strip_prefix('t').and_then(|i| i.parse::<usize>().ok());
                match sample {
                    None => {
                        if write(&out, tag, name, &widen(&raw, kind, size)) {
                            got.kept.insert(tag.to_string());
                        }
                    }
                    Some(i) => {
                        if chosen.contains(&i) && write(&out, tag, name, &widen(&raw, kind, size)) {
                            got.kept.insert(tag.to_string());
                        }
                        let entry = (name.to_string(), kind, size, raw);
                        match &mut held {
                            Some((h, outs)) if *h == i => outs.push(entry),
                            _ => held = Some((i, vec![entry])),
                        }
                    }
                }
            }
            _ => {
                got.malformed = Some(format!("unknown record `{}`", text.trim()));
                break;
            }
        }
    }
    // Drain whatever follows, so that the writer never blocks on a full pipe.
    let _ = std::io::copy(&mut r, &mut std::io::sink());
    if let Some((i, outs)) = held {
        let tag = format!("t{i}");
        if outs
            .iter()
            .all(|(name, kind, size, raw)| write(&out, &tag, name, &widen(raw, *kind, *size)))
        {
            got.kept.insert(tag);
            got.last_sample = Some(i);
        }
    }
    got
}

/// Elements as 8-byte values: floats as f64, integers as i64 (unsigned wrap as the reference's
/// `(long long)` cast does).
fn widen(raw: &[u8], kind: char, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() / size * 8);
    for c in raw.chunks_exact(size) {
        let v: [u8; 8] = match (kind, size) {
            ('f', 4) => f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))).to_le_bytes(),
            ('f', _) => c.try_into().expect("8 bytes"),
            ('i', 1) => i64::from(c[0] as i8).to_le_bytes(),
            ('i', 2) => i64::from(i16::from_le_bytes(c.try_into().expect("2"))).to_le_bytes(),
            ('i', 4) => i64::from(i32::from_le_bytes(c.try_into().expect("4"))).to_le_bytes(),
            ('u', 1) => i64::from(c[0]).to_le_bytes(),
            ('u', 2) => i64::from(u16::from_le_bytes(c.try_into().expect("2"))).to_le_bytes(),
            ('u', 4) => i64::from(u32::from_le_bytes(c.try_into().expect("4"))).to_le_bytes(),
            _ => c.try_into().expect("8 bytes"),
        };
        out.extend_from_slice(&v);
    }
    out
}

fn write(out: &std::path::Path, tag: &str, name: &str, data: &[u8]) -> bool {
    std::fs::write(out.join(format!("{tag}_{name}.bin")), data).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(tag: &str, name: &str, vals: &[f32]) -> Vec<u8> {
        let mut v = format!("B {tag} {name} f 4 {}\n", vals.len()).into_bytes();
        for x in vals {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v
    }

    #[test]
    fn keeps_cases_chosen_samples_and_the_last_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = frame("c0", "y", &[1.0, 2.0]);
        for i in 0..5 {
            s.extend(format!("T {i} 1.0 2.0 1.0\n").bytes());
            s.extend(frame(&format!("t{i}"), "y", &[i as f32]));
        }
        s.extend(b"E\n");
        s.extend(b"B c9 y f 4 1\n"); // after the end: ignored
        let got = consume(&s[..], dir.path().into(), BTreeSet::from([1, 3]));
        assert!(got.ended && got.malformed.is_none());
        assert_eq!(got.samples.len(), 5);
        assert_eq!(got.last_sample, Some(4));
        let kept: Vec<&str> = got.kept.iter().map(String::as_str).collect();
        assert_eq!(kept, ["c0", "t1", "t3", "t4"]);
        let y = std::fs::read(dir.path().join("c0_y.bin")).unwrap();
        assert_eq!(f64::from_le_bytes(y[8..16].try_into().unwrap()), 2.0);
        assert!(!dir.path().join("t2_y.bin").exists());
        assert!(!dir.path().join("c9_y.bin").exists());
    }

    #[test]
    fn a_broken_stream_is_reported_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let got = consume(
            &b"B c0 y f 4 10\n\x00\x00"[..],
            dir.path().into(),
            BTreeSet::new(),
        );
        assert!(!got.ended);
        assert!(got.malformed.unwrap().contains("cut short"));
        let got = consume(&b"B ../x y f 4 1\n"[..], dir.path().into(), BTreeSet::new());
        assert!(got.malformed.is_some());
    }

    #[test]
    fn integers_widen_with_their_sign() {
        assert_eq!(widen(&[0xff], 'i', 1), (-1i64).to_le_bytes());
        assert_eq!(widen(&[0xff], 'u', 1), 255i64.to_le_bytes());
        assert_eq!(widen(&(-5i32).to_le_bytes(), 'i', 4), (-5i64).to_le_bytes());
    }
}
