//! The report's table of systems: soapstone, the baselines and every third-party peer the lab
//! knows, with version, how it was installed and built, its configuration, and its status in
//! this run. A peer that is missing or failed is listed with the reason; this module must never
//! leave one out.

use crate::report::{Row, Section, Table};
use crate::results::Results;

pub(crate) fn section(results: &Results) -> Section {
    let mut rows = Vec::new();
    for s in &results.systems {
        let how = [
            s.installed_via.as_str(),
            s.build.as_str(),
            s.config.as_str(),
        ]
        .iter()
        .filter(|x| !x.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("; ");
        let status = if s.reason.is_empty() {
            s.status.clone()
        } else {
            format!("{}: {}", s.status, s.reason)
        };
        rows.push(Row::today(vec![
            s.id.clone(),
            s.name.clone(),
            if s.version.is_empty() {
                "–".to_owned()
            } else {
                s.version.clone()
            },
            format!("{} ({})", s.role, s.transport),
            s.stands_for.clone(),
            if how.is_empty() {
                "–".to_owned()
            } else {
                how
            },
            status,
        ]));
    }
    let ready = results
        .systems
        .iter()
        .filter(|s| {
            // soapstone's own server and typed client are not peers.
            s.status == "ready" && s.role != "baseline" && !s.id.starts_with("soapstone")
        })
        .count();
    let missing = results
        .systems
        .iter()
        .filter(|s| s.status == "missing" || s.status == "failed")
        .count();
    let mut findings = vec![format!(
        "{ready} third-party peers measured in this run; {missing} missing or failed (the reason \
         is in the last column)."
    )];
    if let Some(s) = results.peer_setup_s {
        findings.push(format!(
            "lab/peers/setup.sh took {s:.0} s on this machine when it wrote the manifest used."
        ));
    }
    Section {
        id: "peers".to_owned(),
        title: "Systems and peers in this run".to_owned(),
        intro: "Every system a table names, and every third-party peer the lab knows \
                (lab/peers/setup.sh installs them from Debian, Maven Central, PyPI and npm and builds them; \
                docs/lab.md lists their known limits). Status: ready = measured in this run; \
                unmeasured = installed but no experiment of this run used it; missing = not \
                installed or not built yet; failed = its start or its answer check failed."
            .to_owned(),
        findings,
        tables: vec![Table {
            title: "Systems".to_owned(),
            // Nothing here is a published figure: the source line would say so.
            source: String::new(),
            note: "From the peer manifest (lab/peers/build/manifest.json) and this run: versions \
                   as installed; build flags and configuration as setup.sh recorded them."
                .to_owned(),
            header: [
                "id",
                "system",
                "version",
                "role",
                "stands for",
                "installed, built, configured",
                "status",
            ]
            .map(str::to_owned)
            .to_vec(),
            rows,
        }],
        charts: Vec::new(),
    }
}
