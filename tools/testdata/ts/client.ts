// A client team's first calls with openapi-fetch over the types
// openapi-typescript generates from the document as served
// (local/clientgen's test writes them to schema.d.ts beside this file and
// type-checks both with tsc --strict). Nothing here runs: it must compile.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Line = components["schemas"]["Line"];
type Tier = components["schemas"]["UserOwn"]["tier"];

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" });

export async function journey(isbn: string): Promise<Line | undefined> {
  const signup = await client.POST("/v1/auth/signup", {
    body: { email: "journey@example.com", password: "journey-password-1", displayName: "Journey Reader" },
    params: { header: { "Idempotency-Key": "journey-signup" } },
  });
  if (!signup.data) {
    throw new Error(signup.error?.error.code);
  }
  const auth = { Authorization: `Bearer ${signup.data.token}` };
  const tier: Tier = signup.data.user?.tier ?? "free";

  const book = await client.GET("/v1/books/isbn/{isbn}", { params: { path: { isbn } } });
  if (!book.data) {
    throw new Error(book.error?.error.message);
  }
  const posted = await client.POST("/v1/lines", {
    body: { bookId: book.data.id, content: `A line from a ${tier} reader.`, pageNumber: 42 },
    params: { header: { "Idempotency-Key": "journey-line" } },
    headers: auth,
  });
  if (posted.error) {
    // The 403 of a quota route: details, when present, is the monthly-limit
    // body; the 429's is the rate-limit body.
    const details = posted.error.error.details;
    if (details && "kind" in details) {
      throw new Error(`${details.kind}: ${details.current} of ${details.limit}, again ${details.resetsAt}`);
    }
    if (details && "action" in details) {
      throw new Error(`${details.action}: retry in ${details.retryAfter} ms`);
    }
    throw new Error(posted.error.error.code);
  }
  const read = await client.GET("/v1/lines/{id}", { params: { path: { id: posted.data.id } }, headers: auth });
  return read.data;
}
