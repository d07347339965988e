-- The ledger as releases before versioned migrations wrote it, left as it is when present.
-- Columns those releases added later (kind, type, confidence, variants, thread, context)
-- are added by the step that follows this script when a file lacks them.
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    tier TEXT NOT NULL,
    text TEXT NOT NULL,
    speaker TEXT,
    role TEXT,
    chain_type TEXT,
    tags TEXT NOT NULL,
    timestamp REAL NOT NULL,
    expires_at REAL,
    metadata TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'memory',
    type TEXT,
    confidence REAL,
    variants TEXT NOT NULL DEFAULT '[]',
    thread TEXT,
    context TEXT
);
CREATE INDEX IF NOT EXISTS entries_tier_time ON entries(tier, archived, timestamp);
CREATE INDEX IF NOT EXISTS entries_state ON entries(state) WHERE state != 'synced';
CREATE INDEX IF NOT EXISTS entries_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS chunks (
    key TEXT NOT NULL REFERENCES entries(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB,
    PRIMARY KEY (key, number)
);
CREATE TABLE IF NOT EXISTS history (
    key TEXT NOT NULL,
    at REAL NOT NULL,
    action TEXT NOT NULL,
    actor TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_key ON history(key, at);
CREATE TABLE IF NOT EXISTS quarantine (
    key TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
