//! Bounded parallelism: compiles run side by side up to a number of slots (the cores); runs on a
//! GPU are one at a time per GPU.

use std::sync::{Condvar, Mutex, MutexGuard};

pub struct Semaphore {
    free: Mutex<usize>,
    cv: Condvar,
}

pub struct Permit<'a> {
    sem: &'a Semaphore,
}

impl Semaphore {
    pub fn new(slots: usize) -> Semaphore {
        Semaphore {
            free: Mutex::new(slots.max(1)),
            cv: Condvar::new(),
        }
    }

    pub fn acquire(&self) -> Permit<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.cv.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Permit { sem: self }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut free = self.sem.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += 1;
        self.sem.cv.notify_one();
    }
}

/// One lock per GPU; `acquire` takes a free one, else waits for the one `hint` picks.
pub struct GpuLocks {
    locks: Vec<(u32, Mutex<()>)>,
}

impl GpuLocks {
    pub fn new(indices: &[u32]) -> GpuLocks {
        let idx: Vec<u32> = if indices.is_empty() {
            vec![0]
        } else {
            indices.to_vec()
        };
        GpuLocks {
            locks: idx.into_iter().map(|i| (i, Mutex::new(()))).collect(),
        }
    }

    pub fn acquire(&self, hint: usize) -> (u32, MutexGuard<'_, ()>) {
        for (i, m) in &self.locks {
            if let Ok(g) = m.try_lock() {
                return (*i, g);
            }
        }
        let (i, m) = &self.locks[hint % self.locks.len()];
        (*i, m.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Runs `f` over `items` on `workers` threads, keeping the order of the results.
pub fn map_parallel<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(i, &items[i]);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn semaphore_bounds_concurrency_and_order_is_kept() {
        let sem = Semaphore::new(2);
        let now = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let items: Vec<usize> = (0..12).collect();
        let out = map_parallel(&items, 6, |_, x| {
            let _p = sem.acquire();
            let c = now.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(c, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(5));
            now.fetch_sub(1, Ordering::SeqCst);
            x * 2
        });
        assert_eq!(out, (0..12).map(|x| x * 2).collect::<Vec<_>>());
        assert!(peak.load(Ordering::SeqCst) <= 2);
    }
}
