//! WSDL generation tests: every document is parsed back with roxmltree and inspected.

use roxmltree::{Document, Node};

use crate::*;

const WSDL: &str = "http://schemas.xmlsoap.org/wsdl/";
const SOAP11: &str = "http://schemas.xmlsoap.org/wsdl/soap/";
const SOAP12: &str = "http://schemas.xmlsoap.org/wsdl/soap12/";

struct Contact {
    _name: String,
    _phones: Vec<String>,
    _next: Option<Box<Contact>>,
}

impl XsdType for Contact {
    fn describe(schema: &mut Schema) -> TypeRef {
        schema.define("Contact", std::any::type_name::<Self>(), |s| {
            TypeDef::Struct(vec![
                Field::new("name", String::describe(s)),
                Field::new("phones", Vec::<String>::describe(s)),
                Field::new("next", Option::<Box<Contact>>::describe(s)),
            ])
        })
    }
}

pub(crate) fn model(style: BindingStyle) -> ServiceModel {
    let mut m = ServiceModel::new("Book", "urn:book", style);
    m.documentation = Some("An address book & more".into());
    let mut add = OperationModel::new("addContact", "urn:book#addContact");
    add.input
        .push(Part::new("contact", Contact::describe(&mut m.schema)));
    add.input.push(Part::new(
        "scores",
        Vec::<Vec<i32>>::describe(&mut m.schema),
    ));
    add.output
        .push(Part::new("return", i64::describe(&mut m.schema)));
    add.documentation = Some("Adds a contact".into());
    m.operations.push(add);
    let mut ping = OperationModel::new("ping", "");
    ping.response = "pingResult".into();
    m.operations.push(ping);
    m.validate().unwrap();
    m
}

fn children<'a, 'i>(
    n: Node<'a, 'i>,
    ns: &'a str,
    local: &'a str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    n.children().filter(move |c| {
        c.is_element() && c.tag_name().namespace() == Some(ns) && c.tag_name().name() == local
    })
}

fn child<'a, 'i>(n: Node<'a, 'i>, ns: &'a str, local: &'a str) -> Node<'a, 'i> {
    children(n, ns, local)
        .next()
        .unwrap_or_else(|| panic!("no {local} under {:?}", n.tag_name()))
}

fn named<'a, 'i>(n: Node<'a, 'i>, ns: &'a str, local: &'a str, name: &str) -> Node<'a, 'i> {
    children(n, ns, local)
        .find(|c| c.attribute("name") == Some(name))
        .unwrap_or_else(|| panic!("no {local} named {name}"))
}

/// Resolves a `prefix:local` attribute value to (namespace, local) in the scope of `n`.
fn resolve(n: Node, value: &str) -> (String, String) {
    let (prefix, local) = value.split_once(':').unwrap();
    (
        n.lookup_namespace_uri(Some(prefix)).unwrap().to_string(),
        local.to_string(),
    )
}

#[test]
fn document_literal_wsdl() {
    let text = wsdl(
        &model(BindingStyle::DocumentLiteral),
        "http://127.0.0.1:9/book?x=1&y=2",
    );
    let doc = Document::parse(&text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("targetNamespace"), Some("urn:book"));
    assert_eq!(
        child(root, WSDL, "documentation").text(),
        Some("An address book & more")
    );

    let schema = child(child(root, WSDL, "types"), XSD_NS, "schema");
    assert_eq!(schema.attribute("elementFormDefault"), Some("qualified"));
    assert_eq!(
        children(schema, XSD_NS, "import").count(),
        0,
        "literal needs no soapenc"
    );
    let add = named(schema, XSD_NS, "element", "addContact");
    let seq = child(child(add, XSD_NS, "complexType"), XSD_NS, "sequence");
    let contact = named(seq, XSD_NS, "element", "contact");
    assert_eq!(
        resolve(contact, contact.attribute("type").unwrap()),
        ("urn:book".into(), "Contact".into())
    );
    let scores = named(seq, XSD_NS, "element", "scores");
    assert_eq!(scores.attribute("maxOccurs"), Some("unbounded"));
    assert_eq!(scores.attribute("type"), Some("tns:ArrayOfint"));
    let resp = named(schema, XSD_NS, "element", "addContactResponse");
    let ret = named(
        child(child(resp, XSD_NS, "complexType"), XSD_NS, "sequence"),
        XSD_NS,
        "element",
        "return",
    );
    assert_eq!(ret.attribute("type"), Some("xsd:long"));
    assert_eq!(ret.attribute("minOccurs"), None);
    // The empty wrappers of `ping`, with the renamed response.
    named(schema, XSD_NS, "element", "ping");
    named(schema, XSD_NS, "element", "pingResult");

    let ct = named(schema, XSD_NS, "complexType", "Contact");
    let seq = child(ct, XSD_NS, "sequence");
    let phones = named(seq, XSD_NS, "element", "phones");
    assert_eq!(
        (phones.attribute("minOccurs"), phones.attribute("maxOccurs")),
        (Some("0"), Some("unbounded"))
    );
    let next = named(seq, XSD_NS, "element", "next");
    assert_eq!(
        (next.attribute("minOccurs"), next.attribute("type")),
        (Some("0"), Some("tns:Contact"))
    );
    let list = named(schema, XSD_NS, "complexType", "ArrayOfint");
    assert_eq!(
        named(child(list, XSD_NS, "sequence"), XSD_NS, "element", "item").attribute("maxOccurs"),
        Some("unbounded")
    );

    let msg = named(root, WSDL, "message", "addContactRequest");
    let part = child(msg, WSDL, "part");
    assert_eq!(
        (part.attribute("name"), part.attribute("element")),
        (Some("parameters"), Some("tns:addContact"))
    );
    let msg = named(root, WSDL, "message", "pingResponse");
    assert_eq!(
        child(msg, WSDL, "part").attribute("element"),
        Some("tns:pingResult")
    );

    let pt = named(root, WSDL, "portType", "BookPortType");
    let op = named(pt, WSDL, "operation", "addContact");
    assert_eq!(
        child(op, WSDL, "documentation").text(),
        Some("Adds a contact")
    );
    assert_eq!(
        child(op, WSDL, "input").attribute("message"),
        Some("tns:addContactRequest")
    );

    for (ns, binding) in [(SOAP11, "BookSoap11Binding"), (SOAP12, "BookSoap12Binding")] {
        let b = named(root, WSDL, "binding", binding);
        assert_eq!(child(b, ns, "binding").attribute("style"), Some("document"));
        let op = named(b, WSDL, "operation", "addContact");
        assert_eq!(
            child(op, ns, "operation").attribute("soapAction"),
            Some("urn:book#addContact")
        );
        for dir in ["input", "output"] {
            let body = child(child(op, WSDL, dir), ns, "body");
            assert_eq!(body.attribute("use"), Some("literal"));
        }
    }
    let service = named(root, WSDL, "service", "Book");
    let p11 = named(service, WSDL, "port", "BookSoap11Port");
    assert_eq!(
        child(p11, SOAP11, "address").attribute("location"),
        Some("http://127.0.0.1:9/book?x=1&y=2")
    );
    let p12 = named(service, WSDL, "port", "BookSoap12Port");
    assert_eq!(p12.attribute("binding"), Some("tns:BookSoap12Binding"));
    assert_eq!(
        child(p12, SOAP12, "address").attribute("location"),
        Some("http://127.0.0.1:9/book?x=1&y=2")
    );
}

#[test]
fn rpc_encoded_wsdl() {
    let text = wsdl(&model(BindingStyle::RpcEncoded), "http://127.0.0.1:9/book");
    let doc = Document::parse(&text).unwrap();
    let root = doc.root_element();
    let schema = child(child(root, WSDL, "types"), XSD_NS, "schema");
    assert_eq!(schema.attribute("elementFormDefault"), None);
    let import = child(schema, XSD_NS, "import");
    assert_eq!(import.attribute("namespace"), Some(SOAP_ENC_NS));
    assert_eq!(
        import.attribute("schemaLocation"),
        Some("http://127.0.0.1:9/book?xsd=soapenc")
    );
    assert_eq!(
        children(schema, XSD_NS, "element").count(),
        0,
        "rpc parts are typed, not elements"
    );

    let arr = named(schema, XSD_NS, "complexType", "ArrayOfint2D");
    let restriction = child(child(arr, XSD_NS, "complexContent"), XSD_NS, "restriction");
    assert_eq!(
        resolve(restriction, restriction.attribute("base").unwrap()),
        (SOAP_ENC_NS.into(), "Array".into())
    );
    let attr = child(restriction, XSD_NS, "attribute");
    assert_eq!(
        resolve(attr, attr.attribute("ref").unwrap()),
        (SOAP_ENC_NS.into(), "arrayType".into())
    );
    assert_eq!(attr.attribute((WSDL, "arrayType")), Some("xsd:int[,]"));
    let phones = named(schema, XSD_NS, "complexType", "ArrayOfstring");
    let attr = child(
        child(
            child(phones, XSD_NS, "complexContent"),
            XSD_NS,
            "restriction",
        ),
        XSD_NS,
        "attribute",
    );
    assert_eq!(attr.attribute((WSDL, "arrayType")), Some("xsd:string[]"));
    let contact = named(schema, XSD_NS, "complexType", "Contact");
    let next = named(
        child(contact, XSD_NS, "sequence"),
        XSD_NS,
        "element",
        "next",
    );
    assert_eq!(next.attribute("nillable"), Some("true"));

    let msg = named(root, WSDL, "message", "addContactRequest");
    let parts: Vec<_> = children(msg, WSDL, "part")
        .map(|p| (p.attribute("name").unwrap(), p.attribute("type").unwrap()))
        .collect();
    assert_eq!(
        parts,
        [("contact", "tns:Contact"), ("scores", "tns:ArrayOfint2D")]
    );
    let msg = named(root, WSDL, "message", "addContactResponse");
    assert_eq!(child(msg, WSDL, "part").attribute("type"), Some("xsd:long"));
    assert_eq!(
        children(named(root, WSDL, "message", "pingResponse"), WSDL, "part").count(),
        0
    );

    for (ns, binding, enc) in [
        (SOAP11, "BookSoap11Binding", SOAP_ENC_NS),
        (
            SOAP12,
            "BookSoap12Binding",
            "http://www.w3.org/2003/05/soap-encoding",
        ),
    ] {
        let b = named(root, WSDL, "binding", binding);
        assert_eq!(child(b, ns, "binding").attribute("style"), Some("rpc"));
        let body = child(
            child(named(b, WSDL, "operation", "addContact"), WSDL, "output"),
            ns,
            "body",
        );
        assert_eq!(body.attribute("use"), Some("encoded"));
        assert_eq!(body.attribute("namespace"), Some("urn:book"));
        assert_eq!(body.attribute("encodingStyle"), Some(enc));
    }
}

#[test]
fn documents_by_query() {
    let m = model(BindingStyle::RpcEncoded);
    assert!(document(&m, "WSDL", "http://h/p")
        .unwrap()
        .contains("<wsdl:definitions"));
    let enc = document(&m, "xsd=soapenc", "http://h/p").unwrap();
    let doc = Document::parse(&enc).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("targetNamespace"), Some(SOAP_ENC_NS));
    let array = named(root, XSD_NS, "complexType", "Array");
    assert!(children(array, XSD_NS, "attributeGroup")
        .any(|g| g.attribute("ref") == Some("tns:arrayAttributes")));
    named(root, XSD_NS, "attribute", "arrayType");
    named(root, XSD_NS, "complexType", "Struct");
    named(root, XSD_NS, "element", "base64");
    let common = named(root, XSD_NS, "attributeGroup", "commonAttributes");
    assert!(children(common, XSD_NS, "attribute").any(|a| a.attribute("name") == Some("href")));
    for simple in [
        "string",
        "int",
        "double",
        "boolean",
        "dateTime",
        "base64Binary",
        "decimal",
    ] {
        let ct = named(root, XSD_NS, "complexType", simple);
        let ext = child(child(ct, XSD_NS, "simpleContent"), XSD_NS, "extension");
        assert_eq!(ext.attribute("base"), Some(format!("xs:{simple}").as_str()));
    }
    assert_eq!(document(&m, "xsd=other", "http://h/p"), None);
    assert_eq!(
        document_url("http://h/p?a=1", SOAP_ENC_QUERY),
        "http://h/p?a=1&xsd=soapenc"
    );
}

#[test]
fn names_are_escaped() {
    let mut m = ServiceModel::new("S", "urn:a&b<c>", BindingStyle::DocumentLiteral);
    m.operations.push(OperationModel::new("op", "urn:\"q\""));
    let text = wsdl(&m, "http://h/p?a=1&b=\"2\"");
    let doc = Document::parse(&text).unwrap();
    assert_eq!(
        doc.root_element().attribute("targetNamespace"),
        Some("urn:a&b<c>")
    );
    assert!(text.contains("soapAction=\"urn:&quot;q&quot;\""));
}

#[test]
fn encoded_without_arrays_imports_nothing() {
    let mut m = ServiceModel::new("Charging", "urn:charging", BindingStyle::RpcEncoded);
    let mut op = OperationModel::new("reserve", "");
    op.input.push(Part::new("id", i32::describe(&mut m.schema)));
    m.operations.push(op);
    let text = wsdl(&m, "http://h/p");
    let doc = Document::parse(&text).unwrap();
    assert_eq!(
        doc.descendants()
            .filter(|n| n.tag_name().name() == "import")
            .count(),
        0
    );
    assert!(!text.contains("xmlns:soapenc"), "{text}");
}
