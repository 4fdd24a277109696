//! The network's inner loops in NEON intrinsics, the aarch64 (ARM) counterpart of the AVX2
//! build of the portable loops on x86-64: every aarch64 processor has NEON's 128-bit vectors,
//! so this path needs no check at run time. The intrinsics are sound to call because the target
//! has NEON, which the assertion below makes a condition of compiling at all (every aarch64
//! target with an operating system has it; Rust's ABI for them needs it).

use super::{CHUNK, HIDDEN, Kernels, QA};
use std::arch::aarch64::{
    int16x8x4_t, vaddq_s16, vaddvq_s64, vdupq_n_s16, vdupq_n_s32, vdupq_n_s64, vget_low_s16, vld1q_s16, vld1q_s16_x4,
    vmaxq_s16, vminq_s16, vmlal_high_s16, vmlal_s16, vmulq_s16, vpadalq_s32, vst1q_s16_x4, vsubq_s16,
};

const _: () = assert!(cfg!(target_feature = "neon"), "the NEON path needs a target with NEON");

/// i16 lanes in a NEON register.
const LANES: usize = 8;
const _: () = assert!(CHUNK.is_multiple_of(LANES), "a chunk is whole registers");
/// i16 lanes in the four registers the accumulator update takes a step.
const TILE: usize = 4 * LANES;
const _: () = assert!(HIDDEN.is_multiple_of(TILE), "an accumulator is whole tiles");

/// The NEON loops.
#[derive(Clone, Copy)]
pub(super) struct Neon;

impl Kernels for Neon {
    /// Four registers a step, each row loaded with one instruction (`ld1` of four registers), so
    /// that the loop's own overhead is spread over 32 lanes instead of 8.
    #[inline(always)]
    fn update<const A: usize, const R: usize>(
        self,
        to: &mut [i16; HIDDEN],
        from: &[i16; HIDDEN],
        added: [&[i16; HIDDEN]; A],
        removed: [&[i16; HIDDEN]; R],
    ) {
        let added = added.map(|row| row.as_chunks::<TILE>().0);
        let removed = removed.map(|row| row.as_chunks::<TILE>().0);
        for (i, (out, base)) in to.as_chunks_mut::<TILE>().0.iter_mut().zip(from.as_chunks::<TILE>().0).enumerate() {
            // SAFETY: the target has NEON (asserted above); each load reads the 4 × 8 lanes of
            // an [i16; TILE] and the store writes those of one.
            unsafe {
                let mut v = vld1q_s16_x4(base.as_ptr());
                for row in added {
                    let w = vld1q_s16_x4(row[i].as_ptr());
                    v = int16x8x4_t(vaddq_s16(v.0, w.0), vaddq_s16(v.1, w.1), vaddq_s16(v.2, w.2), vaddq_s16(v.3, w.3));
                }
                for row in removed {
                    let w = vld1q_s16_x4(row[i].as_ptr());
                    v = int16x8x4_t(vsubq_s16(v.0, w.0), vsubq_s16(v.1, w.1), vsubq_s16(v.2, w.2), vsubq_s16(v.3, w.3));
                }
                vst1q_s16_x4(out.as_mut_ptr(), v);
            }
        }
    }

    #[inline(always)]
    fn output_dot(self, values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64 {
        dot(values[0], weights[0]) + dot(values[1], weights[1])
    }
}

/// Σ clamp(a, 0, QA)² · w over one side. `v · w` fits an i16 lane, as in the portable loop, so
/// only the second product widens. The i32 lanes are widened into the i64 total once per
/// `CHUNK`, whose bound keeps them in range.
#[inline(always)]
fn dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    // SAFETY: the target has NEON (asserted above); each load reads the 8 lanes of an
    // [i16; 8].
    unsafe {
        let (zero, qa) = (vdupq_n_s16(0), vdupq_n_s16(QA as i16));
        let mut total = vdupq_n_s64(0);
        for (a, w) in acc.as_chunks::<CHUNK>().0.iter().zip(weights.as_chunks::<CHUNK>().0) {
            let [mut low, mut high] = [vdupq_n_s32(0); 2];
            for (a, w) in a.as_chunks::<LANES>().0.iter().zip(w.as_chunks::<LANES>().0) {
                let v = vminq_s16(vmaxq_s16(vld1q_s16(a.as_ptr()), zero), qa);
                let vw = vmulq_s16(v, vld1q_s16(w.as_ptr()));
                low = vmlal_s16(low, vget_low_s16(vw), vget_low_s16(v));
                high = vmlal_high_s16(high, vw, v);
            }
            total = vpadalq_s32(vpadalq_s32(total, low), high);
        }
        vaddvq_s64(total)
    }
}
