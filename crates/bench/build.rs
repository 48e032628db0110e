//! Generates the gRPC echo service (`proto/echo.proto`) with tonic-build.
//!
//! protoc comes from the `protoc-bin-vendored` crate (a protoc binary shipped inside a
//! crates.io package), so a fresh machine needs nothing but crates.io; a `PROTOC`
//! already set in the environment wins.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/echo.proto");
    println!("cargo:rerun-if-env-changed=PROTOC");
    let config = prost_build_config()?;
    tonic_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_protos_with_config(config, &["proto/echo.proto"], &["proto"])?;
    Ok(())
}

fn prost_build_config() -> Result<tonic_build::Config, Box<dyn std::error::Error>> {
    let mut config = tonic_build::Config::new();
    if std::env::var_os("PROTOC").is_none() {
        config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    }
    Ok(config)
}
