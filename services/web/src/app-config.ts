// What the gateway tells the app at start-up (GET /app-config.json): the auth mode, the identity
// provider's endpoints when it signs users in, and the upload limits. Fetched once per page load.
import { useEffect, useState } from "preact/hooks";

export interface AppConfig {
  auth_backend: "none" | "jwt" | "password";
  oidc: {
    provider_name: string;
    client_id: string;
    scope: string;
    issuer: string;
    authorization_endpoint: string;
    token_endpoint: string;
  } | null;
  oidc_unavailable?: true;
  upload: { max_chunk_bytes: number; max_chunks: number };
}

let loading: Promise<AppConfig> | null = null;

export function appConfig(): Promise<AppConfig> {
  loading ??= fetch("/app-config.json").then(async (res) => {
    if (!res.ok) throw new Error(`app-config.json: HTTP ${res.status}`);
    return (await res.json()) as AppConfig;
  });
  return loading;
}

/** The app's configuration once loaded (null before that). */
export function useAppConfig(): AppConfig | null {
  const [config, setConfig] = useState<AppConfig | null>(null);
  useEffect(() => {
    let current = true;
    void appConfig().then((c) => current && setConfig(c));
    return () => {
      current = false;
    };
  }, []);
  return config;
}
