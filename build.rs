//! Build-time facts the binary reports about itself: which commit it was built from (for
//! `--version`, UCI `id name` and XBoard `myname`, so a game log or a bug report names the
//! exact build), and which network file it embeds (`EVALFILE`, as OpenBench's `make
//! EVALFILE=...` passes it, or the repository's own `src/eval/network.nnue`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming a network file to embed instead of the repository's.
const EVALFILE: &str = "SENTINEL_EVALFILE";
/// The repository's own network, relative to the manifest.
const DEFAULT_NETWORK: &str = "src/eval/network.nnue";
/// The first bytes of every Sentinel network file, shared with `nnue.rs`.
const NETWORK_MAGIC: &[u8; 8] = include!("src/eval/nnue/magic.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed={EVALFILE}");
    println!("cargo::rustc-env=SENTINEL_VERSION={}", version(&manifest));
    let network = match std::env::var_os(EVALFILE).filter(|path| !path.is_empty()) {
        Some(path) => manifest.join(path),
        None => manifest.join(DEFAULT_NETWORK),
    };
    if let Err(message) = check_network(&network) {
        // A build that would embed a file the engine cannot read stops here, with the reason,
        // rather than producing a binary that fails at its first evaluation.
        println!("cargo::error={message}");
        return;
    }
    // include_bytes! makes the file a dependency of the crate: a changed network rebuilds.
    println!("cargo::rustc-env=SENTINEL_NETWORK={}", network.display());
}

/// Cargo.toml's version, followed by the short commit when this is a git checkout and git
/// runs; a source tarball or a machine without git gets the plain version.
fn version(manifest: &Path) -> String {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let git = |args: &[&str]| {
        let output = Command::new("git").arg("-C").arg(manifest).args(args).output().ok()?;
        let text = String::from_utf8(output.stdout).ok()?;
        output.status.success().then(|| text.trim().to_string()).filter(|text| !text.is_empty())
    };
    let Some(commit) = git(&["rev-parse", "--short", "HEAD"]) else {
        return version;
    };
    // Rebuild when HEAD moves: HEAD itself (a checkout), the branch it names (a commit), and
    // packed-refs (where a branch's commit can live too). Paths may be relative to the manifest.
    for file in ["HEAD", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", file]) {
            println!("cargo::rerun-if-changed={}", manifest.join(path).display());
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--git-path", &branch])
    {
        println!("cargo::rerun-if-changed={}", manifest.join(path).display());
    }
    format!("{version} ({commit})")
}

/// Whether `path` holds what could be a network file: there, and starting with the magic.
/// The full check of its shape is the engine's, when it loads it.
fn check_network(path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read the network {}: {e}", path.display()))?;
    if !bytes.starts_with(NETWORK_MAGIC) {
        let magic = String::from_utf8_lossy(NETWORK_MAGIC);
        return Err(format!("{} is not a Sentinel network file (it does not start with {magic})", path.display()));
    }
    Ok(())
}
