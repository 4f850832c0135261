//! The verifier's end of the harness's channel (a pipe, fd 3 in the harness): every output and
//! timing arrives here, in order, and only what arrived before the end record counts. Files the
//! candidate's process could write are never read back.
//!
//! Frames: `B <tag> <name> <f|i|u> <bytes per element> <count>\n` then the raw elements;
//! `T <sample> <kernel ms> <end-to-end ms> <host wall ms>\n`; `E\n` at the end.
//!
//! Outputs of the correctness cases are kept; of the timed samples, a uniformly random subset of
//! a fixed size drawn here as they arrive (reservoir sampling from the verifier's own entropy: the
//! set is the one a draw after the run would give, and the harness never learns it) and the last
//! one (nobody knew which that would be).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use rand::Rng;

/// One timed sample: (index, kernel ms, end-to-end ms, host wall ms).
pub type Sample = (usize, f64, f64, f64);

/// A timed sample's outputs held in memory: its index and (output name, kind, element size, raw
/// bytes), widened only if it turns out to be the last.
type Held = (usize, Vec<(String, char, usize, Vec<u8>)>);

#[derive(Debug, Default)]
pub struct Received {
    pub samples: Vec<Sample>,
    /// The timed samples drawn for the comparison (kept on disk as `t<i>_*`), in order.
    pub drawn: Vec<usize>,
    /// Index of the last timed sample whose outputs arrived (kept on disk as `t<i>_*`).
    pub last_sample: Option<usize>,
    /// Tags whose outputs were written to the output directory.
    pub kept: BTreeSet<String>,
    /// The end record arrived.
    pub ended: bool,
    /// The stream broke the format (nothing after it is read).
    pub malformed: Option<String>,
    /// An output could not be kept (a full disk): the verifier's failure, not the candidate's.
    pub write_error: Option<String>,
}

/// Reads the channel to its end, writing kept outputs as `<tag>_<name>.bin` (float64 or int64,
/// little endian, as the reference writes them) into `out`; of the timed samples, `slots` drawn
/// with `rng` and the last.
pub fn consume(stream: impl Read, out: PathBuf, slots: usize, rng: &mut impl Rng) -> Received {
    let mut r = BufReader::with_capacity(1 << 20, stream);
    let mut got = Received::default();
    let mut draw = Reservoir::new(slots);
    // The newest timed sample's outputs, held until the next sample shows it was not the last
    // (only when the draw did not keep it anyway).
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
                        if write(
                            &out,
                            tag,
                            name,
                            &widen(&raw, kind, size),
                            &mut got.write_error,
                        ) {
                            got.kept.insert(tag.to_string());
                        }
                    }
                    Some(i) => {
                        if draw.current != Some(i) {
                            if let Some(evicted) = draw.offer(i, rng) {
                                forget(&out, evicted, &mut got.kept);
                            }
                            held = None;
                        }
                        if draw.keeps(i) {
                            if write(
                                &out,
                                tag,
                                name,
                                &widen(&raw, kind, size),
                                &mut got.write_error,
                            ) {
                                got.kept.insert(tag.to_string());
                            }
                        } else {
                            let entry = (name.to_string(), kind, size, raw);
                            match &mut held {
                                Some((h, outs)) if *h == i => outs.push(entry),
                                _ => held = Some((i, vec![entry])),
                            }
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
    got.drawn = draw.kept();
    got.last_sample = draw.current.filter(|i| draw.keeps(*i));
    if let Some((i, outs)) = held {
        let tag = format!("t{i}");
        let mut failed = None;
        let all = outs.iter().all(|(name, kind, size, raw)| {
            write(&out, &tag, name, &widen(raw, *kind, *size), &mut failed)
        });
        got.write_error = got.write_error.take().or(failed);
        if all {
            got.kept.insert(tag);
            got.last_sample = Some(i);
        }
    }
    got
}

/// Reservoir sampling (Vitter's algorithm R) over the timed samples as they arrive: after any
/// number of samples, each `slots`-subset of them is equally likely to be the one kept.
struct Reservoir {
    slots: Vec<usize>,
    capacity: usize,
    seen: usize,
    /// The sample whose outputs are arriving now.
    current: Option<usize>,
}

impl Reservoir {
    fn new(capacity: usize) -> Self {
        Reservoir {
            slots: Vec::with_capacity(capacity),
            capacity,
            seen: 0,
            current: None,
        }
    }

    /// A new sample arrives: kept or not; returns the sample it replaced.
    fn offer(&mut self, sample: usize, rng: &mut impl Rng) -> Option<usize> {
        self.current = Some(sample);
        self.seen += 1;
        if self.slots.len() < self.capacity {
            self.slots.push(sample);
            return None;
        }
        let j = rng.random_range(0..self.seen);
        (j < self.capacity).then(|| std::mem::replace(&mut self.slots[j], sample))
    }

    fn keeps(&self, sample: usize) -> bool {
        self.slots.contains(&sample)
    }

    fn kept(&self) -> Vec<usize> {
        let mut v = self.slots.clone();
        v.sort_unstable();
        v
    }
}

/// Removes an evicted sample's outputs.
fn forget(out: &std::path::Path, sample: usize, kept: &mut BTreeSet<String>) {
    let prefix = format!("t{sample}_");
    if let Ok(entries) = std::fs::read_dir(out) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    kept.remove(&format!("t{sample}"));
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

/// Writes one kept output; a failed write leaves no partial file behind (it would read as the
/// candidate's short answer) and records why.
fn write(
    out: &std::path::Path,
    tag: &str,
    name: &str,
    data: &[u8],
    error: &mut Option<String>,
) -> bool {
    let path = out.join(format!("{tag}_{name}.bin"));
    match std::fs::write(&path, data) {
        Ok(()) => true,
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            error.get_or_insert_with(|| format!("cannot keep output `{name}` of {tag}: {e}"));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn frame(tag: &str, name: &str, vals: &[f32]) -> Vec<u8> {
        let mut v = format!("B {tag} {name} f 4 {}\n", vals.len()).into_bytes();
        for x in vals {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v
    }

    fn stream(samples: usize) -> Vec<u8> {
        let mut s = frame("c0", "y", &[1.0, 2.0]);
        for i in 0..samples {
            s.extend(format!("T {i} 1.0 2.0 1.0\n").bytes());
            s.extend(frame(&format!("t{i}"), "y", &[i as f32]));
            s.extend(frame(&format!("t{i}"), "z", &[-(i as f32)]));
        }
        s.extend(b"E\n");
        s.extend(b"B c9 y f 4 1\n"); // after the end: ignored
        s
    }

    #[test]
    fn keeps_cases_the_drawn_samples_and_the_last_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let got = consume(&stream(12)[..], dir.path().into(), 4, &mut rng);
        assert!(got.ended && got.malformed.is_none());
        assert_eq!(got.samples.len(), 12);
        assert_eq!(got.last_sample, Some(11));
        assert_eq!(got.drawn.len(), 4);
        let mut want: BTreeSet<String> = got.drawn.iter().map(|i| format!("t{i}")).collect();
        want.insert("c0".into());
        want.insert("t11".into());
        assert_eq!(got.kept, want);
        // Exactly the kept samples are on disk, every output of each.
        for i in 0..12 {
            let on_disk = dir.path().join(format!("t{i}_y.bin")).exists();
            assert_eq!(on_disk, got.kept.contains(&format!("t{i}")), "sample {i}");
            assert_eq!(on_disk, dir.path().join(format!("t{i}_z.bin")).exists());
        }
        let y = std::fs::read(dir.path().join("c0_y.bin")).unwrap();
        assert_eq!(f64::from_le_bytes(y[8..16].try_into().unwrap()), 2.0);
        assert!(!dir.path().join("c9_y.bin").exists());
    }

    #[test]
    fn fewer_samples_than_slots_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let got = consume(&stream(3)[..], dir.path().into(), 5, &mut rng);
        assert_eq!(got.drawn, [0, 1, 2]);
        assert_eq!(got.last_sample, Some(2));
    }

    #[test]
    fn the_draw_is_uniform_over_the_samples() {
        // 20 samples, 5 slots: every sample is kept with probability 1/4.
        let mut counts = [0usize; 20];
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let trials = 4000;
        for _ in 0..trials {
            let mut r = Reservoir::new(5);
            for i in 0..20 {
                r.offer(i, &mut rng);
            }
            for i in r.kept() {
                counts[i] += 1;
            }
        }
        for (i, c) in counts.iter().enumerate() {
            let share = *c as f64 / trials as f64;
            assert!((share - 0.25).abs() < 0.04, "sample {i} kept {share}");
        }
    }

    #[test]
    fn a_broken_stream_is_reported_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let got = consume(
            &b"B c0 y f 4 10\n\x00\x00"[..],
            dir.path().into(),
            3,
            &mut rng,
        );
        assert!(!got.ended);
        assert!(got.malformed.unwrap().contains("cut short"));
        let got = consume(&b"B ../x y f 4 1\n"[..], dir.path().into(), 3, &mut rng);
        assert!(got.malformed.is_some());
    }

    #[test]
    fn an_output_that_cannot_be_kept_is_the_verifiers_failure() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("missing");
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let got = consume(&stream(2)[..], gone, 3, &mut rng);
        assert!(got.ended);
        assert!(got.write_error.unwrap().contains("cannot keep output"));
        assert!(got.kept.is_empty());
    }

    #[test]
    fn integers_widen_with_their_sign() {
        assert_eq!(widen(&[0xff], 'i', 1), (-1i64).to_le_bytes());
        assert_eq!(widen(&[0xff], 'u', 1), 255i64.to_le_bytes());
        assert_eq!(widen(&(-5i32).to_le_bytes(), 'i', 4), (-5i64).to_le_bytes());
    }
}
