//! The original figures of the five seed studies, kept as data so the report can print them
//! beside today's numbers.
//!
//! Every value here was copied by hand from the seed texts in `shared/seeds/` and each table
//! names its source (study, table or figure number). This module holds *only* published figures:
//! it must never contain a number measured by soapstone, and nothing here may be used to fill a
//! "today" cell of the report.

/// One published table (or figure of numbers) from a seed study.
#[derive(Debug, Clone, Copy)]
pub struct SeedTable {
    /// Short machine id used by the report (`dp-1`, `thesis-2`, ...).
    pub id: &'static str,
    /// The citation: study and table number, as printed in the report.
    pub source: &'static str,
    /// What the table measured, in the study's words.
    pub title: &'static str,
    /// Unit of every value in [`SeedTable::rows`].
    pub unit: &'static str,
    /// Column headers for the values (one per value of each row).
    pub columns: &'static [&'static str],
    /// The rows as published.
    pub rows: &'static [SeedRow],
}

/// One published row: a system (or metric) and its values, one per column.
#[derive(Debug, Clone, Copy)]
pub struct SeedRow {
    /// System, implementation or metric name as printed in the study.
    pub label: &'static str,
    /// The values in the table's columns, in the table's unit.
    pub values: &'static [f64],
}

impl SeedTable {
    /// The value of row `label` in column `column`, if both exist.
    pub fn value(&self, label: &str, column: usize) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.label == label)
            .and_then(|r| r.values.get(column).copied())
    }
}

const fn row(label: &'static str, values: &'static [f64]) -> SeedRow {
    SeedRow { label, values }
}

/// Davis and Parashar 2002 (seed 001), Table I: `doNothing()`, client and server on the same host.
pub const DP_TABLE_I: SeedTable = SeedTable {
    id: "dp-1",
    source: "Davis & Parashar 2002, Table I",
    title: "doNothing() with server and client on same host",
    unit: "ms",
    columns: &["latency"],
    rows: &[
        row("JavaRMI", &[1.2]),
        row("CORBA", &[1.5]),
        row("MS SOAP Toolkit", &[16.8]),
        row("SoapRMI", &[19.5]),
        row("SOAP::Lite", &[42.0]),
        row("Apache SOAP", &[23.4]),
        row("Apache Axis", &[15.6]),
        row("TCP setup time", &[1.9]),
        row("HTTP to Tomcat", &[3.4]),
        row("HTTP to IIS", &[1.1]),
    ],
};

/// Davis and Parashar 2002 (seed 001), Table III: `getString()`, same host. (The seed text lost
/// this table's caption; it sits between Tables II and IV and the text calls it Table III.)
pub const DP_TABLE_III: SeedTable = SeedTable {
    id: "dp-3",
    source: "Davis & Parashar 2002, Table III",
    title: "getString() with server and client on same host",
    unit: "ms",
    columns: &["char[200]", "char[400]", "char[800]"],
    rows: &[
        row("JavaRMI", &[1.3, 1.2, 1.3]),
        row("CORBA", &[1.5, 1.5, 1.6]),
        row("MS SOAP Toolkit", &[16.6, 23.7, 34.8]),
        row("SoapRMI", &[19.3, 19.6, 19.9]),
        row("SOAP::Lite", &[42.4, 42.3, 42.6]),
        row("Apache SOAP", &[22.8, 24.2, 25.1]),
        row("Apache Axis", &[17.1, 19.0, 19.6]),
    ],
};

/// Davis and Parashar 2002 (seed 001), Table V: `getIntegers()`, same host († = XML node lists).
pub const DP_TABLE_V: SeedTable = SeedTable {
    id: "dp-5",
    source: "Davis & Parashar 2002, Table V",
    title: "getIntegers() with client and server on same host",
    unit: "ms",
    columns: &["int[200]", "int[400]", "int[800]"],
    rows: &[
        row("JavaRMI", &[1.5, 1.6, 1.8]),
        row("CORBA", &[1.5, 1.9, 2.0]),
        row("MS SOAP Toolkit †", &[28.1, 44.8, 76.7]),
        row("SoapRMI", &[22.2, 24.4, 31.5]),
        row("SOAP::Lite", &[229.6, 493.6, 1810.6]),
        row("Apache SOAP", &[65.8, 117.3, 190.7]),
        row("Apache SOAP †", &[54.1, 73.2, 119.0]),
        row("Apache Axis", &[73.2, 150.2, 229.4]),
    ],
};

/// Davis and Parashar 2002 (seed 001), Table II: `doNothing()`, client and server on separate
/// hosts (100 Mbit/s Ethernet).
pub const DP_TABLE_II: SeedTable = SeedTable {
    id: "dp-2",
    source: "Davis & Parashar 2002, Table II",
    title: "doNothing() with separate client and server",
    unit: "ms",
    columns: &["latency"],
    rows: &[
        row("JavaRMI", &[0.8]),
        row("CORBA", &[1.3]),
        row("MS SOAP Toolkit", &[200.9]),
        row("SoapRMI", &[37.7]),
        row("SOAP::Lite", &[200.1]),
        row("Apache SOAP", &[205.9]),
        row("Apache Axis", &[13.1]),
        row("TCP setup time", &[1.2]),
        row("HTTP to Tomcat", &[2.6]),
        row("HTTP to IIS", &[1.5]),
    ],
};

/// Davis and Parashar 2002 (seed 001), Table IV: `getString()`, separate hosts.
pub const DP_TABLE_IV: SeedTable = SeedTable {
    id: "dp-4",
    source: "Davis & Parashar 2002, Table IV",
    title: "getString() with separate client and server",
    unit: "ms",
    columns: &["char[200]", "char[400]", "char[800]"],
    rows: &[
        row("JavaRMI", &[1.2, 1.6, 2.3]),
        row("CORBA", &[1.7, 2.1, 2.7]),
        row("MS SOAP Toolkit", &[200.2, 200.3, 200.3]),
        row("SoapRMI", &[44.1, 41.4, 41.6]),
        row("SOAP::Lite", &[200.2, 200.3, 200.3]),
        row("Apache SOAP", &[209.9, 213.8, 237.4]),
        row("Apache Axis", &[14.3, 14.7, 15.6]),
    ],
};

/// Davis and Parashar 2002 (seed 001), Table VI: `getIntegers()`, separate hosts († = XML node
/// lists).
pub const DP_TABLE_VI: SeedTable = SeedTable {
    id: "dp-6",
    source: "Davis & Parashar 2002, Table VI",
    title: "getIntegers() with separate client and server",
    unit: "ms",
    columns: &["int[200]", "int[400]", "int[800]"],
    rows: &[
        row("JavaRMI", &[2.3, 3.2, 4.7]),
        row("CORBA", &[2.7, 4.0, 5.5]),
        row("MS SOAP Toolkit †", &[33.3, 55.8, 104.1]),
        row("SoapRMI", &[75.0, 73.0, 108.6]),
        row("SOAP::Lite", &[400.3, 600.8, 1120.1]),
        row("Apache SOAP", &[310.3, 380.5, 561.7]),
        row("Apache SOAP †", &[293.7, 285.0, 449.2]),
        row("Apache Axis", &[76.9, 138.6, 243.7]),
    ],
};

/// Elfwing and Paulsson 2002 (seed 000), Table 1: CORBA response time per call under load.
/// Columns: average and standard deviation.
pub const THESIS_TABLE_1: SeedTable = SeedTable {
    id: "thesis-1",
    source: "Elfwing & Paulsson 2002, Table 1",
    title: "CORBA response time results",
    unit: "ms",
    columns: &["average", "std"],
    rows: &[
        row("None", &[1.63, 0.17]),
        row("Stress", &[3.15, 0.22]),
        row("Peak", &[1.70, 0.26]),
        row("Traffic", &[2.83, 0.32]),
    ],
};

/// Elfwing and Paulsson 2002 (seed 000), Table 2: SOAP (Apache Axis beta 1) response time per
/// call under load. Columns: average and standard deviation.
#[allow(clippy::approx_constant)] // 3.14 is the thesis's standard deviation, not π
pub const THESIS_TABLE_2: SeedTable = SeedTable {
    id: "thesis-2",
    source: "Elfwing & Paulsson 2002, Table 2",
    title: "SOAP response time results",
    unit: "ms",
    columns: &["average", "std"],
    rows: &[
        row("None", &[679.2, 3.14]),
        row("Stress", &[749.2, 12.0]),
        row("Peak", &[711.9, 12.7]),
        row("Traffic", &[754.7, 11.5]),
    ],
};

/// Elfwing and Paulsson 2002 (seed 000), Table 3: parse times of the appendix C SOAP calls.
pub const THESIS_TABLE_3: SeedTable = SeedTable {
    id: "thesis-3",
    source: "Elfwing & Paulsson 2002, Table 3",
    title: "Parse times for different parser implementations",
    unit: "ms",
    columns: &["average", "std"],
    rows: &[
        row("Xerces DOM", &[50.01, 0.64]),
        row("Xerces SAX", &[18.72, 1.40]),
        row("Crimson DOM", &[4.34, 0.44]),
        row("Crimson SAX", &[3.36, 0.22]),
    ],
};

/// Elfwing and Paulsson 2002 (seed 000), Table 4 (section 6.5, p. 6 of the thesis by its table
/// of contents): the packets of one SOAP call to Axis beta 1 on Tomcat over HTTP/1.0, each
/// packet's mean inter-arrival time (since the previous packet) and its standard deviation.
/// Packets 5-8 are the response head, the client's delayed ACK, the body Nagle held, and the
/// second delayed ACK; packet 9 is the server's FIN the client read until.
pub const THESIS_TABLE_4: SeedTable = SeedTable {
    id: "thesis-4",
    source: "Elfwing & Paulsson 2002, Table 4 (section 6.5, p. 6)",
    title: "Axis Beta 1, packet inter-arrival times",
    unit: "ms",
    columns: &["average", "std"],
    rows: &[
        row("1. TCP SYN", &[0.0, 0.0]),
        row("2. TCP SYN/ACK", &[0.2, 0.02]),
        row("3. TCP ACK", &[0.06, 0.004]),
        row("4. HTTP", &[3.4, 3.6]),
        row("5. HTTP", &[36.2, 16.0]),
        row("6. TCP ACK", &[152.7, 27.7]),
        row("7. HTTP", &[0.36, 0.03]),
        row("8. TCP ACK", &[199.9, 0.04]),
        row("9. TCP FIN/ACK", &[339.7, 153.2]),
        row("10. TCP ACK", &[0.1, 0.01]),
        row("11. TCP FIN/ACK", &[0.3, 0.02]),
        row("12. TCP ACK", &[0.8, 0.3]),
    ],
};

/// The sum the thesis prints under Table 4, in ms.
pub const THESIS_TABLE_4_SUM_MS: f64 = 733.5;

/// Elfwing and Paulsson 2002 (seed 000), Table 5 (section 6.6.1, p. 7): the same call with the
/// client that parses `Content-Length` and closes the socket itself: the call ends at packet 7
/// (the bold line, sum 199.6 ms); packets 8-11 are the close.
pub const THESIS_TABLE_5: SeedTable = SeedTable {
    id: "thesis-5",
    source: "Elfwing & Paulsson 2002, Table 5 (section 6.6.1, p. 7)",
    title: "TCP packets' inter-arrival times, client close socket implementation",
    unit: "ms",
    columns: &["average", "std"],
    rows: &[
        row("1. TCP SYN", &[0.0, 0.0]),
        row("2. TCP SYN/ACK", &[0.3, 0.018]),
        row("3. TCP ACK", &[0.1, 0.003]),
        row("4. HTTP", &[1.4, 1.1]),
        row("5. HTTP", &[16.6, 3.4]),
        row("6. TCP ACK", &[180.9, 4.8]),
        row("7. HTTP", &[0.3, 0.01]),
        row("8. TCP FIN/ACK", &[1.5, 2.9]),
        row("9. TCP ACK", &[0.2, 0.008]),
        row("10. TCP FIN/ACK", &[143.0, 6.2]),
        row("11. TCP ACK", &[0.1, 0.008]),
    ],
};

/// The sums the thesis prints in Table 5, in ms: to the bold line (the client has its answer)
/// and to the last packet.
pub const THESIS_TABLE_5_SUMS_MS: [f64; 2] = [199.6, 344.4];

/// Sam Ruby 2001 (seed 002): echoFloat messages per second, one client, each request fully
/// processed before the next. Columns: messages per second and microseconds per message.
pub const RUBY_ECHO: SeedTable = SeedTable {
    id: "ruby",
    source: "Ruby 2001, \"Timings for processing of small messages\"",
    title: "echoFloat round trips, one client, request fully processed before the next",
    unit: "msg/s | µs/msg",
    columns: &["messages per second", "µs per message"],
    rows: &[
        row("Apache xml-soap", &[50.8, 19_685.0]),
        row("Apache xml-axis", &[93.7, 10_672.0]),
    ],
};

/// Sam Ruby 2001 (seed 002), "Overall results": the fixed overhead per message he computed for
/// each stack (xml-axis's "includes wait time for the client") and what is left of the
/// message's time once it is subtracted. Columns: fixed overhead and the rest, in µs.
pub const RUBY_FIXED: SeedTable = SeedTable {
    id: "ruby-fixed",
    source: "Ruby 2001, \"Overall results\"",
    title: "Fixed overhead per echoFloat message, and the rest",
    unit: "µs",
    columns: &["fixed overhead", "rest of the message"],
    rows: &[
        row("Apache xml-soap", &[5_533.0, 10_604.0]),
        row("Apache xml-axis", &[3_548.0, 1_591.0]),
    ],
};

/// Sam Ruby 2001 (seed 002): parser overhead per small message (DOM, SAX, native).
pub const RUBY_PARSERS: SeedTable = SeedTable {
    id: "ruby-parse",
    source: "Ruby 2001, \"Parser overhead\"",
    title: "Parse overhead per echoFloat message in a web server",
    unit: "µs",
    columns: &["per message"],
    rows: &[
        row("Xerces 1 DOM", &[5533.0]),
        row("JDOM", &[5224.0]),
        row("Crimson DOM", &[1789.0]),
        row("Xerces 2 DOM", &[801.0]),
        row("Xerces 1 SAX", &[3050.0]),
        row("Crimson SAX", &[1583.0]),
        row("Xerces 2 SAX", &[690.0]),
        row("Xerces 2 native", &[621.0]),
        row("Xerces 2 native, non-validating", &[531.0]),
    ],
};

/// Zilora and Ketha 2007 (seed 003), Tables 3a-3c: one 2-d array call vs successive small calls.
/// Columns: Java 2-d, Java 1-d, C# 2-d, C# 1-d, PHP 2-d, PHP 1-d; rows: number of contacts.
pub const ZK_TABLE_3: SeedTable = SeedTable {
    id: "zk-3",
    source: "Zilora & Ketha 2007, Tables 3a-3c",
    title: "Response time for return data type and message size combinations",
    unit: "ms",
    columns: &[
        "Java 2-d array",
        "Java 1-d arrays",
        "C# 2-d array",
        "C# 1-d arrays",
        "PHP 2-d array",
        "PHP 1-d arrays",
    ],
    rows: &[
        row("1", &[16.0, 16.0, 16.0, 16.0, 7.0, 7.0]),
        row("10", &[16.0, 62.0, 16.0, 31.0, 16.0, 156.0]),
        row("100", &[16.0, 531.0, 16.0, 250.0, 18.0, 1562.0]),
        row("1000", &[47.0, 3140.0, 31.0, 1859.0, 36.0, 15624.0]),
    ],
};

/// Zilora and Ketha 2007 (seed 003), Tables 4a and 4b (the second printed as "4a" too): Service 1
/// against the Sun Application Server (Java service) and IIS (C# service), by client language.
/// Columns: Sun Java, Sun C#, Sun PHP, IIS Java, IIS C#, IIS PHP; rows: number of contacts.
pub const ZK_TABLE_4: SeedTable = SeedTable {
    id: "zk-4",
    source: "Zilora & Ketha 2007, Tables 4a/4b",
    title: "Response time for client language and message size, Sun server and IIS server",
    unit: "ms",
    columns: &[
        "Sun Java", "Sun C#", "Sun PHP", "IIS Java", "IIS C#", "IIS PHP",
    ],
    rows: &[
        row("1", &[15.0, 16.0, 15.0, 94.0, 94.0, 96.0]),
        row("10", &[16.0, 16.0, 16.0, 94.0, 94.0, 96.0]),
        row("100", &[16.0, 16.0, 16.0, 94.0, 109.0, 96.0]),
        row("1000", &[16.0, 16.0, 24.0, 109.0, 141.0, 104.0]),
    ],
};

/// Zilora and Ketha 2007 (seed 003), Table 5: the Java client against each application server on
/// a high-end and a low-end machine. Columns: Sun High, Sun Low, IIS High, IIS Low; rows: the
/// returned data type.
pub const ZK_TABLE_5: SeedTable = SeedTable {
    id: "zk-5",
    source: "Zilora & Ketha 2007, Table 5",
    title: "Response time by application server, physical server and data type",
    unit: "ms",
    columns: &["Sun High", "Sun Low", "IIS High", "IIS Low"],
    rows: &[
        row("Scalar", &[7.0, 9.0, 98.0, 292.0]),
        row("1-d array", &[186.0, 190.0, 265.0, 468.0]),
        row("2-d array", &[466.0, 516.0, 565.0, 751.0]),
    ],
};

/// Column order of the García et al. tables: (service, server) pairs.
pub const GARCIA_COLUMNS: &[&str] = &[
    "shop Erlang",
    "shop Axis2",
    "card Erlang",
    "card Axis2",
    "news Erlang",
    "news Axis2",
];

/// García et al. 2008 (seed 004), Fig. 6: test1 results (OsService = shop, CardService = card,
/// NewsService = news).
pub const GARCIA_FIG_6: SeedTable = SeedTable {
    id: "garcia-6",
    source: "García et al. 2008, Fig. 6",
    title: "Test 1 results",
    unit: "as labelled",
    columns: GARCIA_COLUMNS,
    rows: &[
        row(
            "http-200 (highest rate, /s)",
            &[165.2, 230.0, 229.2, 234.4, 32.4, 234.1],
        ),
        row(
            "http-200 (total)",
            &[39987.0, 37479.0, 37818.0, 38061.0, 11910.0, 38973.0],
        ),
        row("errors (timeout)", &[70.0, 0.0, 0.0, 0.0, 28410.0, 0.0]),
        row(
            "size sent (MB)",
            &[273.62, 256.85, 26.76, 27.30, 18.76, 57.24],
        ),
        row(
            "size received (MB)",
            &[27.11, 22.77, 13.74, 11.36, 327.46, 1078.15],
        ),
    ],
};

/// García et al. 2008 (seed 004), Fig. 11: test2 results (decimal commas of the seed read as
/// points).
pub const GARCIA_FIG_11: SeedTable = SeedTable {
    id: "garcia-11",
    source: "García et al. 2008, Fig. 11",
    title: "Test 2 results",
    unit: "as labelled",
    columns: GARCIA_COLUMNS,
    rows: &[
        row(
            "http-200 (highest rate, /s)",
            &[166.5, 315.9, 689.5, 486.3, 30.1, 236.0],
        ),
        row(
            "http-200 (total)",
            &[63371.0, 78699.0, 72518.0, 79378.0, 17135.0, 76970.0],
        ),
        row(
            "errors (timeout)",
            &[18000.0, 800.0, 0.0, 0.0, 62000.0, 3375.0],
        ),
        row(
            "size sent (MB)",
            &[437.07, 539.33, 51.22, 56.93, 27.28, 113.04],
        ),
        row(
            "size received (MB)",
            &[42.97, 53.59, 26.35, 27.98, 471.62, 2130.30],
        ),
    ],
};

/// Every seed table the lab redraws, in report order.
pub const ALL: &[&SeedTable] = &[
    &DP_TABLE_I,
    &DP_TABLE_II,
    &DP_TABLE_III,
    &DP_TABLE_IV,
    &DP_TABLE_V,
    &DP_TABLE_VI,
    &THESIS_TABLE_1,
    &THESIS_TABLE_2,
    &RUBY_ECHO,
    &ZK_TABLE_3,
    &ZK_TABLE_4,
    &ZK_TABLE_5,
    &GARCIA_FIG_6,
    &GARCIA_FIG_11,
    &THESIS_TABLE_3,
    &RUBY_PARSERS,
    &THESIS_TABLE_4,
    &THESIS_TABLE_5,
    &RUBY_FIXED,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_one_value_per_column() {
        for table in ALL {
            for row in table.rows {
                assert_eq!(
                    row.values.len(),
                    table.columns.len(),
                    "{} row `{}`",
                    table.id,
                    row.label
                );
            }
        }
    }

    #[test]
    fn ids_are_unique() {
        let mut ids: Vec<_> = ALL.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), ALL.len());
    }

    #[test]
    fn figures_appear_in_the_seed_texts() {
        // Each published figure must be findable in the seed text it cites (spot checks of the
        // transcription, one per table; the seeds print them with a decimal point or comma).
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/seeds");
        let Ok(entries) = std::fs::read_dir(dir) else {
            eprintln!("SKIPPED: the seed texts are not beside the repository ({dir})");
            return;
        };
        let mut all = String::new();
        for e in entries.flatten() {
            all.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
        for needle in [
            "1810.6", "229.4", "679.2", "754.7", "50.01", "3.36", "19,685", "15624", "3140",
            "1078.15", "2130,30", "689,5", "339.7", "152.7", "180.9", "143.0", "733.5", "344.4",
            "10,604",
        ] {
            assert!(all.contains(needle), "`{needle}` not in the seed texts");
        }
    }
}
