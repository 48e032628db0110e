//! How long WSDL-first code generation takes for a big contract: a WSDL with 100 operations and
//! 1,000 named types (a chain of structs that use each other), from its text to formatted Rust,
//! split into its stages so each can be compared with the others in one run:
//! `generate/read` (WSDL + XSD text to `Definitions`), `generate/lower` (to a `ServiceModel`),
//! `generate/emit` (to formatted source), and `generate/all` (the three).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use soapstone_wsdl::read::{read_str, ReadOptions};
use soapstone_wsdl::{
    BindingStyle, Field, OperationModel, Part, Schema, ServiceModel, TypeDef, TypeRef, XsdType,
};

const TYPES: usize = 1_000;
const OPERATIONS: usize = 100;

/// A literal model with `TYPES` structs (each with scalar fields, a list, and a reference to
/// the next type) and `OPERATIONS` operations taking and returning some of them.
fn big_model() -> ServiceModel {
    let mut m = ServiceModel::new("Big", "urn:big", BindingStyle::DocumentLiteral);
    fn define(s: &mut Schema, i: usize) -> TypeRef {
        let name = format!("Type{i}");
        let next = i + 1;
        // `Schema::define` takes a `&'static str` Rust name per type: leak one per type (a
        // bench-only model, built once).
        let rust: &'static str = Box::leak(format!("bench::Type{i}").into_boxed_str());
        s.define(&name, rust, |s| {
            let mut fields = vec![
                Field::new("id", i64::describe(s)),
                Field::new("name", String::describe(s)),
                Field::new("amount", f64::describe(s)),
                Field::new("tags", Vec::<String>::describe(s)),
            ];
            if next < TYPES {
                let mut t = define(s, next);
                t.optional = true;
                fields.push(Field::new("next", t));
            }
            TypeDef::Struct(fields)
        })
    }
    // Define from the end so the recursion stays shallow.
    for i in (0..TYPES).rev() {
        define(&mut m.schema, i);
    }
    for o in 0..OPERATIONS {
        let mut op = OperationModel::new(format!("operation{o}"), format!("urn:big#operation{o}"));
        let t = |i: usize| TypeRef::new(soapstone_codec::QName::new("urn:big", format!("Type{i}")));
        op.input.push(Part::new("first", t(o * 10 % TYPES)));
        op.input.push(Part::new("count", TypeRef::xsd("int")));
        op.output.push(Part::new("result", t((o * 10 + 5) % TYPES)));
        m.operations.push(op);
    }
    m.validate().unwrap();
    m
}

fn bench(c: &mut Criterion) {
    let text = soapstone_wsdl::wsdl(&big_model(), "http://localhost:8080/big");
    let options = ReadOptions::default();
    let defs = read_str(&text, "big.wsdl", &options).unwrap();
    assert_eq!(defs.schema.types.len(), TYPES);
    let model = defs.service_model("Big", "BigSoap11Port").unwrap();
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    g.bench_function("read", |b| {
        b.iter(|| read_str(black_box(&text), "big.wsdl", &options).unwrap())
    });
    g.bench_function("lower", |b| {
        b.iter(|| defs.service_model("Big", "BigSoap11Port").unwrap())
    });
    g.bench_function("emit", |b| {
        b.iter(|| soapstone_codegen::generate(black_box(&model), "Big").unwrap())
    });
    g.bench_function("all", |b| {
        b.iter(|| {
            let d = read_str(black_box(&text), "big.wsdl", &options).unwrap();
            let m = d.service_model("Big", "BigSoap11Port").unwrap();
            soapstone_codegen::generate(&m, "Big").unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
