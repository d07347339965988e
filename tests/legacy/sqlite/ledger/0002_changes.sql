-- The change log replicas follow: one row per key changed, numbered in commit order
-- (AUTOINCREMENT: a number is never used twice, even after trimming).
CREATE TABLE changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX changes_at ON changes(at);
-- The highest sequence number trimmed away; a reader behind it rebuilds.
CREATE TABLE change_horizon (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    horizon INTEGER NOT NULL
);
INSERT INTO change_horizon VALUES (1, 0);
