//! Compile-fail tests of the macros' diagnostics (trybuild): each error has its span and
//! every error of a definition is reported at once.

#[test]
fn macro_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
