//! flopspack-sys finds the library; its `lib_dir` metadata arrives here as
//! DEP_FLOPSPACK_LIB_DIR and becomes an rpath of this crate's tests,
//! examples and doc tests, so they run without LD_LIBRARY_PATH.
fn main() {
    if let Ok(dir) = std::env::var("DEP_FLOPSPACK_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
