// Who the signed-in user is (GET /v1/me): asked once per token, at boot, so a page that shows its
// owner's controls (the transcript page, rooms) has the answer with its data instead of asking
// after its first render. A new token (signed in again, or as someone else) asks again.
import { api, session } from "./api";

let asked: { token: string; sub: Promise<string | null> } | null = null;

/** The signed-in user's id; null when nobody is signed in (or the API could not say). */
export function whoAmI(): Promise<string | null> {
  const token = session.token();
  if (!token) return Promise.resolve(null);
  if (asked?.token !== token) {
    const sub = api.GET("/v1/me").then(({ data }) => {
      // Not kept: a failed answer is asked again by the next page.
      if (!data && asked?.sub === sub) asked = null;
      return data?.sub ?? null;
    });
    asked = { token, sub };
  }
  return asked.sub;
}
