-- The catalog as releases before versioned migrations wrote it, left as it is when present.
CREATE TABLE IF NOT EXISTS collections (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    path TEXT NOT NULL,
    mask TEXT NOT NULL,
    tier TEXT NOT NULL,
    created_at REAL NOT NULL,
    scanned_at REAL
);
CREATE TABLE IF NOT EXISTS files (
    collection TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    hash TEXT NOT NULL,
    chunks INTEGER NOT NULL,
    PRIMARY KEY (collection, path)
);
