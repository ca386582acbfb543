import Foundation
import GRDB
import PatchbayValues
import Synchronization

/// The history database (SQLite in WAL mode, through GRDB): one row per value, numbers in `num`
/// and anything else as JSON text, ports interned in a table of their own. One writer (the
/// recorder's thread) and any number of readers (the API, `patchbay history`).
public final class HistoryStore: Sendable {
  public let path: String
  private let database: any DatabaseReader
  /// Port ids by address, for the writer.
  private let portIDs = Mutex<[String: Int64]>([:])

  /// Opens (creating) the database for writing.
  public init(writingAt path: String) throws {
    self.path = path
    var configuration = Configuration()
    configuration.label = "patchbay-history"
    // History may lose its last moments in a power cut, but a commit costs no fsync (WAL).
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try DatabasePool(path: path, configuration: configuration)
    // Freed pages go back to the file system (retention, the size cap): set before the tables exist.
    try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
    try pool.write { db in try Self.createSchema(db) }
    database = pool
  }

  /// Opens an existing database read-only (`patchbay history`, with or without patchbay-web running).
  public init(readingAt path: String) throws {
    self.path = path
    var configuration = Configuration()
    configuration.readonly = true
    configuration.label = "patchbay-history-reader"
    database = try DatabaseQueue(path: path, configuration: configuration)
  }

  private var writer: any DatabaseWriter {
    // Only the writing init stores a pool.
    database as! DatabasePool
  }

  static func createSchema(_ db: Database) throws {
    try db.execute(
      sql: """
        CREATE TABLE IF NOT EXISTS ports(id INTEGER PRIMARY KEY, address TEXT NOT NULL UNIQUE);
        CREATE TABLE IF NOT EXISTS samples(
          port INTEGER NOT NULL, t REAL NOT NULL, num REAL, json TEXT, min REAL, max REAL);
        CREATE INDEX IF NOT EXISTS samples_by_port ON samples(port, t);
        CREATE INDEX IF NOT EXISTS samples_by_time ON samples(t);
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value REAL NOT NULL);
        """)
  }

  /// Writes the samples in one transaction: all or none.
  public func write(_ samples: [HistorySample]) throws {
    guard !samples.isEmpty else { return }
    try writer.write { db in
      let insert = try db.cachedStatement(sql: "INSERT INTO samples(port, t, num, json) VALUES (?, ?, ?, ?)")
      for sample in samples {
        let port = try portID(sample.port, db)
        switch sample.value {
        case .integer(let number): try insert.execute(arguments: [port, sample.time, Double(number), nil])
        case .number(let number): try insert.execute(arguments: [port, sample.time, number, nil])
        default: try insert.execute(arguments: [port, sample.time, nil, sample.value.description])
        }
      }
    }
  }

  private func portID(_ address: String, _ db: Database) throws -> Int64 {
    if let known = portIDs.withLock({ $0[address] }) { return known }
    try db.execute(sql: "INSERT OR IGNORE INTO ports(address) VALUES (?)", arguments: [address])
    guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM ports WHERE address = ?", arguments: [address]) else {
      throw DatabaseError(message: "port \(address) was not stored")
    }
    // Cached only once committed: a rolled-back transaction (disk full) leaves no stale id.
    db.afterNextTransaction { _ in self.portIDs.withLock { $0[address] = id } }
    return id
  }

  /// The port's points from `since` (unix seconds) on, oldest first.
  public func points(port: String, since: Double) throws -> [HistoryPoint] {
    try database.read { db in
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT t, num, json, min, max FROM samples
          WHERE port = (SELECT id FROM ports WHERE address = ?) AND t >= ? ORDER BY t, rowid
          """, arguments: [port, since])
      return rows.map { row in
        let t: Double = row["t"]
        if let number: Double = row["num"] {
          return HistoryPoint(t: t, value: .number(number), min: row["min"], max: row["max"])
        }
        let text: String = row["json"] ?? "null"
        return HistoryPoint(t: t, value: JSONValue.parse(text) ?? .string(text))
      }
    }
  }

  /// Whether the port has ever been recorded.
  public func knows(port: String) throws -> Bool {
    try database.read { db in
      try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM ports WHERE address = ?)", arguments: [port]) ?? false
    }
  }

  public func count() throws -> Int {
    try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM samples") ?? 0 }
  }

  /// Bytes on disk: the database file and its write-ahead log.
  public var bytes: Int {
    [path, path + "-wal"].reduce(0) { total, file in
      total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
    }
  }

  /// Applies retention, downsampling and the size cap as of `now`.
  public func maintain(now: Double, policy: HistoryPolicy) throws {
    try writer.write { db in
      try db.execute(sql: "DELETE FROM samples WHERE t < ?", arguments: [now - policy.retentionSeconds])
      try downsample(db, before: ((now - policy.rawSeconds) / 60).rounded(.down) * 60)
    }
    try applySizeCap(policy.maximumBytes)
  }

  /// Whole minutes before `cutoff` not yet downsampled: numbers become a mean with min and max,
  /// other values keep only the rows that differ from the one before.
  private func downsample(_ db: Database, before cutoff: Double) throws {
    let from = try Double.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'downsampled_until'") ?? 0
    guard cutoff > from else { return }
    try db.execute(
      sql: """
        INSERT INTO samples(port, t, num, min, max)
          SELECT port, CAST(t / 60 AS INTEGER) * 60 AS minute, avg(num), min(num), max(num) FROM samples
          WHERE min IS NULL AND num IS NOT NULL AND t >= :from AND t < :cutoff GROUP BY port, minute;
        DELETE FROM samples WHERE min IS NULL AND num IS NOT NULL AND t >= :from AND t < :cutoff;
        DELETE FROM samples WHERE json IS NOT NULL AND t >= :from AND t < :cutoff AND json IS (
          SELECT before.json FROM samples AS before
          WHERE before.port = samples.port
            AND before.t <= samples.t AND (before.t < samples.t OR before.rowid < samples.rowid)
          ORDER BY before.t DESC, before.rowid DESC LIMIT 1);
        INSERT OR REPLACE INTO meta(key, value) VALUES ('downsampled_until', :cutoff);
        """, arguments: ["from": from, "cutoff": cutoff])
  }

  /// Deletes the oldest tenth of the rows until the file fits (or nothing is left).
  private func applySizeCap(_ maximumBytes: Int) throws {
    var deletedAny = false
    for _ in 0..<20 {
      let used = try writer.read { db in
        let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        return (pages - free) * size
      }
      guard used > maximumBytes else { break }
      let deleted = try writer.write { db -> Int in
        let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM samples") ?? 0
        guard rows > 0 else { return 0 }
        guard
          let threshold = try Double.fetchOne(
            db, sql: "SELECT t FROM samples ORDER BY t LIMIT 1 OFFSET ?", arguments: [max(1, rows / 10)])
        else { return 0 }
        try db.execute(sql: "DELETE FROM samples WHERE t <= ?", arguments: [threshold])
        return db.changesCount
      }
      if deleted == 0 { break }
      deletedAny = true
    }
    guard deletedAny else { return }
    try writer.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA incremental_vacuum")
      // The log is folded back and truncated, so the file's size on disk follows (not while a
      // reader holds it: then at a later run).
      _ = try? db.checkpoint(.truncate)
    }
  }
}
