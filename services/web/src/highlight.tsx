// Marks the query's words in a search snippet (the API answers plain text snippets).
export function Highlighted({ text, query }: { text: string; query: string }) {
  const words = query
    .toLowerCase()
    .replace(/["()]/g, " ")
    .split(/\s+/)
    .filter((w) => w && w !== "or" && !w.startsWith("-"));
  if (words.length === 0) return <>{text}</>;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const parts = text.split(new RegExp(`(${escaped.join("|")})`, "gi"));
  return <>{parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</>;
}
