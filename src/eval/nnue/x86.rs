//! The network's loops on x86-64's vector units, AVX2 (256-bit) and AVX-512 (512-bit), which
//! `simd` chooses between at run time. Each is a kernel set (`Kernels`) whose value can only be
//! made inside a function compiled for its instructions (its constructor is a
//! `#[target_feature]` function, which safe code can call only from another with the same
//! features), so that holding one proves the processor has them: the `unsafe` calls below rely
//! on that. Both give exactly the portable loops' numbers.

use super::{HIDDEN, Kernels, MAX_OUTPUT_WEIGHT, Portable, QA};
use std::arch::x86_64::{
    __m256i, __m512i, _mm256_add_epi32, _mm256_extract_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_max_epi16,
    _mm256_min_epi16, _mm256_mullo_epi16, _mm256_set1_epi16, _mm256_setzero_si256, _mm512_add_epi16, _mm512_add_epi32,
    _mm512_add_epi64, _mm512_castsi512_si256, _mm512_cvtepi32_epi64, _mm512_extracti64x4_epi64, _mm512_loadu_si512,
    _mm512_madd_epi16, _mm512_max_epi16, _mm512_min_epi16, _mm512_mullo_epi16, _mm512_reduce_add_epi64,
    _mm512_set1_epi16, _mm512_setzero_si512, _mm512_storeu_si512, _mm512_sub_epi16,
};

/// The AVX2 loops: the accumulator update is the portable loop, which the compiler vectorises
/// with 256-bit vectors once inlined into a function compiled for AVX2; the output layer's dot
/// product is written out (left to itself the compiler vectorised it with 128-bit vectors and
/// summed each chunk across its lanes).
#[derive(Clone, Copy)]
pub(super) struct Avx2(());

impl Avx2 {
    #[target_feature(enable = "avx2")]
    pub(super) fn new() -> Avx2 {
        Avx2(())
    }
}

impl Kernels for Avx2 {
    #[inline(always)]
    fn update<const A: usize, const R: usize>(
        self,
        to: &mut [i16; HIDDEN],
        from: &[i16; HIDDEN],
        added: [&[i16; HIDDEN]; A],
        removed: [&[i16; HIDDEN]; R],
    ) {
        Portable.update(to, from, added, removed);
    }

    #[inline(always)]
    fn output_dot(self, values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64 {
        // SAFETY: an `Avx2` exists only where the processor has AVX2 (see the module comment).
        unsafe { avx2_dot(values, weights) }
    }
}

/// 16-bit lanes in a 256-bit vector.
const LANES_256: usize = 16;
// Each 32-bit lane of the sum takes two products per step over both sides: at most
// 2 · HIDDEN / 8 terms of at most QA² · MAX_OUTPUT_WEIGHT.
const _: () = assert!((2 * HIDDEN / 8) as i64 * (QA * QA) as i64 * MAX_OUTPUT_WEIGHT as i64 <= i32::MAX as i64);

/// Σ over both sides of clamp(a, 0, QA)² · w.
// Out of line: inlined, its loads were hoisted above the search's other work, more than the
// registers hold.
#[inline(never)]
#[target_feature(enable = "avx2")]
fn avx2_dot(values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64 {
    let load = |chunk: &[i16; LANES_256]| -> __m256i {
        // SAFETY: the chunk is 32 readable bytes, and this load takes any alignment.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
    };
    let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
    let mut sum = _mm256_setzero_si256();
    for (values, weights) in values.into_iter().zip(weights) {
        for (a, w) in values.as_chunks::<LANES_256>().0.iter().zip(weights.as_chunks::<LANES_256>().0) {
            let v = _mm256_min_epi16(_mm256_max_epi16(load(a), zero), one);
            // v · w fits 16 bits (|w| ≤ MAX_OUTPUT_WEIGHT), so it may be multiplied there; the
            // multiply-add then widens and adds neighbouring products.
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(v, load(w)), v));
        }
    }
    let lanes = [
        _mm256_extract_epi32::<0>(sum),
        _mm256_extract_epi32::<1>(sum),
        _mm256_extract_epi32::<2>(sum),
        _mm256_extract_epi32::<3>(sum),
        _mm256_extract_epi32::<4>(sum),
        _mm256_extract_epi32::<5>(sum),
        _mm256_extract_epi32::<6>(sum),
        _mm256_extract_epi32::<7>(sum),
    ];
    lanes.iter().map(|&lane| lane as i64).sum()
}

/// The AVX-512 loops (F and BW: 32 lanes of 16 bits a step), written out.
#[derive(Clone, Copy)]
pub(super) struct Avx512(());

impl Avx512 {
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn new() -> Avx512 {
        Avx512(())
    }
}

impl Kernels for Avx512 {
    #[inline(always)]
    fn update<const A: usize, const R: usize>(
        self,
        to: &mut [i16; HIDDEN],
        from: &[i16; HIDDEN],
        added: [&[i16; HIDDEN]; A],
        removed: [&[i16; HIDDEN]; R],
    ) {
        // SAFETY: an `Avx512` exists only where the processor has AVX-512 F and BW (see the
        // module comment).
        unsafe { avx512_update(to, from, added, removed) }
    }

    #[inline(always)]
    fn output_dot(self, values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64 {
        // SAFETY: as for `update`.
        unsafe { avx512_dot(values, weights) }
    }
}

/// 16-bit lanes in a 512-bit vector.
const LANES_512: usize = 32;
const _: () = assert!(HIDDEN.is_multiple_of(LANES_512), "the hidden layer is whole vectors");
// Each 32-bit lane of the sum takes two products per step over both sides: at most
// 2 · HIDDEN / 16 terms of at most QA² · MAX_OUTPUT_WEIGHT.
const _: () = assert!((2 * HIDDEN / 16) as i64 * (QA * QA) as i64 * MAX_OUTPUT_WEIGHT as i64 <= i32::MAX as i64);

#[inline(always)]
fn load512(chunk: &[i16; LANES_512]) -> __m512i {
    // SAFETY: the chunk is 64 readable bytes, and this load takes any alignment.
    unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) }
}

/// `to = from + Σ added − Σ removed`, 32 lanes a step.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn avx512_update<const A: usize, const R: usize>(
    to: &mut [i16; HIDDEN],
    from: &[i16; HIDDEN],
    added: [&[i16; HIDDEN]; A],
    removed: [&[i16; HIDDEN]; R],
) {
    let added = added.map(|row| row.as_chunks::<LANES_512>().0);
    let removed = removed.map(|row| row.as_chunks::<LANES_512>().0);
    let chunks = to.as_chunks_mut::<LANES_512>().0.iter_mut().zip(from.as_chunks::<LANES_512>().0);
    for (i, (out, base)) in chunks.enumerate() {
        let mut v = load512(base);
        for row in added {
            v = _mm512_add_epi16(v, load512(&row[i]));
        }
        for row in removed {
            v = _mm512_sub_epi16(v, load512(&row[i]));
        }
        // SAFETY: the chunk is 64 writable bytes, and this store takes any alignment.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    }
}

/// Σ over both sides of clamp(a, 0, QA)² · w, as `avx2_dot` computes it.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
fn avx512_dot(values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64 {
    let (zero, one) = (_mm512_setzero_si512(), _mm512_set1_epi16(QA as i16));
    let mut sum = _mm512_setzero_si512();
    for (values, weights) in values.into_iter().zip(weights) {
        for (a, w) in values.as_chunks::<LANES_512>().0.iter().zip(weights.as_chunks::<LANES_512>().0) {
            let v = _mm512_min_epi16(_mm512_max_epi16(load512(a), zero), one);
            sum = _mm512_add_epi32(sum, _mm512_madd_epi16(_mm512_mullo_epi16(v, load512(w)), v));
        }
    }
    // The sixteen 32-bit lanes widened to 64 bits before they are added: their total need not
    // fit 32 bits.
    let low = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(sum));
    let high = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(sum));
    _mm512_reduce_add_epi64(_mm512_add_epi64(low, high))
}
