// The transcript-reads bench's baseline, in a process of its own as the gateway and the projection
// run in theirs: a bare Hono + postgres.js server answering GET /v1/transcripts/:id with the read
// model's row and its topics, read and serialised with nothing around it. DATABASE_URL names the
// database; it prints its port on the first line of stdout.
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import postgres from "postgres";

const sql = postgres(process.env.DATABASE_URL!, {
  max: Number(process.env.DATABASE_POOL_SIZE ?? 3),
  onnotice: () => {},
  connection: { search_path: "projection,public" },
});
const app = new Hono();
app.get("/v1/transcripts/:id", async (c) => {
  const [row] =
    await sql`select t.*, coalesce((select json_agg(p.topic order by p.position) from topic p where p.transcript_id = t.id), '[]') as topics
    from transcript t where t.id = ${c.req.param("id")}`;
  return row ? c.json(row) : c.notFound();
});
serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => console.log(info.port));
process.on("SIGTERM", () => void sql.end({ timeout: 5 }).then(() => process.exit(0)));
