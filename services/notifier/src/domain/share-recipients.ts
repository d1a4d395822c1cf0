// Who a transcript shared by e-mail goes to: a short list of plain addresses (comma- or
// semicolon-separated), so the endpoint cannot be used to mail a crowd or to smuggle headers.

const PLAIN_ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+\.[^\s@<>,;:"()[\]\\]+$/;

export type RecipientsOutcome = { ok: true; addresses: string[] } | { ok: false; msg: string };

export function shareRecipients(raw: string, max: number): RecipientsOutcome {
  const addresses = raw
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter(Boolean);
  if (addresses.length === 0) return { ok: false, msg: "an e-mail address is required" };
  if (addresses.length > max) return { ok: false, msg: `at most ${max} recipient(s) per request` };
  const bad = addresses.find((a) => !PLAIN_ADDRESS.test(a));
  if (bad !== undefined) return { ok: false, msg: `not an e-mail address: ${JSON.stringify(bad.slice(0, 100))}` };
  return { ok: true, addresses: [...new Set(addresses.map((a) => a.toLowerCase()))] };
}
