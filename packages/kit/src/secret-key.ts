// SECRET_KEY signs login tokens and audio links: a key anyone can read (the built-in default, the
// chart's and compose's examples) lets anyone forge both. Start-up refuses such keys in every auth
// mode (audio links use the key even without users); only `scribe dev` runs with a key of its own.

/** The shortest key accepted: 32 characters (`openssl rand -hex 32` gives 64). */
export const MIN_SECRET_KEY_LENGTH = 32;

/** Keys that have been published: defaults and examples of this project and its reference. */
const KNOWN_PLACEHOLDERS = new Set([
  "changeme-f02f86fd8b3e4fd892c6043e5a298e21",
  "change-me-in-production",
  "change-me-compose-secret-key",
]);

const PLACEHOLDER_WORDS = /change-?me|placeholder|example|your[-_]?secret/i;

/** Why `key` must not be used as SECRET_KEY, or null when it may. */
export function secretKeyProblem(key: string): string | null {
  const fix = "set SECRET_KEY to a random value of your own, e.g. `openssl rand -hex 32`";
  if (KNOWN_PLACEHOLDERS.has(key) || PLACEHOLDER_WORDS.test(key)) {
    return `SECRET_KEY: is a published placeholder, so anyone could forge login tokens and audio links; ${fix}`;
  }
  if (key.length < MIN_SECRET_KEY_LENGTH) {
    return `SECRET_KEY: shorter than ${MIN_SECRET_KEY_LENGTH} characters; ${fix}`;
  }
  return null;
}
