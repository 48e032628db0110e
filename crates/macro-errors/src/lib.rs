//! Compile-fail tests of soapstone's macros, in a package of their own so that they stay cheap.
//!
//! `tests/macro_errors.rs` runs trybuild over `tests/ui/*.rs`: each file must fail to compile
//! with exactly the diagnostics in its `.stderr` (every error of a definition at once, each with
//! its span). trybuild builds those files in a separate project that takes every dependency and
//! dev-dependency of the package it runs from; run from soapstone-service, that meant checking
//! the server, criterion and their trees from scratch in every CI run (the slowest test of the
//! workspace, 195-396 s on a 2-core machine). This package depends on soapstone-service alone.
//!
//! It has no code and must never get any: it exists only for its tests. Add no dev-dependency
//! that the UI files do not need.
