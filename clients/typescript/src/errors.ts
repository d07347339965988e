import type { FieldProblem, Problem } from "./openapi.js";

/** The service answered with an error status. Its RFC 9457 problem details are spread on the
 * error: `status`, `title`, `detail`, `type`, the invalid fields of a 422 (`errors`), and
 * `retryAfter`, the seconds the service asked to wait (429, 503), else `null`. */
export class StrataError extends Error {
  override readonly name = "StrataError";
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  readonly errors: FieldProblem[];
  readonly retryAfter: number | null;
  /** The problem-details body as the service sent it (`null` if the body was not one). */
  readonly problem: Problem | null;

  constructor(
    status: number,
    problem: Problem | null,
    fallback: { title: string; detail: string },
    retryAfter: number | null,
  ) {
    const title = problem?.title ?? fallback.title;
    const detail = problem?.detail ?? fallback.detail;
    super(`${status} ${title}: ${detail}`);
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.type = problem?.type ?? "about:blank";
    this.errors = problem?.errors ?? [];
    this.retryAfter = retryAfter;
    this.problem = problem;
  }

  /** Whether the same request may succeed later: over a limit (429) or an engine away (503). */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503;
  }

  /** The error an answer with an error status stands for. */
  static async from(response: Response): Promise<StrataError> {
    const text = await response.text();
    const fallback = { title: response.statusText || `HTTP ${response.status}`, detail: text };
    return new StrataError(response.status, asProblem(text), fallback, retryAfter(response.headers.get("retry-after")));
  }
}

function asProblem(text: string): Problem | null {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && "title" in body && "status" in body) {
      return body as Problem;
    }
  } catch {
    // Not JSON: a proxy's error page, say; the text becomes the detail.
  }
  return null;
}

/** `Retry-After` in seconds: delay-seconds, or an HTTP date from now (RFC 9110, 10.2.3). */
export function retryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === "") {
    return null;
  }
  if (/^\d+$/.test(header.trim())) {
    return Number(header.trim());
  }
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
