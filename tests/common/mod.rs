//! Helpers shared by the binary's end-to-end tests: the real `soapstone serve` on a free
//! loopback port, and the `soapstone` command itself.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

/// A running `soapstone serve`, killed when dropped.
pub struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `soapstone serve --addr 127.0.0.1:0 --services echo EXTRA...` and returns it with the
/// base URL it printed (`http://...` or `https://...`, no path).
pub fn serve<S: AsRef<OsStr>>(extra: &[S]) -> (Serve, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args(["serve", "--addr", "127.0.0.1:0", "--services", "echo"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start soapstone serve");
    let out = child.stdout.take().unwrap();
    let serve = Serve(child);
    for line in BufReader::new(out).lines() {
        let line = line.unwrap();
        if let Some(url) = line.strip_prefix("listening on ") {
            return (serve, url.trim().to_string());
        }
    }
    panic!("soapstone serve ended without `listening on`");
}

/// Runs `soapstone ARGS...` to the end.
pub fn soapstone(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_soapstone"))
        .args(args)
        .output()
        .expect("run soapstone")
}
