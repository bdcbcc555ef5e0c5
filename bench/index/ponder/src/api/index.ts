import { Hono } from "hono";
import { count } from "ponder";
import { db } from "ponder:api";
import { agent, feedback } from "ponder:schema";

// GET /counts: the rows stored, for bench/index/ponder.sh to check against the chain.
const app = new Hono();

app.get("/counts", async (c) => {
  const [f] = await db.select({ n: count() }).from(feedback);
  const [a] = await db.select({ n: count() }).from(agent);
  return c.json({ feedback: f?.n ?? 0, agent: a?.n ?? 0 });
});

export default app;
