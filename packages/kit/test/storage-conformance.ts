// The behaviour every storage driver must have; each driver's test file runs it against its own instance.
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readSmallObject, type ObjectStorage } from "../src/storage/index";

async function text(s: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function storageConformance(name: string, open: () => ObjectStorage) {
  describe(`${name} storage driver`, () => {
    it("stores and reads back an object byte for byte, with its size", async () => {
      const s = open();
      const body = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
      expect(await s.put("a/b/data.bin", body)).toEqual({ size: 3000 });
      const got = await s.get("a/b/data.bin");
      expect(got.size).toBe(3000);
      expect(Buffer.compare(await readSmallObject(s, "a/b/data.bin"), body)).toBe(0);
      got.body.destroy();
    });

    it("streams a Readable body in", async () => {
      const s = open();
      await s.put("stream.txt", Readable.from(["hello ", "world"]), { contentType: "text/plain" });
      expect(await text((await s.get("stream.txt")).body)).toBe("hello world");
    });

    it("reads an inclusive byte range", async () => {
      const s = open();
      await s.put("range.txt", "0123456789");
      expect(await text((await s.get("range.txt", { range: { start: 2, end: 5 } })).body)).toBe("2345");
      expect(await text((await s.get("range.txt", { range: { start: 9, end: 9 } })).body)).toBe("9");
      await expect(s.get("range.txt", { range: { start: 5, end: 10 } })).rejects.toThrow();
    });

    it("answers head with size, and null for a missing object; get of a missing object is NotFound", async () => {
      const s = open();
      await s.put("h/audio.mp3", "abc");
      expect(await s.head("h/audio.mp3")).toMatchObject({ key: "h/audio.mp3", size: 3 });
      expect(await s.head("h/missing.mp3")).toBeNull();
      await expect(s.get("h/missing.mp3")).rejects.toMatchObject({ kind: "not_found" });
    });

    it("lists by prefix and deletes, ignoring keys that do not exist", async () => {
      const s = open();
      await s.put("list/t1/a.webm", "1");
      await s.put("list/t1/b.webm", "22");
      await s.put("list/t2/c.webm", "333");
      const listed: string[] = [];
      for await (const o of s.list("list/t1/")) listed.push(o.key);
      expect(listed.sort()).toEqual(["list/t1/a.webm", "list/t1/b.webm"]);
      await s.delete(["list/t1/a.webm", "list/t1/nope.webm"]);
      expect(await s.head("list/t1/a.webm")).toBeNull();
      expect(await s.head("list/t1/b.webm")).not.toBeNull();
    });

    it("overwrites an object atomically", async () => {
      const s = open();
      await s.put("over.txt", "first version");
      await s.put("over.txt", "second");
      expect(await text((await s.get("over.txt")).body)).toBe("second");
    });
  });
}
