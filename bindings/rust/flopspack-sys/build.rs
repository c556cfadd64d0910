//! Finds libflopspack: FLOPSPACK_LIB_DIR if set (a build tree or a prefix's
//! lib dir), else `pkg-config --libs-only-L flopspack`, else the linker's
//! default path. Emits the search path, `-l flopspack`, an rpath for this
//! crate's own tests, and `lib_dir` metadata (DEP_FLOPSPACK_LIB_DIR) so that
//! dependent crates can add the rpath to their binaries too.
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=FLOPSPACK_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let lib_dir = env::var("FLOPSPACK_LIB_DIR")
        .ok()
        .filter(|d| !d.is_empty())
        .or_else(|| {
            let out = Command::new("pkg-config")
                .args(["--libs-only-L", "flopspack"])
                .output()
                .ok()?;
            if !out.status.success() {
                return None;
            }
            String::from_utf8(out.stdout)
                .ok()?
                .split_whitespace()
                .find_map(|flag| flag.strip_prefix("-L").map(str::to_owned))
        });
    if let Some(dir) = &lib_dir {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        println!("cargo:lib_dir={dir}");
    }
    println!("cargo:rustc-link-lib=dylib=flopspack");
}
