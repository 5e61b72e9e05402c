//! Runs the Python package's pytest suite (`tests/python/`) against the extension
//! module this build produced: `cargo test` builds the crate's cdylib before its
//! integration tests, and this test lays it out as an importable `stride` package
//! (`stride/__init__.py` + `stride/_stride.abi3.so`) in a temporary directory, so
//! no maturin build or pip install of stride is needed. pytest, pyarrow, pandas
//! and polars are installed with pip when missing.

use std::path::{Path, PathBuf};
use std::process::Command;

const PYTHON: &str = "python3";
const PACKAGES: [(&str, &str); 4] = [
    ("pytest", "pytest"),
    ("pyarrow", "pyarrow"),
    ("pandas", "pandas"),
    ("polars", "polars"),
];

/// The extension module cargo built for this test, beside its binary in
/// `target/<profile>/deps/` (the crate is also an rlib so that cargo builds it before
/// the integration tests; nothing links that).
fn extension_module() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let name = if cfg!(target_os = "macos") {
        "lib_stride.dylib"
    } else {
        "lib_stride.so"
    };
    exe.parent()
        .expect("target/<profile>/deps/<test>")
        .join(name)
}

/// Whether every Python package the suite needs imports, installing the missing ones.
fn python_ready() -> bool {
    if Command::new(PYTHON).arg("--version").output().is_err() {
        println!("{PYTHON} not found: Python package tests skipped");
        return false;
    }
    let imports = |module: &str| {
        Command::new(PYTHON)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let missing: Vec<&str> = PACKAGES
        .iter()
        .filter(|(module, _)| !imports(module))
        .map(|(_, package)| *package)
        .collect();
    if missing.is_empty() {
        return true;
    }
    let out = Command::new(PYTHON)
        .args(["-m", "pip", "install", "--quiet"])
        .args(&missing)
        .output();
    if PACKAGES.iter().all(|(module, _)| imports(module)) {
        return true;
    }
    let why = match out {
        Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
        Err(e) => e.to_string(),
    };
    println!("{missing:?} could not be installed ({why}): Python package tests skipped");
    false
}

#[test]
fn pytest_suite() {
    if !python_ready() {
        return;
    }
    let module = extension_module();
    assert!(module.exists(), "{} was not built", module.display());
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = std::env::temp_dir().join(format!("stride-python-{}", std::process::id()));
    let package = root.join("stride");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        crate_dir.join("python/stride/__init__.py"),
        package.join("__init__.py"),
    )
    .unwrap();
    std::fs::copy(&module, package.join("_stride.abi3.so")).unwrap();
    let out = Command::new(PYTHON)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(crate_dir.join("tests/python"))
        .env("PYTHONPATH", &root)
        .env("STRIDE_TEST_TMP", &root)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&root);
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{report}");
    assert!(out.status.success(), "pytest failed:\n{report}");
}
