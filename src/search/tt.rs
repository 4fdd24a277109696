//! The transposition table: what earlier searches learned about each position, shared by all
//! search threads without locks.
//!
//! Each entry is two atomic words: the data, and the key XORed with the data. Two threads
//! writing one entry at once can leave the words mismatched, but then the key check fails
//! and the entry reads as a miss, so a torn entry is never believed. Moves read from the
//! table are still checked for legality before use, since different positions can share a key.

use super::Bound;
use super::prefetch::prefetch;
use crate::board::Move;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// Entries per cluster: four 16-byte entries fill one 64-byte cache line, so a probe costs
/// one memory access.
const CLUSTER_SIZE: usize = 4;

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(align(64))]
struct Cluster([Entry; CLUSTER_SIZE]);

/// What the table holds about a position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TtEntry {
    pub mv: Move,
    /// Search score, with mate scores relative to this position (see `search::score_to_tt`).
    pub score: i32,
    /// Static evaluation, saved so the node need not be evaluated again.
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
    /// Whether the position was on a principal variation when stored.
    pub tt_pv: bool,
}

/// Depths are stored offset so that quiescence entries (depth 0 and below) fit in a byte.
const DEPTH_OFFSET: i32 = 8;
/// Generations are 5 bits; the age of an entry wraps around modulo 32.
const GENERATION_MASK: u8 = 31;

impl TtEntry {
    fn pack(self, generation: u8) -> u64 {
        let bound = match self.bound {
            Bound::Upper => 1,
            Bound::Lower => 2,
            Bound::Exact => 3,
        };
        self.mv.raw() as u64
            | (self.score as i16 as u16 as u64) << 16
            | (self.eval as i16 as u16 as u64) << 32
            | ((self.depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48
            | bound << 56
            | (generation as u64) << 58
            | (self.tt_pv as u64) << 63
    }

    fn unpack(data: u64) -> Option<TtEntry> {
        let bound = match data >> 56 & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(TtEntry {
            mv: Move::from_raw(data as u16),
            score: (data >> 16) as u16 as i16 as i32,
            eval: (data >> 32) as u16 as i16 as i32,
            depth: (data >> 48 & 255) as i32 - DEPTH_OFFSET,
            bound,
            tt_pv: data >> 63 != 0,
        })
    }
}

/// Asks Linux to back the table with 2 MB pages where it can (transparent huge pages, which
/// most systems grant only to memory that asks, as Stockfish's table does). A probe lands on a
/// random page of the table; with 4 KB pages nearly every one also missed the processor's cache
/// of address translations, and the walk of the page tables held up the prefetch that starts
/// each probe's fetch.
#[cfg(target_os = "linux")]
fn advise_huge_pages(clusters: &Vec<Cluster>) {
    const HUGE_PAGE: usize = 1 << 21;
    let start = clusters.as_ptr() as usize;
    let end = start + clusters.capacity() * std::mem::size_of::<Cluster>();
    let (first, last) = (start.next_multiple_of(HUGE_PAGE), end / HUGE_PAGE * HUGE_PAGE);
    if first < last {
        // SAFETY: madvise only advises how to back memory, here whole 2 MB pages inside the
        // table's own allocation; it reads and writes nothing, and a refusal changes nothing.
        unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &Vec<Cluster>) {}

/// The machine's memory in bytes, from /proc/meminfo where there is one.
pub fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

fn generation_of(data: u64) -> u8 {
    (data >> 58) as u8 & GENERATION_MASK
}

fn depth_of(data: u64) -> i32 {
    (data >> 48 & 255) as i32 - DEPTH_OFFSET
}

pub struct TranspositionTable {
    clusters: Vec<Cluster>,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of `megabytes`, or `None` when that much memory cannot be had: more than the
    /// machine has (an allocation the system grants but cannot back would kill the process when
    /// the table is cleared), or an allocation that fails.
    pub fn new(megabytes: usize) -> Option<TranspositionTable> {
        let bytes = megabytes.max(1).checked_mul(1 << 20)?;
        if physical_memory().is_some_and(|total| bytes as u64 > total / 10 * 9) {
            return None;
        }
        TranspositionTable::with_clusters(bytes / std::mem::size_of::<Cluster>())
    }

    /// An empty table of `count` clusters, or `None` if the allocation fails.
    fn with_clusters(count: usize) -> Option<TranspositionTable> {
        let mut clusters = Vec::new();
        clusters.try_reserve_exact(count).ok()?;
        // Before the first write, which is when the system chooses the pages.
        advise_huge_pages(&clusters);
        clusters.resize_with(count, Cluster::default);
        Some(TranspositionTable { clusters, generation: AtomicU8::new(0) })
    }

    /// A one-megabyte table, for when nothing larger can be had (if even this cannot, nothing
    /// can be done but what any failed allocation does).
    pub fn minimal() -> TranspositionTable {
        let count = (1 << 20) / std::mem::size_of::<Cluster>();
        TranspositionTable { clusters: (0..count).map(|_| Cluster::default()).collect(), generation: AtomicU8::new(0) }
    }

    /// A new empty table of this one's size (the minimal one if that much cannot be had again).
    pub fn emptied(&self) -> TranspositionTable {
        TranspositionTable::with_clusters(self.clusters.len()).unwrap_or_else(TranspositionTable::minimal)
    }

    /// Empties the table. It takes the table for itself, so that the compiler may write it as
    /// one block of zeros (a `memset`) rather than word by word, as stores to a table others
    /// could be reading must be: clearing is all of `ucinewgame`'s time, and `bench` clears
    /// before every position.
    pub fn clear(&mut self) {
        for cluster in &mut self.clusters {
            *cluster = Cluster::default();
        }
        *self.generation.get_mut() = 0;
    }

    /// Marks the start of a new search, so that entries from older searches are replaced first.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) & GENERATION_MASK;
        self.generation.store(next, Ordering::Relaxed);
    }

    #[inline]
    fn cluster(&self, key: u64) -> &Cluster {
        // Multiply-shift maps the key onto any table size, not just powers of two.
        &self.clusters[((key as u128 * self.clusters.len() as u128) >> 64) as usize]
    }

    /// Asks the processor to bring `key`'s cluster into the cache, so that a probe soon after
    /// finds it there instead of waiting on memory (the table is far larger than the caches,
    /// and a probe's miss was the search's largest single cost).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.cluster(key));
    }

    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        self.cluster(key).0.iter().find_map(|entry| {
            let data = entry.data.load(Ordering::Relaxed);
            if entry.check.load(Ordering::Relaxed) ^ data == key { TtEntry::unpack(data) } else { None }
        })
    }

    pub fn store(&self, key: u64, mut new: TtEntry) {
        let generation = self.generation.load(Ordering::Relaxed);
        let cluster = self.cluster(key);
        // Prefer the entry already holding this position; otherwise the least valuable one:
        // shallow, and left over from older searches.
        let same = cluster.0.iter().find(|e| e.check.load(Ordering::Relaxed) ^ e.data.load(Ordering::Relaxed) == key);
        let slot = same.unwrap_or_else(|| {
            cluster
                .0
                .iter()
                .min_by_key(|e| {
                    let data = e.data.load(Ordering::Relaxed);
                    let age = generation.wrapping_sub(generation_of(data)) & GENERATION_MASK;
                    depth_of(data) - 8 * age as i32
                })
                .expect("clusters are never empty")
        });
        let old = slot.data.load(Ordering::Relaxed);
        if same.is_some() {
            // A shallower non-exact result for the same position would throw away more than
            // it adds; and a search that found no move keeps the one already known.
            if new.bound != Bound::Exact && new.depth + 4 <= depth_of(old) && generation_of(old) == generation {
                return;
            }
            if new.mv == Move::NONE {
                new.mv = Move::from_raw(old as u16);
            }
        }
        let data = new.pack(generation);
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// How full the table is with entries from the current search, in permille (sampled).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.clusters.iter().take(1000 / CLUSTER_SIZE).flat_map(|c| c.0.iter());
        let (mut used, mut total) = (0, 0);
        for entry in sample {
            let data = entry.data.load(Ordering::Relaxed);
            total += 1;
            if data >> 56 & 3 != 0 && generation_of(data) == generation {
                used += 1;
            }
        }
        used * 1000 / total.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_entries() {
        let mut tt = TranspositionTable::new(1).unwrap();
        let entry =
            TtEntry { mv: Move::from_raw(1234), score: -31000, eval: 57, depth: 13, bound: Bound::Lower, tt_pv: true };
        tt.store(0xDEAD_BEEF, entry);
        assert_eq!(tt.probe(0xDEAD_BEEF), Some(entry));
        assert_eq!(tt.probe(0xDEAD_BEEF ^ 1 << 40), None);
        let quiescence = TtEntry { depth: -3, bound: Bound::Exact, tt_pv: false, ..entry };
        tt.store(0xDEAD_BEEF, quiescence);
        assert_eq!(tt.probe(0xDEAD_BEEF), Some(quiescence));
        let emptied = tt.emptied();
        assert_eq!((emptied.probe(0xDEAD_BEEF), emptied.clusters.len()), (None, tt.clusters.len()));
        tt.clear();
        assert_eq!(tt.probe(0xDEAD_BEEF), None);
    }
}
