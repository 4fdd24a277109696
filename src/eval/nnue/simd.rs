//! Which of the network's loops run (`Path`): the fastest this processor has, chosen once per
//! process at run time, so that one x86-64 binary runs everywhere and uses AVX2 or AVX-512 where
//! they exist. `SENTINEL_SIMD` forces a path for testing (`portable`, `avx2`, `avx512`, `neon`,
//! or `auto`, the same as unset): a value that names no path, or a path this processor lacks,
//! gets a warning on stderr and the fastest path it has. Every path computes the same numbers.
//! `RUST_LOG=info` logs the path taken.

use std::sync::LazyLock;

/// The environment variable that forces a path.
pub const SIMD_VARIABLE: &str = "SENTINEL_SIMD";

/// The network's loops, one set per instruction set, slowest first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Path {
    /// Plain Rust, which the compiler vectorises for the build's target.
    Portable,
    /// aarch64's 128-bit vectors, which every aarch64 processor has.
    Neon,
    /// x86-64's 256-bit vectors.
    Avx2,
    /// x86-64's 512-bit vectors (AVX-512 F and BW).
    Avx512,
}

impl Path {
    /// Every path, slowest first.
    pub const ALL: [Path; 4] = [Path::Portable, Path::Neon, Path::Avx2, Path::Avx512];

    /// The path's name, as `SENTINEL_SIMD` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Path::Portable => "portable",
            Path::Neon => "neon",
            Path::Avx2 => "avx2",
            Path::Avx512 => "avx512",
        }
    }

    /// Whether this processor runs the path.
    fn runs_here(self) -> bool {
        match self {
            Path::Portable => true,
            Path::Neon => cfg!(target_arch = "aarch64"),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Path::Avx2 | Path::Avx512 => false,
        }
    }
}

/// A path this processor runs. Only `Simd::new` makes one, after checking, so holding one is
/// the proof that the `unsafe` calls into a path's `#[target_feature]` functions rely on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Simd(Path);

impl Simd {
    /// The path every processor runs.
    pub const PORTABLE: Simd = Simd(Path::Portable);

    /// `path`, when this processor runs it.
    pub fn new(path: Path) -> Option<Simd> {
        path.runs_here().then_some(Simd(path))
    }

    pub fn path(self) -> Path {
        self.0
    }

    /// Every path this processor runs, slowest first: the portable one, then the vector ones.
    pub fn available() -> impl Iterator<Item = Simd> {
        Path::ALL.into_iter().filter_map(Simd::new)
    }

    /// The fastest path this processor runs.
    pub fn best() -> Simd {
        Simd::available().last().unwrap_or(Simd::PORTABLE)
    }

    /// The path a `SENTINEL_SIMD` value asks for (`None`, empty or `auto`: the fastest), and
    /// the warning to give when it cannot be followed.
    pub fn choose(setting: Option<&str>) -> (Simd, Option<String>) {
        let best = Simd::best();
        let Some(name) = setting.map(str::trim).filter(|name| !name.is_empty() && *name != "auto") else {
            return (best, None);
        };
        let using = best.path().name();
        match Path::ALL.into_iter().find(|path| path.name() == name) {
            Some(path) => match Simd::new(path) {
                Some(simd) => (simd, None),
                None => (best, Some(format!("{SIMD_VARIABLE}={name}: this processor lacks it; using {using}"))),
            },
            None => {
                let names: Vec<&str> = Path::ALL.iter().map(|path| path.name()).collect();
                let known = names.join(", ");
                (best, Some(format!("{SIMD_VARIABLE}={name} names no path (auto, {known}); using {using}")))
            }
        }
    }

    /// This process's path: `SENTINEL_SIMD`'s, read once.
    pub fn current() -> Simd {
        static CURRENT: LazyLock<Simd> = LazyLock::new(|| {
            let setting = std::env::var_os(SIMD_VARIABLE).map(|value| value.to_string_lossy().into_owned());
            let (simd, warning) = Simd::choose(setting.as_deref());
            if let Some(warning) = warning {
                log::warn!("{warning}");
            }
            log::info!("network loops: {}", simd.path().name());
            simd
        });
        *CURRENT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name chooses its path where the processor has it; unknown names and paths it
    /// lacks fall back to the fastest with a warning that says so; no setting is no warning.
    #[test]
    fn settings_choose_a_path_or_say_why_not() {
        let best = Simd::best();
        assert_eq!(Simd::choose(None), (best, None));
        assert_eq!(Simd::choose(Some("")), (best, None));
        assert_eq!(Simd::choose(Some("auto")), (best, None));
        assert_eq!(Simd::choose(Some("portable")), (Simd(Path::Portable), None));
        for path in Path::ALL {
            let (chosen, warning) = Simd::choose(Some(path.name()));
            match Simd::new(path) {
                Some(simd) => assert_eq!((chosen, warning), (simd, None)),
                None => {
                    let lacks =
                        format!("SENTINEL_SIMD={}: this processor lacks it; using {}", path.name(), best.path().name());
                    assert_eq!((chosen, warning), (best, Some(lacks)));
                }
            }
        }
        let (chosen, warning) = Simd::choose(Some("sse9"));
        assert_eq!(chosen, best);
        let expected = format!(
            "SENTINEL_SIMD=sse9 names no path (auto, portable, neon, avx2, avx512); using {}",
            best.path().name()
        );
        assert_eq!(warning, Some(expected));
        assert_eq!(Simd::available().next(), Some(Simd(Path::Portable)));
        #[cfg(target_arch = "x86_64")]
        assert_eq!(Simd::new(Path::Avx2).is_some(), std::arch::is_x86_feature_detected!("avx2"));
        #[cfg(target_arch = "aarch64")]
        assert_eq!(best, Simd(Path::Neon));
    }
}
