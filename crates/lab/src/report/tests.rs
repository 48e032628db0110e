//! Rendering tests: a results file with a run for every cell the report draws (values are
//! arbitrary test inputs, not measurements) must give a well-formed page with its plots and
//! Markdown tables that carry both the published figures and the given values.

use crate::experiments;
use crate::peers::SystemInfo;
use crate::report::{html, markdown, Report};
use crate::results::{Host, Placement, PlacementKind, Results, Run, Second, Settings};

pub(crate) fn run(system: &str, exp: &str, op: &str, kind: PlacementKind, p50: f64) -> Run {
    Run {
        system: system.into(),
        experiment: exp.into(),
        operation: op.into(),
        p50_us: p50,
        p99_us: p50 * 3.0,
        mean_us: p50 * 1.1,
        stdev_us: Some(p50 / 10.0),
        throughput_rps: 1e6 / (p50 * 1.1),
        ok: 1000,
        errors: 0,
        timeouts: 0,
        unsent: 0,
        peak_ok_per_second: Some(160),
        cache: None,
        phases: Vec::new(),
        bytes_sent: Some(400_000),
        bytes_received: Some(500_000),
        percentiles: vec![
            (0.0, p50 * 0.8),
            (50.0, p50),
            (99.0, p50 * 3.0),
            (99.9, p50 * 5.0),
        ],
        timeline: (0..6)
            .map(|t| Second {
                t: f64::from(t),
                requests: 100 + u64::from(t as u8) * 10,
                ok: 100 + u64::from(t as u8) * 10,
                errors: 0,
            })
            .collect(),
        settings: Settings {
            placement: Placement {
                kind,
                server_cpu: Some("0".into()),
                client_cpu: Some("1".into()),
                load_cpu: None,
            },
            duration_s: 6.0,
            warmup_s: 0.2,
            connections: 1,
            rate: None,
            schedule: vec![(0.0, 100.0), (1.2, 240.0)],
            background: None,
            request_bytes: Some(400),
            command: Some("soapstone bench http://127.0.0.1:1/echo".into()),
        },
    }
}

pub(crate) fn sample() -> Results {
    let mut runs = Vec::new();
    for kind in [PlacementKind::SameCpu, PlacementKind::CrossCpu] {
        let k = if kind == PlacementKind::SameCpu {
            1.0
        } else {
            2.0
        };
        for (sys, p50) in [
            ("soapstone", 41.0),
            ("tcp-pingpong", 17.0),
            ("grpc", 52.0),
            ("http-noop", 33.0),
        ] {
            runs.push(run(sys, "echo", "echoFloat", kind, p50 * k));
            for op in [
                "doNothing",
                "getString/200",
                "getString/400",
                "getString/800",
                "getIntegers/200",
                "getIntegers/400",
                "getIntegers/800",
            ] {
                runs.push(run(sys, "dp", op, kind, p50 * k + 1.0));
            }
        }
        runs.push(run("tcp-connect", "dp", "doNothing", kind, 23.0 * k));
        for load in experiments::thesis::LOADS {
            for op in ["creditControl", "credit"] {
                let mut r = run("soapstone", "thesis", op, kind, 60.0 * k);
                r.settings.background = Some(load.into());
                runs.push(r);
            }
            let mut bg = run(
                "soapstone",
                "thesis",
                &format!("background/{load}"),
                kind,
                90.0,
            );
            bg.settings.background = Some(load.into());
            runs.push(bg);
        }
        for n in experiments::contacts::NS_LIST {
            runs.push(run(
                "soapstone",
                "contacts",
                &format!("getContacts/{n}"),
                kind,
                40.0 + f64::from(n),
            ));
        }
        runs.push(run("soapstone", "contacts", "getContact", kind, 39.0 * k));
    }
    for test in ["test1", "test2"] {
        for s in experiments::wsb::SERVICES {
            runs.push(run(
                "soapstone",
                "wsb",
                &format!("{test}/{s}"),
                PlacementKind::CrossCpu,
                120.0,
            ));
        }
    }
    for (p, _) in experiments::parse::PARSERS {
        for (name, _) in experiments::parse::documents() {
            runs.push(run(p, "parse", name, PlacementKind::InProcess, 3.5));
        }
    }
    Results {
        version: "0.1.0".into(),
        quick: true,
        started_unix: 0,
        elapsed_s: 123.0,
        host: Host {
            cpus: 2,
            cpu_model: Some("test <cpu> & co".into()),
            kernel: None,
            load_at_start: Some(0.1),
        },
        experiments: ["echo", "dp", "thesis", "contacts", "wsb", "parse"]
            .map(String::from)
            .to_vec(),
        problems: vec!["dp: grpc `x` was not measured: <boom>".into()],
        runs,
        systems: Vec::new(),
        peer_setup_s: None,
        traces: Vec::new(),
        commit: Some("0123456789ab".into()),
        lan: None,
        cluster: None,
        interop: Vec::new(),
    }
}

fn system(id: &str, role: &str, transport: &str, status: &str, reason: &str) -> SystemInfo {
    SystemInfo {
        id: id.into(),
        name: format!("{id} name"),
        role: role.into(),
        transport: transport.into(),
        stands_for: "a seed's row".into(),
        status: status.into(),
        reason: reason.into(),
        version: "9.8.7".into(),
        installed_via: "Debian package".into(),
        build: "-O2".into(),
        config: "one thread".into(),
    }
}

/// The sample with peers: gSOAP and omniORB measured in dp, a PHP client measured in clients,
/// spyne missing with a reason.
fn with_peers() -> Results {
    let mut r = sample();
    r.experiments.push("clients".into());
    for kind in [PlacementKind::SameCpu, PlacementKind::CrossCpu] {
        r.runs.push(run("gsoap", "dp", "doNothing", kind, 71.5));
        r.runs.push(run("gsoap", "dp", "getString/800", kind, 72.5));
        r.runs.push(run("omniorb", "dp", "doNothing", kind, 13.5));
        r.runs.push(run(
            "php-soapclient",
            "clients",
            "getIntegers/800",
            kind,
            911.0,
        ));
        r.runs
            .push(run("soapstone", "clients", "getIntegers/800", kind, 45.5));
    }
    r.systems = vec![
        system("gsoap", "server", "soap-http", "ready", ""),
        system("omniorb", "server", "corba", "ready", ""),
        system(
            "spyne",
            "server",
            "soap-http",
            "missing",
            "pip install failed",
        ),
        system("php-soapclient", "client", "soap-http", "ready", ""),
    ];
    r.peer_setup_s = Some(42.0);
    r
}

#[test]
fn peers_stand_beside_soapstone_and_missing_ones_say_why() {
    let r = with_peers();
    let (md, _page) = render(&r);
    let row = |start: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {start}")))
            .unwrap_or_else(|| panic!("no row `{start}` in\n{md}"))
            .to_owned()
    };
    // Table I: gSOAP's and omniORB's measured cells, spyne's row present and empty.
    assert!(
        md.contains("| gsoap name (SOAP, timed by soapstone bench) |  | 71.5 / 71.5 |"),
        "{md}"
    );
    assert!(md.contains("| omniorb name (CORBA, timed by its own client) |  | 13.5 / 13.5 |"));
    assert!(md.contains("| spyne name (SOAP, timed by soapstone bench, missing) |  | – / – |"));
    // Table III: one unit per column.
    assert!(
        md.contains("| char[200]: 2002 (ms) | char[200]: today p50 (µs) |"),
        "{md}"
    );
    // The client table and the systems table.
    assert!(row("php-soapclient name [ready]").contains("911"));
    let spyne = row("spyne | spyne name | 9.8.7");
    assert!(spyne.contains("missing: pip install failed"), "{spyne}");
    assert!(md.contains("setup.sh took 42 s"));
    // The headline places soapstone among every server measured: omniORB 13.5 µs, soapstone
    // 42 µs, gSOAP 71.5 µs on one CPU.
    let first = md
        .lines()
        .find(|l| l.starts_with("Among the "))
        .expect("standing sentence");
    assert!(
        first.starts_with(
            "Among the 3 servers measured with doNothing in this run (2 SOAP stacks, soapstone \
             included, plus 1 CORBA/RMI), soapstone's median round trip on one CPU (42.0 µs) ranks \
             2 of 3 (1 of 2 among the SOAP stacks); the fastest, omniorb, takes ×0.32 soapstone's \
             time."
        ),
        "{first}"
    );
}

fn render(results: &Results) -> (String, String) {
    let report = Report::build(results, experiments::sections(results));
    (markdown::render(&report), html::render(&report))
}

#[test]
fn html_is_well_formed_and_self_contained() {
    let (_, page) = render(&sample());
    let body = page.strip_prefix("<!DOCTYPE html>").expect("doctype first");
    let doc = roxmltree::Document::parse(body).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    let svgs = doc.descendants().filter(|n| n.has_tag_name("svg")).count();
    assert!(svgs >= 6, "only {svgs} plots");
    let tables = doc
        .descendants()
        .filter(|n| n.has_tag_name("table"))
        .count();
    assert!(tables >= 10, "only {tables} tables");
    for n in doc.descendants() {
        for attr in ["src", "href"] {
            if let Some(v) = n.attribute(attr) {
                assert!(v.starts_with('#'), "external reference `{v}`");
            }
        }
        assert!(!n.has_tag_name("script"));
    }
    assert!(page.contains("test &lt;cpu&gt; &amp; co"));
    assert!(page.contains("&lt;boom&gt;"));
}

#[test]
fn headline_comes_first_with_the_ratios() {
    let (md, page) = render(&sample());
    // soapstone 41 µs × 1.1 mean vs tcp-pingpong 17 × 1.1 → ×0.41; vs grpc → ×1.27; vs http-noop → ×0.80.
    let first = md.split("## ").next().unwrap();
    for needle in [
        "×0.41",
        "×1.27",
        "×0.80",
        "same CPU",
        "cross-CPU",
        "tcp-pingpong",
        "grpc",
        "http-noop",
    ] {
        assert!(
            first.contains(needle),
            "headline lacks `{needle}`:\n{first}"
        );
    }
    let h = page.find("class=\"headline\"").unwrap();
    assert!(h < page.find("<section").unwrap());
}

#[test]
fn markdown_tables_show_published_figures_beside_todays() {
    let (md, _) = render(&sample());
    // Published figures from each seed table.
    for needle in [
        "15.6",
        "1810.6",
        "679.2 ± 3.14",
        "1.63 ± 0.17",
        "93.7",
        "15,624",
        "2130.30",
        "689.5",
        "50.01 ± 0.64",
    ] {
        assert!(md.contains(needle), "report.md lacks published `{needle}`");
    }
    // Today's values from the sample runs (same CPU / cross-CPU pairs).
    for needle in ["42.0 / 83.0", "66.0 ± 6.00", "3.85 ± 0.35"] {
        assert!(md.contains(needle), "report.md lacks today's `{needle}`");
    }
    // Every table row has as many cells as its header.
    let mut cols = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            cols = None;
            continue;
        }
        let n = line.matches('|').count() - line.matches("\\|").count();
        match cols {
            None => cols = Some(n),
            Some(c) => assert_eq!(n, c, "ragged row: {line}"),
        }
    }
}

#[test]
fn missing_runs_show_as_dashes_not_numbers() {
    let mut r = sample();
    r.runs.retain(|x| x.system != "grpc");
    let (md, _) = render(&r);
    let line = md
        .lines()
        .find(|l| l.starts_with("| soapstone ÷ grpc"))
        .unwrap();
    assert!(line.contains("| – | – |"), "{line}");
    r.runs.clear();
    let (md, page) = render(&r);
    assert!(md.contains("no headline"));
    assert!(roxmltree::Document::parse(page.strip_prefix("<!DOCTYPE html>").unwrap()).is_ok());
}

#[test]
fn results_round_trip_through_json_and_render_the_same() {
    let mut r = sample();
    r.runs[0].p99_us = f64::NAN; // not measured: written as null, read back as NaN
    let text = serde_json::to_string(&r).unwrap();
    let back: Results = serde_json::from_str(&text).unwrap();
    assert!(back.runs[0].p99_us.is_nan());
    assert_eq!(back.runs.len(), r.runs.len());
    let (md1, _) = render(&r);
    let (md2, page) = render(&back);
    assert_eq!(md1, md2);
    // Lets a person look at the rendering of the sample: SOAPSTONE_LAB_SAMPLE_OUT=dir.
    if let Some(dir) = std::env::var_os("SOAPSTONE_LAB_SAMPLE_OUT") {
        std::fs::write(std::path::Path::new(&dir).join("index.html"), page).unwrap();
    }
}

#[test]
fn this_run_names_the_commit_and_date_and_the_lan_tables_say_what_was_emulated() {
    let mut r = sample();
    r.lan = Some("two network namespaces joined by a veth pair (test)".into());
    for (op, p50) in [("doNothing", 180.0), ("getString/200", 190.0)] {
        r.runs
            .push(run("soapstone", "dp", op, PlacementKind::Lan, p50));
    }
    let mut few = run("tcp-connect", "dp", "doNothing", PlacementKind::Lan, 90.0);
    few.ok = 4;
    r.runs.push(few);
    let (md, page) = render(&r);
    for needle in ["0123456789ab", "1970-01-01 00:00 UTC"] {
        assert!(md.contains(needle), "This run lacks `{needle}`");
        assert!(page.contains(needle), "the page lacks `{needle}`");
    }
    assert!(md.contains("Table II: doNothing(), client and server on separate hosts"));
    assert!(md.contains("Table VI: getIntegers()"));
    // Published separate-host figures beside today's LAN values, with what was emulated.
    assert!(
        md.contains("200.9") && md.contains("180"),
        "Table II lacks its values"
    );
    assert!(md.contains("two network namespaces joined by a veth pair (test)"));
    // The few-call LAN point is flagged in its cell, not printed as a result.
    assert!(md.contains("⚠ 4 calls: 90.0"), "{md}");
    // Without LAN runs, no separate-host table is drawn.
    let (plain, _) = render(&sample());
    assert!(!plain.contains("separate hosts (emulated LAN)"));
}

/// What a reviewer reads in the tables: every today's column of the thesis's per-call table
/// carries its unit, a suspect point is flagged there like everywhere else, and its ratios are
/// written `×N`.
#[test]
fn per_call_means_carry_their_unit_and_their_flags() {
    let mut r = sample();
    let few = r
        .runs
        .iter_mut()
        .find(|x| {
            x.experiment == "thesis"
                && x.operation == "creditControl"
                && x.settings.background.as_deref() == Some("none")
                && x.settings.placement.kind == PlacementKind::SameCpu
        })
        .expect("the sample has a creditControl point");
    few.ok = 4;
    let (md, _) = render(&r);
    let table = md
        .split("**Per call: mean response time under each load**")
        .nth(1)
        .expect("the per-call table");
    let header = table.lines().find(|l| l.starts_with("| call |")).unwrap();
    assert_eq!(
        header,
        "| call | none: mean (µs) | stress: mean (µs) | peak: mean (µs) | traffic: mean (µs) |"
    );
    let row = table
        .lines()
        .find(|l| l.starts_with("| creditControl |"))
        .unwrap();
    assert!(row.contains("| ⚠ 4 calls: "), "{row}");
    assert!(
        !md.contains(" times the unloaded"),
        "a ratio not written ×N"
    );
}

/// No column mixes units: in every table of the report, a column whose header names µs or ms
/// holds no ratio (`×`), and a ratio column (`÷`) holds no µs figure pair. Table 5 once put
/// `41.0 / 18.0 (×2.28)` under `soapstone (µs)`.
#[test]
fn no_column_mixes_a_unit_with_a_ratio() {
    let mut r = with_peers();
    for op in [
        "getContactCount",
        "getContactNames/1000",
        "getContacts/1000",
    ] {
        for (prefix, p50) in [("", 41.0), ("2cpu/", 18.0)] {
            let op = format!("{prefix}{op}");
            r.runs.push(run(
                "soapstone",
                "contacts",
                &op,
                PlacementKind::CrossCpu,
                p50,
            ));
        }
    }
    let (md, _) = render(&r);
    assert!(
        md.contains("| ×2.28 |"),
        "Table 5's ratio, in a column of its own"
    );
    let mut checked = 0;
    for block in md.split("\n\n") {
        let lines: Vec<&str> = block.lines().filter(|l| l.starts_with('|')).collect();
        let Some(header) = lines.first() else {
            continue;
        };
        let cols: Vec<&str> = header.trim_matches('|').split(" | ").collect();
        for row in lines.iter().skip(2) {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
            for (h, c) in cols.iter().zip(&cells) {
                if h.contains("(µs)") || h.contains("(ms)") {
                    checked += 1;
                    assert!(!c.contains('×'), "`{c}` under `{h}` in {header}");
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} cells checked");
    assert!(
        md.contains("soapstone: 1 CPU ÷ 2 CPUs"),
        "Table 5's ratio column"
    );
}
