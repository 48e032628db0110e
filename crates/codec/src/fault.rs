//! SOAP faults of both versions: reading them out of an envelope and writing them.
//!
//! SOAP 1.1 writes `faultcode`/`faultstring`/`faultactor`/`detail`; SOAP 1.2 writes
//! `Code/Value` (+ nested `Subcode`), `Reason/Text`, `Node`, `Role`, `Detail`. The
//! MustUnderstand fault of SOAP 1.2 carries `NotUnderstood` header blocks and the
//! VersionMismatch fault an `Upgrade` header, written by the sibling functions here.
//! Must never: write a fault whose code or reason breaks the XML (everything is escaped).

use crate::envelope::Envelope;
use crate::error::{DecodeError, Kind};
use crate::xml::{is_blank, split_qname, Cursor, Ev, NsStack, Source};
use crate::{write, Fault, FaultCode, QName, Version};

impl From<&DecodeError> for Fault {
    fn from(e: &DecodeError) -> Fault {
        let code = match e.kind() {
            Kind::VersionMismatch => FaultCode::VersionMismatch,
            Kind::DataEncodingUnknown => FaultCode::DataEncodingUnknown,
            _ => FaultCode::Client,
        };
        let subcode = match e.kind() {
            Kind::MissingId => Some("MissingID"),
            Kind::UntypedValue => Some("UntypedValue"),
            _ => None,
        };
        Fault {
            code,
            subcodes: subcode
                .map(|local| QName::new(crate::xml::ns::SOAP12_ENC, local))
                .into_iter()
                .collect(),
            reason: e.to_string(),
            actor: None,
            node: None,
            detail: None,
        }
    }
}

fn code_from(version: Version, uri: &str, local: &str) -> (FaultCode, Option<QName>) {
    if uri == version.envelope_ns() || (version == Version::Soap11 && uri.is_empty()) {
        let (head, tail) = match local.find('.') {
            Some(i) => (&local[..i], Some(&local[i + 1..])),
            None => (local, None),
        };
        let code = match head {
            "VersionMismatch" => FaultCode::VersionMismatch,
            "MustUnderstand" => FaultCode::MustUnderstand,
            "DataEncodingUnknown" => FaultCode::DataEncodingUnknown,
            "Client" | "Sender" => FaultCode::Client,
            "Server" | "Receiver" => FaultCode::Server,
            _ => return (FaultCode::Other(QName::new(uri, local)), None),
        };
        (code, tail.map(|t| QName::new(uri, t)))
    } else {
        (FaultCode::Other(QName::new(uri, local)), None)
    }
}

impl<'a> Envelope<'a> {
    /// The Fault in the body.
    pub fn fault(&self) -> Result<Fault, DecodeError> {
        let body = match &self.body {
            Some(b) if self.is_fault() => b,
            _ => return Err(DecodeError::malformed("the body holds no Fault")),
        };
        let src = Source::new(self.input, self.limits.clone());
        let mut cur = Cursor::new(
            &src,
            body.offset,
            &self.outer,
            NsStack::from_bindings(&self.body_ns),
        );
        match cur.next()? {
            Ev::Start(_) => {}
            _ => return Err(cur.malformed("expected the Fault element")),
        }
        let mut fault = Fault {
            code: FaultCode::Server,
            subcodes: vec![],
            reason: String::new(),
            actor: None,
            node: None,
            detail: None,
        };
        let mut seen_code = false;
        loop {
            match cur.next()? {
                Ev::End => break,
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in Fault")),
                Ev::Eof => return Err(cur.malformed("unexpected end of document")),
                Ev::Start(name) => {
                    let local = split_qname(name).1;
                    match (self.version, local) {
                        (Version::Soap11, "faultcode") => {
                            let text = cur.read_text_open()?;
                            let (uri, l) = resolve_text_qname(&cur, text.trim())?;
                            cur.next()?;
                            let (code, sub) = code_from(self.version, &uri, &l);
                            fault.code = code;
                            fault.subcodes.extend(sub);
                            seen_code = true;
                        }
                        (Version::Soap11, "faultstring") => {
                            fault.reason = cur.read_text()?.into_owned()
                        }
                        (Version::Soap11, "faultactor") => {
                            fault.actor = Some(cur.read_text()?.into_owned())
                        }
                        (Version::Soap11, "detail") | (Version::Soap12, "Detail") => {
                            fault.detail = Some(cur.raw_content()?.to_string())
                        }
                        (Version::Soap12, "Code") => {
                            self.read_code(&mut cur, &mut fault, true)?;
                            seen_code = true;
                        }
                        (Version::Soap12, "Reason") => fault.reason = read_reason(&mut cur)?,
                        (Version::Soap12, "Node") => {
                            fault.node = Some(cur.read_text()?.trim().to_string())
                        }
                        (Version::Soap12, "Role") => {
                            fault.actor = Some(cur.read_text()?.trim().to_string())
                        }
                        _ => cur.skip_element()?,
                    }
                }
            }
        }
        if !seen_code {
            return Err(cur.malformed("fault has no code"));
        }
        Ok(fault)
    }

    /// Reads `Code` or `Subcode` (whose start was consumed): `Value` then optional `Subcode`.
    fn read_code(
        &self,
        cur: &mut Cursor<'a, '_>,
        fault: &mut Fault,
        top: bool,
    ) -> Result<(), DecodeError> {
        loop {
            match cur.next()? {
                Ev::End => return Ok(()),
                Ev::Text(t) if is_blank(t) => {}
                Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in fault Code")),
                Ev::Eof => return Err(cur.malformed("unexpected end of document")),
                Ev::Start(name) => match split_qname(name).1 {
                    "Value" => {
                        let text = cur.read_text_open()?;
                        let (uri, l) = resolve_text_qname(cur, text.trim())?;
                        cur.next()?;
                        if top {
                            fault.code = code_from(self.version, &uri, &l).0;
                        } else {
                            fault.subcodes.push(QName::new(uri, l));
                        }
                    }
                    "Subcode" => self.read_code(cur, fault, false)?,
                    _ => cur.skip_element()?,
                },
            }
        }
    }
}

/// Resolves a QName written as element text (`env:Sender`) against the namespaces in scope.
/// A fault is read to be reported, so an undeclared prefix does not fail it: the code is then
/// kept whole, in no namespace (`rpc:ProcedureNotPresent` in PHP's answer to W3C test T33).
fn resolve_text_qname(cur: &Cursor<'_, '_>, text: &str) -> Result<(String, String), DecodeError> {
    let (prefix, local) = split_qname(text);
    if prefix.is_empty() {
        return Ok((
            cur.ns.lookup("").unwrap_or("").to_string(),
            local.to_string(),
        ));
    }
    Ok(match cur.ns.lookup(prefix) {
        Some(uri) => (uri.to_string(), local.to_string()),
        None => (String::new(), text.to_string()),
    })
}

/// Reads `Reason` (start consumed): the English `Text`, else the first one.
fn read_reason(cur: &mut Cursor<'_, '_>) -> Result<String, DecodeError> {
    let mut first: Option<String> = None;
    let mut english: Option<String> = None;
    loop {
        match cur.next()? {
            Ev::End => return Ok(english.or(first).unwrap_or_default()),
            Ev::Text(t) if is_blank(t) => {}
            Ev::Text(_) | Ev::CData(_) => return Err(cur.malformed("text in fault Reason")),
            Ev::Eof => return Err(cur.malformed("unexpected end of document")),
            Ev::Start(name) => {
                if split_qname(name).1 != "Text" {
                    cur.skip_element()?;
                    continue;
                }
                let en = cur
                    .attrs
                    .iter()
                    .any(|a| a.local == "lang" && a.raw.starts_with("en"));
                let text = cur.read_text()?.into_owned();
                if en && english.is_none() {
                    english = Some(text);
                } else if first.is_none() {
                    first = Some(text);
                }
            }
        }
    }
}

fn env_start(out: &mut Vec<u8>, version: Version) {
    out.extend_from_slice(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    out.extend_from_slice(b"<env:Envelope xmlns:env=\"");
    out.extend_from_slice(version.envelope_ns().as_bytes());
    out.extend_from_slice(b"\">");
}

/// Writes `<tag>` + a QName value (declaring its namespace on the element) + `</tag>`.
fn qname_element(out: &mut Vec<u8>, tag: &str, version: Version, q: &QName) {
    out.push(b'<');
    out.extend_from_slice(tag.as_bytes());
    if q.namespace == version.envelope_ns() {
        out.extend_from_slice(b">env:");
    } else if q.namespace.is_empty() {
        out.push(b'>');
    } else {
        out.extend_from_slice(b" xmlns:c=\"");
        write::attr(out, &q.namespace);
        out.extend_from_slice(b"\">c:");
    }
    write::text(out, &q.local);
    out.extend_from_slice(b"</");
    out.extend_from_slice(tag.as_bytes());
    out.push(b'>');
}

fn code_qname(version: Version, code: &FaultCode) -> QName {
    let env = version.envelope_ns();
    let local = match (code, version) {
        (FaultCode::VersionMismatch, _) => "VersionMismatch",
        (FaultCode::MustUnderstand, _) => "MustUnderstand",
        (FaultCode::DataEncodingUnknown, Version::Soap12) => "DataEncodingUnknown",
        (FaultCode::DataEncodingUnknown, Version::Soap11) => "Client",
        (FaultCode::Client, Version::Soap11) => "Client",
        (FaultCode::Client, Version::Soap12) => "Sender",
        (FaultCode::Server, Version::Soap11) => "Server",
        (FaultCode::Server, Version::Soap12) => "Receiver",
        (FaultCode::Other(q), _) => return q.clone(),
    };
    QName::new(env, local)
}

fn fault_body(out: &mut Vec<u8>, version: Version, fault: &Fault) {
    out.extend_from_slice(b"<env:Body><env:Fault>");
    let code = code_qname(version, &fault.code);
    match version {
        Version::Soap11 => {
            qname_element(out, "faultcode", version, &code);
            out.extend_from_slice(b"<faultstring>");
            write::text(out, &fault.reason);
            out.extend_from_slice(b"</faultstring>");
            if let Some(actor) = &fault.actor {
                out.extend_from_slice(b"<faultactor>");
                write::text(out, actor);
                out.extend_from_slice(b"</faultactor>");
            }
            if let Some(detail) = &fault.detail {
                out.extend_from_slice(b"<detail>");
                out.extend_from_slice(detail.as_bytes());
                out.extend_from_slice(b"</detail>");
            }
        }
        Version::Soap12 => {
            out.extend_from_slice(b"<env:Code>");
            qname_element(out, "env:Value", version, &code);
            for sub in &fault.subcodes {
                out.extend_from_slice(b"<env:Subcode>");
                qname_element(out, "env:Value", version, sub);
            }
            for _ in &fault.subcodes {
                out.extend_from_slice(b"</env:Subcode>");
            }
            out.extend_from_slice(b"</env:Code><env:Reason><env:Text xml:lang=\"en\">");
            write::text(out, &fault.reason);
            out.extend_from_slice(b"</env:Text></env:Reason>");
            if let Some(node) = &fault.node {
                out.extend_from_slice(b"<env:Node>");
                write::text(out, node);
                out.extend_from_slice(b"</env:Node>");
            }
            if let Some(role) = &fault.actor {
                out.extend_from_slice(b"<env:Role>");
                write::text(out, role);
                out.extend_from_slice(b"</env:Role>");
            }
            if let Some(detail) = &fault.detail {
                out.extend_from_slice(b"<env:Detail>");
                out.extend_from_slice(detail.as_bytes());
                out.extend_from_slice(b"</env:Detail>");
            }
        }
    }
    out.extend_from_slice(b"</env:Fault></env:Body></env:Envelope>");
}

/// Writes a whole envelope holding `fault`, in `version`'s shape. `detail` is written as raw
/// XML (it must be well-formed); every other field is escaped. In SOAP 1.1 subcodes and `node`
/// are not written; `DataEncodingUnknown` becomes `Client`.
pub fn encode_fault(out: &mut Vec<u8>, version: Version, fault: &Fault) {
    env_start(out, version);
    fault_body(out, version, fault);
}

/// Writes a MustUnderstand fault naming the header blocks that were not understood: SOAP 1.2
/// puts one `env:NotUnderstood qname="..."` header block per name; SOAP 1.1 has no such
/// blocks and lists them in the reason instead.
pub fn encode_must_understand_fault(out: &mut Vec<u8>, version: Version, not_understood: &[QName]) {
    let mut names = String::new();
    for (i, q) in not_understood.iter().enumerate() {
        if i > 0 {
            names.push_str(", ");
        }
        names.push_str(&format!("{{{}}}{}", q.namespace, q.local));
    }
    let fault = Fault {
        code: FaultCode::MustUnderstand,
        subcodes: vec![],
        reason: format!("header not understood: {names}"),
        actor: None,
        node: None,
        detail: None,
    };
    env_start(out, version);
    if version == Version::Soap12 && !not_understood.is_empty() {
        out.extend_from_slice(b"<env:Header>");
        for q in not_understood {
            out.extend_from_slice(b"<env:NotUnderstood qname=\"q:");
            write::attr(out, &q.local);
            out.extend_from_slice(b"\" xmlns:q=\"");
            write::attr(out, &q.namespace);
            out.extend_from_slice(b"\"/>");
        }
        out.extend_from_slice(b"</env:Header>");
    }
    fault_body(out, version, &fault);
}

/// Writes a VersionMismatch fault with the SOAP 1.2 `Upgrade` header listing the envelopes
/// this codec speaks (1.2 first). Send it as SOAP 1.1 (`version`) to a sender whose
/// envelope namespace was unknown, as SOAP 1.2 recommends.
pub fn encode_version_mismatch_fault(out: &mut Vec<u8>, version: Version, reason: &str) {
    env_start(out, version);
    out.extend_from_slice(
        b"<env:Header><upg:Upgrade xmlns:upg=\"http://www.w3.org/2003/05/soap-envelope\">",
    );
    out.extend_from_slice(b"<upg:SupportedEnvelope qname=\"ns1:Envelope\" xmlns:ns1=\"http://www.w3.org/2003/05/soap-envelope\"/>");
    out.extend_from_slice(b"<upg:SupportedEnvelope qname=\"ns2:Envelope\" xmlns:ns2=\"http://schemas.xmlsoap.org/soap/envelope/\"/>");
    out.extend_from_slice(b"</upg:Upgrade></env:Header>");
    let fault = Fault {
        code: FaultCode::VersionMismatch,
        subcodes: vec![],
        reason: reason.to_string(),
        actor: None,
        node: None,
        detail: None,
    };
    fault_body(out, version, &fault);
}
