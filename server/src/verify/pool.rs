//! Bounded parallelism: compiles run side by side up to a number of slots (the cores); timed runs
//! have the machine to themselves ([`Machine`]).

use std::ops::Deref;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

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

/// Who may use the machine beside whom. A timing is only honest on a quiet machine, so a timed run
/// (a serial reference, a candidate under the full protocol) has it to itself: no compile, no other
/// run. Compiles share it with each other, and screening runs, which only rank candidates inside a
/// search, may share a GPU `shared_runs` at a time (1: they are timed alone too). A waiting
/// exclusive user goes before new shared ones, so that a stream of compiles cannot starve a timing.
/// With several GPUs a timed run still has the whole machine: the host's cores and memory
/// bandwidth are part of what it measures.
pub struct Machine {
    state: Mutex<MachineState>,
    cv: Condvar,
    gpus: Vec<u32>,
    shared_runs: usize,
}

#[derive(Default)]
struct MachineState {
    /// Compiles and shared runs in progress.
    shared: usize,
    /// Shared runs in progress per GPU (index into `Machine::gpus`).
    runs: Vec<usize>,
    exclusive: bool,
    exclusive_waiting: usize,
}

/// A use of the machine, given back on drop; `M` is `&Machine`, or `Arc<Machine>` for a use held
/// across an await (a model answer being decoded, a CPU baseline being timed).
pub struct Use<M: Deref<Target = Machine>> {
    machine: M,
    kind: UseKind,
}

/// A use that lives as long as it is held, whatever holds it.
pub type OwnedUse = Use<Arc<Machine>>;

enum UseKind {
    /// A compile, a model answer being decoded.
    Shared,
    SharedRun(usize),
    Exclusive,
}

impl Machine {
    pub fn new(gpu_indices: &[u32], shared_runs: usize) -> Machine {
        let gpus: Vec<u32> = if gpu_indices.is_empty() {
            vec![0]
        } else {
            gpu_indices.to_vec()
        };
        Machine {
            state: Mutex::new(MachineState {
                runs: vec![0; gpus.len()],
                ..MachineState::default()
            }),
            cv: Condvar::new(),
            gpus,
            shared_runs: shared_runs.max(1),
        }
    }

    pub fn gpu_count(&self) -> usize {
        self.gpus.len()
    }

    fn lock(&self) -> MutexGuard<'_, MachineState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'g>(&self, g: MutexGuard<'g, MachineState>) -> MutexGuard<'g, MachineState> {
        self.cv.wait(g).unwrap_or_else(|e| e.into_inner())
    }

    fn take_shared(&self) {
        let mut s = self.lock();
        while s.exclusive || s.exclusive_waiting > 0 {
            s = self.wait(s);
        }
        s.shared += 1;
    }

    fn take_exclusive(&self) {
        let mut s = self.lock();
        s.exclusive_waiting += 1;
        while s.exclusive || s.shared > 0 {
            s = self.wait(s);
        }
        s.exclusive_waiting -= 1;
        s.exclusive = true;
    }

    /// Untimed work (a compile, a run whose time is not used): beside other such work and
    /// screening runs, never beside a timed run.
    pub fn shared(&self) -> Use<&Machine> {
        self.take_shared();
        Use {
            machine: self,
            kind: UseKind::Shared,
        }
    }

    /// The machine alone, for a run whose time is measured; the GPU to run on.
    pub fn timed_run(&self) -> (u32, Use<&Machine>) {
        self.take_exclusive();
        (
            self.gpus[0],
            Use {
                machine: self,
                kind: UseKind::Exclusive,
            },
        )
    }

    /// Work beside compiles and screening runs but never beside a timed run, held across awaits:
    /// a model server decoding on the same GPU.
    pub fn shared_owned(self: &Arc<Self>) -> OwnedUse {
        self.take_shared();
        Use {
            machine: self.clone(),
            kind: UseKind::Shared,
        }
    }

    /// The machine alone, held across awaits: a CPU baseline being timed.
    pub fn exclusive_owned(self: &Arc<Self>) -> OwnedUse {
        self.take_exclusive();
        Use {
            machine: self.clone(),
            kind: UseKind::Exclusive,
        }
    }

    /// A screening run: up to `shared_runs` on one GPU at a time (the least busy; `hint` breaks
    /// ties), or the machine alone when `shared_runs` is 1.
    pub fn screening_run(&self, hint: usize) -> (u32, Use<&Machine>) {
        if self.shared_runs <= 1 {
            return self.timed_run();
        }
        let mut s = self.lock();
        loop {
            if !s.exclusive && s.exclusive_waiting == 0 {
                let n = self.gpus.len();
                let pick = (0..n)
                    .map(|k| (hint + k) % n)
                    .filter(|&i| s.runs[i] < self.shared_runs)
                    .min_by_key(|&i| s.runs[i]);
                if let Some(i) = pick {
                    s.runs[i] += 1;
                    s.shared += 1;
                    return (
                        self.gpus[i],
                        Use {
                            machine: self,
                            kind: UseKind::SharedRun(i),
                        },
                    );
                }
            }
            s = self.wait(s);
        }
    }
}

impl<M: Deref<Target = Machine>> Drop for Use<M> {
    fn drop(&mut self) {
        let mut s = self.machine.lock();
        match self.kind {
            UseKind::Shared => s.shared -= 1,
            UseKind::SharedRun(i) => {
                s.shared -= 1;
                s.runs[i] -= 1;
            }
            UseKind::Exclusive => s.exclusive = false,
        }
        self.machine.cv.notify_all();
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

    /// Runs `f` on `threads` threads at once, counting who is inside which use.
    fn contend(threads: usize, f: impl Fn(usize) + Sync) {
        std::thread::scope(|s| {
            for t in 0..threads {
                let f = &f;
                s.spawn(move || f(t));
            }
        });
    }

    #[test]
    fn a_timed_run_has_the_machine_to_itself() {
        let m = Machine::new(&[0], 4);
        let compiles = AtomicUsize::new(0);
        let shared = AtomicUsize::new(0);
        let timed = AtomicUsize::new(0);
        let overlaps = AtomicUsize::new(0);
        let sharing_seen = AtomicUsize::new(0);
        let hold = || std::thread::sleep(std::time::Duration::from_millis(3));
        contend(12, |t| {
            for round in 0..6 {
                match (t + round) % 3 {
                    0 => {
                        let _u = m.shared();
                        compiles.fetch_add(1, Ordering::SeqCst);
                        if timed.load(Ordering::SeqCst) > 0 {
                            overlaps.fetch_add(1, Ordering::SeqCst);
                        }
                        hold();
                        compiles.fetch_sub(1, Ordering::SeqCst);
                    }
                    1 => {
                        let (_gpu, _u) = m.screening_run(t);
                        let now = shared.fetch_add(1, Ordering::SeqCst) + 1;
                        sharing_seen.fetch_max(now, Ordering::SeqCst);
                        if timed.load(Ordering::SeqCst) > 0 {
                            overlaps.fetch_add(1, Ordering::SeqCst);
                        }
                        hold();
                        shared.fetch_sub(1, Ordering::SeqCst);
                    }
                    _ => {
                        let (gpu, _u) = m.timed_run();
                        assert_eq!(gpu, 0);
                        timed.fetch_add(1, Ordering::SeqCst);
                        if compiles.load(Ordering::SeqCst) + shared.load(Ordering::SeqCst) > 0
                            || timed.load(Ordering::SeqCst) > 1
                        {
                            overlaps.fetch_add(1, Ordering::SeqCst);
                        }
                        hold();
                        timed.fetch_sub(1, Ordering::SeqCst);
                    }
                }
            }
        });
        assert_eq!(overlaps.load(Ordering::SeqCst), 0);
        let peak = sharing_seen.load(Ordering::SeqCst);
        assert!(
            peak <= 4,
            "{peak} screening runs shared one GPU, the cap is 4"
        );
    }

    #[test]
    fn screening_runs_share_a_gpu_up_to_the_cap_and_spread_over_gpus() {
        let m = Machine::new(&[3, 5], 2);
        let per_gpu = [AtomicUsize::new(0), AtomicUsize::new(0)];
        let peaks = [AtomicUsize::new(0), AtomicUsize::new(0)];
        contend(8, |t| {
            for _ in 0..5 {
                let (gpu, _u) = m.screening_run(t);
                let i = if gpu == 3 { 0 } else { 1 };
                let now = per_gpu[i].fetch_add(1, Ordering::SeqCst) + 1;
                peaks[i].fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(10));
                per_gpu[i].fetch_sub(1, Ordering::SeqCst);
            }
        });
        for p in &peaks {
            let p = p.load(Ordering::SeqCst);
            assert!((1..=2).contains(&p), "peak {p} runs on one GPU, cap 2");
        }
        // With one shared run allowed, screening is timed alone like everything else.
        let alone = Machine::new(&[0], 1);
        let (_g, _u) = alone.screening_run(0);
        assert!(alone.lock().exclusive);
    }

    #[test]
    fn a_waiting_timed_run_goes_before_new_compiles() {
        let m = Machine::new(&[0], 1);
        let order = Mutex::new(Vec::new());
        let first = m.shared();
        std::thread::scope(|s| {
            s.spawn(|| {
                let _u = m.timed_run();
                order.lock().unwrap().push("timed");
            });
            while m.lock().exclusive_waiting == 0 {
                std::thread::yield_now();
            }
            s.spawn(|| {
                let _u = m.shared();
                order.lock().unwrap().push("compile");
            });
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(
                order.lock().unwrap().is_empty(),
                "nothing before the first compile ends"
            );
            drop(first);
        });
        assert_eq!(*order.lock().unwrap(), vec!["timed", "compile"]);
    }

    #[test]
    fn owned_uses_hold_across_threads_like_the_borrowed_ones() {
        let m = Arc::new(Machine::new(&[0], 4));
        let decoding = m.shared_owned();
        let order = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            s.spawn(|| {
                let _t = m.timed_run();
                order.lock().unwrap().push("timed");
            });
            while m.lock().exclusive_waiting == 0 {
                std::thread::yield_now();
            }
            // A waiting timing keeps new decoding out, and waits for the one in progress.
            s.spawn(|| {
                let _d = m.shared_owned();
                order.lock().unwrap().push("decoding");
            });
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(order.lock().unwrap().is_empty());
            drop(decoding);
        });
        assert_eq!(*order.lock().unwrap(), vec!["timed", "decoding"]);
        let alone = m.exclusive_owned();
        assert!(m.lock().exclusive);
        drop(alone);
        let _c = m.shared();
        assert_eq!(m.lock().shared, 1);
    }
}
