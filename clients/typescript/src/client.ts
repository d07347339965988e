import { StrataError } from "./errors.js";
import type {
  CollectionOut,
  CollectionRequest,
  CollectionsResponse,
  ContextRequest,
  ContextResponse,
  DailyReportResponse,
  DeleteResponse,
  DocumentOut,
  DocumentsResponse,
  EntryDetail,
  Event,
  EventsResponse,
  FeedbackResponse,
  Health,
  HistoryResponse,
  JobOut,
  JobsResponse,
  PromoteResponse,
  QuarantineResponse,
  RebuildOut,
  ReferenceOut,
  ReferenceRequest,
  RetrieveRequest,
  RetrieveResponse,
  RoutineCheckResponse,
  Route,
  Routes,
  ScanOut,
  SearchRequest,
  SearchResponse,
  StatsResponse,
} from "./openapi.js";

export const DEFAULT_URL = "http://127.0.0.1:8080";

export interface StrataClientOptions {
  /** The service, e.g. `https://strata.internal:8080` (a path prefix is kept). Default: `http://127.0.0.1:8080`. */
  url?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Milliseconds before a request is aborted (a `TimeoutError`). Default: 60000; 0: none. */
  timeoutMs?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch;
}

type Part<Name extends string, T> = Record<string, never> extends T ? { [K in Name]?: T } : { [K in Name]: T };

/** What `request` takes for a route: its path parameters, query, body (each required when the
 * route has a required one), and per-request headers and abort signal. */
export type RequestOptions<K extends Route> = Part<"params", Routes[K]["params"]> &
  Part<"query", Routes[K]["query"]> &
  (Routes[K]["body"] extends undefined ? { body?: undefined } : { body: Routes[K]["body"] }) & {
    headers?: Record<string, string>;
    signal?: AbortSignal;
  };

type Arguments<K extends Route> = Record<string, never> extends RequestOptions<K>
  ? [options?: RequestOptions<K>]
  : [options: RequestOptions<K>];

type Loose = {
  params?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

export type Tier = Event["tier"];
export type Rating = FeedbackResponse["rating"];
type Namespaced = { namespace?: string | null };

/** A client of the strata REST API: `fetch` only, typed from the service's OpenAPI document.
 * Every method resolves to the decoded answer or rejects with a `StrataError` carrying the
 * problem details. */
export class StrataClient {
  readonly url: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;

  constructor(options: StrataClientOptions = {}) {
    this.url = (options.url ?? DEFAULT_URL).replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#headers = options.headers ?? {};
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Call any operation of the API by its `METHOD /path` (see `Routes`), e.g.
   * `request("GET /v1/entries/{entry_id}", { params: { entry_id: "a" } })`. An answer that is
   * not JSON (a stream) resolves to the `Response` itself. */
  async request<K extends Route>(route: K, ...[options]: Arguments<K>): Promise<Routes[K]["response"]> {
    const { params = {}, query = {}, body, headers = {}, signal } = (options ?? {}) as Loose;
    const [method, template] = route.split(" ", 2) as [string, string];
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (params[name] === undefined) {
        throw new TypeError(`${route}: the path parameter ${name} is missing`);
      }
      return encodeURIComponent(String(params[name]));
    });
    const url = new URL(this.url + path);
    for (const [name, value] of Object.entries(query)) {
      for (const one of Array.isArray(value) ? value : [value]) {
        if (one !== undefined && one !== null) {
          url.searchParams.append(name, String(one));
        }
      }
    }
    const sent: Record<string, string> = { accept: "application/json", ...this.#headers, ...headers };
    if (this.#apiKey) {
      sent["authorization"] = `Bearer ${this.#apiKey}`;
    }
    let payload: BodyInit | undefined;
    if (body !== undefined) {
      if (isRaw(body)) {
        payload = body;
      } else {
        payload = JSON.stringify(body);
        sent["content-type"] = "application/json";
      }
    }
    const init: RequestInit & { duplex?: "half" } = {
      method,
      headers: sent,
      body: payload,
      signal: this.#signal(signal),
    };
    if (payload instanceof ReadableStream) {
      init.duplex = "half"; // fetch's rule for a streamed request body
    }
    const response = await this.#fetch(url, init);
    if (!response.ok) {
      throw await StrataError.from(response);
    }
    if (response.status === 204 || response.headers.get("content-length") === "0") {
      return undefined as unknown as Routes[K]["response"];
    }
    return (isJson(response.headers.get("content-type")) ? await response.json() : response) as Routes[K]["response"];
  }

  #signal(given: AbortSignal | undefined): AbortSignal | undefined {
    if (!this.#timeoutMs) {
      return given;
    }
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    return given ? AbortSignal.any([given, timeout]) : timeout;
  }

  // -- events and entries

  /** Record events (at most the service's batch limit); answers their ids. */
  addEvents(events: Event[]): Promise<EventsResponse> {
    return this.request("POST /v1/events", { body: { events } });
  }

  /** Record one event (tier A unless told); resolves to its id. */
  async remember(text: string, fields: Omit<Event, "text" | "tier"> & { tier?: Tier } = {}): Promise<string> {
    const written = await this.addEvents([{ ...fields, text, tier: fields.tier ?? "A" }]);
    return written.ids[0] as string;
  }

  /** Hybrid search; `options` are the fields of `SearchRequest` (namespace, tiers, mode, limit, filters). */
  search(query: string, options: Omit<SearchRequest, "query"> = {}): Promise<SearchResponse> {
    return this.request("POST /v1/search", { body: { ...options, query } });
  }

  /** The best grounded entries for a question, `strong_match` and the reasoning patterns;
   * logged as an interaction that `feedback` can rate. */
  retrieve(question: string, options: Omit<RetrieveRequest, "question"> = {}): Promise<RetrieveResponse> {
    return this.request("POST /v1/retrieve", { body: { ...options, question } });
  }

  /** Memory for a question as one cited block of at most `max_tokens` tokens (default 512),
   * with the entries it holds; logged as an interaction that `feedback` can rate. */
  context(question: string, options: Omit<ContextRequest, "question"> = {}): Promise<ContextResponse> {
    return this.request("POST /v1/context", { body: { ...options, question } });
  }

  /** Rate the answer of a `retrieve` or `context` call; with `answers` (the entries that
   * answered, or should have) or `nothing`, its question becomes a reference question. */
  feedback(
    interactionId: string,
    rating: Rating,
    comment?: string,
    reference: { answers?: string[]; nothing?: boolean } = {},
  ): Promise<FeedbackResponse> {
    return this.request("POST /v1/feedback", {
      body: {
        interaction_id: interactionId,
        rating,
        ...(comment === undefined ? {} : { comment }),
        ...reference,
      },
    });
  }

  /** Record a question whose answer is known: the entries that answer it, or `nothing: true`;
   * `strata sweep` asks such questions to fit the namespace's calibration. */
  recordReference(
    question: string,
    options: Omit<ReferenceRequest, "question"> = {},
  ): Promise<ReferenceOut> {
    return this.request("POST /v1/references", { body: { ...options, question } });
  }

  /** What was asked on a day (default today, UTC): questions, strong matches, unanswered ones, feedback. */
  dailyReport(options: { date?: string; namespace?: string } = {}): Promise<DailyReportResponse> {
    return this.request("GET /v1/reports/daily", { query: options });
  }

  /** Past executions of a similar task and the patterns that apply to it. */
  routineCheck(task: string, options: Namespaced = {}): Promise<RoutineCheckResponse> {
    return this.request("POST /v1/routine-check", { body: { ...options, task } });
  }

  getEntry(id: string, options: Namespaced = {}): Promise<EntryDetail> {
    return this.request("GET /v1/entries/{entry_id}", { params: { entry_id: id }, query: options });
  }

  deleteEntry(id: string, options: Namespaced = {}): Promise<DeleteResponse> {
    return this.request("DELETE /v1/entries/{entry_id}", { params: { entry_id: id }, query: options });
  }

  /** Who did what to an entry, and when. */
  history(id: string, options: Namespaced = {}): Promise<HistoryResponse> {
    return this.request("GET /v1/entries/{entry_id}/history", { params: { entry_id: id }, query: options });
  }

  // -- collections and documents

  /** Register a folder of the server's disk as a collection and scan it. */
  addCollection(collection: CollectionRequest): Promise<ScanOut> {
    return this.request("POST /v1/collections", { body: collection });
  }

  collections(): Promise<CollectionsResponse> {
    return this.request("GET /v1/collections");
  }

  collection(name: string): Promise<CollectionOut> {
    return this.request("GET /v1/collections/{name}", { params: { name } });
  }

  /** Re-scan a collection's folder. */
  updateCollection(name: string): Promise<ScanOut> {
    return this.request("POST /v1/collections/{name}/update", { params: { name } });
  }

  renameCollection(name: string, newName: string): Promise<CollectionOut> {
    return this.request("PATCH /v1/collections/{name}", { params: { name }, body: { name: newName } });
  }

  removeCollection(name: string): Promise<CollectionOut> {
    return this.request("DELETE /v1/collections/{name}", { params: { name } });
  }

  /** Lines of a collection's document: `path` is `<collection>/<relative path>`. */
  getDocument(path: string, options: { from?: number; lines?: number } = {}): Promise<DocumentOut> {
    return this.request("GET /v1/documents", { query: { path, ...options } });
  }

  /** The documents a glob or a comma-separated list of paths names, up to `maxBytes` in all. */
  getDocuments(pattern: string, options: { maxBytes?: number } = {}): Promise<DocumentsResponse> {
    const body = options.maxBytes === undefined ? { pattern } : { pattern, max_bytes: options.maxBytes };
    return this.request("POST /v1/documents/batch", { body });
  }

  // -- service

  health(): Promise<Health> {
    return this.request("GET /health");
  }

  stats(): Promise<StatsResponse> {
    return this.request("GET /v1/stats");
  }

  // -- admin

  /** Promote tier C entries to tier A (admin). */
  promote(ids: string[], options: Namespaced = {}): Promise<PromoteResponse> {
    return this.request("POST /v1/admin/promote", { body: { ...options, ids } });
  }

  jobs(): Promise<JobsResponse> {
    return this.request("GET /v1/admin/jobs");
  }

  runJob(name: string): Promise<JobOut> {
    return this.request("POST /v1/admin/jobs/{name}/run", { params: { name } });
  }

  /** Start rebuilding the vector and keyword indexes from the ledger. */
  rebuild(): Promise<RebuildOut> {
    return this.request("POST /v1/admin/rebuild");
  }

  rebuildStatus(): Promise<RebuildOut> {
    return this.request("GET /v1/admin/rebuild");
  }

  /** Entries the indexes could not take, with why. */
  quarantine(): Promise<QuarantineResponse> {
    return this.request("GET /v1/admin/quarantine");
  }
}

function isRaw(body: unknown): body is BodyInit {
  return (
    typeof body === "string" ||
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer ||
    body instanceof Blob ||
    body instanceof URLSearchParams ||
    body instanceof FormData ||
    body instanceof ReadableStream
  );
}

function isJson(contentType: string | null): boolean {
  const media = (contentType ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return media === "application/json" || media.endsWith("+json");
}
