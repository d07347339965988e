-- Everything a cluster shares, in one database. Keys and names compare byte by byte
-- (COLLATE "C"), as SQLite compares them, so scans and listings come in the same order
-- whatever the database's locale. Vectors are float32 arrays packed as in SQLite; entry
-- tags, metadata and variants are JSON text, kept as written.

CREATE SEQUENCE entries_written;

CREATE TABLE entries (
    key text COLLATE "C" PRIMARY KEY,
    id text NOT NULL,
    namespace text NOT NULL,
    tier text NOT NULL,
    text text NOT NULL,
    speaker text,
    role text,
    chain_type text,
    tags text NOT NULL,
    timestamp double precision NOT NULL,
    expires_at double precision,
    metadata text NOT NULL,
    archived boolean NOT NULL DEFAULT false,
    tokens integer NOT NULL DEFAULT 0,
    state text NOT NULL,
    kind text NOT NULL DEFAULT 'memory',
    type text,
    confidence double precision,
    variants text NOT NULL DEFAULT '[]',
    thread text,
    context text,
    -- Grows with every write: the entry written last has the highest.
    written bigint NOT NULL DEFAULT nextval('entries_written')
);
ALTER SEQUENCE entries_written OWNED BY entries.written;
CREATE INDEX entries_tier_time ON entries (tier, archived, timestamp);
CREATE INDEX entries_state ON entries (state) WHERE state <> 'synced';
CREATE INDEX entries_expiry ON entries (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX entries_thread ON entries (namespace, thread, written) WHERE thread IS NOT NULL;

CREATE TABLE chunks (
    key text COLLATE "C" NOT NULL REFERENCES entries (key) ON DELETE CASCADE,
    number integer NOT NULL,
    text text NOT NULL,
    vector bytea,
    PRIMARY KEY (key, number)
);

CREATE TABLE history (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key text COLLATE "C" NOT NULL,
    at double precision NOT NULL,
    action text NOT NULL,
    actor text NOT NULL
);
CREATE INDEX history_key ON history (key, at, id);

CREATE TABLE quarantine (
    key text COLLATE "C" PRIMARY KEY,
    reason text NOT NULL,
    at double precision NOT NULL
);

-- The change log replicas follow. Writers take one advisory lock before appending, so
-- sequence numbers are committed in order.
CREATE TABLE changes (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key text COLLATE "C" NOT NULL,
    at double precision NOT NULL
);
CREATE INDEX changes_at ON changes (at);
CREATE TABLE change_horizon (
    one integer PRIMARY KEY CHECK (one = 1),
    horizon bigint NOT NULL
);

CREATE TABLE collections (
    id text PRIMARY KEY,
    name text COLLATE "C" NOT NULL UNIQUE,
    namespace text NOT NULL,
    path text NOT NULL,
    mask text NOT NULL,
    tier text NOT NULL,
    created_at double precision NOT NULL,
    scanned_at double precision
);
CREATE TABLE files (
    collection text NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    path text COLLATE "C" NOT NULL,
    hash text NOT NULL,
    chunks integer NOT NULL,
    text text,
    PRIMARY KEY (collection, path)
);

CREATE TABLE interactions (
    id text PRIMARY KEY,
    n bigint GENERATED ALWAYS AS IDENTITY,
    at double precision NOT NULL,
    namespace text NOT NULL,
    asker text,
    question text NOT NULL,
    results jsonb NOT NULL,
    strong_match boolean NOT NULL,
    best_relevance double precision NOT NULL,
    took_ms double precision NOT NULL
);
CREATE INDEX interactions_day ON interactions (namespace, at);
CREATE TABLE feedback (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    interaction_id text NOT NULL REFERENCES interactions (id) ON DELETE CASCADE,
    at double precision NOT NULL,
    rating text NOT NULL,
    comment text,
    actor text NOT NULL
);
CREATE INDEX feedback_interaction ON feedback (interaction_id);

CREATE TABLE job_runs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job text NOT NULL,
    replica text NOT NULL,
    started_at double precision NOT NULL,
    finished_at double precision,
    result jsonb,
    error text,
    slot double precision
);
CREATE UNIQUE INDEX job_runs_slot ON job_runs (job, slot) WHERE slot IS NOT NULL;
CREATE INDEX job_runs_job ON job_runs (job, started_at);
