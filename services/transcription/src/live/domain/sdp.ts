// ICE behind a 1:1 NAT (a pod or VM with a public address that is not on its interfaces): the
// answer's host candidates are announced a second time with the public address and the same port,
// which the NAT forwards to the socket that gathered them (the UDP port range is forwarded as is).

/** The SDP with a copy of every IPv4 host UDP candidate at `publicAddress` (none when null). */
export function withPublicAddress(sdp: string, publicAddress: string | null): string {
  if (!publicAddress) return sdp;
  const lines = sdp.split(/\r\n/);
  const out: string[] = [];
  let added = 0;
  for (const line of lines) {
    out.push(line);
    // a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ host …
    const m = /^a=candidate:(\S+) (\d+) (udp) (\d+) (\d{1,3}(?:\.\d{1,3}){3}) (\d+) typ host(.*)$/i.exec(line);
    if (!m || m[5] === publicAddress) continue;
    // Just below the original's priority: a peer on the same network still pairs the private one first.
    const priority = Math.max(1, Number(m[4]) - 1);
    out.push(`a=candidate:${m[1]}p${++added} ${m[2]} ${m[3]} ${priority} ${publicAddress} ${m[6]} typ host${m[7]}`);
  }
  return out.join("\r\n");
}

/** What is wrong with a browser's offer before it reaches the WebRTC stack, or null. */
export function offerProblem(sdp: string): string | null {
  if (!/^v=0\r?\n/.test(sdp)) return "not an SDP session description (it must start with v=0)";
  if (!/^m=audio /m.test(sdp)) return "the offer has no audio media section";
  return null;
}
