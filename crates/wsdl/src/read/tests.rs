//! Reader tests on the WSDLs in `testdata/` and on hostile documents.
