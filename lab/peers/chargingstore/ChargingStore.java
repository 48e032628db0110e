// The thesis's charging system (Elfwing & Paulsson 2002, appendix B) for the JVM peers (JacORB,
// Axis 1.4): the store behind creditControl, credit and directDebit, one SQLite file through
// sqlite-jdbc in WAL mode with synchronous=FULL, as `soapstone serve --services charging` keeps
// it, one commit per write, so a peer's answer is durable when sent like soapstone's. One
// connection used under a lock: the peers serve with several threads, and SQLite takes one
// writer at a time anyway. Java 8 source (Axis 1.4 reads class files up to Java 8).
//
// The accounts a fresh store starts with: ids 1..=10000, balances 10,000 + (id * 7919) mod
// 990,001 (the same rule in the omniORB peer; no answer check depends on soapstone's balances).
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

public final class ChargingStore {
    /** A refused call, with the reason the peer puts into its fault. */
    public static final class Refused extends Exception {
        public Refused(String reason) { super(reason); }
    }

    static final int ACCOUNTS = 10000;
    private static ChargingStore shared;

    private final Connection db;
    private final PreparedStatement balance, update, ledger;

    /** The store of `-Dcharging.db=PATH`, opened once per JVM; null when the property is unset. */
    public static synchronized ChargingStore fromProperty() throws Refused {
        if (shared == null) {
            String path = System.getProperty("charging.db");
            if (path == null || path.isEmpty()) return null;
            shared = new ChargingStore(path);
        }
        return shared;
    }

    public ChargingStore(String path) throws Refused {
        try {
            db = DriverManager.getConnection("jdbc:sqlite:" + path);
            try (Statement s = db.createStatement()) {
                s.execute("PRAGMA journal_mode = WAL");
                s.execute("PRAGMA synchronous = FULL");
                s.execute("PRAGMA busy_timeout = 5000");
                s.execute("CREATE TABLE IF NOT EXISTS accounts (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0))");
                s.execute("CREATE TABLE IF NOT EXISTS transactions (cn INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
                        + " account INTEGER NOT NULL, amount INTEGER NOT NULL)");
                ResultSet n = s.executeQuery("SELECT count(*) FROM accounts");
                n.next();
                if (n.getInt(1) == 0) {
                    db.setAutoCommit(false);
                    try (PreparedStatement ins = db.prepareStatement("INSERT INTO accounts (id, balance) VALUES (?, ?)")) {
                        for (int id = 1; id <= ACCOUNTS; id++) {
                            ins.setInt(1, id);
                            ins.setLong(2, 10000 + ((long) id * 7919) % 990001);
                            ins.addBatch();
                        }
                        ins.executeBatch();
                    }
                    db.commit();
                }
            }
            db.setAutoCommit(false);
            balance = db.prepareStatement("SELECT balance FROM accounts WHERE id = ?");
            update = db.prepareStatement("UPDATE accounts SET balance = ? WHERE id = ?");
            ledger = db.prepareStatement("INSERT INTO transactions (kind, account, amount) VALUES (?, ?, ?)");
        } catch (SQLException e) {
            throw new Refused("cannot open the store `" + path + "`: " + e.getMessage());
        }
    }

    private long read(int id) throws SQLException, Refused {
        balance.setInt(1, id);
        try (ResultSet r = balance.executeQuery()) {
            if (!r.next()) throw new Refused("unknown account `" + id + "`");
            return r.getLong(1);
        }
    }

    /** The balance of account `id`. */
    public synchronized int creditControl(int id) throws Refused {
        try {
            long b = read(id);
            db.commit();
            return (int) b;
        } catch (SQLException e) {
            throw new Refused("store: " + e.getMessage());
        }
    }

    public int credit(int id, int am) throws Refused { return move("credit", id, am, 1); }

    public int directDebit(int id, int am) throws Refused { return move("directDebit", id, am, -1); }

    /** One transaction: read, check, update, append the ledger entry, commit (durable). */
    private synchronized int move(String kind, int id, int am, int sign) throws Refused {
        if (am <= 0) throw new Refused("amount `" + am + "` is not positive");
        try {
            try {
                long before = read(id);
                long next = before + (long) sign * am;
                if (next < 0) throw new Refused("balance `" + before + "` is less than `" + am + "`");
                if (next > Integer.MAX_VALUE) throw new Refused("balance would pass `2147483647`");
                update.setLong(1, next);
                update.setInt(2, id);
                update.executeUpdate();
                ledger.setString(1, kind);
                ledger.setInt(2, id);
                ledger.setInt(3, am);
                ledger.executeUpdate();
                int cn;
                try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT last_insert_rowid()")) {
                    r.next();
                    cn = r.getInt(1);
                }
                db.commit();
                return cn;
            } catch (Refused | SQLException e) {
                db.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new Refused("store: " + e.getMessage());
        }
    }
}
