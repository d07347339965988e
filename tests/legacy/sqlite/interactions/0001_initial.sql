-- The interaction log as releases before versioned migrations wrote it, left as it is
-- when present.
CREATE TABLE IF NOT EXISTS interactions (
    id TEXT PRIMARY KEY,
    at REAL NOT NULL,
    namespace TEXT NOT NULL,
    asker TEXT,
    question TEXT NOT NULL,
    results TEXT NOT NULL,
    strong_match INTEGER NOT NULL,
    best_relevance REAL NOT NULL,
    took_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS interactions_day ON interactions(namespace, at);
CREATE TABLE IF NOT EXISTS feedback (
    interaction_id TEXT NOT NULL REFERENCES interactions(id) ON DELETE CASCADE,
    at REAL NOT NULL,
    rating TEXT NOT NULL,
    comment TEXT,
    actor TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS feedback_interaction ON feedback(interaction_id);
