// The charging servant of the omniORB peer (see charging_store.hh).
#include "charging_store.hh"

#include <climits>
#include <stdexcept>

namespace {

const char* SCHEMA =
    "PRAGMA journal_mode = WAL;"
    "PRAGMA synchronous = FULL;"
    "PRAGMA busy_timeout = 5000;"
    "CREATE TABLE IF NOT EXISTS accounts (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0));"
    "CREATE TABLE IF NOT EXISTS transactions (cn INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
    " account INTEGER NOT NULL, amount INTEGER NOT NULL);";

// The accounts a fresh store starts with: ids 1..=10000, balances 10,000 + (id * 7919) mod
// 990,001 (the same rule in every peer; not soapstone's random balances, which no answer check
// depends on).
const int ACCOUNTS = 10000;

[[noreturn]] void fault(const std::string& reason) { throw thesis::ChargingFault(reason.c_str()); }

struct Stmt {
  sqlite3_stmt* s = nullptr;
  Stmt(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK)
      fault(std::string("store: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(s); }
};

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "?";
    sqlite3_free(err);
    fault("store: " + m);
  }
}

}  // namespace

ChargingImpl::ChargingImpl(const std::string& path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK)
    throw std::runtime_error("cannot open `" + path + "`: " + sqlite3_errmsg(db_));
  try {
    exec(db_, SCHEMA);
    Stmt count(db_, "SELECT count(*) FROM accounts");
    sqlite3_step(count.s);
    if (sqlite3_column_int(count.s, 0) == 0) {
      exec(db_, "BEGIN");
      Stmt ins(db_, "INSERT INTO accounts (id, balance) VALUES (?1, ?2)");
      for (int id = 1; id <= ACCOUNTS; ++id) {
        sqlite3_bind_int(ins.s, 1, id);
        sqlite3_bind_int64(ins.s, 2, 10000 + (static_cast<long long>(id) * 7919) % 990001);
        sqlite3_step(ins.s);
        sqlite3_reset(ins.s);
      }
      exec(db_, "COMMIT");
    }
  } catch (thesis::ChargingFault& f) {
    throw std::runtime_error(std::string(f.reason.in()));
  }
}

ChargingImpl::~ChargingImpl() { sqlite3_close(db_); }

CORBA::Long ChargingImpl::creditControl(CORBA::Long id) {
  std::lock_guard<std::mutex> g(lock_);
  Stmt q(db_, "SELECT balance FROM accounts WHERE id = ?1");
  sqlite3_bind_int(q.s, 1, id);
  int rc = sqlite3_step(q.s);
  if (rc == SQLITE_DONE) fault("unknown account `" + std::to_string(id) + "`");
  if (rc != SQLITE_ROW) fault(std::string("store: ") + sqlite3_errmsg(db_));
  return static_cast<CORBA::Long>(sqlite3_column_int64(q.s, 0));
}

CORBA::Long ChargingImpl::credit(CORBA::Long id, CORBA::Long am) { return move("credit", id, am, 1); }

CORBA::Long ChargingImpl::directDebit(CORBA::Long id, CORBA::Long am) {
  return move("directDebit", id, am, -1);
}

// One transaction: read the balance, check it, update it, append the ledger entry, commit
// (durable before the answer).
CORBA::Long ChargingImpl::move(const char* kind, CORBA::Long id, CORBA::Long am, long long sign) {
  if (am <= 0) fault("amount `" + std::to_string(am) + "` is not positive");
  std::lock_guard<std::mutex> g(lock_);
  exec(db_, "BEGIN IMMEDIATE");
  try {
    long long balance;
    {
      Stmt q(db_, "SELECT balance FROM accounts WHERE id = ?1");
      sqlite3_bind_int(q.s, 1, id);
      if (sqlite3_step(q.s) != SQLITE_ROW) fault("unknown account `" + std::to_string(id) + "`");
      balance = sqlite3_column_int64(q.s, 0);
    }
    long long next = balance + sign * am;
    if (next < 0) fault("balance `" + std::to_string(balance) + "` is less than `" + std::to_string(am) + "`");
    if (next > INT_MAX) fault("balance would pass `2147483647`");
    {
      Stmt u(db_, "UPDATE accounts SET balance = ?2 WHERE id = ?1");
      sqlite3_bind_int(u.s, 1, id);
      sqlite3_bind_int64(u.s, 2, next);
      if (sqlite3_step(u.s) != SQLITE_DONE) fault(std::string("store: ") + sqlite3_errmsg(db_));
    }
    {
      Stmt t(db_, "INSERT INTO transactions (kind, account, amount) VALUES (?1, ?2, ?3)");
      sqlite3_bind_text(t.s, 1, kind, -1, SQLITE_STATIC);
      sqlite3_bind_int(t.s, 2, id);
      sqlite3_bind_int(t.s, 3, am);
      if (sqlite3_step(t.s) != SQLITE_DONE) fault(std::string("store: ") + sqlite3_errmsg(db_));
    }
    CORBA::Long cn = static_cast<CORBA::Long>(sqlite3_last_insert_rowid(db_));
    exec(db_, "COMMIT");
    return cn;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}
