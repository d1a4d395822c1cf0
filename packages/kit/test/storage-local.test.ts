import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalStorage } from "../src/storage/index";
import { storageConformance } from "./storage-conformance";

const root = mkdtempSync(join(tmpdir(), "scribe-storage-"));
storageConformance("local", () => new LocalStorage(root, "bucket"));

describe("local storage driver", () => {
  it("refuses keys that escape the bucket folder", async () => {
    const s = new LocalStorage(root, "bucket");
    await expect(s.put("../outside.txt", "x")).rejects.toMatchObject({ kind: "invalid" });
    await expect(s.get("/etc/passwd")).rejects.toMatchObject({ kind: "invalid" });
  });
  it("cannot presign (the gateway streams local objects itself)", async () => {
    expect(await new LocalStorage(root, "bucket").presignGet("x", { expiresInSeconds: 60 })).toBeNull();
  });
});
