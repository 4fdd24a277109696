//! A hint to the processor to start loading a table entry before the search reads it. The
//! transposition table and the correction histories are read at scattered addresses, one
//! per node; fetching them while the move is made hides most of that wait.

/// Asks the processor to bring the cache line holding `value` closer, so that the read which
/// follows a little later finds it there instead of stalling. (No stable prefetch on other
/// processors: there it does nothing.)
#[inline(always)]
pub(super) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let address: *const T = value;
        // SAFETY: a prefetch is a hint: it reads nothing the program sees and cannot fault,
        // and the address is that of a live value anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
