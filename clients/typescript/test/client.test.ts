// The client against a real strata server. tests/e2e/test_typescript_client.py starts one
// with these keys and a folder of notes, then runs `npm test` with:
//   STRATA_TEST_URL         the server
//   STRATA_TEST_ADMIN_KEY   an admin key
//   STRATA_TEST_AGENT_KEY   an agent key of the namespace `alice`
//   STRATA_TEST_BURST_KEY   another agent key of `alice`, which the limits test exhausts
//   STRATA_TEST_NOTES       a folder holding deploys.md and adr/007.md, inside the collection roots
import assert from "node:assert/strict";
import { test } from "node:test";

import { StrataClient, StrataError, retryAfter } from "../src/index.js";
import type { EntryDetail, Route, SearchHit } from "../src/index.js";

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run these tests through pytest tests/e2e/test_typescript_client.py`);
  }
  return value;
}

const url = setting("STRATA_TEST_URL");
const admin = new StrataClient({ url, apiKey: setting("STRATA_TEST_ADMIN_KEY") });
const alice = new StrataClient({ url, apiKey: setting("STRATA_TEST_AGENT_KEY") });

/** The error `promise` rejects with, checked to be a `StrataError`. */
async function failure(promise: Promise<unknown>): Promise<StrataError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StrataError, `not a StrataError: ${String(error)}`);
    return error;
  }
  assert.fail("resolved, expected a StrataError");
}

test("events are written, found by search, read with their history and deleted", async () => {
  const written = await alice.addEvents([
    {
      id: "ts-pref-1",
      tier: "A",
      speaker: "Alice",
      tags: ["diet"],
      text: "I am allergic to peanuts, so never suggest satay.",
    },
    { id: "ts-run-1", tier: "E", speaker: "ci", text: "integration suite passed in 41s" },
  ]);
  assert.deepEqual(written.ids, ["ts-pref-1", "ts-run-1"]);
  assert.equal(written.embedded, 1, "tier E is never embedded");

  const found = await alice.search("peanut allergy", { limit: 5, explain: true });
  const hit = found.results[0] as SearchHit;
  assert.equal(hit.id, "ts-pref-1");
  assert.equal(hit.namespace, "alice");
  assert.equal(hit.tier, "A");
  assert.ok(hit.score > 0 && hit.score <= 1);
  assert.ok(hit.explain?.["bm25"], "explain names each list");

  const logs = await alice.search("integration suite", { tiers: ["E"] });
  assert.equal(logs.mode, "bm25");
  assert.deepEqual(
    logs.results.map((h) => h.id),
    ["ts-run-1"],
  );

  const entry: EntryDetail = await alice.getEntry("ts-pref-1");
  assert.equal(entry.text, "I am allergic to peanuts, so never suggest satay.");
  assert.deepEqual(entry.tags, ["diet"]);
  const history = await alice.history("ts-pref-1", { namespace: "alice" });
  assert.equal(history.history[0]?.action, "created");

  const standup = await alice.remember("Today I am finishing the billing migration.", {
    tier: "C",
    chain_type: "standup",
  });
  assert.equal((await alice.getEntry(standup)).tier, "C");
  assert.deepEqual(await alice.deleteEntry(standup), { id: standup, namespace: "alice", deleted: true });
  assert.equal((await failure(alice.getEntry(standup))).status, 404);
});

test("retrieve answers with grounded entries, and its answer can be rated", async () => {
  await alice.remember("Deploys to production go out on Thursdays after the change board.", { id: "ts-deploy-day" });
  const answer = await alice.retrieve("When do deploys go out?", { top_n: 3, asker: "ts-client" });
  assert.equal(answer.entries[0]?.id, "ts-deploy-day");
  assert.equal(typeof answer.strong_match, "boolean");
  assert.ok(answer.interaction_id);

  const rated = await alice.feedback(answer.interaction_id, "up", "right day", { answers: ["ts-deploy-day"] });
  assert.equal(rated.interaction_id, answer.interaction_id);
  assert.equal(rated.rating, "up");
  assert.ok(rated.reference_id);

  const nothing = await alice.recordReference("Who won the office chess match?", { nothing: true });
  assert.equal(nothing.nothing, true);
  assert.equal(nothing.source, "agent");
  assert.equal((await failure(alice.recordReference("When?", { answers: ["no-such-entry"] }))).status, 422);

  const report = await alice.dailyReport({ namespace: "alice" });
  assert.ok(report.questions >= 1);
  assert.equal(report.feedback["up"], 1);

  const check = await alice.routineCheck("deploy the billing service");
  assert.equal(typeof check.is_routine, "boolean");
});

test("context gives one cited block within its budget, and its answer can be rated", async () => {
  await alice.remember("Billing keeps its invoices in PostgreSQL for the transactions.", { id: "ts-billing-db" });
  const made = await alice.context("Where does billing keep its invoices?", { max_tokens: 64, tiers: ["A"] });
  assert.ok(made.tokens <= 64 && made.max_tokens === 64);
  assert.equal(made.entries[0]?.id, "ts-billing-db");
  assert.ok(made.context.includes(made.entries[0]?.citation ?? "?"));
  assert.match(made.context, /^### Decisions and facts \(\d{4}\)\n- \[ts-billing-db /);
  const rated = await alice.feedback(made.interaction_id, "down");
  assert.equal(rated.interaction_id, made.interaction_id);
  assert.equal((await failure(alice.context("x", { max_tokens: 8 }))).status, 422);
});

test("collections: registered, searched with file and lines, read, renamed, removed", async () => {
  const notes = setting("STRATA_TEST_NOTES");
  const scan = await admin.addCollection({ name: "ts-notes", path: notes, namespace: "alice" });
  assert.equal(scan.added, 2);
  assert.equal(scan.collection.namespace, "alice");
  assert.deepEqual(
    (await admin.collections()).collections.map((c) => c.name),
    ["ts-notes"],
  );

  const found = await alice.search("which protocol do services talk over?", { limit: 3 });
  const note = found.results.find((h) => h.file);
  assert.equal(note?.file, "ts-notes/adr/007.md");
  assert.match(note?.lines ?? "", /^\d+-\d+$/);

  const lines = await alice.getDocument("ts-notes/deploys.md", { from: 3, lines: 1 });
  assert.equal(lines.text, "3| Deploys go out on Thursdays.", "numbered lines");
  assert.equal(lines.first_line, 3);
  const many = await alice.getDocuments("ts-notes/*.md", { maxBytes: 4096 });
  assert.deepEqual(
    many.documents.map((d) => d.path),
    ["ts-notes/deploys.md"],
  );

  assert.equal((await admin.updateCollection("ts-notes")).unchanged, 2);
  assert.equal((await admin.renameCollection("ts-notes", "ts-docs")).name, "ts-docs");
  assert.equal((await admin.collection("ts-docs")).files, 2);
  assert.equal((await admin.removeCollection("ts-docs")).name, "ts-docs");
  assert.equal((await failure(admin.collection("ts-docs"))).status, 404);
});

test("admin: promote, jobs, rebuild status, quarantine, stats and health", async () => {
  const id = await admin.remember("The team standup moved to 9:30.", { tier: "C", namespace: "ops" });
  assert.deepEqual(await admin.promote([id], { namespace: "ops" }), { namespace: "ops", promoted: [id] });
  assert.equal((await admin.getEntry(id, { namespace: "ops" })).tier, "A");

  const jobs = await admin.jobs();
  assert.ok(jobs.jobs.some((job) => job.name === "expire_c_tier"));
  const ran = await admin.runJob("expire_c_tier");
  assert.equal(ran.name, "expire_c_tier");
  assert.ok(ran.runs >= 1);

  assert.ok(["idle", "done", "running"].includes((await admin.rebuildStatus()).state));
  assert.ok(Array.isArray((await admin.quarantine()).entries));
  const stats = await admin.stats();
  assert.ok(stats.namespaces.some((ns) => ns.namespace === "ops"));
  const health = await alice.health();
  assert.equal(health.status, "ok");
  assert.equal(health.model, "all-MiniLM-L6-v2");
});

test("problem details become StrataErrors: 404, 422 with its fields, 401, 403", async () => {
  const missing = await failure(alice.getEntry("no-such-entry"));
  assert.equal(missing.status, 404);
  assert.equal(missing.title, "Not found");
  assert.match(missing.detail, /no-such-entry/);
  assert.equal(missing.retryAfter, null);
  assert.equal(missing.retryable, false);

  const invalid = await failure(alice.search("anything", { limit: 0 }));
  assert.equal(invalid.status, 422);
  assert.deepEqual(
    invalid.errors.map((e) => e.field),
    ["limit"],
  );
  assert.equal(invalid.problem?.status, 422);

  const stranger = new StrataClient({ url, apiKey: "not-a-key-0123456789" });
  assert.equal((await failure(stranger.stats())).status, 401);
  const elsewhere = await failure(alice.search("anything", { namespace: "bob" }));
  assert.equal(elsewhere.status, 403);
  assert.equal((await failure(alice.jobs())).status, 403, "jobs are an admin's");
});

test("over a limit, the error says how many seconds to wait (429, Retry-After)", async () => {
  const burst = new StrataClient({ url, apiKey: setting("STRATA_TEST_BURST_KEY") });
  // More than a second's allowance of an agent key (and than its requests in flight), at once.
  const settled = await Promise.allSettled(Array.from({ length: 120 }, () => burst.collections()));
  const limited = settled
    .filter((s): s is PromiseRejectedResult => s.status === "rejected")
    .map((s) => s.reason as StrataError);
  assert.ok(limited.length > 0, "some requests were over the limit");
  for (const error of limited) {
    assert.ok(error instanceof StrataError);
    assert.equal(error.status, 429);
    assert.equal(error.retryable, true);
    assert.ok(error.retryAfter !== null && error.retryAfter >= 1, `Retry-After: ${error.retryAfter}`);
  }
});

test("request() calls any route by METHOD /path, typed by the OpenAPI document", async () => {
  const route: Route = "GET /v1/entries/{entry_id}";
  const entry = await alice.request(route, { params: { entry_id: "ts-pref-1" }, query: { namespace: "alice" } });
  assert.equal(entry.id, "ts-pref-1");
  const rebuild = await admin.request("GET /v1/admin/rebuild");
  assert.equal(typeof rebuild.done, "number");
  await assert.rejects(
    // @ts-expect-error: a required path parameter left out does not compile, nor run
    alice.request("GET /v1/entries/{entry_id}", {}),
    TypeError,
  );
});

test("a base URL with a trailing slash, and a request aborted by its signal", async () => {
  const slashed = new StrataClient({ url: `${url}/`, apiKey: setting("STRATA_TEST_AGENT_KEY") });
  assert.equal((await slashed.getEntry("ts-pref-1")).id, "ts-pref-1");
  await assert.rejects(alice.request("GET /health", { signal: AbortSignal.abort() }), { name: "AbortError" });
});

test("Retry-After is read as seconds or as an HTTP date", () => {
  assert.equal(retryAfter("7"), 7);
  assert.equal(retryAfter(null), null);
  assert.equal(retryAfter("soon"), null);
  const now = Date.parse("2026-11-24T12:00:00Z");
  assert.equal(retryAfter("Tue, 24 Nov 2026 12:00:30 GMT", now), 30);
  assert.equal(retryAfter("Tue, 24 Nov 2026 11:00:00 GMT", now), 0);
});
