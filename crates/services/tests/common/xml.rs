//! Canonical comparison of SOAP messages: namespace prefixes, declarations, whitespace between
//! elements and the `encodingStyle` attribute do not count; element names (namespace and local
//! name), text, `xsi:nil`, and the local names of `xsi:type` / `SOAP-ENC:arrayType` do.
//! SOAP encoding allows two spellings of an array that say the same: `xsi:type` of the array
//! `SOAP-ENC:Array` or a named restriction (`ArrayOfstring`), and item `xsi:type`s present or
//! left to the `arrayType`; both are normalized (array type `Array`, item types dropped). An
//! empty array's item type is not compared (`anyType[0]` and `string[0]` say the same: serde
//! gives a serializer no element type for an empty sequence), nor a nil value's `xsi:type`.

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
const XSI_1999: &str = "http://www.w3.org/1999/XMLSchema-instance";
const SOAP_ENC: &str = "http://schemas.xmlsoap.org/soap/encoding/";
const SOAP_ENV: &str = "http://schemas.xmlsoap.org/soap/envelope/";

fn local_of(v: &str) -> &str {
    v.rsplit(':').next().unwrap_or(v)
}

fn is_array(node: roxmltree::Node) -> bool {
    node.attributes()
        .any(|a| a.namespace() == Some(SOAP_ENC) && a.name() == "arrayType")
}

fn walk(node: roxmltree::Node, depth: usize, out: &mut String) {
    let in_array = node.parent_element().is_some_and(is_array);
    let nil = node
        .attributes()
        .any(|a| a.name() == "nil" && (a.value() == "true" || a.value() == "1"));
    let name = node.tag_name();
    out.push_str(&"  ".repeat(depth));
    out.push_str(&format!(
        "{{{}}}{}",
        name.namespace().unwrap_or(""),
        name.name()
    ));
    let mut attrs: Vec<String> = Vec::new();
    for a in node.attributes() {
        let ns = a.namespace().unwrap_or("");
        match (ns, a.name()) {
            (SOAP_ENV, "encodingStyle") => {}
            (XSI | XSI_1999, "type") if in_array || nil => {}
            (XSI | XSI_1999, "type") if is_array(node) => attrs.push("type=Array".to_string()),
            (XSI | XSI_1999, "type") => attrs.push(format!("type={}", local_of(a.value()))),
            (XSI | XSI_1999, "nil") => {
                attrs.push(format!("nil={}", a.value() == "true" || a.value() == "1"))
            }
            (SOAP_ENC, "arrayType") if a.value().ends_with("[0]") => {
                attrs.push("arrayType=?[0]".into())
            }
            (SOAP_ENC, "arrayType") => attrs.push(format!("arrayType={}", local_of(a.value()))),
            (ns, n) => attrs.push(format!("{{{ns}}}{n}={}", a.value())),
        }
    }
    attrs.sort();
    if !attrs.is_empty() {
        out.push_str(&format!(" [{}]", attrs.join(" ")));
    }
    let children: Vec<_> = node.children().filter(|c| c.is_element()).collect();
    if children.is_empty() {
        let text: String = node
            .children()
            .filter(|c| c.is_text())
            .map(|c| c.text().unwrap_or(""))
            .collect();
        out.push_str(&format!(" = {text:?}"));
    }
    out.push('\n');
    for c in children {
        walk(c, depth + 1, out);
    }
}

/// The canonical form of the Body of `xml`.
pub fn canonical_body(xml: &str) -> String {
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("not XML ({e}): {xml}"));
    let body = doc
        .descendants()
        .find(|n| n.is_element() && n.tag_name().name() == "Body")
        .unwrap_or_else(|| panic!("no Body in {xml}"));
    let mut out = String::new();
    walk(body, 0, &mut out);
    out
}
