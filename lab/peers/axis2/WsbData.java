// The data of García et al.'s card, news and shop services (seed 004) for the JVM peers: the
// same rules and answer shapes as soapstone's `/wsb` services (crates/services/src/wsb), with the
// generated headlines and offers drawn from a small deterministic generator of this file (FNV-1a
// seeds, a 64-bit LCG) instead of soapstone's ChaCha8, so the values differ but the sizes, counts
// and ordering rules are the same (the lab's answer check compares those). The Erlang peer
// (lab/peers/erlang/wsb.erl) implements the same generator. Never reads the clock.
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public final class WsbData {
    static final String TODAY = "2008-01";
    static final List<String> CURRENCIES = Arrays.asList("EUR", "USD", "GBP", "SEK", "JPY");
    static final List<String> SOURCES = Arrays.asList("coruna-herald", "atlantic-wire", "galicia-daily",
            "iberian-post", "morning-ledger", "harbor-times", "tech-dispatch", "market-watcher", "science-journal",
            "sports-desk", "world-bulletin", "city-gazette", "evening-courier", "north-star", "river-press",
            "capital-review");
    static final String[] PROVIDERS = {"acme-supply", "bluebird-trading", "cedar-wholesale", "delta-parts",
            "ember-retail", "fjord-goods", "granite-depot", "harbor-outlet", "iris-direct", "juniper-market",
            "kestrel-stores", "lumen-shop"};
    static final String[] WORDS = {"market", "council", "river", "energy", "vote", "storm", "league", "study",
            "harbor", "court", "profit", "plans", "regional", "closes", "grid", "first", "unveils", "drought",
            "union", "trade", "bridge", "treaty", "science", "rail", "season", "election", "tests", "launch",
            "award", "vaccine", "housing", "factory", "coast", "airport", "flood", "merger", "record", "museum",
            "budget", "forecast"};
    static final int MAX_SOURCE_DAYS = 1000;
    static final int MAX_PROPERTIES = 1000;

    /** A refused request: a SOAP Client fault. */
    static final class Bad extends Exception {
        Bad(String m) { super(m); }
    }

    static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** A 64-bit LCG seeded with FNV-1a of a key. */
    static final class Gen {
        long state;
        Gen(String key) { state = fnv(key); }
        int next(int bound) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            return (int) Long.remainderUnsigned(state >>> 33, bound);
        }
    }

    static String sentence(Gen g, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            String w = WORDS[g.next(WORDS.length)];
            if (i == 0) b.append(Character.toUpperCase(w.charAt(0))).append(w, 1, w.length());
            else b.append(' ').append(w);
        }
        return b.toString();
    }

    // ---- card ----
    static boolean luhn(String n) {
        if (n.length() < 12 || n.length() > 19 || !n.chars().allMatch(Character::isDigit)) return false;
        int sum = 0;
        for (int i = 0; i < n.length(); i++) {
            int d = n.charAt(n.length() - 1 - i) - '0';
            if (i % 2 == 1) { d *= 2; if (d > 9) d -= 9; }
            sum += d;
        }
        return sum % 10 == 0;
    }

    static double limit(String account) { return 500.0 + Long.remainderUnsigned(fnv(account), 50) * 100.0; }

    static boolean expiryOk(String e) {
        if (!e.matches("[0-9]{4}-(0[1-9]|1[0-2])")) return false;
        return e.compareTo(TODAY) >= 0;
    }

    static boolean authorize(String account, String holder, String userId, double amount, String currency, String expiry) {
        return luhn(account) && !holder.trim().isEmpty() && !userId.trim().isEmpty() && CURRENCIES.contains(currency)
                && expiryOk(expiry) && Double.isFinite(amount) && amount > 0 && amount <= limit(account);
    }

    // ---- news ----
    static LocalDate date(String field, String v) throws Bad {
        try {
            if (!v.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}")) throw new DateTimeParseException("", v, 0);
            return LocalDate.parse(v);
        } catch (DateTimeParseException e) {
            throw new Bad("`" + field + "` is not a date (YYYY-MM-DD): `" + v + "`");
        }
    }

    /** Headlines as {source, date, title, link, summary}, by source, day, rank. */
    static List<String[]> headlines(String from, String to, List<String> sources) throws Bad {
        LocalDate a = date("from", from), b = date("to", to);
        if (b.isBefore(a)) throw new Bad("`to` (" + to + ") is before `from` (" + from + ")");
        List<String> chosen = sources.isEmpty() ? SOURCES : sources;
        for (String s : chosen) if (!SOURCES.contains(s)) throw new Bad("unknown source `" + s + "`");
        long days = b.toEpochDay() - a.toEpochDay() + 1;
        long selected = days * chosen.size();
        if (selected > MAX_SOURCE_DAYS)
            throw new Bad("query selects `" + selected + "` source-days; at most `" + MAX_SOURCE_DAYS + "`");
        List<String[]> out = new ArrayList<>();
        for (String s : chosen) {
            for (LocalDate d = a; !d.isAfter(b); d = d.plusDays(1)) {
                String date = d.toString();
                Gen g = new Gen(s + "/" + date);
                int count = 8 + g.next(5);
                for (int rank = 0; rank < count; rank++) {
                    String title = sentence(g, 6 + g.next(5));
                    String summary = sentence(g, 25 + g.next(16)) + ".";
                    out.add(new String[] {s, date, title, "http://news.example.org/" + s + "/" + date + "/" + rank, summary});
                }
            }
        }
        return out;
    }

    // ---- shop ----
    /** Offers as {provider, productKey, price, currency, stock, deliveryDays, validUntil, matched}, cheapest first. */
    static List<Object[]> offers(String productKey, List<String[]> properties, String expires) throws Bad {
        String key = productKey.trim();
        if (key.isEmpty()) throw new Bad("`productKey` is empty");
        if (properties.size() > MAX_PROPERTIES)
            throw new Bad("`" + properties.size() + "` properties; at most `" + MAX_PROPERTIES + "`");
        LocalDate exp = date("expires", expires);
        LocalDate epoch = LocalDate.of(2008, 1, 1);
        double base = 10.0 + Long.remainderUnsigned(fnv(key), 99000) / 100.0;
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < PROVIDERS.length; i++) {
            Gen g = new Gen(PROVIDERS[i] + "/" + key);
            if (g.next(10) >= 7) continue;
            LocalDate valid = epoch.plusDays(g.next(730));
            double price = Math.round(base * (85 + g.next(31)) ) / 100.0;
            int stock = g.next(500);
            int delivery = 1 + g.next(14);
            if (valid.isBefore(exp)) continue;
            int matched = 0;
            for (String[] p : properties) if (new Gen(PROVIDERS[i] + "/" + p[0] + "=" + p[1]).next(10) < 8) matched++;
            out.add(new Object[] {PROVIDERS[i], key, price, "EUR", stock, delivery, valid.toString(), matched});
        }
        out.sort((x, y) -> {
            int c = Double.compare((Double) x[2], (Double) y[2]);
            return c != 0 ? c : ((String) x[0]).compareTo((String) y[0]);
        });
        return out;
    }

    private WsbData() {}
}
