// Generated from the strata OpenAPI document by clients/typescript/generate.py: do not edit.
// Regenerate with `make schemas`.

export interface AnswerParts {
  relevance: number;
  type: number;
  confidence: number;
  freshness: number;
}

/** The upstream's circuit breaker. */
export interface BreakerHealth {
  state: "closed" | "half_open" | "open";
  failures: number;
  trips: number;
  rejected: number;
  /** Default: `null`. */
  opened_at?: number | null;
  /** Default: `null`. */
  retry_at?: number | null;
  /** Default: `null`. */
  last_error?: string | null;
}

/** A fit a sweep kept, with the calibration it replaced. */
export interface CalibrationChange {
  fit: FitOut;
  replaced: CalibrationUsed;
}

/** The threshold and floor an answer was given, and whose they are. */
export interface CalibrationUsed {
  source: "deployment" | "namespace" | "shipped";
  version: number;
  threshold: number;
  floor: number;
}

export interface CalibrationsResponse {
  namespace: string;
  in_force: CalibrationUsed;
  fits: Array<FitOut>;
  references: number;
}

export interface CollectionOut {
  name: string;
  namespace: string;
  path: string;
  mask: string;
  tier: "A" | "C" | "E";
  files: number;
  created_at: string;
  scanned_at: string | null;
  /** Default: `null`. */
  scanning?: ScanProgress | null;
}

export interface CollectionRequest {
  name: string;
  /** A directory on the server, absolute or under ~. length >= 1, length <= 4096. */
  path: string;
  /** length >= 1, length <= 200. Default: `"**\/*.md"`. */
  mask?: string;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
  /** Default: `"A"`. */
  tier?: "A" | "C" | "E";
}

export interface CollectionsResponse {
  collections: Array<CollectionOut>;
}

/** An entry the block holds, as it holds it. */
export interface ContextItem {
  id: string;
  tier: "A" | "C" | "E";
  timestamp: string;
  citation: string;
  text: string;
  score: number;
  /** Default: `null`. */
  speaker?: string | null;
  /** Default: `null`. */
  type?: string | null;
  /** Default: `false`. */
  cut?: boolean;
  /** Default: `[]`. */
  replaces?: Array<string>;
  /** Default: `[]`. */
  folded?: Array<string>;
}

export interface ContextRequest {
  /** length >= 1, length <= 10000. */
  question: string;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
  /** >= 32, <= 32768. Default: `512`. */
  max_tokens?: number;
  /** Default: `"markdown"`. */
  format?: "markdown" | "text";
  /** >= 1, <= 50. Default: `null`. */
  max_entries?: number | null;
  /** length >= 1, length <= 200. Default: `null`. */
  asker?: string | null;
  /** >= 0, <= 1. Default: `null`. */
  min_score?: number | null;
  /** items >= 1. Default: `null`. */
  tiers?: (Array<"A" | "C" | "E">) | null;
  /** length >= 1, length <= 200. Default: `null`. */
  speaker?: string | null;
  /** length >= 1, length <= 200. Default: `null`. */
  chain_type?: string | null;
  /** Default: `[]`. */
  tags?: Array<string>;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  since?: string | null;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  until?: string | null;
  /** Default: `false`. */
  include_archived?: boolean;
  /** Default: `null`. */
  kind?: ("digest" | "memory" | "pattern") | null;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  as_of?: string | null;
}

export interface ContextResponse {
  interaction_id: string;
  context: string;
  tokens: number;
  max_tokens: number;
  entries: Array<ContextItem>;
  reasoning_patterns: Array<ContextItem>;
  left_out: Array<string>;
  nothing_relevant: boolean;
  strong_match: boolean;
  answer_confidence: number;
  took_ms: number;
  degraded: Array<string>;
  /** Default: `null`. */
  calibration?: CalibrationUsed | null;
  /** Default: `null`. */
  reference_id?: string | null;
}

export interface DailyReportResponse {
  date: string;
  namespace: string;
  questions: number;
  strong_matches: number;
  strong_match_rate: number | null;
  feedback: {
    [key: string]: number;
  };
  unanswered: Array<UnansweredQuestion>;
  /** Default: `0`. */
  unanswered_total?: number;
  /** Default: `[]`. */
  revisions?: Array<Revision>;
  /** Default: `{}`. */
  references?: {
    [key: string]: number;
  };
  /** Default: `0`. */
  references_total?: number;
  /** Default: `[]`. */
  calibrations?: Array<CalibrationChange>;
}

export interface DeleteResponse {
  id: string;
  namespace: string;
  deleted: boolean;
}

export interface DocumentOut {
  path: string;
  title: string;
  first_line: number;
  last_line: number;
  total_lines: number;
  text: string;
}

export interface DocumentsRequest {
  /** length >= 1, length <= 10000. */
  pattern: string;
  /** >= 1, <= 10000000. Default: `65536`. */
  max_bytes?: number;
}

export interface DocumentsResponse {
  documents: Array<DocumentOut>;
  skipped: Array<Skipped>;
}

export interface EngineHealth {
  state: "off" | "ok" | "unavailable";
  /** Default: `null`. */
  since?: number | null;
  /** Default: `null`. */
  error?: string | null;
}

/** An entry read alone, with its place in a chain of revisions. */
export interface EntryDetail {
  id: string;
  namespace: string;
  tier: "A" | "C" | "E";
  text: string;
  timestamp: string;
  speaker: string | null;
  role: string | null;
  chain_type: string | null;
  tags: Array<string>;
  expires_at: string | null;
  archived: boolean;
  metadata: {
    [key: string]: unknown;
  };
  kind: "digest" | "memory" | "pattern";
  type: string | null;
  confidence: number | null;
  variants: Array<string>;
  thread: string | null;
  /** Default: `null`. */
  superseded_by?: string | null;
  /** Default: `[]`. */
  supersedes?: Array<Replacement>;
  /** Default: `[]`. */
  replaced_by?: Array<Replacement>;
}

export interface ErasureCounts {
  entries: number;
  history: number;
  quarantined: number;
  changes: number;
  collections: number;
  files: number;
  interactions: number;
  feedback: number;
  /** Default: `0`. */
  references?: number;
}

/** The audit record an erasure leaves: who, when and how much; nothing of the content. */
export interface ErasureResponse {
  namespace: string;
  erased_at: string;
  actor: string;
  counts: ErasureCounts;
}

export interface ErasuresResponse {
  erasures: Array<ErasureResponse>;
}

/** Something an agent wants remembered. */
export interface Event {
  /** length >= 1, length <= 1000000. */
  text: string;
  tier: "A" | "C" | "E";
  /** Entry id. Default: `null`. */
  id?: string | null;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
  /** length >= 1, length <= 200. Default: `null`. */
  speaker?: string | null;
  /** length >= 1, length <= 200. Default: `null`. */
  role?: string | null;
  /** length >= 1, length <= 200. Default: `null`. */
  chain_type?: string | null;
  /** items <= 64. Default: `[]`. */
  tags?: Array<string>;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  timestamp?: string | null;
  /** > 0, <= 36500. Default: `null`. */
  ttl_days?: number | null;
  /** Default: `{}`. */
  metadata?: {
    [key: string]: string | number | boolean | null;
  };
  /** Default: `"memory"`. */
  kind?: "memory" | "pattern";
  /** length >= 1, length <= 200. Default: `null`. */
  type?: string | null;
  /** >= 0, <= 1. Default: `null`. */
  confidence?: number | null;
  /** items <= 64. Default: `[]`. */
  variants?: Array<string>;
  /** length >= 1, length <= 200. Default: `null`. */
  thread?: string | null;
  /** items <= 64. Default: `[]`. */
  supersedes?: Array<string>;
}

export interface EventsRequest {
  /** items >= 1. */
  events: Array<Event>;
}

export interface EventsResponse {
  ids: Array<string>;
  embedded: number;
  indexed: number;
  /** Default: `[]`. */
  written?: Array<WrittenEntry>;
}

export interface FeedbackRequest {
  /** length >= 1, length <= 128. */
  interaction_id: string;
  rating: "down" | "up";
  /** length <= 10000. Default: `null`. */
  comment?: string | null;
  /** items <= 100. Default: `null`. */
  answers?: Array<string> | null;
  /** Default: `false`. */
  nothing?: boolean;
}

export interface FeedbackResponse {
  interaction_id: string;
  rating: "down" | "up";
  recorded_at: string;
  /** Default: `null`. */
  reference_id?: string | null;
}

export interface FieldProblem {
  field: string;
  message: string;
}

export interface FitOut {
  version: number;
  threshold: number;
  floor: number;
  fitted_at: string;
  actor: string;
  in_force: boolean;
  held_out: {
    [key: string]: HeldOut;
  };
  references: number;
}

/** The relevance floor's two errors at one floor. */
export interface FloorPoint {
  floor: number;
  false_empties: number | null;
  false_results: number | null;
  top10_cost: number | null;
}

export interface Health {
  status: "degraded" | "ok";
  model: string | null;
  reranker: string | null;
  stores: {
    [key: string]: unknown;
  };
  degraded: Array<string>;
  /** Default: `null`. */
  model_backend?: string | null;
  /** Default: `null`. */
  replica?: ReplicaHealth | null;
  /** Default: `{}`. */
  engines?: {
    [key: string]: EngineHealth;
  };
  /** Default: `null`. */
  upstream?: UpstreamHealth | null;
}

/** A calibration judged on the references each fold left out, pooled. */
export interface HeldOut {
  youden_j: number | null;
  no_result: number | null;
  top10_cost: number | null;
}

export interface HistoryItem {
  at: string;
  action: string;
  actor: string;
  /** Default: `null`. */
  detail?: string | null;
}

export interface HistoryResponse {
  id: string;
  namespace: string;
  history: Array<HistoryItem>;
}

export interface ImportResponse {
  namespace: string;
  source: string;
  lines: number;
  imported: Imported;
  skipped: Array<SkippedLine>;
  skipped_count: number;
}

/** How many of each were written; ``unchanged`` entries were already as the file has
them (an import run twice writes nothing the second time). */
export interface Imported {
  entries: number;
  unchanged: number;
  embedded: number;
  collections: number;
  files: number;
  interactions: number;
  feedback: number;
  deleted: number;
  /** Default: `0`. */
  references?: number;
}

export interface JobOut {
  name: string;
  schedule: string;
  next_run: string | null;
  last_started: string | null;
  last_finished: string | null;
  last_result: {
    [key: string]: unknown;
  } | null;
  last_error: string | null;
  runs: number;
  /** Default: `null`. */
  last_replica?: string | null;
  /** Default: `false`. */
  per_replica?: boolean;
  /** Default: `[]`. */
  recent?: Array<JobRunOut>;
}

/** One run of a job, on whichever replica ran it. */
export interface JobRunOut {
  replica: string;
  started_at: string;
  finished_at: string | null;
  slot: string | null;
  error: string | null;
}

export interface JobsResponse {
  jobs: Array<JobOut>;
}

/** The BM25 statistics of the namespace searched, for the query's terms: the namespace's
own, whatever other namespaces hold. */
export interface KeywordStats {
  documents: number;
  terms: {
    [key: string]: number;
  };
}

/** A candidate a search left out, and why. */
export interface LeftOut {
  id: string;
  superseded_by: string;
}

export interface ListRank {
  rank: number;
  score: number;
}

/** Model calls, the texts they embedded and those texts' model tokens. */
export interface ModelWork {
  /** Default: `0`. */
  calls?: number;
  /** Default: `0`. */
  texts?: number;
  /** Default: `0`. */
  tokens?: number;
}

export interface NamespaceStats {
  namespace: string;
  tiers: {
    [key: string]: TierStats;
  };
  read_time?: ModelWork;
}

/** RFC 9457 problem details. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Default: `[]`. */
  errors?: Array<FieldProblem>;
  /** Default: `null`. */
  request_id?: string | null;
}

export interface PromoteRequest {
  /** items >= 1, items <= 1000. */
  ids: Array<string>;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
}

export interface PromoteResponse {
  namespace: string;
  promoted: Array<string>;
}

/** Entries kept in the ledger but set aside, out of every read, because they could not
be indexed; writing an entry again (same id) or deleting it takes it out. */
export interface QuarantineResponse {
  entries: Array<QuarantinedEntry>;
}

export interface QuarantinedEntry {
  namespace: string;
  id: string;
  reason: string;
  at: string;
}

/** Model work of reads (searches, retrieves, routine checks) since the process
started, in this process only. */
export interface ReadTimeWork {
  since: string;
  /** Default: `null`. */
  queries?: ModelWork | null;
  passages?: ModelWork;
}

export interface RebuildOut {
  state: "done" | "failed" | "idle" | "running";
  done: number;
  total: number;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
}

export interface ReferenceOut {
  id: string;
  namespace: string;
  question: string;
  answers: Array<string>;
  nothing: boolean;
  source: "admin" | "agent" | "console" | "feedback";
  actor: string;
  recorded_at: string;
}

export interface ReferenceOutcome {
  id: string;
  question: string;
  answerable: boolean;
  rank: number | null;
  answer_confidence: number;
  strong_match: boolean;
}

export interface ReferenceRequest {
  /** length >= 1, length <= 10000. */
  question: string;
  /** items <= 100. Default: `[]`. */
  answers?: Array<string>;
  /** Default: `false`. */
  nothing?: boolean;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
}

export interface ReferencesResponse {
  references: Array<ReferenceOut>;
  total: number;
}

export interface RenameRequest {
  name: string;
}

/** One supersession as an entry shows it: the other entry, when and by whom. */
export interface Replacement {
  id: string;
  at: string;
  actor: string;
  /** Default: `null`. */
  text?: string | null;
}

/** This process among the replicas sharing its ledger. */
export interface ReplicaHealth {
  name: string;
  mode: "cluster" | "embedded";
  leads_jobs: boolean;
  lag_seconds: number;
  changes_behind: number;
}

export interface RetrieveRequest {
  /** length >= 1, length <= 10000. */
  question: string;
  /** length >= 1, length <= 200. Default: `null`. */
  asker?: string | null;
  /** >= 1, <= 50. Default: `5`. */
  top_n?: number;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
  /** Default: `false`. */
  include_superseded?: boolean;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  as_of?: string | null;
}

export interface RetrieveResponse {
  interaction_id: string;
  entries: Array<RetrievedEntry>;
  strong_match: boolean;
  answer_confidence: number;
  best_relevance: number;
  threshold: number;
  reasoning_patterns: Array<RetrievedEntry>;
  took_ms: number;
  degraded: Array<string>;
  /** Default: `null`. */
  upstream?: UpstreamAsked | null;
  /** Default: `null`. */
  calibration?: CalibrationUsed | null;
  /** Default: `null`. */
  reference_id?: string | null;
}

/** An entry of an answer: how relevant it is and its final blended score. */
export interface RetrievedEntry {
  id: string;
  namespace: string;
  tier: "A" | "C" | "E";
  text: string;
  timestamp: string;
  speaker: string | null;
  role: string | null;
  chain_type: string | null;
  tags: Array<string>;
  expires_at: string | null;
  archived: boolean;
  metadata: {
    [key: string]: unknown;
  };
  kind: "digest" | "memory" | "pattern";
  type: string | null;
  confidence: number | null;
  variants: Array<string>;
  thread: string | null;
  /** Default: `null`. */
  superseded_by?: string | null;
  snippet: string;
  /** >= 0, <= 1. */
  relevance_score: number;
  /** >= 0, <= 1. */
  score: number;
  parts: AnswerParts;
  /** Default: `null`. */
  file?: string | null;
  /** Default: `null`. */
  title?: string | null;
  /** Default: `null`. */
  lines?: string | null;
  /** Default: `false`. */
  truncated?: boolean;
  /** Default: `"local"`. */
  source?: "local" | "upstream";
  /** Default: `null`. */
  upstream?: UpstreamRef | null;
  /** Default: `[]`. */
  supersedes?: Array<Replacement>;
}

/** An entry replaced by another. */
export interface Revision {
  id: string;
  superseded_by: string;
  at: string;
  actor: string;
}

export interface RollbackRequest {
  /** >= 0, <= 2147483647. */
  version: number;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
  /** Default: `false`. */
  deployment?: boolean;
}

export interface RoutineCheckRequest {
  /** length >= 1, length <= 10000. */
  task: string;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
}

export interface RoutineCheckResponse {
  similar: number;
  is_routine: boolean;
  similarity_threshold: number;
  min_similar: number;
  examples: Array<SimilarExecution>;
  degraded: Array<string>;
}

export interface ScanOut {
  collection: CollectionOut;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  chunks: number;
  skipped: Array<Skipped>;
}

export interface ScanProgress {
  done: number;
  total: number;
}

/** An entry found by a search, with the part of it that matched. Each field but ``id``
and ``score`` is there unless the search's ``fields`` left it out; the entry's fields
are those of ``EntryOut``. */
export interface SearchHit {
  id: string;
  namespace?: string;
  tier?: "A" | "C" | "E";
  text?: string;
  timestamp?: string;
  speaker?: string | null;
  role?: string | null;
  chain_type?: string | null;
  tags?: Array<string>;
  expires_at?: string | null;
  archived?: boolean;
  metadata?: {
    [key: string]: unknown;
  };
  kind?: "digest" | "memory" | "pattern";
  type?: string | null;
  confidence?: number | null;
  variants?: Array<string>;
  thread?: string | null;
  /** Default: `null`. */
  superseded_by?: string | null;
  snippet?: string;
  /** >= 0, <= 1. */
  score: number;
  /** Default: `null`. */
  explain?: {
    [key: string]: ListRank;
  } | null;
  /** Default: `null`. */
  file?: string | null;
  /** Default: `null`. */
  title?: string | null;
  /** Default: `null`. */
  lines?: string | null;
  /** Default: `null`. */
  score_pct?: number | null;
  /** Default: `false`. */
  truncated?: boolean;
  /** Default: `"local"`. */
  source?: "local" | "upstream";
  /** Default: `null`. */
  upstream?: UpstreamRef | null;
}

export interface SearchRequest {
  /** length >= 1, length <= 10000. */
  query: string;
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
  /** items >= 1. Default: `null`. */
  tiers?: (Array<"A" | "C" | "E">) | null;
  /** Default: `"auto"`. */
  mode?: "auto" | "bm25" | "hybrid" | "vector";
  /** >= 1, <= 100. Default: `10`. */
  limit?: number;
  /** length >= 1, length <= 200. Default: `null`. */
  speaker?: string | null;
  /** length >= 1, length <= 200. Default: `null`. */
  chain_type?: string | null;
  /** Default: `[]`. */
  tags?: Array<string>;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  since?: string | null;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  until?: string | null;
  /** Default: `false`. */
  include_archived?: boolean;
  /** Default: `null`. */
  kind?: ("digest" | "memory" | "pattern") | null;
  /** >= 0, <= 1. Default: `null`. */
  min_score?: number | null;
  /** Default: `true`. */
  relax?: boolean;
  /** Default: `false`. */
  explain?: boolean;
  /** Default: `null`. */
  rerank?: boolean | null;
  /** Default: `false`. */
  include_superseded?: boolean;
  /** ISO 8601 (as RFC 3339 date-time); without an offset it is UTC. Default: `null`. */
  as_of?: string | null;
  /** Default: `null`. */
  fields?: (Array<"archived" | "chain_type" | "confidence" | "expires_at" | "explain" | "file" | "id" | "kind" | "lines" | "metadata" | "namespace" | "role" | "score" | "score_pct" | "snippet" | "source" | "speaker" | "superseded_by" | "tags" | "text" | "thread" | "tier" | "timestamp" | "title" | "truncated" | "type" | "upstream" | "variants">) | null;
}

export interface SearchResponse {
  results: Array<SearchHit>;
  mode: "auto" | "bm25" | "hybrid" | "vector";
  took_ms: number;
  degraded: Array<string>;
  /** Default: `false`. */
  relaxed?: boolean;
  /** Default: `null`. */
  upstream?: UpstreamAsked | null;
  /** Default: `[]`. */
  superseded?: Array<LeftOut>;
  /** Default: `0`. */
  dropped?: number;
  /** Default: `null`. */
  keywords?: KeywordStats | null;
  /** Default: `null`. */
  calibration?: CalibrationUsed | null;
}

/** A live entry close to one just written (cosine of their first chunks). */
export interface SimilarEntry {
  id: string;
  tier: "A" | "C" | "E";
  similarity: number;
}

export interface SimilarExecution {
  id: string;
  text: string;
  timestamp: string;
  similarity: number;
}

export interface Skipped {
  path: string;
  reason: string;
}

export interface SkippedLine {
  line: number;
  reason: string;
}

export interface StatsResponse {
  namespaces: Array<NamespaceStats>;
  totals: Totals;
  disk_bytes: {
    [key: string]: number | null;
  };
  /** Default: `null`. */
  read_time?: ReadTimeWork | null;
}

export interface SweepRequest {
  /** Isolated space of entries. Default: `null`. */
  namespace?: string | null;
  /** Default: `false`. */
  deployment?: boolean;
}

export interface SweepResponse {
  namespace: string;
  references: number;
  answerable: number;
  took_ms: number;
  before: CalibrationUsed;
  after: CalibrationUsed;
  kept: boolean;
  reason: string;
  top10: number | null;
  held_out: {
    [key: string]: HeldOut;
  };
  thresholds: Array<ThresholdPoint>;
  floors: Array<FloorPoint>;
  outcomes: Array<ReferenceOutcome>;
}

/** ``strong_match`` at one threshold, over the references as the calibration in force
asked them. */
export interface ThresholdPoint {
  threshold: number;
  precision: number | null;
  recall: number | null;
  youden_j: number | null;
}

export interface TierStats {
  /** Default: `0`. */
  active?: number;
  /** Default: `0`. */
  archived?: number;
  /** Default: `0`. */
  vectors?: number;
  /** Default: `0`. */
  tokens_embedded?: number;
  /** Default: `0`. */
  tokens?: number;
}

export interface Totals {
  entries: number;
  vectors: number;
  tokens_embedded: number;
  tokens_full_rag: number;
  embedding_avoided: number;
  /** Default: `0`. */
  quarantined?: number;
  /** Default: `0`. */
  tokens_read_time?: number;
}

export interface UnansweredQuestion {
  interaction_id: string;
  question: string;
  asker: string | null;
  at: string;
  best_relevance: number;
  /** Default: `null`. */
  answer_confidence?: number | null;
}

/** What asking the upstream did, when the local memory found nothing. */
export interface UpstreamAsked {
  name: string;
  outcome: "answered" | "busy" | "circuit_open" | "failed";
  /** Default: `0`. */
  results?: number;
  /** Default: `0`. */
  attempts?: number;
  /** Default: `0.0`. */
  took_ms?: number;
  /** Default: `0`. */
  kept?: number;
  /** Default: `0`. */
  refused?: number;
  /** Default: `null`. */
  error?: string | null;
}

/** The upstream memory service asked when this one finds nothing; counts since the
process started. */
export interface UpstreamHealth {
  name: string;
  breaker: BreakerHealth;
  asked: number;
  answered: number;
  failed: number;
  circuit_open: number;
  busy: number;
  attempts: number;
}

/** Where an upstream hit lives, to cite it or read it there. */
export interface UpstreamRef {
  name: string;
  namespace: string;
  id: string;
}

/** What became of one event of a write. */
export interface WrittenEntry {
  id: string;
  /** Default: `null`. */
  duplicate_of?: string | null;
  /** Default: `[]`. */
  supersedes?: Array<string>;
  /** Default: `[]`. */
  similar?: Array<SimilarEntry>;
}

/** Every operation of the REST API, keyed `METHOD /path`: its path parameters
 * (`params`), query parameters (`query`), JSON body (`body`), successful answer
 * (`response`; `Response` for one that is not JSON) and the statuses of the problem
 * details it may answer with (`problems`). */
export interface Routes {
  /** `HealthHealth`. */
  "GET /health": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: Health;
    problems: 403;
  };

  /** `MetricsMetrics`. */
  "GET /metrics": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: Response;
    problems: 403 | 429;
  };

  /** `V1AdminCalibrationsCalibrations`. */
  "GET /v1/admin/calibrations": {
    params: Record<string, never>;
    query: {
      /** Default: the key's only namespace. */
      namespace?: string | null;
      /** The deployment's calibration (a key of every namespace). Default: `false`. */
      deployment?: boolean;
    };
    body: undefined;
    response: CalibrationsResponse;
    problems: 401 | 403 | 422 | 429;
  };

  /** `V1AdminCalibrationsRollbackRollBack`. */
  "POST /v1/admin/calibrations/rollback": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: RollbackRequest;
    response: CalibrationUsed;
    problems: 400 | 401 | 403 | 404 | 413 | 415 | 422 | 429;
  };

  /** `V1AdminErasuresErasures`. */
  "GET /v1/admin/erasures": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: ErasuresResponse;
    problems: 401 | 403 | 429;
  };

  /** `V1AdminJobsJobs`. */
  "GET /v1/admin/jobs": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: JobsResponse;
    problems: 401 | 403 | 429;
  };

  /** `V1AdminJobsNameRunRunJob`. */
  "POST /v1/admin/jobs/{name}/run": {
    params: {
      name: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: JobOut;
    problems: 401 | 403 | 404 | 409 | 422 | 429;
  };

  /** `V1AdminPromotePromote`. */
  "POST /v1/admin/promote": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: PromoteRequest;
    response: PromoteResponse;
    problems: 400 | 401 | 403 | 413 | 415 | 422 | 429;
  };

  /** `V1AdminQuarantineQuarantine`. */
  "GET /v1/admin/quarantine": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: QuarantineResponse;
    problems: 401 | 403 | 429;
  };

  /** `V1AdminRebuildRebuildStatus`. */
  "GET /v1/admin/rebuild": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: RebuildOut;
    problems: 401 | 403 | 429;
  };

  /** `V1AdminRebuildStartRebuild`. */
  "POST /v1/admin/rebuild": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: RebuildOut;
    problems: 401 | 403 | 409 | 429;
  };

  /** `V1AdminSweepSweep`. */
  "POST /v1/admin/sweep": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: SweepRequest;
    response: SweepResponse;
    problems: 400 | 401 | 403 | 409 | 413 | 415 | 422 | 429;
  };

  /** `V1CollectionsListCollections`. */
  "GET /v1/collections": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: CollectionsResponse;
    problems: 401 | 403 | 429;
  };

  /** `V1CollectionsAdd`. */
  "POST /v1/collections": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: CollectionRequest;
    response: ScanOut;
    problems: 400 | 401 | 403 | 409 | 413 | 415 | 422 | 429;
  };

  /** `V1CollectionsNameShow`. */
  "GET /v1/collections/{name}": {
    params: {
      name: string;
    };
    query: {
      /** The collection's namespace (names are unique per namespace); default: the one of the key's namespaces that holds a collection of that name. */
      namespace?: string | null;
    };
    body: undefined;
    response: CollectionOut;
    problems: 401 | 403 | 404 | 409 | 422 | 429;
  };

  /** `V1CollectionsNameRemove`. */
  "DELETE /v1/collections/{name}": {
    params: {
      name: string;
    };
    query: {
      /** The collection's namespace (names are unique per namespace); default: the one of the key's namespaces that holds a collection of that name. */
      namespace?: string | null;
    };
    body: undefined;
    response: CollectionOut;
    problems: 401 | 403 | 404 | 409 | 422 | 429;
  };

  /** `V1CollectionsNameRename`. */
  "PATCH /v1/collections/{name}": {
    params: {
      name: string;
    };
    query: {
      /** The collection's namespace (names are unique per namespace); default: the one of the key's namespaces that holds a collection of that name. */
      namespace?: string | null;
    };
    body: RenameRequest;
    response: CollectionOut;
    problems: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429;
  };

  /** `V1CollectionsNameUpdateUpdate`. */
  "POST /v1/collections/{name}/update": {
    params: {
      name: string;
    };
    query: {
      /** The collection's namespace (names are unique per namespace); default: the one of the key's namespaces that holds a collection of that name. */
      namespace?: string | null;
    };
    body: undefined;
    response: ScanOut;
    problems: 401 | 403 | 404 | 409 | 422 | 429;
  };

  /** `V1ContextContext`. */
  "POST /v1/context": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: ContextRequest;
    response: ContextResponse;
    problems: 400 | 401 | 403 | 413 | 415 | 422 | 429;
  };

  /** `V1DocumentsGetDocumentLines`. */
  "GET /v1/documents": {
    params: Record<string, never>;
    query: {
      /** `<collection>/<relative path>`, optionally after `strata://`. */
      path: string;
      /** First line, from 1. >= 1, <= 1000000000. Default: `1`. */
      from?: number;
      /** Lines to return; default all. >= 1, <= 1000000000. */
      lines?: number | null;
      /** The collection's namespace (names are unique per namespace); default: the one of the key's namespaces that holds a collection of that name. */
      namespace?: string | null;
    };
    body: undefined;
    response: DocumentOut;
    problems: 401 | 403 | 404 | 409 | 422 | 429;
  };

  /** `V1DocumentsBatchBatch`. */
  "POST /v1/documents/batch": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: DocumentsRequest;
    response: DocumentsResponse;
    problems: 400 | 401 | 403 | 404 | 413 | 415 | 422 | 429;
  };

  /** `V1EntriesEntryIdReadEntry`. */
  "GET /v1/entries/{entry_id}": {
    params: {
      /** Entry id. */
      entry_id: string;
    };
    query: {
      /** Default: the key's only namespace. */
      namespace?: string | null;
    };
    body: undefined;
    response: EntryDetail;
    problems: 401 | 403 | 404 | 422 | 429;
  };

  /** `V1EntriesEntryIdDeleteEntry`. */
  "DELETE /v1/entries/{entry_id}": {
    params: {
      /** Entry id. */
      entry_id: string;
    };
    query: {
      /** Default: the key's only namespace. */
      namespace?: string | null;
    };
    body: undefined;
    response: DeleteResponse;
    problems: 401 | 403 | 404 | 422 | 429;
  };

  /** `V1EntriesEntryIdHistoryEntryHistory`. */
  "GET /v1/entries/{entry_id}/history": {
    params: {
      /** Entry id. */
      entry_id: string;
    };
    query: {
      /** Default: the key's only namespace. */
      namespace?: string | null;
    };
    body: undefined;
    response: HistoryResponse;
    problems: 401 | 403 | 404 | 422 | 429;
  };

  /** `V1EventsWriteEvents`. */
  "POST /v1/events": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: EventsRequest;
    response: EventsResponse;
    problems: 400 | 401 | 403 | 413 | 415 | 422 | 429;
  };

  /** `V1FeedbackFeedback`. */
  "POST /v1/feedback": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: FeedbackRequest;
    response: FeedbackResponse;
    problems: 400 | 401 | 403 | 404 | 413 | 415 | 422 | 429;
  };

  /** `V1NamespacesErase`. */
  "DELETE /v1/namespaces/{namespace}": {
    params: {
      /** Namespace. */
      namespace: string;
    };
    query: {
      /** The namespace's name again, to confirm the erasure. */
      confirm?: string | null;
    };
    body: undefined;
    response: ErasureResponse;
    problems: 401 | 403 | 422 | 429;
  };

  /** `V1NamespacesExportExport`. */
  "GET /v1/namespaces/{namespace}/export": {
    params: {
      /** Namespace. */
      namespace: string;
    };
    query: {
      /** Give each entry's chunks with their vectors (base64 float32). Default: `false`. */
      vectors?: boolean;
    };
    body: undefined;
    response: Response;
    problems: 401 | 403 | 422 | 429;
  };

  /** `V1NamespacesImportImportNamespace`. */
  "POST /v1/namespaces/{namespace}/import": {
    params: {
      /** Namespace. */
      namespace: string;
    };
    query: {
      /** Import the good lines and list the bad ones, rather than refuse. Default: `false`. */
      skip_bad_lines?: boolean;
    };
    body: undefined;
    response: ImportResponse;
    problems: 401 | 403 | 413 | 422 | 429;
  };

  /** `V1ReferencesListed`. */
  "GET /v1/references": {
    params: Record<string, never>;
    query: {
      /** Default: the key's only namespace. */
      namespace?: string | null;
      /** References skipped. >= 0, <= 1000000. Default: `0`. */
      offset?: number;
      /** Most references listed. >= 1, <= 1000. Default: `100`. */
      limit?: number;
    };
    body: undefined;
    response: ReferencesResponse;
    problems: 401 | 403 | 422 | 429;
  };

  /** `V1ReferencesRecord`. */
  "POST /v1/references": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: ReferenceRequest;
    response: ReferenceOut;
    problems: 400 | 401 | 403 | 413 | 415 | 422 | 429;
  };

  /** `V1ReferencesReferenceIdRemove`. */
  "DELETE /v1/references/{reference_id}": {
    params: {
      reference_id: string;
    };
    query: {
      /** Default: the key's only namespace. */
      namespace?: string | null;
    };
    body: undefined;
    response: undefined;
    problems: 401 | 403 | 404 | 422 | 429;
  };

  /** `V1ReportsDailyDaily`. */
  "GET /v1/reports/daily": {
    params: Record<string, never>;
    query: {
      /** A UTC day; default: today. */
      date?: string | null;
      /** Default: the key's only namespace. */
      namespace?: string | null;
    };
    body: undefined;
    response: DailyReportResponse;
    problems: 401 | 403 | 422 | 429;
  };

  /** `V1RetrieveRetrieve`. */
  "POST /v1/retrieve": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: RetrieveRequest;
    response: RetrieveResponse;
    problems: 400 | 401 | 403 | 413 | 415 | 422 | 429;
  };

  /** `V1RoutineCheckRoutineCheck`. */
  "POST /v1/routine-check": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: RoutineCheckRequest;
    response: RoutineCheckResponse;
    problems: 400 | 401 | 403 | 413 | 415 | 422 | 429;
  };

  /** `V1SearchSearch`. */
  "POST /v1/search": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: SearchRequest;
    response: SearchResponse;
    problems: 400 | 401 | 403 | 413 | 415 | 422 | 429;
  };

  /** `V1StatsStats`. */
  "GET /v1/stats": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: StatsResponse;
    problems: 401 | 403 | 429;
  };
}

export type Route = keyof Routes;
